"""A run's signed statement, from the tracking server: downloaded, its signature checked against the trust file,
and held to the run it sits in (rc1.release.attest says what a statement is)."""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from mlflow.entities import Run
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient

from rc1.core.errors import Rc1Error
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


@dataclass(frozen=True)
class SignedRun:
    """A run a later link trusts, as its key signed it: `info` (id, status) from the store, `tags` and `metrics` from
    its verified statement. It has no `data`, so nothing reads the store's tags through it by mistake."""
    run: Run
    stmt: Statement

    @property
    def info(self):
        return self.run.info

    @property
    def tags(self) -> Mapping[str, str]:
        return self.stmt.tags

    @property
    def metrics(self) -> Mapping[str, float]:
        return self.stmt.metrics

    def named_file(self, name: str, dest: str | Path) -> Path:
        """The file the run logged as `rc1.artifact.<name>` (StageRun.log_named_artifact), downloaded and held to the
        digest its statement signed for it (and for `sha256.<name>`, where it signed one: the two must agree);
        Rc1Error when it signed no such file."""
        art = self.tags.get(f"rc1.artifact.{name}")
        want = self.stmt.subjects.get(art) if art else None
        if not want or self.tags.get(f"sha256.{name}", want) != want:
            raise Rc1Error(f"it signed no {name} file (rc1.artifact.{name} and its digest)")
        return fetch_signed(self.run, art, want, dest)


def signed_run(run: Run, stage: str, trust: Trust | None = None) -> SignedRun:
    """`run` with its verified statement (run_statement's AttestationError when it has none that holds)."""
    return SignedRun(run, run_statement(run, stage, trust))


def fetch_signed(run: Run, artifact: str, want: str, dest: str | Path) -> Path:
    """One artifact of `run`, downloaded into `dest` and held to the digest its statement signed (`want`)."""
    from rc1.tracking.queries import fetch_artifact

    try:
        return fetch_artifact(run, artifact, dest, want)
    except Rc1Error as e:
        if "does not match" in str(e):
            raise Rc1Error(f"{artifact} in the tracking server does not match the digest its statement signed "
                           f"(altered in the store?)") from None
        raise
