"""Shadow-run metrics on hand-made rankings whose values are known."""

import pytest

from rc1.core.config import DIMENSIONS, ShadowRunThresholds
from rc1.scoring.comparison import shadow_checks, shadow_metrics
from rc1.scoring.ranks import improve_pct, kendall_tau, spearman, topk_membership, topk_overlap


def test_rank_correlations_of_a_single_adjacent_swap():
    old = [1, 2, 3, 4, 5]
    new = [1, 2, 3, 5, 4]
    assert spearman(old, new) == pytest.approx(0.9)        # 1 - 6*2 / (5*24)
    assert kendall_tau(old, new) == pytest.approx(0.8)     # 9 concordant, 1 discordant of 10
    assert spearman(old, old) == pytest.approx(1.0) and spearman(old, old[::-1]) == pytest.approx(-1.0)
    assert spearman([1, 1, 1], [1, 2, 3]) is None          # undefined, not 0 or NaN


def test_topk_overlap_counts_shared_members_as_a_fraction_of_k():
    old = list(range(20, 0, -1))              # candidate 0 best
    new = old[:]
    new[9], new[10] = new[10], new[9]         # swap ranks 10 and 11: top-10 shares 9 of 10
    assert topk_overlap(old, new, 10) == pytest.approx(0.9)
    assert topk_overlap(old, new, 20) == pytest.approx(1.0)
    assert topk_overlap(old, old[::-1], 10) == pytest.approx(0.0)
    assert topk_overlap([3, 2, 1], [1, 2, 3], 10) == pytest.approx(1.0)  # k larger than n: everything


def test_topk_overlap_is_tie_aware_not_sort_order():
    # all old scores tie: each candidate is in old's top-2 with probability 2/4
    m = topk_membership([0.5, 0.5, 0.5, 0.5], 2)
    assert list(m) == [0.5, 0.5, 0.5, 0.5]
    assert topk_overlap([0.5] * 4, [4, 3, 2, 1], 2) == pytest.approx(0.5)
    # float noise does not break ties
    assert list(topk_membership([0.1 + 0.2, 0.3, 0.0], 1)) == [0.5, 0.5, 0.0]


def test_improvement_percent_is_measured_from_a_positive_baseline_only():
    assert improve_pct(0.40, 0.50) == pytest.approx(25.0)
    assert improve_pct(0.40, 0.30) == pytest.approx(-25.0) and improve_pct(0.40, -0.40) == pytest.approx(-200.0)
    # issue 32: -0.69 -> -0.49 was "+29%" for a judge that ranks wrong answers first; no baseline, no percentage
    assert improve_pct(-0.69, -0.49) is None and improve_pct(-0.20, 0.10) is None
    assert improve_pct(0.0, 0.3) is None and improve_pct(None, 0.3) is None and improve_pct(0.3, None) is None


def _row(i, old, new, success, task="gsm8k", difficulty="hard", failed=False):
    return {"item_id": f"i{i // 2}", "candidate_id": f"c{i}", "kind": "correct" if success else "wrong_answer",
            "task": task, "difficulty": difficulty, "success": success, "failed": failed,
            "old": None if failed else old, "new": None if failed else new,
            "scores": None if failed else {d: old for d in DIMENSIONS}}


