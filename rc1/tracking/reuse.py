"""Reuse (as in MLflow's multistep example): a stage run's key (stage, params, input digests, code version, mode),
the finished run with that key whose signed statement holds, its outputs restored to the digests signed and its
verdict re-raised."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import mlflow
from mlflow.entities import Run
from mlflow.tracking import MlflowClient

import rc1
from rc1.core.settings import run_mode
from rc1.core.errors import CheckFailed, Rc1Error
from rc1.core.io import atomic_open, sha256_dir, sha256_file, sha256_text
from rc1.tracking.queries import _search, origin_of

log = logging.getLogger("rc1")


def code_version() -> str:
    """sha256 of rc1's own source (library, stages, flows): the 'code version' part of a reuse key."""
    return sha256_text(sha256_dir(Path(rc1.__file__).parent, "**/*.py"))[:16]


def digest_of(value: Any) -> str:
    """A stable digest for an input: a file's or directory's sha256, or the sha256 of a JSON value."""
    if isinstance(value, (str, os.PathLike)) and Path(value).is_file():
        return sha256_file(value)
    if isinstance(value, (str, os.PathLike)) and Path(value).is_dir():
        return sha256_dir(value)
    return sha256_text(json.dumps(value, sort_keys=True, default=str))


def param_value(v: Any) -> str:
    v = origin_of(v) or v   # a downloaded file: where it came from, not the folder rc1 deletes
    if isinstance(v, (dict, list, tuple)):
        s = json.dumps(v, sort_keys=True, default=str)
    else:
        s = str(v)
    return s if len(s) <= 6000 else s[:5990] + "…"


def reuse_key(stage: str, params: dict[str, Any], input_digests: dict[str, str]) -> str:
    """Stage, params, input digests, code version and run mode (a stage reads its gates for the mode: a dev run's
    verdict never answers for prod)."""
    blob = json.dumps(
        {"stage": stage, "params": {k: param_value(v) for k, v in params.items()}, "inputs": input_digests,
         "code": code_version(), "mode": run_mode()},
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def signs_for_reuse() -> bool:
    """Whether this process can sign a reusable run (dev: the user's dev key; prod: RC1_SIGNING_KEY, trusted for prod).
    A run it cannot sign is never reused: reuse takes a run's outputs and verdict from its signed statement."""
    from rc1.trust import keys

    try:
        keys.signer(run_mode(), keys.load_trust())
    except Rc1Error:
        return False
    return True


def find_reusable(stage: str, key: str):
    """(the newest finished `stage` run with this reuse key whose signed statement holds and says so, that statement),
    else None. The store's tags only find candidates: a run edited there (its outputs, report or rc1.passed) or made
    there by hand has no statement that holds, and is computed again instead."""
    from rc1.tracking.evidence import StoreSource, record
    from rc1.trust.runs import run_statement
    from rc1.trust.statements import AttestationError

    source = StoreSource()
    runs = _search(f"tags.`rc1.stage` = '{stage}' AND tags.`rc1.reuse_key` = '{key}' "
                   f"AND tags.`rc1.computed` = 'true' AND attributes.status = 'FINISHED'", max_results=5)
    for run in runs:
        try:
            stmt = run_statement(source, record(run), stage)
        except (AttestationError, Rc1Error):
            continue
        if stmt.tags.get("rc1.reuse_key") == key:
            return run, stmt
    return None


def restore_outputs(run: Run, stmt, outputs: dict[str, Path]) -> bool:
    """Copy a finished run's output artifacts to the requested paths, each held to the digest its statement signed;
    False (nothing to reuse) when one does not match or was not signed."""
    client = MlflowClient()
    for key, dest in outputs.items():
        art = stmt.tags.get(f"rc1.output.{key}")
        if art is None:
            if stmt.tags.get("rc1.passed") == "false":
                continue  # a failed gate may withhold an output (weight_calib's weights); its verdict is re-raised
            return False
        with tempfile.TemporaryDirectory() as d:
            local = Path(client.download_artifacts(run.info.run_id, art, d))
            got = sha256_dir(local) if local.is_dir() else sha256_file(local)
            if got != stmt.subjects.get(art) or local.is_dir() != (art in stmt.directories):
                log.warning("run %s: artifact %s does not match the digest its statement signed (altered in the "
                            "store?); computing it again", run.info.run_id, art)
                return False
            dest = Path(dest)
            if local.is_dir():   # never in place of a directory rc1 did not write (rc1.core.outdir)
                from rc1.core.outdir import replace_out_dir

                replace_out_dir(local, dest, run.data.tags.get("rc1.stage", "stage"), what=f"output {key}")
            else:
                with atomic_open(dest, "wb") as out, open(local, "rb") as src:
                    shutil.copyfileobj(src, out)
    return True


def reused_params(prior: dict[str, str], run_id: str) -> dict[str, str]:
    """The earlier run's params for the run that reuses it, but for those already logged there (`mlflow run` logs -P
    values as given; MLflow forbids changing a param, and the earlier run, rc1.reused_from, shows its own)."""
    existing = mlflow.get_run(run_id).data.params
    return {k: v for k, v in prior.items() if k not in existing}


def reraise_verdict(run: Run, stmt) -> None:
    """The reused run's verdict, as its statement signed it (its checks.json held to the signed digest)."""
    from rc1.tracking.evidence import StoreSource, record
    from rc1.trust.runs import fetch_signed

    if stmt.tags.get("rc1.passed") != "false":
        return
    failing: list[dict] = []
    with tempfile.TemporaryDirectory() as d, contextlib.suppress(Exception):
        checks = json.loads(fetch_signed(StoreSource(), record(run), "checks.json", stmt.subjects["checks.json"], d).read_text())
        failing = [c for c in checks["checks"] if not c["pass"]]
    stage = stmt.stage
    raise CheckFailed(f"{stage}: {len(failing)} checks failed (reused run {run.info.run_id})", failing)
