"""The shadow run's comparison: score the same candidates with the old score and the new reward, and compare them.

Definitions (every number in the report):
- spearman, kendall_tau: rank correlation of old vs new over all scored candidates (global, not per item).
- topK_overlap (K = 10, 20): global over all candidates of the shadow set: |top-K by old ∩ top-K by new| / K.
  Judge scores tie a lot, so membership is tie-aware: a candidate inside a tie group that straddles the
  K-th place counts with probability (free places / group size), i.e. the expected overlap under random
  tie-breaking, not an artefact of sort order. `top10pct_overlap` / `top20pct_overlap` are the same for
  K = round(10% / 20% of the scored candidates) (at least 1): seed 002's "Top-10% overlap", the gated one
  (gates.yaml shadow_run.top10pct_overlap_min); top10/top20/top20pct are recorded.
- argmax_agreement_within_item: per item, the probability that the candidate ranked first by the old score
  is the one ranked first by the new reward (ties broken at random: |argmax old ∩ argmax new| /
  (|argmax old| x |argmax new|)), i.e. whether GRPO's favourite in a group changes; the report lists it per
  item (`argmax_agreement_by_item`) and the mean over items is a metric (recorded, not gated).
- corr_to_success_old/new: Spearman correlation between the score and success (0/1) over all candidates.
  success = rc1.scoring.answers.is_correct(final answer) and, when the item needs clarification, at least one
  clarifying question asked.
- corr_improve_pct = 100 * (corr_new - corr_old) / corr_old, defined only when corr_old > 0 (else None: the check
  fails). An improvement is measured from a score that tracks success: from -0.69 to -0.49 is not +29%, and a
  non-positive baseline has no percentage. corr_to_success_new itself is gated too (shadow_run.corr_to_success_new_min):
  both compare the reward with success, where spearman and the top-k overlap compare it with the old score under the
  same judge and cannot see a judge that ranks wrong answers first.
A candidate whose judge result failed has no score: it is counted (n_failed) and left out of every metric.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from rc1.scoring.answers import is_correct, success_of
from rc1.core.config import DIMENSIONS, ShadowRunThresholds
from rc1.scoring.dialogue import analyze
from rc1.scoring.ranks import at_least, improve_pct, kendall_tau, mean_defined, spearman, topk_overlap, argmax_agreement
from rc1.scoring.reward import RewardParams, judge_request, old_score, weights_dict
from rc1.scoring.base import Judge

TOPK = (10, 20)


# ---------------------------------------------------------------- scoring
def score_candidates(items: Mapping[str, Mapping[str, Any]], candidates: Sequence[Any], judge: Judge,
                     weights, params: RewardParams, progress: bool = True) -> list[dict]:
    """Judge every candidate once; one row per candidate with the 7 dims, old, new and success.

    `items` maps item id -> the item as a pool-item-shaped mapping (see rc1.scoring.responder.ShadowItem.as_pool_item);
    each candidate has item_id, candidate_id, kind, dialogue and prefix_len.
    """
    w = weights_dict(weights)
    requests = [judge_request(items[c.item_id], c.dialogue, candidate_id=c.candidate_id) for c in candidates]
    results = judge.score_many(requests, progress=progress)
    if len(results) != len(requests):
        raise RuntimeError(f"judge returned {len(results)} results for {len(requests)} requests")
    rows = []
    for cand, req, res in zip(candidates, requests, results):
        ep = analyze(list(cand.dialogue), cand.prefix_len)
        item = items[cand.item_id]
        correct = is_correct(req.task, ep.final_answer, item["answer"])
        row = {
            "item_id": cand.item_id, "candidate_id": cand.candidate_id, "kind": cand.kind, "task": req.task,
            "difficulty": req.difficulty, "needs_clarification": req.needs_clarification,
            "clarifications": ep.clarifications, "tool_calls": ep.tool_calls, "turns": ep.turns,
            "final_answer": ep.final_answer, "correct": correct,
            "success": success_of(req.task, item["answer"], req.needs_clarification, ep.clarifications,
                                  ep.final_answer),
            "failed": bool(res.failed or res.scores is None), "unstable": res.unstable, "weight": res.weight,
            "variance_max": max(res.variance.values()) if res.variance else None,
            "cached": res.cached, "error": res.error,
        }
        if row["failed"]:
            row.update({"scores": None, "old": None, "new": None})
        else:
            row.update({
                "scores": {d: float(res.scores[d]) for d in DIMENSIONS},
                "old": old_score(res.scores),
                "new": params.reward(res.scores, w, needs_clarification=req.needs_clarification,
                                     clarifications=ep.clarifications, difficulty=req.difficulty),
            })
        rows.append(row)
    return rows


# ---------------------------------------------------------------- report
def block_metrics(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    old = [r["old"] for r in rows]
    new = [r["new"] for r in rows]
    succ = [float(r["success"]) for r in rows]
    c_old, c_new = spearman(old, succ), spearman(new, succ)
    return {
        "n": len(rows),
        "spearman": spearman(old, new),
        "kendall_tau": kendall_tau(old, new),
        **{f"top{k}_overlap": topk_overlap(old, new, k) for k in TOPK},
        "top10pct_overlap": topk_overlap(old, new, max(1, round(0.10 * len(rows)))) if rows else None,
        "top20pct_overlap": topk_overlap(old, new, max(1, round(0.20 * len(rows)))) if rows else None,
        "corr_to_success_old": c_old,
        "corr_to_success_new": c_new,
        "corr_improve_pct": improve_pct(c_old, c_new),
        "success_rate": float(np.mean(succ)) if rows else None,
        "mean_old": float(np.mean(old)) if rows else None,
        "mean_new": float(np.mean(new)) if rows else None,
    }


def shadow_metrics(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    rows = list(rows)
    ok = [r for r in rows if not r["failed"]]
    m = block_metrics(ok)
    m.update({"n_candidates": len(rows), "n_scored": len(ok), "n_failed": len(rows) - len(ok),
              "n_items": len({r["item_id"] for r in rows}), "topk_scope": "global"})
    m.update(within_item_metrics(ok))
    key = lambda v: v if v is not None else "unknown"  # noqa: E731
    m["by_difficulty"] = {b: block_metrics([r for r in ok if key(r["difficulty"]) == b])
                          for b in sorted({key(r["difficulty"]) for r in ok})}
    m["by_task"] = {t: block_metrics([r for r in ok if r["task"] == t]) for t in sorted({r["task"] for r in ok})}
    m["by_kind"] = {k: {"n": len(g), "mean_old": float(np.mean([r["old"] for r in g])),
                        "mean_new": float(np.mean([r["new"] for r in g])),
                        "success_rate": float(np.mean([r["success"] for r in g]))}
                    for k in sorted({r["kind"] for r in ok}) for g in [[r for r in ok if r["kind"] == k]]}
    return m


def within_item_metrics(rows: Sequence[Mapping[str, Any]]) -> dict[str, float | None]:
    """Ungated context: the same comparisons inside each item's candidates (what a group-relative policy
    gradient sees), averaged over the items where they are defined. The difficulty factor is constant
    within an item, so it cannot move these."""
    groups: dict[str, list] = {}
    for r in rows:
        groups.setdefault(r["item_id"], []).append(r)
    rank, c_old, c_new = [], [], []
    for g in groups.values():
        old, new, succ = [r["old"] for r in g], [r["new"] for r in g], [float(r["success"]) for r in g]
        rank.append(spearman(old, new))
        c_old.append(spearman(old, succ))
        c_new.append(spearman(new, succ))
    co, cn = mean_defined(c_old), mean_defined(c_new)
    argmax = {item: argmax_agreement([r["old"] for r in g], [r["new"] for r in g]) for item, g in groups.items()}
    return {"spearman_within_item_mean": mean_defined(rank), "corr_to_success_within_item_old": co,
            "corr_to_success_within_item_new": cn, "corr_improve_pct_within_item": improve_pct(co, cn),
            "argmax_agreement_within_item": mean_defined(argmax.values()), "argmax_agreement_by_item": argmax}


def shadow_checks(metrics: Mapping[str, Any], gate: ShadowRunThresholds) -> list[dict]:
    improve = at_least("corr_improve_pct", metrics["corr_improve_pct"], gate.corr_improve_pct_min)
    improve["threshold"] += " over corr_to_success_old > 0"   # why an undefined value (None) fails
    return [
        at_least("spearman", metrics["spearman"], gate.spearman_min),
        at_least("top10pct_overlap", metrics["top10pct_overlap"], gate.top10pct_overlap_min),
        improve,
        at_least("corr_to_success_new", metrics["corr_to_success_new"], gate.corr_to_success_new_min),
    ]


def flat_metrics(metrics: Mapping[str, Any]) -> dict[str, float]:
    """Numbers for mlflow.log_metrics: the global ones plus by_difficulty.<b>.<m> and by_task.<t>.<m>."""
    out = {k: v for k, v in metrics.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    for group in ("by_difficulty", "by_task"):
        for name, block in metrics.get(group, {}).items():
            out.update({f"{group}.{name}.{k}": v for k, v in block.items() if isinstance(v, (int, float))})
    return {k: float(v) for k, v in out.items() if v is not None}
