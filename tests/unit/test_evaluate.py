"""RC1 evaluation core: summaries by task x difficulty, deltas in pp, and the verdict from gates.yaml."""

import pytest

from rc1.core.config import EvaluateThresholds
from rc1.inference.policy_vs_base import build_report, item_row, overclar_reduction_pct, summarize

GATE = EvaluateThresholds(hard_success_gain_pp_min=5, clarify_success_gain_pp_min=5, overclar_reduction_pct_min=20,
                    avg_turns_increase_max=0, min_shadow_items=1, min_heldout_items=1)


def row(task="hotpotqa", difficulty="hard", needs=False, success=True, clar=0, turns=1, split="shadow"):
    return {"id": f"{task}:{difficulty}:{needs}:{success}:{clar}", "split": split, "task": task,
            "difficulty": difficulty, "needs_clarification": needs, "clarifications": clar, "turns": turns,
            "success": success, "overclarified": (not needs) and clar > 0}


def test_item_row_counts_success_and_clarification():
    item = {"id": "x", "task": "strategyqa", "answer": "yes", "needs_clarification": True,
            "dialogue": [{"role": "user", "content": "Is it?"}]}
    asked = item["dialogue"] + [{"role": "assistant", "content": "Which one?"}, {"role": "user", "content": "The red one."},
                                {"role": "assistant", "content": "Answer: yes"}]
    r = item_row(item, asked, "shadow", "hard")
    assert (r["success"], r["clarifications"], r["turns"], r["overclarified"]) == (True, 1, 3, False)
    silent = item_row(item, item["dialogue"] + [{"role": "assistant", "content": "Answer: yes"}], "shadow", "hard")
    assert silent["success"] is False          # right answer, but the item needed a question


def test_summary_and_passing_verdict():
    base = [row(success=False), row(task="strategyqa", success=False), row(needs=True, success=False),
            row(task="gsm8k", difficulty="easy", clar=1, turns=3), row(task="gsm8k", difficulty="easy", turns=2)]
    policy = [row(), row(task="strategyqa"), row(needs=True, clar=1, turns=2),
              row(task="gsm8k", difficulty="easy", turns=1), row(task="gsm8k", difficulty="easy", turns=1)]
    rep = build_report(policy, base, GATE)
    assert rep.policy["success_by_task_difficulty"]["hotpotqa.hard"] == 1.0
    assert rep.base["overclar_rate"] == pytest.approx(0.25)
    assert rep.deltas["hard_success_gain_pp"] == pytest.approx(100 * (3 / 3 - 0 / 3))
    assert rep.deltas["overclar_reduction_pct"] == 100.0
    assert rep.deltas["avg_turns_increase"] == pytest.approx((1 + 1 + 2 + 1 + 1) / 5 - (1 + 1 + 1 + 3 + 2) / 5)
    assert rep.passed and set(rep.by_split) == {"shadow"}


def test_no_gain_or_more_turns_fails_with_the_failing_checks():
    rows = [row(), row(needs=True, clar=1), row(task="gsm8k", difficulty="easy", clar=1)]
    longer = [dict(r, turns=r["turns"] + 1) for r in rows]
    rep = build_report(longer, rows, GATE)
    failing = {c["name"] for c in rep.checks if not c["pass"]}
    assert failing == {"hard_success_gain_pp", "clarify_success_gain_pp", "overclar_reduction_pct", "avg_turns_increase"}


def test_missing_evidence_fails_and_zero_base_overclarification_rules():
    only_gsm8k = [row(task="gsm8k", difficulty="easy")]
    rep = build_report(only_gsm8k, only_gsm8k, GATE)
    hard = next(c for c in rep.checks if c["name"] == "hard_success_gain_pp")
    assert hard["value"] is None and not hard["pass"]
    overclar = next(c for c in rep.checks if c["name"] == "overclar_reduction_pct")
    assert overclar["pass"]                                  # base 0 and policy 0: nothing to reduce
    assert overclar_reduction_pct(0.1, 0.0) is None           # the policy started over-clarifying
    assert overclar_reduction_pct(0.1, 0.2) == pytest.approx(50.0)
    assert summarize([])["success"] is None
