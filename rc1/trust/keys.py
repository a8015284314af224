"""Keys and the trust root: who signs a statement, and whose signatures count.

- signing: RC1_SIGNING_KEY, the path of an Ed25519 private key (PEM, PKCS#8). Prod requires it (and its public key
  in the trust root for prod); dev, without it, uses a key rc1 creates once under the user's config directory
  ($XDG_CONFIG_HOME/rc1/dev_signing_key.pem, default ~/.config/rc1), readable by the user only.
- trusted: the trust root, one file the user controls: `--trust FILE` where a command takes it, else $RC1_TRUST,
  else configs/trust.yaml of the rc1 checkout whose code runs (never the working directory's, never the tracking
  store's). Its keys' statements count, each for the modes it may attest; in dev the user's own dev key counts
  too. Every verification names the file it used and its sha256 (`Trust.describe`).
"""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from rc1.core.errors import Rc1Error
from rc1.trust.statements import AttestationError, keyid_of, open_envelope, seal

KEY_ENV = "RC1_SIGNING_KEY"
TRUST_ENV = "RC1_TRUST"
DEV_KEY = "dev_signing_key.pem"
MODES = ("dev", "prod")
CHECKOUT = Path(__file__).resolve().parents[2]   # the rc1 checkout whose code runs (an editable install's repo)
CHECKOUT_TRUST = CHECKOUT / "configs" / "trust.yaml"


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
        return seal(statement, self.key)


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
    origin: str = "the rc1 checkout"   # how it was chosen: --trust, $RC1_TRUST or the rc1 checkout
    dev_key: bool = True               # whether the user's own dev key counts (dev only); never for a store's copy

    def describe(self) -> str:
        """`trust root: <path> sha256 <digest> (<origin>; N key(s))`: what a verification names."""
        return (f"trust root: {self.path} sha256 {self.sha256} ({self.origin}; {len(self.keys)} key(s)"
                f"{' + your dev key for dev' if self.dev_key and _dev_public() else ''})")

    def for_mode(self, mode: str) -> dict[str, TrustedKey]:
        """The keys whose statements count in `mode`: the trust file's for that mode, and in dev the user's own dev
        key (a dev chain proves the path on this machine; RC1 needs prod, which only the trust file's keys sign)."""
        return {k: v for k, v in self.every_key().items() if mode in v.modes}

    def every_key(self) -> dict[str, TrustedKey]:
        """The trust file's keys and the user's own dev key (for dev only), whatever mode a statement claims:
        `verified` then holds the statement's mode to its key's modes."""
        own = _dev_public() if self.dev_key else None
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
                       f"(PEM) whose public key is in {trust_path()[0]} for prod (docs/stages.md, 'Keys')")
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


# ---------------------------------------------------------------- the trust root
_given: Path | None = None   # --trust FILE of the running command (rc1.trust.keys.pin)


def pin(path: str | os.PathLike | None) -> None:
    """`--trust FILE` of the command now running: its trust root (None: none given, the default rules)."""
    global _given
    _given = None
    if path is None:
        return
    p = Path(path).expanduser()
    if not p.is_file():
        raise Rc1Error(f"--trust {path}: not a file (the trust root: the public keys whose statements count)")
    _given = p.resolve()


def trust_path() -> tuple[Path, str]:
    """(the trust root, how it was chosen): --trust, else $RC1_TRUST, else the rc1 checkout's configs/trust.yaml.
    Never a file of the working directory or of the tracking store."""
    if _given is not None:
        return _given, "--trust"
    if os.environ.get(TRUST_ENV):
        return Path(os.environ[TRUST_ENV]).expanduser().resolve(), f"${TRUST_ENV}"
    return CHECKOUT_TRUST, "the rc1 checkout"


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


def load_trust(path: str | os.PathLike | None = None, *, origin: str | None = None, dev_key: bool = False) -> Trust:
    """The trust file: `keys: [{name, public_key (base64 of the raw 32-byte Ed25519 key), modes: [dev|prod]}]`;
    `path` unset: the trust root (trust_path). A file given as `path` (a preflight's signed copy) is only that file:
    the user's dev key does not count through it unless `dev_key`. Bad input: one line naming the file and the
    entry."""
    import yaml
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    if path is None:
        p, origin = trust_path()
        dev_key = True
        if not p.exists() and origin == "the rc1 checkout":   # an installed rc1 without configs/: your dev key only
            return Trust(str(p), hashlib.sha256(b"").hexdigest(), {}, f"{origin}, absent", True)
    else:
        p, origin = Path(path), origin or "given"
    try:
        raw = p.read_bytes()
    except OSError:
        raise Rc1Error(f"{p}: cannot read the trust file (the public keys whose statements rc1 accepts; "
                       f"chosen by {origin})") from None
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
    return Trust(str(p), hashlib.sha256(raw).hexdigest(), keys, origin, dev_key)
