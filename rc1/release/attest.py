"""Signed statements: what a stage run consumed and produced, signed by a key that never enters the tracking store.

A statement is an in-toto Statement v1 (subjects: name + digest; predicate: the stage, its run id, mode and what the
run recorded) in a DSSE envelope signed with Ed25519 (`cryptography`). The envelope is logged as the run's artifact
`rc1.intoto.json`; whoever later trusts the run (promote, verify, evaluate) downloads it, checks the signature
against the public keys of the trust file, and takes the run's facts from the signed statement, never from its tags.

Keys:
- signing: RC1_SIGNING_KEY, the path of an Ed25519 private key (PEM, PKCS#8). Prod requires it (and its public key
  in the trust file for prod); dev, without it, uses a key rc1 creates once under the user's config directory
  ($XDG_CONFIG_HOME/rc1/dev_signing_key.pem, default ~/.config/rc1), readable by the user only.
- trusted: the trust file (configs/trust.yaml, or RC1_TRUST), which the user controls: the public keys whose
  statements count, each for the modes it may attest. In dev the user's own dev key counts too. The trust file is
  read from the local checkout, never from the tracking store.

DSSE: https://github.com/secure-systems-lab/dsse (envelope.md, protocol.md); in-toto Statement v1:
https://github.com/in-toto/attestation/blob/main/spec/v1/statement.md.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from rc1.core.errors import Rc1Error

PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "urn:rc1:stage-run:v1"
ENVELOPE = "rc1.intoto.json"            # the run artifact that holds a run's envelope
KEY_ENV = "RC1_SIGNING_KEY"
TRUST_ENV = "RC1_TRUST"
TRUST_PATH = Path("configs/trust.yaml")
DEV_KEY = "dev_signing_key.pem"
DIR_DIGEST = "rc1-dir-sha256"           # a directory's digest (rc1.core.io.sha256_dir), not the sha256 of one file
MODES = ("dev", "prod")


class AttestationError(Rc1Error):
    """A statement that does not verify; the message says why in a few words."""


# ---------------------------------------------------------------- DSSE
def pae(payload_type: str, body: bytes) -> bytes:
    """DSSE v1 pre-authentication encoding: what is signed, so the payload type cannot be swapped."""
    t = payload_type.encode()
    return b"DSSEv1 %d %s %d %s" % (len(t), t, len(body), body)


def keyid_of(public_key) -> str:
    """sha256 of the raw 32-byte Ed25519 public key."""
    from cryptography.hazmat.primitives import serialization

    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()


def public_b64(public_key) -> str:
    from cryptography.hazmat.primitives import serialization

    return base64.b64encode(public_key.public_bytes(serialization.Encoding.Raw,
                                                    serialization.PublicFormat.Raw)).decode()


@dataclass(frozen=True)
class Signer:
    key: Any                 # Ed25519PrivateKey
    keyid: str
    source: str              # where the key came from, for messages (a path, never the key)

    def sign(self, statement: Mapping[str, Any]) -> dict:
        body = json.dumps(statement, sort_keys=True, separators=(",", ":")).encode()
        sig = self.key.sign(pae(PAYLOAD_TYPE, body))
        return {"payloadType": PAYLOAD_TYPE, "payload": base64.b64encode(body).decode(),
                "signatures": [{"keyid": self.keyid, "sig": base64.b64encode(sig).decode()}]}


@dataclass(frozen=True)
class TrustedKey:
    keyid: str
    public: Any              # Ed25519PublicKey
    name: str
    modes: tuple[str, ...]


@dataclass(frozen=True)
class Trust:
    path: str
    sha256: str
    keys: Mapping[str, TrustedKey] = field(default_factory=dict)

    def for_mode(self, mode: str) -> dict[str, TrustedKey]:
        """The keys whose statements count in `mode`: the trust file's for that mode, and in dev the user's own dev
        key (a dev chain proves the path on this machine; RC1 needs prod, which only the trust file's keys sign)."""
        return {k: v for k, v in self.every_key().items() if mode in v.modes}

    def every_key(self) -> dict[str, TrustedKey]:
        """The trust file's keys and the user's own dev key (for dev only), whatever mode a statement claims:
        `verified` then holds the statement's mode to its key's modes."""
        own = _dev_public()
        return {**({own.keyid: own} if own is not None else {}), **self.keys}

    def verified(self, envelope: Any) -> tuple[dict, TrustedKey]:
        """(statement, key) when a trusted key signed it and may attest the mode it claims; AttestationError else."""
        try:
            stmt, key = open_envelope(envelope, self.every_key())
        except AttestationError as e:
            if "no trusted key" in str(e):
                raise AttestationError(f"{e} ({self.path})") from None
            raise
        mode = (stmt.get("predicate") or {}).get("mode")
        if ((stmt.get("predicate") or {}).get("tags") or {}).get("rc1.mode", mode) != mode:
            raise AttestationError("its statement claims two modes")   # the chain's mode is the tags'; one only
        if mode not in key.modes:
            raise AttestationError(f"key {key.name} ({key.keyid[:12]}) may attest {', '.join(key.modes)}, "
                                   f"not a {mode} run")
        return stmt, key


def open_envelope(envelope: Any, keys: Mapping[str, TrustedKey]) -> tuple[dict, TrustedKey]:
    """(the statement, the key that signed it) when a signature by one of `keys` holds; AttestationError otherwise."""
    from cryptography.exceptions import InvalidSignature

    try:
        body = base64.b64decode(envelope["payload"], validate=True)
        if envelope.get("payloadType") != PAYLOAD_TYPE:
            raise AttestationError(f"payload type {envelope.get('payloadType')!r}, not {PAYLOAD_TYPE}")
        sigs = list(envelope["signatures"])
    except (KeyError, TypeError, ValueError) as e:
        raise AttestationError(f"not a DSSE envelope ({type(e).__name__})") from None
    seen = []
    for s in sigs:
        key = keys.get(str(s.get("keyid", ""))) if isinstance(s, dict) else None
        if key is None:
            seen.append(str(s.get("keyid", "?"))[:12] if isinstance(s, dict) else "?")
            continue
        try:
            key.public.verify(base64.b64decode(s["sig"], validate=True), pae(PAYLOAD_TYPE, body))
        except (InvalidSignature, KeyError, TypeError, ValueError):
            raise AttestationError(f"the signature of key {key.name} ({key.keyid[:12]}) does not hold") from None
        try:
            statement = json.loads(body)
        except ValueError:
            raise AttestationError("its signed payload is not JSON") from None
        if not isinstance(statement, dict) or statement.get("_type") != STATEMENT_TYPE \
                or statement.get("predicateType") != PREDICATE_TYPE:
            raise AttestationError("its signed payload is not an rc1 in-toto statement")
        return statement, key
    raise AttestationError(f"signed by no trusted key (key {', '.join(seen) or 'none'} is not in the trust file "
                           f"for this mode)")


# ---------------------------------------------------------------- statements
def subject(name: str, digest: str, *, directory: bool = False, uri: str | None = None) -> dict:
    out = {"name": name, "digest": {DIR_DIGEST if directory else "sha256": digest}}
    if uri:
        out["uri"] = uri
    return out


def statement(*, stage: str, run_id: str, mode: str, subjects: list[dict], tags: Mapping[str, str],
              metrics: Mapping[str, float], trust_sha256: str) -> dict:
    return {"_type": STATEMENT_TYPE, "subject": subjects, "predicateType": PREDICATE_TYPE,
            "predicate": {"stage": stage, "run_id": run_id, "mode": mode, "trust_sha256": trust_sha256,
                          "tags": dict(sorted(tags.items())), "metrics": dict(sorted(metrics.items()))}}


# ---------------------------------------------------------------- keys
def config_dir() -> Path:
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "rc1"


def _load_private(path: Path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except OSError as e:
        raise Rc1Error(f"{KEY_ENV}={path}: cannot read the signing key ({e.strerror or type(e).__name__})") from None
    except (ValueError, TypeError):
        raise Rc1Error(f"{KEY_ENV}={path}: not an unencrypted PEM private key") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise Rc1Error(f"{KEY_ENV}={path}: not an Ed25519 key")
    return key


def _dev_public() -> TrustedKey | None:
    path = config_dir() / DEV_KEY
    if not path.is_file():
        return None
    pub = _load_private(path).public_key()
    return TrustedKey(keyid_of(pub), pub, "your dev key", ("dev",))


def _create_dev_key(path: Path) -> None:
    """Once per user: a fresh key, written readable by the user only (never overwriting one)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    pem = Ed25519PrivateKey.generate().private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                     serialization.NoEncryption())
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
    try:
        os.link(tmp, path)   # whole or not at all, and never over a key another rc1 process made meanwhile
    except FileExistsError:
        return
    finally:
        tmp.unlink()
    import click

    click.echo(f"[rc1 DEV] created your dev signing key {path} (readable by you only); dev runs sign with it",
               err=True)


def signer(mode: str, trust: Trust | None = None) -> Signer:
    """The key this process signs with. Prod: RC1_SIGNING_KEY, required, and listed in the trust file for prod (so
    a prod run never signs what promote will not accept); dev: RC1_SIGNING_KEY, else the user's dev key (created
    once)."""
    given = os.environ.get(KEY_ENV)
    if given:
        path = Path(given).expanduser()
    elif mode == "prod":
        raise Rc1Error(f"prod signs its evidence with a key of its own: set {KEY_ENV} to an Ed25519 private key file "
                       f"(PEM) whose public key is in {trust_path()} for prod (docs/stages.md, 'Keys')")
    else:
        path = config_dir() / DEV_KEY
        if not path.is_file():
            _create_dev_key(path)
    key = _load_private(path)
    s = Signer(key, keyid_of(key.public_key()), str(path))
    if mode == "prod":
        trust = trust or load_trust()
        if s.keyid not in trust.for_mode("prod"):
            raise Rc1Error(f"{KEY_ENV}={path}: its public key is not in {trust.path} for prod; add "
                           f"{{name: <who>, public_key: {public_b64(key.public_key())}, modes: [prod]}} under keys")
    return s


# ---------------------------------------------------------------- trust file
def trust_path() -> Path:
    return Path(os.environ.get(TRUST_ENV) or TRUST_PATH)


def _small_order(raw: bytes) -> bool:
    """An Ed25519 point of order dividing 8 (the identity among them): OpenSSL's verify accepts a fixed signature
    under it for every message. Its Montgomery image is a small-order X25519 point, where X25519's clamped scalar
    gives the all-zero secret that the library refuses."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

    p = 2**255 - 19
    y = (int.from_bytes(raw, "little") & ((1 << 255) - 1)) % p
    if y == 1:
        return True
    u = (1 + y) * pow((1 - y) % p, -1, p) % p
    try:
        X25519PrivateKey.generate().exchange(X25519PublicKey.from_public_bytes(u.to_bytes(32, "little")))
    except ValueError:
        return True
    return False


def load_trust(path: str | os.PathLike | None = None) -> Trust:
    """The trust file: `keys: [{name, public_key (base64 of the raw 32-byte Ed25519 key), modes: [dev|prod]}]`.
    Bad input: one line naming the file and the entry."""
    import yaml
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    p = Path(path) if path else trust_path()
    if not p.exists() and not path and not os.environ.get(TRUST_ENV):
        return Trust(str(p), hashlib.sha256(b"").hexdigest(), {})   # no configs/ here: no key but your dev key
    try:
        raw = p.read_bytes()
    except OSError:
        raise Rc1Error(f"{p}: cannot read the trust file (the public keys whose statements rc1 accepts)") from None
    try:
        doc = yaml.safe_load(raw) or {}
    except yaml.YAMLError as e:
        from rc1.core.io import yaml_problem

        raise Rc1Error(f"{p}: {yaml_problem(e)}; an entry is a list item under `keys:` (docs/prod.md, step 5)") from None
    entries = doc.get("keys") if isinstance(doc, dict) else None
    if not isinstance(entries, list):
        raise Rc1Error(f"{p}: needs a list under `keys`")
    keys: dict[str, TrustedKey] = {}
    for i, e in enumerate(entries, 1):
        where = f"{p}: keys[{i}]"
        if not isinstance(e, dict) or not {"name", "public_key", "modes"} <= set(e):
            raise Rc1Error(f"{where}: needs name, public_key and modes")
        modes = tuple(e["modes"]) if isinstance(e["modes"], list) else ()
        if not modes or any(m not in MODES for m in modes):
            raise Rc1Error(f"{where}: modes must be a list of {', '.join(MODES)}")
        try:
            pub = Ed25519PublicKey.from_public_bytes(base64.b64decode(str(e["public_key"]), validate=True))
        except ValueError:
            raise Rc1Error(f"{where}: public_key is not a base64 Ed25519 public key (32 bytes)") from None
        if _small_order(base64.b64decode(str(e["public_key"]))):
            raise Rc1Error(f"{where}: public_key is a small-order point (a signature under it verifies for any "
                           "message): not a real key")
        keys[keyid_of(pub)] = TrustedKey(keyid_of(pub), pub, str(e["name"]), modes)
    return Trust(str(p), hashlib.sha256(raw).hexdigest(), keys)


@dataclass(frozen=True)
class Statement:
    """A verified statement's facts: what the run recorded, as its key signed them."""
    stage: str
    run_id: str
    mode: str
    tags: Mapping[str, str]
    metrics: Mapping[str, float]
    subjects: Mapping[str, str]          # name -> digest
    uris: Mapping[str, str]              # name -> uri, where a subject has one (the logged model)
    key: TrustedKey
    trust_sha256: str

    @classmethod
    def of(cls, stmt: Mapping[str, Any], key: TrustedKey) -> "Statement":
        p = stmt.get("predicate") or {}
        subjects = {s.get("name"): (s.get("digest") or {}).get("sha256") or (s.get("digest") or {}).get(DIR_DIGEST)
                    for s in stmt.get("subject", []) if isinstance(s, dict)}
        uris = {s.get("name"): s["uri"] for s in stmt.get("subject", []) if isinstance(s, dict) and s.get("uri")}
        return cls(str(p.get("stage")), str(p.get("run_id")), str(p.get("mode")), dict(p.get("tags") or {}),
                   dict(p.get("metrics") or {}), subjects, uris, key, str(p.get("trust_sha256")))
