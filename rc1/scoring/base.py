"""The judge contract shared by scoring (producer) and reward/shadow/training (consumers).

A JudgeRequest is one candidate dialogue to score against its gold item; a JudgeResult holds the
median of K samples per dimension (each in [0, 1]), the variance, and whether it is usable.
A failed result (provider error after retries, malformed replies) has failed=True and scores=None:
it is never silently scored 0 or 1.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from rc1.core.text import valid_unicode


@dataclass(frozen=True)
class JudgeRequest:
    item_id: str                    # shadow/seed item id
    candidate_id: str               # distinguishes the K candidates of one item
    task: str                       # hotpotqa | strategyqa | gsm8k
    question: str                   # the question as the user finally asked it
    gold_answer: str
    needs_clarification: bool
    dialogue: tuple[dict, ...]      # the whole candidate dialogue: user/assistant/tool turns
    hidden_info: str | None = None
    context: tuple = ()             # supporting paragraphs the judge may use for grounding
    difficulty: str | None = None   # easy | medium | hard, when known

    def __post_init__(self):
        # the policy wrote the dialogue: a lone surrogate in it would fail every hash, cache row and HTTP body of the
        # judge call (a failed, zero-advantage reward the policy could produce at will)
        object.__setattr__(self, "dialogue", valid_unicode(self.dialogue))

    def digest(self) -> str:
        """Content digest (cache key part): what the judge sees, not the ids."""
        blob = json.dumps(
            {k: v for k, v in asdict(self).items() if k not in ("item_id", "candidate_id", "difficulty")},
            sort_keys=True, default=list,
        )
        return hashlib.sha256(blob.encode()).hexdigest()


@dataclass
class JudgeResult:
    request: JudgeRequest
    scores: dict[str, float] | None            # median per dimension; None when failed
    variance: dict[str, float] = field(default_factory=dict)
    samples: list[dict[str, float]] = field(default_factory=list)
    unstable: bool = False                     # any dimension's variance > the configured bound
    failed: bool = False
    error: str | None = None
    cached: bool = False
    latency_ms: float = 0.0
    weight: float = 1.0                        # < 1 when unstable and the policy is down-weighting
    unreadable: bool = False                   # failed only as replies that were no verdict (the judge answered)


class Judge(Protocol):
    provider: str          # "heuristic", "openai-compatible", ...
    live: bool             # True only for a real remote/local model behind an HTTP endpoint

    def score_many(self, requests: list[JudgeRequest], progress: bool = True) -> list[JudgeResult]:
        """Score every request, in order; one result per request, none lost or duplicated."""
        ...

    def stats(self) -> dict[str, Any]:
        """Counters: calls, billable_count, cache_hits, cache_misses, cache_hit_rate, rps, 429_rate,
        avg_latency_ms, errors, failed, unstable."""
        ...
