"""Shadow run core: score the same candidates with the old score and the new reward, and compare them.

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

import dataclasses
import math
import os
import sys
import warnings
from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
from scipy import stats

from rc1.core.io import why_not_a_file
from rc1.scoring.answers import is_correct
from rc1.core.config import DIMENSIONS, ShadowRunGate, run_mode
from rc1.scoring.dialogue import analyze
from rc1.core.errors import Rc1Error
from rc1.core.records import seed_difficulty
from rc1.scoring.reward import RewardParams, judge_request, old_score, weights_dict
from rc1.scoring.base import Judge
from rc1.scoring.responder import ShadowItem

TOPK = (10, 20)
_ROUND = 9  # scores equal up to float noise are ties


# ---------------------------------------------------------------- rank metrics
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


# ---------------------------------------------------------------- scoring
def success_of(task: str, gold: Any, needs_clarification: bool, clarifications: int, final_answer: str) -> bool:
    return is_correct(task, final_answer, gold) and (not needs_clarification or clarifications >= 1)


def score_candidates(items: Mapping[str, Mapping[str, Any]], candidates: Sequence[Any], judge: Judge,
                     weights, params: RewardParams, progress: bool = True) -> list[dict]:
    """Judge every candidate once; one row per candidate with the 7 dims, old, new and success.

    `items` maps item id -> the item as a seed-shaped mapping (see rc1.scoring.responder.ShadowItem.as_seed);
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


def argmax_agreement(old: Sequence[float], new: Sequence[float]) -> float:
    """P(the old score's first place is the new reward's first place), ties broken uniformly at random."""
    o, n = _clean(old), _clean(new)
    top_old, top_new = set(np.flatnonzero(o == o.max())), set(np.flatnonzero(n == n.max()))
    return len(top_old & top_new) / (len(top_old) * len(top_new))


def shadow_checks(metrics: Mapping[str, Any], gate: ShadowRunGate) -> list[dict]:
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


# ---------------------------------------------------------------- difficulty of shadow items
def item_difficulties(records: Sequence[Mapping[str, Any]]) -> tuple[dict[str, str], str]:
    """Difficulty bucket per item id, and where it came from.

    The records' own `difficulty` when every record has one; otherwise rc1.difficulty's score and its
    per-task tertiles computed over the shadow set itself (the same rule the difficulty stage uses)."""
    own = {str(r["id"]): seed_difficulty(r, fallback=None) for r in records}
    if records and all(own.values()):
        return own, "records"
    from rc1.difficulty.bucket import BUCKETS, assign_buckets
    from rc1.difficulty.table import build_table

    table = build_table(records)
    _, bucket = assign_buckets(table.columns, table.tasks, table.ids)
    return {i: BUCKETS[int(b)] for i, b in zip(table.ids, bucket)}, "rc1.difficulty tertiles over the shadow set"


# ---------------------------------------------------------------- clarification items
VAGUE = ("the one I mentioned", "a certain one", "that one")


def clarify_items(records: Sequence[Mapping[str, Any]], rate: float, seed: int) -> tuple[list[dict], int]:
    """Make a `rate` share of plain Task records (per task) clarification items, deterministically.

    A record that already says whether it needs clarification (a seed, or a shadow set made with
    clarification) is kept as it is. For the others, rc1.data.clarify finds the facts the question needs;
    items that have one are shuffled with the seed, and the first round(rate x task items) of them get
    that fact removed from the question and kept as hidden_info (what the user reveals when asked).
    Returns (records, number converted)."""
    import random

    from rc1.data.clarify import removals

    out = [dict(r) for r in records]
    plain = [i for i, r in enumerate(out) if "needs_clarification" not in r and not r.get("dialogue")]
    converted = 0
    for task in sorted({out[i]["task"] for i in plain}):
        idx = [i for i in plain if out[i]["task"] == task]
        options = {i: removals(out[i]) for i in idx}
        able = [i for i in idx if options[i]]
        rng = random.Random(f"{seed}:clarify:{task}")
        rng.shuffle(able)
        for i in able[: min(len(able), round(rate * len(idx)))]:
            removal = rng.choice(options[i])
            out[i]["question"] = removal.apply(out[i]["question"], rng.choice(VAGUE))
            out[i]["hidden_info"] = f"Sorry, I left that out: {removal.fact}."
            out[i]["needs_clarification"] = True
            converted += 1
    return out, converted


# ---------------------------------------------------------------- what the reward stages share
def shadow_items(records: Sequence[Mapping[str, Any]]) -> tuple[list, str]:
    """The shadow records as ShadowItems with their difficulty, and where the difficulties came from."""
    dup = next((i for i, c in Counter(str(r["id"]) for r in records).items() if c > 1), None)
    if dup:
        raise Rc1Error(f"shadow set: item id {dup!r} appears more than once")
    items = [ShadowItem.from_record(r) for r in records]
    diffs, source = item_difficulties([it.as_seed() for it in items])
    return [dataclasses.replace(it, difficulty=diffs[it.id]) for it in items], source


def scored_tags(rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """The responders and judge providers of scored candidates, as run tags."""
    def joined(key):
        return ",".join(sorted({str(r.get(key)) for r in rows if r.get(key)})) or "unknown"

    return {"rc1.responder": joined("responder"), "rc1.judge_provider": joined("judge_provider")}


def resolve_scored(scored: str | None, workdir: str | Path = "reports") -> tuple[Path, str]:
    """(scored candidates, where they come from): --scored PATH, else the scored_candidates.jsonl of the newest
    finished shadow_run of this run mode scored by the judge configured now (rc1.scoring.identity), else those of a
    fresh default `rc1 shadow-run` (its gate verdict does not matter here, only its scored candidates).

    The fresh shadow run is the command itself, in a process of its own (as MLflow's multistep example runs a step
    it does not find): a stage never imports another. It logs to the same tracking store, but not into the MLflow
    run `mlflow run` handed this stage (MLFLOW_RUN_ID): that one stays the calling stage's."""
    if scored:
        if why_not_a_file(scored):
            raise Rc1Error(f"--scored {scored}: {why_not_a_file(scored)}")
        return Path(scored), f"file:{scored}"
    from rc1.core.proc import run_tree
    from rc1.scoring.identity import JUDGE_TAG, identity_digest
    from rc1.scoring.judge import make_judge
    from rc1.tracking.latest import newest_stage_output

    # only candidates the judge configured now scored: another endpoint, model or sampling is another judge
    judge_id = identity_digest(make_judge(cache=False).identity())
    found = newest_stage_output("shadow_run", "scored", Path(workdir) / ".latest_shadow_run", mode=run_mode(),
                                tags={JUDGE_TAG: judge_id})
    if found:
        return found[0], f"shadow_run:{found[1]}"
    print("[rc1] no finished shadow_run found: running one to get scored candidates", file=sys.stderr, flush=True)
    out = Path(workdir) / "scored_candidates.jsonl"
    out.unlink(missing_ok=True)   # what the run writes, or nothing: never an older file
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_RUN_ID"}   # the same store, its own run
    from rc1.cli.options import command_argv
    from rc1.core.settings import active_fields

    # the mode and judge of the calling stage on the command line (what the environment sets, it inherits)
    code = run_tree(command_argv("shadow-run", report=str(Path(workdir) / "shadow_run.json"), scored_out=str(out),
                                 **active_fields()), env)
    if code not in (0, 2) or not out.is_file():   # 2 with candidates written: the shadow run's own gate failed
        raise Rc1Error(f"the shadow run started for scored candidates failed (exit {code}, see above); run "
                       "`rc1 shadow-run` or pass --scored")
    return out, f"file:{out}"

