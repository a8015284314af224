"""Rank statistics over scores: correlations, tie-aware top-k overlap, argmax agreement, and the gate check
helpers the reward reports share (scores equal up to float noise are ties)."""

from __future__ import annotations

import math
import warnings
from typing import Any, Iterable, Sequence

import numpy as np
from scipy import stats


_ROUND = 9  # scores equal up to float noise are ties


def _clean(x: Sequence[float]) -> np.ndarray:
    return np.round(np.asarray(x, dtype=float), _ROUND)


def _corr(fn, a: Sequence[float], b: Sequence[float]) -> float | None:
    a, b = _clean(a), _clean(b)
    if len(a) < 2 or np.all(a == a[0]) or np.all(b == b[0]):
        return None  # undefined for constant input
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = float(fn(a, b)[0])
    return None if math.isnan(value) else value


def spearman(a, b) -> float | None:
    return _corr(stats.spearmanr, a, b)


def kendall_tau(a, b) -> float | None:
    return _corr(stats.kendalltau, a, b)


def topk_membership(scores: Sequence[float], k: int) -> np.ndarray:
    """P(candidate i is in the top k) under uniform random tie-breaking."""
    s = _clean(scores)
    n = len(s)
    k = min(k, n)
    member = np.zeros(n)
    if k <= 0:
        return member
    threshold = np.sort(s)[::-1][k - 1]
    above = s > threshold
    tied = s == threshold
    member[above] = 1.0
    member[tied] = (k - above.sum()) / tied.sum()
    return member


def topk_overlap(old: Sequence[float], new: Sequence[float], k: int) -> float | None:
    """Expected |top-k(old) ∩ top-k(new)| / k (tie-aware); None when there are no candidates."""
    n = len(old)
    if n == 0:
        return None
    k = min(k, n)
    return float(np.dot(topk_membership(old, k), topk_membership(new, k)) / k)


def mean_defined(values: Iterable[float | None]) -> float | None:
    """The mean of the values that are not None; None when there are none."""
    vals = [v for v in values if v is not None]
    return float(np.mean(vals)) if vals else None


def at_least(name: str, value: float | None, threshold: float) -> dict[str, Any]:
    """A gate check that `value` is at least `threshold` (no value fails)."""
    return {"name": name, "value": value, "threshold": f">= {threshold:g}",
            "pass": value is not None and value >= threshold}


def improve_pct(old: float | None, new: float | None) -> float | None:
    """100 * (new - old) / old for two correlations with a target, only over a positive baseline (old > 0); None
    otherwise. A move between negative correlations, or up from none, is not an improvement of a signal: the
    formula with |old| called -0.69 -> -0.49 "+29%" and passed a judge that ranks wrong answers first."""
    if old is None or new is None or old < 1e-12:
        return None
    return 100.0 * (new - old) / old


def argmax_agreement(old: Sequence[float], new: Sequence[float]) -> float:
    """P(the old score's first place is the new reward's first place), ties broken uniformly at random."""
    o, n = _clean(old), _clean(new)
    top_old, top_new = set(np.flatnonzero(o == o.max())), set(np.flatnonzero(n == n.max()))
    return len(top_old & top_new) / (len(top_old) * len(top_new))