def test_shadow_metrics_splits_by_bucket_and_task_and_leaves_failed_rows_out():
    rows = [_row(0, 0.9, 0.95, True), _row(1, 0.95, 0.30, False), _row(2, 0.7, 0.90, True),
            _row(3, 0.6, 0.20, False, task="hotpotqa", difficulty="easy"),
            _row(4, 0.5, 0.85, True, task="hotpotqa", difficulty="easy"), _row(5, 0, 0, True, failed=True)]
    m = shadow_metrics(rows)
    assert (m["n_candidates"], m["n_scored"], m["n_failed"]) == (6, 5, 1)
    assert m["corr_to_success_new"] == pytest.approx(spearman([0.95, 0.30, 0.90, 0.20, 0.85], [1, 0, 1, 0, 1]))
    assert m["corr_to_success_new"] > 0 > m["corr_to_success_old"] and m["corr_improve_pct"] is None  # no baseline
    assert set(m["by_difficulty"]) == {"hard", "easy"} and set(m["by_task"]) == {"gsm8k", "hotpotqa"}
    assert m["by_task"]["hotpotqa"]["n"] == 2 and m["topk_scope"] == "global"
    # within items (i0: old and new disagree, i1: agree; i2 has one scored candidate, undefined)
    assert m["spearman_within_item_mean"] == pytest.approx(0.0)
    assert m["corr_to_success_within_item_new"] == pytest.approx(1.0)
    # argmax within item: i0 old picks c1, new picks c0 (0); i1 both pick c2 (1); i2 one scored candidate (1)
    assert m["argmax_agreement_by_item"] == {"i0": 0.0, "i1": 1.0, "i2": 1.0}
    assert m["argmax_agreement_within_item"] == pytest.approx(2 / 3)
    assert m["top10pct_overlap"] == pytest.approx(0.0)   # k = 1 of 5: old's top (0.95) is new's 4th
    assert m["top20pct_overlap"] == pytest.approx(0.0)
    checks = shadow_checks(m, ShadowRunThresholds(spearman_min=0.75, top10pct_overlap_min=0.0, corr_improve_pct_min=10,
                                            corr_to_success_new_min=0.3))
    assert [c["name"] for c in checks] == ["spearman", "top10pct_overlap", "corr_improve_pct", "corr_to_success_new"]
    by = {c["name"]: c for c in checks}
    assert by["spearman"]["value"] == pytest.approx(spearman([0.9, 0.95, 0.7, 0.6, 0.5], [0.95, 0.3, 0.9, 0.2, 0.85]))
    assert by["spearman"]["pass"] is False and by["top10pct_overlap"]["pass"] is True


def test_a_judge_that_ranks_wrong_answers_first_passes_the_agreement_checks_and_fails_the_success_ones():
    """Issue 32's shape: old and new agree (the same judge under both), both rank the wrong answers first; the new
    reward less so. spearman and the overlap cannot see it; corr_to_success_new and corr_improve_pct refuse it."""
    rows = [_row(0, 0.30, 0.50, True), _row(1, 0.80, 0.60, False), _row(2, 0.40, 0.62, True),
            _row(3, 0.70, 0.55, False), _row(4, 0.20, 0.30, True), _row(5, 0.90, 0.90, False)]
    m = shadow_metrics(rows)
    assert m["corr_to_success_old"] < m["corr_to_success_new"] < 0
    checks = {c["name"]: c for c in shadow_checks(m, ShadowRunThresholds(
        spearman_min=0.75, top10pct_overlap_min=0.70, corr_improve_pct_min=10, corr_to_success_new_min=0.3))}
    assert checks["spearman"]["pass"] and checks["top10pct_overlap"]["pass"]
    assert checks["corr_improve_pct"]["value"] is None and not checks["corr_improve_pct"]["pass"]
    assert not checks["corr_to_success_new"]["pass"]


def test_clarify_items_turns_a_share_of_plain_tasks_into_clarification_items_deterministically():
    from rc1.core.records import make_task
    from rc1.data.clarify import clarify_items

    tasks = [make_task("gsm8k", f"g{i}", f"Ann buys {3 + i} apples for {7 + i} dollars each. How much does she pay?",
                       str((3 + i) * (7 + i)), decomposition=[f"{3 + i}*{7 + i} = {(3 + i) * (7 + i)}"])
             for i in range(10)]
    seed_like = {"id": "s", "task": "gsm8k", "dialogue": [{"role": "user", "content": "q"}], "answer": "1",
                 "needs_clarification": False}
    out, n = clarify_items([*tasks, seed_like], rate=0.3, seed=1)
    assert n == 3 and out == clarify_items([*tasks, seed_like], rate=0.3, seed=1)[0]
    assert out[-1] == seed_like  # records that say whether they need clarification are kept
    for before, after in zip(tasks, out):
        if after.get("needs_clarification"):
            removed = next(w for w in before["question"].split() if w not in after["question"].split())
            assert removed in after["hidden_info"] and after["answer"] == before["answer"]
        else:
            assert after == before
    assert clarify_items(tasks, rate=0.3, seed=2)[0] != out[:-1]
