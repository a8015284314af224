"""Easy / medium / hard buckets and resampling to a target mix.

Bucketing rule (a score with per-task quantile cut points, not a majority vote):
- every criterion becomes its per-task percentile rank (ties averaged, as scipy.stats.rankdata, / n),
  so tokens, hops, counts and densities share one scale; clue_overlap counts reversed (less overlap
  between question and evidence = harder);
- score = the mean of those ranks over the criteria (equal weights, fixed before looking at any pool;
  a criterion constant within a task, such as tool_hops where every pool item has the same, ranks everyone
  equally and so is neutral);
- within each task the lowest third of scores is easy, the middle third medium, the top third hard
  (ties broken by a hash of the id, so the split is exact and deterministic).
Why: the criteria have different units and mean different things per task (GSM8K has no wiki hops,
HotpotQA little arithmetic); absolute thresholds with a majority vote leave some tasks without hard
items, while the gate asks for hard >= 30% in every task. Per-task tertiles make "hard" mean "harder
than two thirds of this task's pool items"; the target mix is then a separate, explicit choice.

Resampling (per task, seeded numpy Generator): each bucket is drawn without replacement. By default
the balanced size of a task is the largest that needs no replacement (with tertiles that is about
74% of the task's pool items for easy .25 / medium .45 / hard .30). Only when a size is requested that a
bucket cannot fill are its extra pool items drawn with replacement; the report says so and counts them.
Bucket sizes are floor(target x size) with the remainder given to hard, then medium, then easy.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any, Mapping, Sequence

import numpy as np

from rc1.core.records import pool_item_difficulty

BUCKETS = ("easy", "medium", "hard")
CRITERIA = {  # metric -> +1 when a higher value is harder, -1 when lower is harder
    "len_tokens": 1, "turns": 1, "tool_hops": 1, "entities": 1, "ops_numeric": 1, "connector_density": 1,
    "coref_pronouns": 1, "clue_overlap": -1, "ambiguity": 1, "needs_clarification": 1,
}


def rankdata(values: np.ndarray) -> np.ndarray:
    """scipy.stats.rankdata(values, method="average"): 1-based ranks, ties given the mean of their ranks
    (exact half-integers, so the same floats); numpy only, as scipy.stats costs about a second to import."""
    a = np.asarray(values).ravel()
    sorter = np.argsort(a, kind="quicksort")
    inv = np.empty(len(a), dtype=np.intp)
    inv[sorter] = np.arange(len(a), dtype=np.intp)
    s = a[sorter]
    obs = np.r_[True, s[1:] != s[:-1]]
    dense = obs.cumsum()[inv]
    count = np.r_[np.nonzero(obs)[0], len(obs)]
    return 0.5 * (count[dense] + count[dense - 1] + 1)


def _tiebreak(ids: list[str]) -> np.ndarray:
    return np.array([int.from_bytes(hashlib.blake2b(i.encode(), digest_size=8).digest(), "big") for i in ids],
                    dtype=np.uint64)


def difficulty_scores(columns: dict[str, np.ndarray], rows: np.ndarray) -> np.ndarray:
    """Mean per-criterion percentile rank of the pool items `rows` (indices into the columns)."""
    n = len(rows)
    total = np.zeros(n)
    for name, sign in CRITERIA.items():
        vals = columns[name][rows].astype(np.float64) * sign
        total += rankdata(vals) / n
    return total / len(CRITERIA)


def assign_buckets(columns: dict[str, np.ndarray], tasks: np.ndarray, ids: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(score, bucket index 0/1/2) per seed, tertiles of the score within each task."""
    n = len(tasks)
    score = np.zeros(n)
    bucket = np.zeros(n, dtype=np.int8)
    ties = _tiebreak(ids)
    for task in np.unique(tasks):
        rows = np.flatnonzero(tasks == task)
        s = difficulty_scores(columns, rows)
        score[rows] = s
        order = np.lexsort((ties[rows], s))          # by score, then by the id hash
        rank = np.empty(len(rows), dtype=np.int64)
        rank[order] = np.arange(len(rows))
        bucket[rows] = np.minimum(rank * 3 // len(rows), 2)
    return score, bucket


def bucket_sizes(size: int, target: dict[str, float]) -> dict[str, int]:
    """floor(target x size) per bucket, the remainder to hard, then medium, then easy."""
    k = {b: int(math.floor(target.get(b, 0.0) * size + 1e-9)) for b in BUCKETS}
    rest = size - sum(k.values())
    for b in ("hard", "medium", "easy"):
        if rest <= 0:
            break
        if target.get(b, 0.0) > 0:
            k[b] += 1
            rest -= 1
    if rest > 0:
        k["hard"] += rest
    return k


def max_size_without_replacement(counts: dict[str, int], target: dict[str, float]) -> int:
    size = min((int(counts.get(b, 0) / t) for b, t in target.items() if t > 0), default=0)
    while size > 0 and any(k > counts.get(b, 0) for b, k in bucket_sizes(size, target).items()):
        size -= 1
    return size


def resample(bucket: np.ndarray, tasks: np.ndarray, target: dict[str, float], by_task: list[str], seed: int,
             sizes: dict[str, int] | None = None) -> tuple[np.ndarray, dict]:
    """Indices of the balanced pool (sorted, repeats allowed) and a summary per task.
    Tasks not in `by_task` pass through unchanged. `sizes`: requested balanced size per task."""
    rng = np.random.default_rng(seed)
    chosen: list[np.ndarray] = []
    summary: dict[str, dict] = {}
    for task in sorted(set(tasks.tolist())):
        rows = np.flatnonzero(tasks == task)
        if task not in by_task:
            chosen.append(rows)
            summary[task] = {"balanced": False, "size": len(rows)}
            continue
        members = {b: rows[bucket[rows] == i] for i, b in enumerate(BUCKETS)}
        counts = {b: len(m) for b, m in members.items()}
        size = (sizes or {}).get(task) or max_size_without_replacement(counts, target)
        want = bucket_sizes(size, target)
        replaced = {}
        for b in BUCKETS:
            pool, k = members[b], want[b]
            if k <= len(pool):
                pick = rng.choice(pool, size=k, replace=False) if k else pool[:0]
            else:
                extra = rng.choice(pool, size=k - len(pool), replace=True) if len(pool) else pool[:0]
                pick = np.concatenate([pool, extra])
                replaced[b] = int(len(extra))
            chosen.append(pick)
            want[b] = int(len(pick))  # an empty bucket cannot be drawn from at all
        summary[task] = {"balanced": True, "size": int(sum(want.values())), "available": counts, "drawn": want,
                         "with_replacement": replaced}
    idx = np.sort(np.concatenate(chosen)) if chosen else np.zeros(0, dtype=np.int64)
    return idx, summary


def item_difficulties(records: Sequence[Mapping[str, Any]]) -> tuple[dict[str, str], str]:
    """Difficulty bucket per item id, and where it came from.

    The records' own `difficulty` when every record has one; otherwise rc1.difficulty's score and its
    per-task tertiles computed over the shadow set itself (the same rule the difficulty stage uses)."""
    own = {str(r["id"]): pool_item_difficulty(r, fallback=None) for r in records}
    if records and all(own.values()):
        return own, "records"
    from rc1.difficulty.table import build_table

    table = build_table(records)
    _, bucket = assign_buckets(table.columns, table.tasks, table.ids)
    return {i: BUCKETS[int(b)] for i, b in zip(table.ids, bucket)}, "rc1.difficulty tertiles over the shadow set"
