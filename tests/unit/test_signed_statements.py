"""Signed statements (rc1.trust): a DSSE envelope holds only when a trusted key, allowed the mode the
statement claims, signed exactly its bytes; the trust file's bad input is one line naming the entry."""

from __future__ import annotations

import base64
import json

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from rc1.core.errors import Rc1Error
from rc1.trust import keys, statements


def _key():
    k = Ed25519PrivateKey.generate()
    return k, keys.Signer(k, statements.keyid_of(k.public_key()), "test")


def _trust(tmp_path, *entries) -> keys.Trust:
    lines = "".join(f"  - {{name: {n}, public_key: {keys.public_b64(k.public_key())}, modes: [{', '.join(m)}]}}\n"
                    for n, k, m in entries)
    (tmp_path / "trust.yaml").write_text("keys:\n" + lines if lines else "keys: []\n")
    return keys.load_trust(tmp_path / "trust.yaml", dev_key=True)   # as the trust root: your dev key counts for dev


def _stmt(mode="prod", tags=None):
    return statements.statement(stage="evaluate", run_id="r1", mode=mode, subjects=[statements.subject("a.json", "0" * 64)],
                            tags=tags or {"rc1.mode": mode}, metrics={"m": 1.0}, trust_sha256="t")


def test_a_trusted_signature_holds_and_anything_else_does_not(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))   # no dev key here
    key, signer = _key()
    other, stranger = _key()
    trust = _trust(tmp_path, ("ci", key, ("prod",)))
    env = signer.sign(_stmt())
    assert env["payloadType"] == statements.PAYLOAD_TYPE and env["signatures"][0]["keyid"] == signer.keyid
    stmt = statements.Statement.of(*trust.verified(env))
    assert (stmt.stage, stmt.run_id, stmt.subjects["a.json"], stmt.key.name) == ("evaluate", "r1", "0" * 64, "ci")

    tampered = dict(env, payload=base64.b64encode(json.dumps(_stmt(tags={"rc1.mode": "prod", "x": "1"}),
                                                             sort_keys=True).encode()).decode())
    with pytest.raises(statements.AttestationError, match="does not hold"):
        trust.verified(tampered)
    with pytest.raises(statements.AttestationError, match="signed by no trusted key"):
        trust.verified(stranger.sign(_stmt()))
    with pytest.raises(statements.AttestationError, match="may attest prod, not a dev run"):
        trust.verified(signer.sign(_stmt(mode="dev")))
    with pytest.raises(statements.AttestationError, match="two modes"):
        trust.verified(signer.sign(_stmt(tags={"rc1.mode": "dev"})))
    with pytest.raises(statements.AttestationError, match="payload type"):   # the type is signed too (DSSE PAE)
        trust.verified(dict(env, payloadType="application/json"))


def test_keys_prod_needs_its_own_trusted_key_dev_makes_one_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.delenv(keys.KEY_ENV, raising=False)
    trust = _trust(tmp_path)
    with pytest.raises(Rc1Error, match="prod signs its evidence with a key of its own: set RC1_SIGNING_KEY"):
        keys.signer("prod", trust)
    dev = keys.signer("dev", trust)
    path = tmp_path / "cfg" / "rc1" / keys.DEV_KEY
    assert path.stat().st_mode & 0o777 == 0o600 and keys.signer("dev", trust).keyid == dev.keyid   # made once
    assert dev.keyid in trust.for_mode("dev") and dev.keyid not in trust.for_mode("prod")
    monkeypatch.setenv(keys.KEY_ENV, str(path))   # a key that is not in the trust file for prod
    with pytest.raises(Rc1Error) as e:
        keys.signer("prod", trust)
    assert "its public key is not in" in str(e.value) and "BEGIN" not in str(e.value)   # never the key itself


@pytest.mark.parametrize("text, says", [
    ("keys: 3\n", "needs a list under `keys`"),
    ("keys:\n  - {name: a}\n", "keys[1]: needs name, public_key and modes"),
    ("keys:\n  - {name: a, public_key: abc, modes: [prod]}\n", "keys[1]: public_key is not a base64 Ed25519"),
    ("keys:\n  - {name: a, public_key: abc, modes: [staging]}\n", "keys[1]: modes must be a list of dev, prod"),
    ("keys: [\n", "line 2: not valid YAML"),
    # an entry put under the shipped `keys: []` as a list item: the line it broke, and what an entry is
    ("# keys\nkeys: []\n  - {name: a, public_key: abc, modes: [prod]}\n",
     "line 3: not valid YAML (while parsing a block mapping expected <block end>, but found '<block sequence start>'); "
     "an entry is a list item under `keys:`"),
])
def test_a_bad_trust_file_is_one_line_naming_the_entry(tmp_path, text, says):
    (tmp_path / "trust.yaml").write_text(text)
    with pytest.raises(Rc1Error, match=None) as e:
        keys.load_trust(tmp_path / "trust.yaml")
    assert says in str(e.value) and str(tmp_path / "trust.yaml") in str(e.value) and "\n" not in str(e.value)
