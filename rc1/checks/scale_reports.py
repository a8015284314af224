"""Staged scale-up of generation (1000 -> 5000): no pass, no scale-up.

Each stage draws its seeds from the preflight's balanced pool and reports twice:
- before, on the pool items it will generate from: diversity (the validate_pool gate's distinct-2, KL vs pack_v1,
  roles, styles, on exactly these seeds) and their difficulty shares (recorded; a seeded draw from a balanced
  pool keeps its shares, so they are a consistency check, not a gate);
- after, on what was generated and judged: diversity of the responses (distinct-2 of the assistant turns),
  stability of the judge (share of unstable and of failed judgements, mean of each judgement's largest
  per-dimension variance across its K samples), and
  difficulty (success by bucket: hard items must not come out easier than easy ones).
A stage may start only when every earlier stage's before and after reports passed (the caller finds them in
the tracking store). Thresholds: configs/gates.yaml `scale`.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, Mapping, Sequence

from rc1.core.config import ScaleThresholds
from rc1.core.errors import Rc1Error
from rc1.core.summary import check
from rc1.quality.diversity import lexical_summary
from rc1.core.text import words

DIFFICULTIES = ("easy", "medium", "hard")
RESPONSE_SAMPLE = 1000


def earlier_stages(stages: Sequence[int], stage: int) -> list[int]:
    return [s for s in stages if s < stage]


def draw(pool_items: Sequence[Mapping[str, Any]], n: int, seed: int) -> list[Mapping[str, Any]]:
    """n pool items, a seeded draw without replacement (in pool order, so the draw is stable across runs)."""
    if n > len(pool_items):
        raise Rc1Error(f"stage {n} needs {n} pool items; the pool has {len(pool_items)}")
    picked = sorted(random.Random(seed).sample(range(len(pool_items)), n))
    return [pool_items[i] for i in picked]


def difficulty_shares(pool_items: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """Per task: share of each difficulty bucket among the stage's pool items."""
    by_task: dict[str, Counter] = {}
    for s in pool_items:
        by_task.setdefault(str(s["task"]), Counter())[str(s.get("difficulty") or "unknown")] += 1
    return {t: {d: c[d] / sum(c.values()) for d in DIFFICULTIES} for t, c in sorted(by_task.items())}


def before_checks(validation_checks: Sequence[Mapping[str, Any]]) -> list[dict]:
    """The diversity checks of the validate_pool gate, run on the stage's pool items."""
    keep = ("distinct_2", "kl_3gram_vs_v1", "roles", "styles")
    return [dict(c) for c in validation_checks if c["name"] in keep]


def _assistant_words(row: Mapping[str, Any]) -> list[str]:
    turns = row["dialogue"][row.get("prefix_len", 0):]
    return [w for t in turns if t.get("role") == "assistant" for w in words(str(t.get("content") or ""))]


def after_report(rows: Sequence[Mapping[str, Any]], gate: ScaleThresholds, seed: int) -> tuple[dict, list[dict]]:
    """Metrics and checks over the judged dialogues (rows of rc1.scoring.comparison.score_candidates, with dialogue)."""
    texts = [_assistant_words(r) for r in rows]
    texts = [t for t in texts if t]
    sample = texts if len(texts) <= RESPONSE_SAMPLE else random.Random(seed).sample(texts, RESPONSE_SAMPLE)
    distinct_2 = lexical_summary(sample)["distinct_2"] if sample else 0.0
    n = len(rows)
    unstable = sum(bool(r.get("unstable")) for r in rows) / n if n else 1.0
    failed = sum(bool(r.get("failed")) for r in rows) / n if n else 1.0
    spreads = [r["variance_max"] for r in rows if r.get("variance_max") is not None]
    success = {d: [bool(r["success"]) for r in rows if r.get("difficulty") == d] for d in DIFFICULTIES}
    rate = {d: (sum(v) / len(v) if v else None) for d, v in success.items()}
    gap = None if rate["easy"] is None or rate["hard"] is None else rate["easy"] - rate["hard"]
    metrics = {
        "n": n, "response_distinct_2": distinct_2, "response_sample": len(sample),
        "unstable_share": unstable, "judge_failed_share": failed,
        "judge_variance_max_mean": sum(spreads) / len(spreads) if spreads else None,
        "success": sum(bool(r["success"]) for r in rows) / n if n else None,
        "success_by_difficulty": rate, "easy_minus_hard_success": gap,
        "reward_mean": _mean([r["new"] for r in rows if r.get("new") is not None]),
    }
    g = gate
    checks = [
        check("response_distinct_2", distinct_2, f">= {g.response_distinct_2_min}", distinct_2 >= g.response_distinct_2_min),
        check("unstable_share", unstable, f"<= {g.unstable_share_max}", unstable <= g.unstable_share_max),
        check("judge_failed_share", failed, f"<= {g.judge_failed_max}", failed <= g.judge_failed_max),
        check("easy_minus_hard_success", gap, f">= {g.easy_minus_hard_success_min}",
              gap is not None and gap >= g.easy_minus_hard_success_min),
    ]
    return metrics, checks


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None
