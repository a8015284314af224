"""Who scored and who answered: the identity a scoring stage's reuse key holds (built here, once, for every stage).

judge_identity(judge): provider, endpoint (base URL without credentials), model, the sampling settings that shape
a reply (temperature, K, max tokens, response format, context length), the judge spec version and the stability
policy that turns samples into a score. responder_identity(kind, ...): the candidate source, likewise (kind, K,
seed, endpoint without credentials or local model directory with a fingerprint of its files, sampling settings).
identity_digest(identity): the sha256 a reuse key and a run tag (rc1.judge_identity, rc1.responder_identity) carry.

Two runs with the same params but another judge server, model, temperature or spec version differ here, so a
stage never answers from a run another judge scored. No key ever enters: URLs go through redaction.safe_url.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
from typing import Any

from rc1.core.io import stat_fingerprint
from rc1.core.redaction import refuse_userinfo, safe_url
from rc1.scoring.providers import response_format
from rc1.scoring.responder import EndpointResponder, ModelResponder
from rc1.scoring.spec import JUDGE_SPEC_VERSION

JUDGE_TAG = "rc1.judge_identity"
RESPONDER_TAG = "rc1.responder_identity"


def identity_digest(identity: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()


def judge_identity(judge) -> dict[str, Any]:
    """The identity of a rc1.scoring.judge.ScoringJudge (never its key)."""
    s = judge.settings
    endpoint = judge.endpoint()
    return {"provider": endpoint["provider"], "base_url": safe_url(endpoint["base_url"]), "model": endpoint["model"],
            "live": bool(judge.live), "spec_version": JUDGE_SPEC_VERSION,
            "samples": s.samples, "temperature": s.temperature, "max_tokens": s.max_tokens,
            "response_format": response_format(endpoint["provider"]) if s.json_mode and judge.live else None,
            "context_chars": s.context_chars, "unstable_variance": judge.unstable_variance,
            "unstable_policy": s.unstable_policy, "unstable_weight": s.unstable_weight}


def _defaults(cls) -> dict[str, Any]:
    return {k: p.default for k, p in inspect.signature(cls.__init__).parameters.items()
            if p.default is not inspect.Parameter.empty}


def responder_identity(kind: str, *, k: int, seed: int, model: str | None = None,
                       base_url: str | None = None) -> dict[str, Any]:
    """The identity of the responder make_responder(kind, k=k, seed=seed, model=model, base_url=base_url) builds,
    without building it (a local model is not loaded for it); endpoint settings come from RESPONDER_BASE_URL and
    RESPONDER_MODEL as the responder reads them."""
    out: dict[str, Any] = {"kind": kind, "k": k, "seed": seed}
    if kind == "endpoint":
        d = _defaults(EndpointResponder)
        url = base_url or os.environ.get("RESPONDER_BASE_URL") or ""
        refuse_userinfo(url, "--responder-base-url / RESPONDER_BASE_URL")   # before any run opens
        out.update(base_url=safe_url(url),
                   model=model or os.environ.get("RESPONDER_MODEL") or "",
                   **{x: d[x] for x in ("temperature", "max_tokens", "max_turns")})
    elif kind == "model":
        d = _defaults(ModelResponder)
        out.update(model=str(model or ""), fingerprint=stat_fingerprint(model) if model else "",
                   **{x: d[x] for x in ("temperature", "max_new_tokens", "max_turns")})
    return out


def scoring_identity(judge, responder: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """(reuse-key inputs, run tags) of a scoring stage: the judge's identity, and the responder's when candidates
    are generated; the tags carry their digests (what a later stage looks runs up by)."""
    inputs: dict[str, Any] = {"judge": judge.identity()}
    tags = {JUDGE_TAG: identity_digest(inputs["judge"])}
    if responder is not None:
        inputs["responder"] = responder
        tags[RESPONDER_TAG] = identity_digest(responder)
    return inputs, tags
