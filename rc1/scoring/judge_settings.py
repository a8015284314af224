"""Judge client settings (sampling, stability policy, rate limiting, timeouts, cache TTL); their environment
defaults, the run mode and the live switch are read in rc1.core.settings.

Gate thresholds are not here: the unstable-variance bound lives in configs/gates.yaml `scoring:`
(None below means "read it from there").
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from rc1.core.config import GATES_PATH, load_thresholds
from rc1.core.errors import Rc1Error
from rc1.core.settings import JUDGE_SETTING_VARS, judge_setting_values, setting_source

DEFAULT_UNSTABLE_VARIANCE = 0.08


class JudgeSettings(BaseModel):
    """Every number is finite and bounded (allow_inf_nan=False plus an upper bound on each field), so
    a timeout of inf or a rate of 1e308 is refused with the variable's (or option's) name."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    samples: int = Field(3, ge=1, le=10, description="K judge samples per request (median per dimension)")
    temperature: float = Field(0.7, gt=0, le=2, description="sampling temperature of live judge calls")
    max_tokens: int = Field(400, gt=0, le=32768)
    json_mode: bool = Field(True, description="send response_format=json_object")
    context_chars: int = Field(4000, ge=0, le=200_000, description="context excerpt length in the prompt")
    unstable_variance: float | None = Field(None, gt=0, description="None: gates.yaml scoring.unstable_variance_max")
    unstable_policy: Literal["downweight", "rescore"] = "downweight"
    unstable_weight: float = Field(0.5, ge=0, le=1)
    malformed_retries: int = Field(2, ge=0, le=10, description="extra calls after a malformed reply, per sample")
    max_attempts: int = Field(6, ge=1, le=50, description="provider calls per sample on 429/5xx/timeouts")
    circuit_after: int = Field(20, ge=1, le=10_000,
                               description="this many 5xx/timeouts/connection errors in a row: stop")
    dead_after_s: float = Field(60.0, gt=0, le=86_400,
                                description="no usable reply for this long (since the first call, or the last usable "
                                "reply): the endpoint is down; no further call, every call's deadline and backoff "
                                "capped to it, and the judge phase ends with one line naming the failure")
    rate: float = Field(8.0, gt=0, le=10_000, description="token bucket refill, requests per second")
    tpm: int | None = Field(None, ge=100, le=100_000_000,
                            description="tokens per minute (prompt + max_tokens per call); None: no token budget")
    burst: int = Field(4, ge=1, le=10_000, description="token bucket capacity")
    rate_cut_429_ratio: float = Field(0.05, ge=0, le=1, description="cut the rate on a 429 above this 429 ratio")
    rate_decrease: float = Field(0.9, gt=0, le=1, description="rate factor of a cut (at most once per cooldown)")
    rate_increase: float = Field(0.001, gt=0, le=1, description="fraction of `rate` regained per answered call")
    throttle_cooldown_s: float = Field(0.2, ge=0, le=60, description="429s closer together count as one cut")
    min_concurrency: int = Field(1, ge=1, le=256)
    max_concurrency: int = Field(64, ge=1, le=1024, description="slow start's ceiling (the provider's limit lowers it)")
    initial_concurrency: int = Field(1, ge=1, le=256, description="slow start begins here (a one-slot local server "
                                     "stays there; rc1.scoring.limiter.AdaptiveConcurrency)")
    window: int = Field(20, ge=4, le=10_000, description="recent outcomes the 429 ratio is computed over")
    shrink_429_ratio: float = Field(0.20, gt=0, le=1, description="shrink concurrency above this 429 ratio")
    grow_after: int = Field(20, ge=1, le=10_000, description="calls at a settled limit before one more slot is probed")
    timeout_s: float = Field(60.0, gt=0, le=3600,
                             description="per HTTP call: an overall deadline, connect and the whole body "
                             "(rc1.scoring.bounded_http); the adaptive timeout's ceiling, except that a retry after a "
                             "timeout waits twice as long as the try before, up to 8x")
    max_reply_bytes: int = Field(1 << 20, ge=1024, le=64 << 20, description="a reply body longer than this (raw, or "
                                 "once decompressed) is refused unread: one bad reply")
    timeout_p95_factor: float = Field(3.0, ge=1, le=100, description="adaptive timeout: p95 of recent replies x this")
    timeout_min_s: float = Field(1.0, gt=0, le=3600, description="adaptive timeout: never below this")
    concurrency_cap: int = Field(64, ge=1, le=1024, description="the provider's concurrent-request limit: the "
                                 "concurrency never exceeds it")
    backoff_base_s: float = Field(0.5, gt=0, le=60)
    backoff_max_s: float = Field(20.0, gt=0, le=600)
    max_retry_after_s: float = Field(120.0, gt=0, le=3600, description="a longer Retry-After fails the sample")
    cache_ttl_days: float = Field(14.0, gt=0, le=3650)

    @model_validator(mode="after")
    def _bounds(self):
        if self.concurrency_cap < self.max_concurrency:   # the provider allows fewer: the band shrinks under it
            self.max_concurrency = self.concurrency_cap
            self.initial_concurrency = min(self.initial_concurrency, self.concurrency_cap)
            self.min_concurrency = min(self.min_concurrency, self.concurrency_cap)
        if not self.min_concurrency <= self.initial_concurrency <= self.max_concurrency:
            raise ValueError("need min_concurrency <= initial_concurrency <= max_concurrency")
        return self

    @classmethod
    def from_env(cls, **overrides) -> "JudgeSettings":
        """Defaults, then the environment's and the active stage's values (rc1.core.settings.judge_setting_values),
        then overrides. A bad value is an Rc1Error naming the variable or option."""
        values = judge_setting_values()
        values.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return cls.model_validate(values)
        except ValidationError as e:
            err = e.errors()[0]
            key = ".".join(str(p) for p in err["loc"])
            where = setting_source(key) if key in JUDGE_SETTING_VARS and key not in overrides and key in values else key
            shown = f"={values[key]!r}" if key in values else ""
            raise Rc1Error(f"judge settings: {where}{shown}: {err['msg']}") from None


def resolve_unstable_variance(settings: JudgeSettings, gates_path: str | Path | None = GATES_PATH) -> float:
    if settings.unstable_variance is not None:
        return settings.unstable_variance
    if gates_path and Path(gates_path).is_file():
        return load_thresholds(gates_path).scoring.unstable_variance_max   # Thresholds always has `scoring` (defaults)
    return DEFAULT_UNSTABLE_VARIANCE

