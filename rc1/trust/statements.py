"""Signed statements: an in-toto Statement v1 in a DSSE envelope, signed with Ed25519.

A statement says what one stage run consumed and produced (subjects: name + digest; predicate: the stage, its run
id, mode, the trust file it ran under and the params, tags and metrics the run's own process recorded). The
envelope, the pre-authentication encoding, signing and verifying are securesystemslib's (`dsse.Envelope`,
`signer.CryptoSigner`, `SSlibKey`): rc1 writes by hand only the statement's JSON (six keys) and the rule that a
statement carries exactly one signature.

DSSE: https://github.com/secure-systems-lab/dsse; in-toto Statement v1:
https://github.com/in-toto/attestation/blob/main/spec/v1/statement.md.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass
from typing import Any, Mapping

from rc1.core.errors import Rc1Error

PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "urn:rc1:stage-run:v1"
ENVELOPE = "rc1.intoto.json"            # the run artifact that holds a run's envelope
DIR_DIGEST = "rc1-dir-sha256"           # a directory's digest (rc1.core.io.sha256_dir), not the sha256 of one file


class AttestationError(Rc1Error):
    """A statement that does not verify; the message says why in a few words."""


def keyid_of(public_key) -> str:
    """sha256 of the raw 32-byte Ed25519 public key."""
    from cryptography.hazmat.primitives import serialization

    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()


def sslib_key(public_key):
    """The securesystemslib key of an Ed25519 public key, under rc1's key id."""
    from securesystemslib.signer import SSlibKey

    return SSlibKey.from_crypto(public_key, keyid=keyid_of(public_key))


def seal(statement: Mapping[str, Any], private_key) -> dict:
    """The DSSE envelope (as JSON) of `statement`, signed by `private_key` (Ed25519)."""
    from securesystemslib.dsse import Envelope
    from securesystemslib.signer import CryptoSigner

    body = json.dumps(statement, sort_keys=True, separators=(",", ":")).encode()
    envelope = Envelope(body, PAYLOAD_TYPE, {})
    envelope.sign(CryptoSigner(private_key, sslib_key(private_key.public_key())))
    return envelope.to_dict()


def open_envelope(envelope: Any, keys: Mapping[str, Any]) -> tuple[dict, Any]:
    """(the statement, the key that signed it) when the envelope carries one signature and it holds under one of
    `keys` (key id -> an object with `.public` and `.name`); AttestationError otherwise."""
    from securesystemslib.dsse import Envelope
    from securesystemslib.exceptions import FormatError, VerificationError

    try:
        env = Envelope.from_dict(copy.deepcopy(envelope))   # from_dict rewrites the signatures it reads
    except (KeyError, TypeError, ValueError, AttributeError, FormatError) as e:
        raise AttestationError(f"not a DSSE envelope ({type(e).__name__})") from None
    if env.payload_type != PAYLOAD_TYPE:
        raise AttestationError(f"payload type {env.payload_type!r}, not {PAYLOAD_TYPE}")
    if len(env.signatures) != 1:
        raise AttestationError(f"carries {len(env.signatures)} signatures; rc1 signs each statement with one key")
    (keyid,) = env.signatures
    key = keys.get(keyid)
    if key is None:
        raise AttestationError(f"signed by no trusted key (key {keyid[:12]} is not in the trust file for this "
                               f"mode)")
    try:
        env.verify([sslib_key(key.public)], 1)
    except (VerificationError, ValueError, FormatError):
        raise AttestationError(f"the signature of key {key.name} ({keyid[:12]}) does not hold") from None
    try:
        stmt = json.loads(env.payload)
    except ValueError:
        raise AttestationError("its signed payload is not JSON") from None
    if not isinstance(stmt, dict) or stmt.get("_type") != STATEMENT_TYPE \
            or stmt.get("predicateType") != PREDICATE_TYPE:
        raise AttestationError("its signed payload is not an rc1 in-toto statement")
    return stmt, key


def subject(name: str, digest: str, *, directory: bool = False, uri: str | None = None) -> dict:
    out = {"name": name, "digest": {DIR_DIGEST if directory else "sha256": digest}}
    if uri:
        out["uri"] = uri
    return out


def statement(*, stage: str, run_id: str, mode: str, subjects: list[dict], tags: Mapping[str, str],
              metrics: Mapping[str, float], trust_sha256: str, params: Mapping[str, str] | None = None) -> dict:
    return {"_type": STATEMENT_TYPE, "subject": subjects, "predicateType": PREDICATE_TYPE,
            "predicate": {"stage": stage, "run_id": run_id, "mode": mode, "trust_sha256": trust_sha256,
                          "params": dict(sorted((params or {}).items())),
                          "tags": dict(sorted(tags.items())), "metrics": dict(sorted(metrics.items()))}}


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
    key: Any                             # rc1.trust.keys.TrustedKey
    trust_sha256: str
    params: Mapping[str, str] | None = None   # None: a statement from before params were signed
    directories: frozenset[str] = frozenset()   # the subjects signed by their rc1-dir-sha256 (directories, not files)

    @classmethod
    def of(cls, stmt: Mapping[str, Any], key) -> "Statement":
        p = stmt.get("predicate") or {}
        subjects = {s.get("name"): (s.get("digest") or {}).get("sha256") or (s.get("digest") or {}).get(DIR_DIGEST)
                    for s in stmt.get("subject", []) if isinstance(s, dict)}
        uris = {s.get("name"): s["uri"] for s in stmt.get("subject", []) if isinstance(s, dict) and s.get("uri")}
        params = p.get("params")
        directories = frozenset(s.get("name") for s in stmt.get("subject", [])
                                if isinstance(s, dict) and DIR_DIGEST in (s.get("digest") or {}))
        return cls(str(p.get("stage")), str(p.get("run_id")), str(p.get("mode")), dict(p.get("tags") or {}),
                   dict(p.get("metrics") or {}), subjects, uris, key, str(p.get("trust_sha256")),
                   dict(params) if isinstance(params, dict) else None, directories)
