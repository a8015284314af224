"""Over-clarification ablation: tie-aware best-of-K, the subset variant, deltas, gate and the CLI."""

import json

import pytest
from rc1_cli import run_cli
from test_shadow_run_cli import stage_runs, workdir  # noqa: F401  (fixture)

from rc1.core.config import DIMENSIONS, load_thresholds
from rc1.scoring.overclar import ablation, ablation_checks, selection
from rc1.scoring.reward import RewardParams

W = {d: 1 / 7 for d in DIMENSIONS}


def test_selection_is_tie_aware_and_subsets_are_enumerated_exactly():
    assert selection([0.5, 0.9, 0.9]) == [0.0, 0.5, 0.5]
    assert selection([3, 2, 1], subset_k=2) == pytest.approx([2 / 3, 1 / 3, 0.0])  # {0,1}->0 {0,2}->0 {1,2}->1
    assert selection([3, 2, 1], subset_k=5) == [1.0, 0.0, 0.0]


def cand(item, cid, *, c, score, success, needs=False, turns=None):
    return {"item_id": item, "candidate_id": cid, "task": "gsm8k", "difficulty": "medium", "failed": False,
            "needs_clarification": needs, "clarifications": c, "turns": turns if turns is not None else 1 + 2 * c,
            "success": success, "scores": {d: score for d in DIMENSIONS}}


def rows_where_needless_questions_win_without_penalty():
    rows = []
    for i in range(4):  # asking scores a little higher, so only the penalty stops it
        rows += [cand(f"i{i}", "direct", c=0, score=0.80, success=True),
                 cand(f"i{i}", "asks", c=1, score=0.85, success=True)]
    rows += [cand("n0", "asks", c=1, score=0.9, success=True, needs=True),   # needed: never penalised
             cand("n0", "guess", c=0, score=0.5, success=False, needs=True)]
    return rows


def test_penalty_removes_needless_questions_without_costing_success():
    rep = ablation(rows_where_needless_questions_win_without_penalty(), W, RewardParams(0.07, 3, 0.05))
    a, b, d = rep["without_penalty"], rep["with_penalty"], rep["delta"]
    assert (a["overclar_rate"], b["overclar_rate"]) == (1.0, 0.0) and d["overclar_rate_reduction_pct"] == 100.0
    assert a["asked_when_needed_rate"] == b["asked_when_needed_rate"] == 1.0
    assert (a["avg_turns"], b["avg_turns"]) == (3.0, pytest.approx(1.4)) and d["avg_turns"] == pytest.approx(-1.6)
    assert d["success_pp"] == 0.0
    assert all(c["pass"] for c in ablation_checks(rep, load_thresholds("configs/gates.yaml").overclar_ablation))


def test_gate_fails_when_the_penalty_costs_success_or_there_is_nothing_to_reduce():
    rows = [cand("i0", "asks", c=1, score=0.85, success=True), cand("i0", "direct", c=0, score=0.82, success=False)]
    rep = ablation(rows, W, RewardParams(0.07, 3, 0.05))
    failed = {c["name"] for c in ablation_checks(rep, load_thresholds("configs/gates.yaml").overclar_ablation) if not c["pass"]}
    assert failed == {"success_drop_pp"} and rep["delta"]["success_pp"] == -100.0
    calm = ablation([cand("i0", "direct", c=0, score=0.9, success=True)], W, RewardParams(0.07, 3, 0.05))
    assert calm["delta"]["overclar_rate_reduction_pct"] is None and calm["note"]


def test_cli_reports_both_arms_with_a_finished_run(workdir):  # noqa: F811
    with open(workdir / "scored.jsonl", "w") as fh:
        for r in rows_where_needless_questions_win_without_penalty():
            fh.write(json.dumps({**r, "responder": "reference", "judge_provider": "heuristic"}) + "\n")
    assert run_cli(["overclar-ablation", "--alpha", "0.07", "--cap", "3", "--scored", "scored.jsonl",
                    "--report", "ab.json"]) == 0
    rep = json.loads((workdir / "ab.json").read_text())
    assert rep["passed"] and rep["params"] == {"alpha": 0.07, "cap": 3, "beta": 0.08, "selection": "best of all K"}
    (run,) = stage_runs("overclar_ablation")
    assert run.info.status == "FINISHED" and run.data.tags["sha256.ab.json"] and run.data.tags["rc1.passed"] == "true"
    assert run.data.metrics["delta.overclar_rate_reduction_pct"] == 100.0
    # alpha 0 is the ablation's own baseline: nothing is reduced, the gate fails with exit 2
    assert run_cli(["overclar-ablation", "--alpha", "0", "--scored", "scored.jsonl", "--report", "ab0.json"]) == 2
    assert run_cli(["overclar-ablation", "--scored", "scored.jsonl", "--subset-k", "-1"]) == 2
