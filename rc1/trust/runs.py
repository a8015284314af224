"""A run's signed statement, from a store (rc1.trust.source.Source): downloaded, its signature checked against the
trust root, and held to the run it sits in; and the run's files, held to the digests it signed."""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from rc1.core.errors import Rc1Error
from rc1.core.io import sha256_dir, sha256_file
from rc1.trust.keys import Trust, load_trust
from rc1.trust.source import FetchError, RunRecord, Source
from rc1.trust.statements import ENVELOPE, AttestationError, Statement


def run_statement(source: Source, run: RunRecord, stage: str, trust: Trust | None = None) -> Statement:
    """The verified statement of `run`, which must be a `stage` run: AttestationError (one short reason) when it
    has none, a trusted key did not sign it, or it speaks of another run or stage (a statement copied over from a
    genuine run)."""
    trust = trust or load_trust()
    with tempfile.TemporaryDirectory() as d:
        try:
            local = source.download(run.run_id, ENVELOPE, Path(d))
            envelope = json.loads(local.read_text(encoding="utf-8"))
        except (FetchError, OSError, ValueError):
            raise AttestationError(f"carries no signed statement ({ENVELOPE})") from None
    stmt = Statement.of(*trust.verified(envelope))
    if stmt.run_id != run.run_id:
        raise AttestationError(f"its signed statement is of run {stmt.run_id}, not this one (copied?)")
    if stmt.stage != stage:
        raise AttestationError(f"its signed statement is of a {stmt.stage} run, not a {stage} run")
    return stmt


@dataclass(frozen=True)
class SignedRun:
    """A run a later link trusts, as its key signed it: `info` (id, status) from the store, `tags`, `params` and
    `metrics` from its verified statement. It has no `data`, so nothing reads the store's tags through it."""
    run: RunRecord
    stmt: Statement
    source: Source

    @property
    def info(self) -> RunRecord:
        return self.run

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
        return fetch_signed(self.source, self.run, art, want, dest, directory=art in self.stmt.directories)

    def artifact(self, artifact: str, dest: str | Path) -> Path:
        """An artifact the run logged and signed (a subject of its statement), downloaded and held to that digest;
        Rc1Error when it signed none of that name."""
        want = self.stmt.subjects.get(artifact)
        if not want:
            raise Rc1Error(f"it signed no {artifact}")
        return fetch_signed(self.source, self.run, artifact, want, dest, directory=artifact in self.stmt.directories)


def signed_run(source: Source, run: RunRecord, stage: str, trust: Trust | None = None) -> SignedRun:
    """`run` with its verified statement (run_statement's AttestationError when it has none that holds)."""
    return SignedRun(run, run_statement(source, run, stage, trust), source)


def fetch_signed(source: Source, run: RunRecord, artifact: str, want: str, dest: str | Path, *,
                 directory: bool = False) -> Path:
    """One artifact of `run` (a file, or with `directory` a directory signed by its rc1-dir-sha256), downloaded into
    `dest` and held to the digest its statement signed (`want`). The kind is part of what was signed: a directory's
    digest is the sha256 of a byte string a file can hold, so a file in its place must not pass."""
    Path(dest).mkdir(parents=True, exist_ok=True)
    try:
        local = source.download(run.run_id, artifact, Path(dest))
    except FetchError as e:
        raise Rc1Error(f"run {run.run_id}: artifact {artifact} cannot be downloaded ({e})") from None
    if local.is_dir() != directory:
        raise Rc1Error(f"{artifact} in the tracking server is a {'directory' if local.is_dir() else 'file'} where its "
                       f"statement signed a {'directory' if directory else 'file'} (altered in the store?)")
    got = sha256_dir(local) if directory else sha256_file(local)
    if got != want:
        raise Rc1Error(f"{artifact} in the tracking server does not match the digest its statement signed "
                       f"(altered in the store?)")
    return local
