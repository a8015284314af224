"""A promote that never ended (killed, power cut) is settled by the next rc1 command that changes the registry
(promote, bundle, export-gguf; `rc1 verify` is read-only and settles nothing).

`rc1 promote` signs its evidence first and sets the alias last (rc1.stages.promote), so a promote killed anywhere
leaves either no alias or one its signed statement covers. What is left is bookkeeping on rc1's own registered model
(rc1-policy) only: promote runs of any other model, or naming any other alias than RC1 / RC1-dev, are not rc1's to
settle. For each promote run of a dead process without an outcome:
- its statement holds (signed by a trusted key, of this version and alias) and the alias points at its version: the
  promotion happened; the run is tagged rc1.promoted=true and ends FINISHED;
- its statement holds and the alias is elsewhere or unset: it ended before setting it; rc1.promoted=false;
- it has no statement that holds: it never reached its evidence, or the run was made in the store; the run is
  tagged rc1.promoted=false and nothing else is touched. No alias is ever removed here: a hand-set alias is refused
  by verify, bundle and export-gguf and removed (or put back) by the registry guard.
Each settled run gets rc1.reconciled saying what was done.
"""

from __future__ import annotations

import os

from mlflow.tracking import MlflowClient

from rc1.tracking.evidence import StoreSource, record
from rc1.tracking.queries import _search
from rc1.tracking.registry import MODEL_NAME
from rc1.tracking.store import HOST, _process_gone
from rc1.trust.rules import RC1, RC1_DEV
from rc1.trust.runs import run_statement
from rc1.trust.statements import AttestationError


def unfinished_promotions() -> list:
    """rc1-policy's promote runs without an outcome whose process is gone (on this host: a RUNNING run elsewhere may be
    alive)."""
    runs = []
    for status in ("RUNNING", "FAILED"):
        runs += _search(f"tags.`rc1.stage` = 'promote' AND tags.`rc1.registered_model` = '{MODEL_NAME}' AND "
                        f"attributes.status = '{status}'", max_results=200)
    out = []
    for r in runs:
        t = r.data.tags
        if "rc1.promoted" in t or "rc1.reconciled" in t:
            continue   # refused, promoted, or settled already
        if r.info.status == "RUNNING" and not (t.get("rc1.host") == HOST and _process_gone(t)):
            continue   # in progress, or on a host whose processes rc1 cannot see
        out.append(r)
    return out


def reconcile_promotions() -> list[str]:
    """Settle every unfinished promotion (see the module docstring); returns one line per run settled."""
    client, source = MlflowClient(), StoreSource()
    said = []
    for run in unfinished_promotions():
        rid = run.info.run_id
        try:
            stmt = run_statement(source, record(run), "promote")
        except AttestationError:
            stmt = None
        signed = stmt.tags if stmt else {}
        version, alias = signed.get("rc1.model_version"), signed.get("rc1.target_alias")
        who = f"rc1 (pid {os.getpid()})"
        if stmt is None or signed.get("rc1.registered_model") != MODEL_NAME or alias not in (RC1, RC1_DEV):
            outcome = {"rc1.promoted": "false",
                       "rc1.reconciled": f"{who}: no signed promotion of {MODEL_NAME}; nothing touched"}
            status = "FAILED"
        else:
            holder = source.alias(MODEL_NAME, alias)
            if holder is not None and holder.version == version:
                outcome = {"rc1.promoted": "true", "rc1.alias": alias,
                           "rc1.reconciled": f"{who}: its process died after it set {alias}; its signed evidence "
                                             f"holds"}
                status = "FINISHED"
            else:
                outcome = {"rc1.promoted": "false",
                           "rc1.reconciled": f"{who}: its process died before it set {alias}; nothing to undo"}
                status = "FAILED"
        for k, v in outcome.items():
            client.set_tag(rid, k, v)
        client.set_terminated(rid, status)
        said.append(f"promote run {rid} (version {version or run.data.tags.get('rc1.model_version')}): "
                    f"{outcome['rc1.reconciled'].split(': ', 1)[1]}")
    return said
