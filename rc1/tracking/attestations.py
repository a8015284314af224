"""A run's signed statement, from the tracking server: downloaded, its signature checked against the trust file,
and held to the run it sits in (rc1.release.attest says what a statement is)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from mlflow.entities import Run
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient

from rc1.release.attest import ENVELOPE, AttestationError, Statement, Trust, load_trust


def run_statement(run: Run, stage: str, trust: Trust | None = None) -> Statement:
    """The verified statement of `run`, which must be a `stage` run: AttestationError (one short reason) when it
    has none, a trusted key did not sign it, or it speaks of another run or stage (a statement copied over from a
    genuine run)."""
    trust = trust or load_trust()
    run_id = run.info.run_id
    with tempfile.TemporaryDirectory() as d:
        try:
            local = Path(MlflowClient().download_artifacts(run_id, ENVELOPE, d))
            envelope = json.loads(local.read_text(encoding="utf-8"))
        except (MlflowException, OSError, ValueError):
            raise AttestationError(f"carries no signed statement ({ENVELOPE})") from None
    stmt = Statement.of(*trust.verified(envelope))
    if stmt.run_id != run_id:
        raise AttestationError(f"its signed statement is of run {stmt.run_id}, not this one (copied?)")
    if stmt.stage != stage:
        raise AttestationError(f"its signed statement is of a {stmt.stage} run, not a {stage} run")
    return stmt
