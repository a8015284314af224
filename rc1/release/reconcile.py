"""A promote that never ended (killed, power cut) is settled by the next rc1 command that touches the registry.

`rc1 promote` signs its evidence first and sets the alias last (rc1.stages.promote), so a promote killed anywhere
leaves either no alias or one its signed statement covers. What is left is bookkeeping: its run is RUNNING (or
FAILED by rc1's sweep of dead processes) without rc1.promoted. For each such run of a dead process:
- the alias points at its version and its signed statement holds: the promotion happened; the run is tagged
  rc1.promoted=true and ends FINISHED;
- the alias points at its version without such a statement (a run from before signed promotions, or evidence
  altered) and no other promote run signed it: the alias is removed; rc1.promoted=false;
- the alias is elsewhere or unset: it ended before setting it; rc1.promoted=false.
Each run gets rc1.reconciled saying what was done.
"""

from __future__ import annotations

import os

from mlflow.tracking import MlflowClient

from rc1.release.attest import AttestationError
from rc1.tracking.store import HOST, _process_gone
from rc1.tracking.queries import _search


def unfinished_promotions() -> list:
    """Promote runs without an outcome whose process is gone (on this host: a RUNNING run elsewhere may be alive)."""
    runs = []
    for status in ("RUNNING", "FAILED"):
        runs += _search(f"tags.`rc1.stage` = 'promote' AND attributes.status = '{status}'", max_results=200)
    out = []
    for r in runs:
        t = r.data.tags
        if "rc1.promoted" in t or "rc1.reconciled" in t:
            continue   # refused, promoted, or settled already
        if r.info.status == "RUNNING" and not (t.get("rc1.host") == HOST and _process_gone(t)):
            continue   # in progress, or on a host whose processes rc1 cannot see
        out.append(r)
    return out


def signed_elsewhere(version: str, alias: str, run_id: str) -> bool:
    """Another promote run signed this version as this alias (a run without an outcome never costs a genuine alias)."""
    from rc1.tracking.attestations import run_statement
    from rc1.tracking.queries import promote_runs

    for run in promote_runs(version):
        if run.info.run_id == run_id:
            continue
        try:
            stmt = run_statement(run, "promote")
        except AttestationError:
            continue
        if stmt.tags.get("rc1.model_version") == version and stmt.tags.get("rc1.target_alias") == alias:
            return True
    return False


def reconcile_promotions() -> list[str]:
    """Settle every unfinished promotion (see the module docstring); returns one line per run settled."""
    from rc1.tracking.attestations import run_statement
    from rc1.tracking.registry import MODEL_NAME, alias_version

    client = MlflowClient()
    said = []
    for run in unfinished_promotions():
        rid, tags = run.info.run_id, run.data.tags
        version = tags.get("rc1.model_version")
        alias = tags.get("rc1.target_alias") or run.data.params.get("target_alias")
        holder = alias_version(alias, tags.get("rc1.registered_model", MODEL_NAME)) if alias else None
        try:
            stmt = run_statement(run, "promote")
            signed = stmt.tags.get("rc1.model_version") == version and stmt.tags.get("rc1.target_alias") == alias
        except AttestationError:
            signed = False
        who = f"rc1 (pid {os.getpid()})"
        if holder is not None and str(holder.version) == version and signed:
            outcome = {"rc1.promoted": "true", "rc1.alias": alias,
                       "rc1.reconciled": f"{who}: its process died after it set {alias}; its signed evidence holds"}
            status = "FINISHED"
        elif holder is not None and str(holder.version) == version and not signed_elsewhere(version, alias, rid):
            client.delete_registered_model_alias(holder.name, alias)
            outcome = {"rc1.promoted": "false",
                       "rc1.reconciled": f"{who}: {alias} removed: set without complete signed evidence"}
            status = "FAILED"
        else:
            outcome = {"rc1.promoted": "false",
                       "rc1.reconciled": f"{who}: its process died before it set {alias}; nothing to undo"}
            status = "FAILED"
        for k, v in outcome.items():
            client.set_tag(rid, k, v)
        client.set_terminated(rid, status)
        said.append(f"promote run {rid} (version {version}): {outcome['rc1.reconciled'].split(': ', 1)[1]}")
    return said
