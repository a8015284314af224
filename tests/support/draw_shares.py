"""What share of a sampler's draws came from each source and pool difficulty (the sampler tests' measure)."""

from __future__ import annotations

from typing import Iterable

from rc1.core.records import DIFFICULTIES, pool_item_difficulty
from rc1.train.sampler import UNBUCKETED, Draw


def share_summary(draws: Iterable[Draw]) -> dict[str, float]:
    """Fractions per source kind and per pool difficulty bucket (for metrics and tests)."""
    draws = list(draws)
    n = max(1, len(draws))
    out = {f"share.{k}": sum(d.kind == k for d in draws) / n for k in ("pool", "pool_fill", "fresh", "replay")}
    pool = [d for d in draws if d.kind in ("pool", "pool_fill")]
    for b in DIFFICULTIES:
        out[f"pool_bucket.{b}"] = (sum(pool_item_difficulty(d.pool_item, fallback=UNBUCKETED) == b for d in pool)
                                   / max(1, len(pool)))
    return out
