"""`rc1 difficulty`: outputs, report schema, PNG artifacts, exit codes, the MLflow run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rc1.core.io import read_json, sha256_file, write_jsonl
from rc1.core.records import pool_item_problem
from test_difficulty import graded_pool
from rc1_cli import run_cli

REPO = Path(__file__).resolve().parents[2]
GATES = str(REPO / "configs" / "gates.yaml")


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for var in ("MLFLOW_TRACKING_URI", "MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_ID"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path


def _cmd(pool: str, *extra: str) -> list[str]:
    return ["difficulty", "--in", pool, "--out", "out/metrics.jsonl", "--balanced", "out/balanced.jsonl",
            "--target", "easy:0.25,medium:0.45,hard:0.30", "--by_task", "hotpotqa,strategyqa,gsm8k",
            "--report", "out/difficulty_report.json", "--gates", GATES, *extra]


def test_graded_pool_passes_and_run_has_metrics_plots_and_sha256_tags(store):
    from mlflow.tracking import MlflowClient

    pool = graded_pool(20)
    write_jsonl(store / "pool.jsonl", pool)
    assert run_cli(_cmd(str(store / "pool.jsonl"))) == 0
    rep = read_json(store / "out" / "difficulty_report.json")
    assert rep["passed"] is True and rep["n_in"] == len(pool) and rep["with_replacement"] is False
    for name in ("len_tokens", "turns", "tool_hops", "entities", "ops_numeric", "connector_density",
                 "coref_pronouns", "clue_overlap", "ambiguity", "needs_clarification"):
        m = rep["metrics"][name]
        assert {"p10", "p50", "p90"} <= set(m) and len(m["histogram"]["edges"]) == len(m["histogram"]["counts"]) + 1
        assert sum(m["histogram"]["counts"]) == len(pool)
    for task in ("hotpotqa", "strategyqa", "gsm8k"):
        b = rep["buckets_balanced"][task]
        assert b["hard_share"] >= 0.30 and b["easy_share"] <= 0.30
        assert rep["buckets_in"][task] == {"easy": 20, "medium": 20, "hard": 20, "n": 60, "easy_share": 1 / 3,
                                           "medium_share": 1 / 3, "hard_share": 1 / 3}

    balanced = [json.loads(line) for line in (store / "out" / "balanced.jsonl").read_text().splitlines()]
    assert len(balanced) == rep["n_out"]
    assert all(pool_item_problem(s) is None and s["difficulty"] in ("easy", "medium", "hard")
               and s["difficulty_metrics"]["len_tokens"] > 0 for s in balanced)
    by_id = {s["id"]: s for s in pool}
    assert all({k: v for k, v in s.items() if not k.startswith("difficulty")} == by_id[s["id"]] for s in balanced)
    metrics = (store / "out" / "metrics.jsonl").read_text().splitlines()
    assert len(metrics) == len(pool) and "clue_overlap" in json.loads(metrics[0])

    run = MlflowClient().get_run(rep["run_id"])
    assert run.info.status == "FINISHED" and run.data.tags["rc1.stage"] == "difficulty"
    assert run.data.tags["sha256.balanced.jsonl"] == sha256_file(store / "out" / "balanced.jsonl")
    assert run.data.tags["sha256.difficulty_report.json"] == sha256_file(store / "out" / "difficulty_report.json")
    assert "sha256.difficulty_metrics.png" in run.data.tags
    arts = {a.path for a in MlflowClient().list_artifacts(rep["run_id"], "plots")}
    assert arts == {"plots/difficulty_metrics.png", "plots/difficulty_buckets.png"}
    assert (store / "out" / "plots" / "difficulty_metrics.png").read_bytes()[:4] == b"\x89PNG"
    assert run.data.metrics["clue_overlap_median.easy"] >= 0.40 and "len_tokens_p90" in run.data.metrics

    # same inputs again: the finished run is reused, the outputs restored byte for byte
    before = sha256_file(store / "out" / "balanced.jsonl")
    (store / "out" / "balanced.jsonl").unlink()
    assert run_cli(_cmd(str(store / "pool.jsonl"))) == 0
    assert sha256_file(store / "out" / "balanced.jsonl") == before


def test_pool_without_matching_evidence_fails_the_gate_with_exit_2(store, capsys):
    pool = graded_pool(10)
    for s in pool:
        s["context"] = []            # no evidence: clue_overlap 0 everywhere, below both buckets' lower bounds
    write_jsonl(store / "pool.jsonl", pool)
    assert run_cli(_cmd(str(store / "pool.jsonl"))) == 2
    assert "difficulty: 2 of 11 checks failed" in capsys.readouterr().err
    rep = read_json(store / "out" / "difficulty_report.json")
    assert [c["name"] for c in rep["checks"] if not c["pass"]] == ["clue_overlap_median.hard", "clue_overlap_median.easy"]


@pytest.mark.parametrize("extra, expect", [
    (["--target", "easy:0.5,hard:0.6"], "--target sums to 1.1"),
    (["--by_task", "hotpotqa,chess"], "--by-task: unknown task 'chess'"),
])
def test_bad_options_are_one_line_errors(store, capsys, extra, expect):
    write_jsonl(store / "pool.jsonl", graded_pool(2))
    assert run_cli(_cmd(str(store / "pool.jsonl")) + extra) == 2
    lines = [l for l in capsys.readouterr().err.splitlines() if l.startswith("rc1:")]
    assert len(lines) == 1 and expect in lines[0]


def test_the_pool_is_required(capsys):
    assert run_cli(["difficulty"]) == 2   # click's usage error, as for every missing required option
    err = capsys.readouterr().err
    assert "Missing option '--pool'" in err and "Traceback" not in err


def test_truncated_pool_names_file_and_line(store, capsys):
    lines = [json.dumps(s) for s in graded_pool(2)]
    (store / "pool.jsonl").write_text("\n".join(lines[:3]) + "\n" + lines[3][:40] + "\n")
    assert run_cli(_cmd(str(store / "pool.jsonl"))) == 2
    err = [l for l in capsys.readouterr().err.splitlines() if l.startswith("rc1:")]
    assert len(err) == 1 and "pool.jsonl: line 4: invalid JSON" in err[0]
    assert not (store / "out" / "balanced.jsonl").exists()


def test_the_default_target_is_the_pools_poses():
    """--target's default is the shares the pool is posed in (rc1.data.plan.DEFAULT_TARGET), declared once."""
    from rc1.core.config import parse_mix
    from rc1.data.plan import DEFAULT_TARGET, DEFAULT_TARGET_TEXT
    from rc1.stages import difficulty
    from rc1.data.templates import DIFFICULTIES

    assert difficulty.Config(pool="p.jsonl").target == DEFAULT_TARGET_TEXT
    assert parse_mix(DEFAULT_TARGET_TEXT, what="--target", known=DIFFICULTIES) == DEFAULT_TARGET
