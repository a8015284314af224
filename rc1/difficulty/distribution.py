"""difficulty's checks and report: histograms, percentiles, bucket counts (plain data, no IO)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from rc1.core.config import DifficultyThresholds
from rc1.core.summary import check
from rc1.difficulty.bucket import BUCKETS
from rc1.difficulty.metrics import METRICS
from rc1.difficulty.table import MetricTable

INTEGER_METRICS = {"len_tokens", "turns", "tool_hops", "entities", "ops_numeric", "coref_pronouns", "ambiguity",
                   "needs_clarification"}


def histogram(values: np.ndarray, name: str) -> dict:
    """Bin edges and counts: one bin per integer for small integer ranges, else 20-30 equal bins."""
    v = np.asarray(values, dtype=np.float64)
    if not len(v):
        return {"edges": [], "counts": []}
    lo, hi = float(v.min()), float(v.max())
    if name == "clue_overlap":  # a Jaccard: 20 bins from 0 to the largest value seen (at least 0.05)
        edges = np.linspace(0.0, max(hi, 0.05), 21)
    elif name in INTEGER_METRICS and hi - lo <= 30:
        edges = np.arange(lo, hi + 2) - 0.5
    else:
        edges = np.linspace(lo, hi if hi > lo else lo + 1, 31 if name in INTEGER_METRICS else 21)
    counts, edges = np.histogram(v, bins=edges)
    return {"edges": [round(float(e), 4) for e in edges], "counts": counts.tolist()}


def percentiles(values: np.ndarray) -> dict:
    v = np.asarray(values, dtype=np.float64)
    if not len(v):
        return {"p10": None, "p50": None, "p90": None, "mean": None, "min": None, "max": None}
    p10, p50, p90 = np.percentile(v, [10, 50, 90])
    return {"p10": float(p10), "p50": float(p50), "p90": float(p90), "mean": float(v.mean()),
            "min": float(v.min()), "max": float(v.max())}


def bucket_counts(tasks: np.ndarray, bucket: np.ndarray, idx: np.ndarray | None = None) -> dict[str, dict]:
    """{task: {easy, medium, hard, n, easy_share, medium_share, hard_share}} over rows `idx` (default all)."""
    t = tasks if idx is None else tasks[idx]
    b = bucket if idx is None else bucket[idx]
    out = {}
    for task in sorted(set(t.tolist())):
        mask = t == task
        n = int(mask.sum())
        row = {name: int((b[mask] == i).sum()) for i, name in enumerate(BUCKETS)}
        row["n"] = n
        row.update({f"{name}_share": row[name] / n if n else 0.0 for name in BUCKETS})
        out[task] = row
    return out


def median_by_bucket(values: np.ndarray, bucket: np.ndarray) -> dict[str, float | None]:
    return {name: (float(np.median(values[bucket == i])) if (bucket == i).any() else None)
            for i, name in enumerate(BUCKETS)}


def difficulty_checks(table: MetricTable, bucket: np.ndarray, idx: np.ndarray, by_task: list[str],
                      gate: DifficultyThresholds) -> list[dict]:
    """The gate, evaluated on the balanced pool (rows `idx` of the table, repeats counted)."""
    g = gate
    counts = bucket_counts(table.tasks, bucket, idx)
    checks = []
    # kind consistency: resampling to a target that meets the bounds makes these hold; a failure fails the stage,
    # but it measures the stage, not the data, and is not counted among the data gates
    for task in by_task:
        row = counts.get(task, {"hard_share": 0.0, "easy_share": 0.0, "n": 0})
        checks.append({**check(f"hard_share.{task}", row["hard_share"], f">= {g.hard_min}",
                                row["n"] > 0 and row["hard_share"] >= g.hard_min - 1e-12), "kind": "consistency"})
        checks.append({**check(f"easy_share.{task}", row["easy_share"], f"<= {g.easy_max}",
                                row["n"] > 0 and row["easy_share"] <= g.easy_max + 1e-12), "kind": "consistency"})
    cols = {k: v[idx] for k, v in table.columns.items()}
    for name, limit in (("len_tokens", g.len_tokens_max), ("turns", g.turns_max), ("tool_hops", g.tool_hops_max)):
        top = int(cols[name].max()) if len(idx) else 0
        checks.append(check(f"{name}_max", top, f"<= {limit}", len(idx) > 0 and top <= limit))
    med = median_by_bucket(cols["clue_overlap"], bucket[idx])
    for b, lo, hi in (("hard", g.clue_overlap_hard_median_min, g.clue_overlap_hard_median_max),
                      ("easy", g.clue_overlap_easy_median_min, g.clue_overlap_easy_median_max)):
        checks.append(check(f"clue_overlap_median.{b}", med[b], f"in [{lo}, {hi}]",
                            med[b] is not None and lo <= med[b] <= hi))
    return checks


def difficulty_report(table: MetricTable, score: np.ndarray, bucket: np.ndarray, idx: np.ndarray,
                      resample_summary: dict, target: dict[str, float], by_task: list[str], seed: int,
                      checks: list[dict], definitions: dict) -> dict:
    bal = {k: v[idx] for k, v in table.columns.items()}
    bal_bucket = bucket[idx]
    replaced = sum(sum(s.get("with_replacement", {}).values()) for s in resample_summary.values())
    by_task_medians = {}
    for task in sorted(set(table.tasks.tolist())):
        m = table.tasks[idx] == task
        by_task_medians[task] = median_by_bucket(bal["clue_overlap"][m], bal_bucket[m])
    return {
        "n_in": len(table),
        "n_out": int(len(idx)),
        "target": target,
        "by_task": by_task,
        "seed": seed,
        "with_replacement": replaced > 0,
        "drawn_with_replacement": int(replaced),
        "definitions": definitions,
        "metrics": {name: {**percentiles(table.columns[name]), "histogram": histogram(table.columns[name], name)}
                    for name in METRICS},
        "score": {**percentiles(score), "histogram": histogram(score, "score")},
        "metrics_balanced": {name: percentiles(bal[name]) for name in METRICS},
        "metrics_by_bucket": {b: {name: percentiles(bal[name][bal_bucket == i]) for name in METRICS}
                              for i, b in enumerate(BUCKETS)},
        "buckets_in": bucket_counts(table.tasks, bucket),
        "buckets_balanced": bucket_counts(table.tasks, bucket, idx),
        "resampling": resample_summary,
        "clue_overlap_median": {**median_by_bucket(bal["clue_overlap"], bal_bucket), "by_task": by_task_medians},
        "ambiguity_flag_counts": _flag_counts(table.flags),
        "passed": all(c["pass"] for c in checks),
        "checks": checks,
    }


def _flag_counts(flags: list[list[str]]) -> dict[str, int]:
    return dict(sorted(Counter(f for fl in flags for f in fl).items()))


DEFINITIONS = {
    "question": "the pool item's user turns",
    "support": "supporting sentences (supporting_facts) when the pool item has them, else the context paragraphs "
               "named by its expected wiki calls, else facts/decomposition/solution, else its whole context",
    "len_tokens": "approximate LLM tokens of every dialogue turn + 5 template tokens per turn (rc1.core.text)",
    "turns": "dialogue turns other than the system prompt",
    "tool_hops": "number of expected tool calls",
    "entities": "capitalized spans (not a lone sentence-initial function word) + numbers in the question",
    "ops_numeric": "arithmetic operators in expected calc expressions + arithmetic cue words/symbols in the question",
    "connector_density": "discourse connectors per 100 question words",
    "coref_pronouns": "third-person and demonstrative pronouns in the question",
    "clue_overlap": "Jaccard similarity of the word 3-gram sets of question and support",
    "ambiguity": "number of ambiguity flags (hidden_info, vague_quantity, dangling_reference, "
                 "multiple_questions, alternative_question)",
    "bucketing": "score = mean per-task percentile rank of the ten criteria (equal weights, clue_overlap "
                 "reversed); per task the lowest third of scores is easy, the middle third medium, the top "
                 "third hard",
    "resampling": "per task and bucket, a seeded draw without replacement; default size = the largest that "
                  "needs no replacement; floor(target x size) per bucket, remainder to hard, medium, easy",
    "checks": "evaluated on the balanced pool (repeats counted): per-task bucket shares, maxima of len_tokens, "
              "turns and tool_hops, medians of clue_overlap in the hard and easy buckets",
}
