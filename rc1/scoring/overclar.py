"""Over-clarification ablation: best-of-K selection per item under the reward with and without the penalty.

For every item, the candidate with the highest reward is selected, once with the penalty alpha*min(c, cap)
and once with alpha = 0 (everything else equal: weights, beta). Candidates tied at the top share the
selection equally (the expected outcome under random tie-breaking), so sort order never decides.

`subset_k` (optional) selects best-of-k within every k-subset of an item's candidates (all of them,
enumerated, equally weighted) instead of best-of-all: a policy's k samples do not always contain the
ideal answer, and only then can a penalty change which imperfect answer wins.

Per arm: over-clarification rate (items that do not need clarification whose selected candidate asked at
least one question), average episode turns, success rate (rc1.shadow_run's success), and for items that
need clarification the rate of asking. Deltas are `with - without`; the reduction is relative to without.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from rc1.core.config import OverclarThresholds
from rc1.scoring.reward import RewardParams, weights_dict
from rc1.scoring.ranks import at_least

_ROUND = 9


def _best(rewards: np.ndarray) -> np.ndarray:
    best = rewards == rewards.max()
    return best / best.sum()


def selection(rewards: Sequence[float], subset_k: int | None = None) -> list[float]:
    """P(candidate i is selected): best-of-all, or best-of-k averaged over every k-subset; ties share."""
    r = np.round(np.asarray(rewards, float), _ROUND)
    n = len(r)
    if not subset_k or subset_k >= n:
        return _best(r).tolist()
    probs = np.zeros(n)
    subsets = list(combinations(range(n), subset_k))
    for sub in subsets:
        idx = np.array(sub)
        probs[idx] += _best(r[idx])
    return (probs / len(subsets)).tolist()


def arm_outcome(rows: Iterable[Mapping[str, Any]], weights, params: RewardParams,
                subset_k: int | None = None) -> dict[str, Any]:
    w = weights_dict(weights)
    by_item: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        if not row.get("failed") and row.get("scores"):
            by_item[row["item_id"]].append(row)
    acc = {k: 0.0 for k in ("overclar", "no_need", "asked_needed", "need", "turns", "success", "items")}
    per_task: dict[str, dict[str, float]] = defaultdict(lambda: {"overclar": 0.0, "no_need": 0, "success": 0.0,
                                                                 "turns": 0.0, "items": 0})
    for item_rows in by_item.values():
        rewards = [params.reward(r["scores"], w, needs_clarification=r["needs_clarification"],
                                 clarifications=r["clarifications"], difficulty=r.get("difficulty"))
                   for r in item_rows]
        probs = selection(rewards, subset_k)
        needs = bool(item_rows[0]["needs_clarification"])
        asked = sum(p for p, r in zip(probs, item_rows) if r["clarifications"] >= 1)
        turns = sum(p * r["turns"] for p, r in zip(probs, item_rows))
        success = sum(p * float(r["success"]) for p, r in zip(probs, item_rows))
        t = per_task[item_rows[0]["task"]]
        acc["items"] += 1
        acc["turns"] += turns
        acc["success"] += success
        t["items"] += 1
        t["turns"] += turns
        t["success"] += success
        if needs:
            acc["need"] += 1
            acc["asked_needed"] += asked
        else:
            acc["no_need"] += 1
            acc["overclar"] += asked
            t["no_need"] += 1
            t["overclar"] += asked
    n = acc["items"]
    return {
        "items": int(n),
        "items_not_needing_clarification": int(acc["no_need"]),
        "overclar_rate": acc["overclar"] / acc["no_need"] if acc["no_need"] else None,
        "asked_when_needed_rate": acc["asked_needed"] / acc["need"] if acc["need"] else None,
        "avg_turns": acc["turns"] / n if n else None,
        "success": acc["success"] / n if n else None,
        "by_task": {task: {"items": t["items"], "overclar_rate": t["overclar"] / t["no_need"] if t["no_need"] else None,
                           "avg_turns": t["turns"] / t["items"], "success": t["success"] / t["items"]}
                    for task, t in sorted(per_task.items())},
    }


def ablation(rows: Sequence[Mapping[str, Any]], weights, params: RewardParams,
             subset_k: int | None = None) -> dict[str, Any]:
    """Both arms and their deltas. `params` is the 'with penalty' arm; 'without' sets alpha to 0."""
    rows = list(rows)
    with_p = arm_outcome(rows, weights, RewardParams(params.alpha, params.cap, params.beta, use_penalty=True),
                         subset_k)
    without = arm_outcome(rows, weights, RewardParams(params.alpha, params.cap, params.beta, use_penalty=False),
                          subset_k)

    def diff(key, scale=1.0):
        a, b = with_p[key], without[key]
        return None if a is None or b is None else scale * (a - b)

    base = without["overclar_rate"]
    reduction = None if base is None or with_p["overclar_rate"] is None or base <= 0 else \
        100.0 * (base - with_p["overclar_rate"]) / base
    return {
        "params": {"alpha": params.alpha, "cap": params.cap, "beta": params.beta,
                   "selection": f"best of {subset_k} (every {subset_k}-subset)" if subset_k else "best of all K"},
        "n_candidates": len(rows), "n_failed": sum(bool(r.get("failed")) for r in rows),
        "with_penalty": with_p, "without_penalty": without,
        "delta": {
            "overclar_rate": diff("overclar_rate"),
            "overclar_rate_reduction_pct": reduction,
            "avg_turns": diff("avg_turns"),
            "success_pp": diff("success", 100.0),
            "asked_when_needed_rate": diff("asked_when_needed_rate"),
        },
        "note": None if base else "the selection without the penalty never over-clarifies: nothing to reduce",
    }


def ablation_checks(report: Mapping[str, Any], gate: OverclarThresholds) -> list[dict]:
    d = report["delta"]
    drop = None if d["success_pp"] is None else -d["success_pp"]
    return [
        at_least("overclar_rate_reduction_pct", d["overclar_rate_reduction_pct"], gate.overclar_rate_reduction_pct_min),
        {"name": "avg_turns_increase", "value": d["avg_turns"], "threshold": f"<= {gate.avg_turns_increase_max:g}",
         "pass": d["avg_turns"] is not None and d["avg_turns"] <= gate.avg_turns_increase_max + 1e-9},
        {"name": "success_drop_pp", "value": drop, "threshold": f"<= {gate.success_drop_pp_max:g}",
         "pass": drop is not None and drop <= gate.success_drop_pp_max + 1e-9},
    ]
