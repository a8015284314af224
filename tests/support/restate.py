"""A run's signed statement rewritten and signed again by another key (rc1.trust): an attacker's own key, or
the test's prod key (conftest's `prod_key`) standing in for a prod run that recorded the same facts."""

from __future__ import annotations

import base64
import json
import tempfile
from pathlib import Path
from typing import Callable

from mlflow.tracking import MlflowClient

from rc1.core.io import write_json
from rc1.trust import keys, statements


def statement_of(run_id: str) -> dict:
    """The statement the run's envelope carries (its signature not checked)."""
    with tempfile.TemporaryDirectory() as d:
        envelope = json.loads(Path(MlflowClient().download_artifacts(run_id, statements.ENVELOPE, d)).read_text())
    return json.loads(base64.b64decode(envelope["payload"]))


def restate(run_id: str, signer: keys.Signer, edit: Callable[[dict], None] = lambda stmt: None) -> dict:
    """Log over the run's envelope its statement, edited in place by `edit` and signed by `signer`; returns it."""
    stmt = statement_of(run_id)
    edit(stmt)
    with tempfile.TemporaryDirectory() as d:
        MlflowClient().log_artifact(run_id, str(write_json(Path(d) / statements.ENVELOPE, signer.sign(stmt))))
    return stmt


def as_prod(run_id: str) -> dict:
    """The dev run's statement signed as a prod run by the prod key RC1_SIGNING_KEY (the `prod_key` fixture's, listed
    in ./configs/trust.yaml for prod), and its rc1.mode tag, by which a prod gate finds it, set to prod."""
    def prod(stmt: dict) -> None:
        stmt["predicate"]["mode"] = stmt["predicate"]["tags"]["rc1.mode"] = "prod"

    stmt = restate(run_id, keys.signer("prod"), prod)
    MlflowClient().set_tag(run_id, "rc1.mode", "prod")
    return stmt


def attacker() -> keys.Signer:
    """A key of the attacker's own, in no trust file."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    return keys.Signer(key, statements.keyid_of(key.public_key()), "attacker")
