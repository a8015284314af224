"""`rc1 shadow-run` end to end on a small hand-made shadow set: report, scored candidates, MLflow run,
exit codes, reuse."""

import json
import shutil
from pathlib import Path

import mlflow
import pytest
import yaml

from rc1.core.config import DIMENSIONS
from rc1.core.records import make_task
from rc1_cli import run_cli

REPO = Path(__file__).resolve().parents[2]


def shadow_records() -> list[dict]:
    rows = []
    for i in range(6):
        a, b = 3 + i, 4 + 2 * i
        rows.append(make_task("gsm8k", f"g{i}", f"Tom has {a} boxes with {b} pens each. How many pens does he have?",
                              str(a * b), decomposition=[f"He has {a}*{b} = {a * b} pens."]))
    for i in range(4):
        rows.append(make_task(
            "hotpotqa", f"h{i}", f"Where was the author of Book {i} born?", f"Town{i}",
            context=[[f"Book {i}", [f"Book {i} is a novel by Writer {i}."]],
                     [f"Writer {i}", [f"Writer {i} was born in Town{i}."]],
                     [f"Other {i}", [f"Other {i} is a village near Town{i + 1}."]]],
            supporting_facts=[[f"Book {i}", 0], [f"Writer {i}", 0]]))
    for i, ans in enumerate(["yes", "no", "yes", "no"]):
        rows.append(make_task("strategyqa", f"s{i}", f"Is statement number {i} about animals true?", ans,
                              facts=[f"Fact {i} about animals."], decomposition=[f"Is {i} true?"]))
    rows.append({"id": "seed:c1", "task": "gsm8k", "needs_clarification": True, "hidden_info": "Each box holds 6 eggs.",
                 "dialogue": [{"role": "system", "content": "Help."},
                              {"role": "user", "content": "I bought 4 boxes of eggs. How many eggs do I have?"}],
                 "expected_tool_calls": [{"name": "calc", "arguments": {"expression": "4*6"}}], "answer": "24",
                 "context": []})
    return rows


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for var in ("MLFLOW_TRACKING_URI", "SCORER_BASE_URL", "SCORER_API_KEY", "SCORER_MODEL", "MLFLOW_RUN_ID",
                "MLFLOW_EXPERIMENT_ID"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("RUN_MODE", "dev")
    monkeypatch.setenv("SCORER_PROVIDER", "heuristic")
    monkeypatch.setenv("REWARD_LIVE_MODE", "0")
    monkeypatch.setenv("RC1_CACHE_DIR", str(tmp_path / "cache"))
    shutil.copytree(REPO / "configs", tmp_path / "configs")
    with open(tmp_path / "shadow.jsonl", "w") as fh:
        for r in shadow_records():
            fh.write(json.dumps(r) + "\n")
    return tmp_path


def gates_with(path: Path, **shadow_run) -> str:
    g = yaml.safe_load((path / "configs" / "gates.yaml").read_text())
    g["shadow_run"].update(shadow_run)
    out = path / "gates_test.yaml"
    out.write_text(yaml.safe_dump(g))
    return str(out)


def stage_runs(stage):
    return mlflow.search_runs(search_all_experiments=True, filter_string=f"tags.`rc1.stage` = '{stage}'",
                              output_format="list")


def test_shadow_run_writes_report_and_scored_candidates_and_a_finished_run(workdir, capsys):
    gates = gates_with(workdir, spearman_min=-1.0, top10pct_overlap_min=0.0, corr_improve_pct_min=-1000.0)
    code = run_cli(["shadow-run", "--shadow", "shadow.jsonl", "--seed", "20250820", "--report", "out/report.json",
                    "--tag", "pre_run_check", "--gates", gates])
    assert code == 0
    rep = json.loads((workdir / "out/report.json").read_text())
    assert rep["passed"] is True and [c["name"] for c in rep["checks"]] == ["spearman", "top10pct_overlap",
                                                                             "corr_improve_pct", "corr_to_success_new"]
    assert rep["clarification_items_derived"] >= 3 and rep["clarification_items"] == 1 + rep["clarification_items_derived"]
    m = rep["metrics"]
    assert m["n_items"] == 15 and m["n_candidates"] == 90 and m["n_failed"] == 0
    assert set(m["by_difficulty"]) <= {"easy", "medium", "hard"} and set(m["by_task"]) == {"gsm8k", "hotpotqa",
                                                                                           "strategyqa"}
    rows = [json.loads(line) for line in (workdir / "out/scored_candidates.jsonl").read_text().splitlines()]
    assert len(rows) == 90
    for r in rows:
        assert set(r["scores"]) == set(DIMENSIONS) and r["old"] is not None and r["new"] is not None
        assert isinstance(r["success"], bool) and r["difficulty"] in ("easy", "medium", "hard")
    wrong = [r for r in rows if r["kind"] == "wrong_answer"]
    assert wrong and not any(r["success"] for r in wrong)
    clar = [r for r in rows if r["item_id"] == "seed:c1"]
    assert {r["kind"]: r["success"] for r in clar}["missing_clarification"] is False

    (run,) = stage_runs("shadow_run")
    assert run.info.status == "FINISHED"
    tags = run.data.tags
    assert tags["rc1.responder"] == "reference" and tags["rc1.judge_provider"] == "heuristic"
    assert tags["rc1.tag"] == "pre_run_check" and tags["pre_run_check"] == "true" and tags["rc1.passed"] == "true"
    assert tags["sha256.report.json"] and tags["sha256.scored_candidates.jsonl"]
    assert {"spearman", "kendall_tau", "top10_overlap", "top20_overlap", "top10pct_overlap", "top20pct_overlap",
            "argmax_agreement_within_item", "corr_to_success_old",
            "corr_to_success_new", "corr_improve_pct", "cache_hit_rate", "billable_count"} <= set(run.data.metrics)
    assert run.data.metrics["billable_count"] == 0  # the heuristic judge is never billable

    # same inputs again: reused, not recomputed
    assert run_cli(["shadow-run", "--shadow", "shadow.jsonl", "--report", "out/report.json", "--tag",
                    "pre_run_check", "--gates", gates]) == 0
    assert "reusing finished run" in capsys.readouterr().err


def test_failed_gate_exits_2_with_the_evidence_recorded(workdir, capsys):
    gates = gates_with(workdir, corr_improve_pct_min=1e6)
    assert run_cli(["shadow-run", "--shadow", "shadow.jsonl", "--report", "r.json", "--gates", gates]) == 2
    err = capsys.readouterr().err
    assert "rc1: gate failed: shadow_run" in err and "Traceback" not in err
    (run,) = stage_runs("shadow_run")
    assert run.info.status == "FINISHED" and run.data.tags["rc1.passed"] == "false"
    rep = json.loads((workdir / "r.json").read_text())
    assert rep["passed"] is False and {c["name"]: c["pass"] for c in rep["checks"]}["corr_improve_pct"] is False


def test_bad_input_is_one_line_and_exit_2(workdir, capsys):
    (workdir / "bad.jsonl").write_text('{"id": "x", "task": "gsm8k"}\n')
    assert run_cli(["shadow-run", "--shadow", "bad.jsonl", "--report", "r.json"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.jsonl: line 1" in err[0]
    assert run_cli(["shadow-run", "--shadow", "shadow.jsonl", "--beta", "0.2", "--report", "r.json"]) == 2
    assert "beta 0.2 is outside" in capsys.readouterr().err
    assert not (workdir / "r.json").exists()


@pytest.mark.parametrize("url", ["https://u:sk-SECRET1@127.0.0.1:9/v1", "http://127.0.0.1:9/v1?api_key=sk-SECRET2"])
def test_a_responder_url_with_a_credential_is_refused_before_any_run(workdir, capsys, url):
    """The key belongs in RESPONDER_API_KEY: a base URL carrying one (user info, a key-like parameter) is refused in one
    line before a run opens, and the URL is not in MLproject, whose -P values MLflow logs as given."""
    before = len(stage_runs("shadow_run"))
    assert run_cli(["shadow-run", "--responder", "endpoint", "--responder-base-url", url, "--n", "3"]) == 2
    err = capsys.readouterr().err
    assert "--responder-base-url: the URL carries a credential" in err and "SECRET" not in err
    assert len(stage_runs("shadow_run")) == before
    assert "responder-base-url" not in (REPO / "MLproject").read_text()
