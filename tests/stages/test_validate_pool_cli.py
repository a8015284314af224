"""`rc1 validate-pool`: exit codes, one-line errors, reports, and the MLflow run it leaves."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rc1.core.io import read_json, sha256_file, write_jsonl
from test_quality import SHADOW, make_pool, make_seed
from rc1_cli import run_cli

REPO = Path(__file__).resolve().parents[2]
GATES = str(REPO / "configs" / "gates.yaml")


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.delenv("MLFLOW_RUN_ID", raising=False)
    monkeypatch.delenv("MLFLOW_EXPERIMENT_ID", raising=False)
    return tmp_path


def _files(d: Path, pool: list[dict]) -> dict[str, str]:
    write_jsonl(d / "pool.jsonl", pool)
    write_jsonl(d / "base.jsonl", make_pool(200, start=50_000, wrapper="Answer the following question as well as you can:"))
    write_jsonl(d / "shadow.jsonl", [{"id": sid, "task": sid.split(":")[0], "question": q} for sid, q in SHADOW])
    return {"pool": str(d / "pool.jsonl"), "base": str(d / "base.jsonl"), "shadow": str(d / "shadow.jsonl")}


def _cmd(f, report="out/validation_report.json", *extra):
    return ["validate-pool", f["pool"], "--leak_check", f["shadow"], "--leak_ngram", "5", "--leak_sim", "0.85",
            "--report", report, "--baseline_pool", f["base"], "--gates", GATES, "--no-reuse", *extra]


def test_clean_pool_exits_0_and_leaves_a_finished_run_with_sha256_tags(store, capsys):
    from mlflow.tracking import MlflowClient

    f = _files(store, make_pool(200))
    assert run_cli(_cmd(f)) == 0
    rep = read_json(store / "out" / "validation_report.json")
    assert rep["passed"] is True and rep["n"] == 200
    assert all(set(c) == {"name", "value", "threshold", "pass"} for c in rep["checks"])
    assert {"leak_count", "distinct_2", "kl_3gram_vs_v1", "near_dup_rate"} <= {c["name"] for c in rep["checks"]}
    div = read_json(store / "out" / "diversity_report.json")
    assert div["leaks"]["count"] == 0 and "distinct_n" in div["definitions"]
    assert (store / "out" / "leaks.jsonl").read_text() == ""

    run = MlflowClient().get_run(rep["run_id"])
    assert run.info.status == "FINISHED" and run.data.tags["rc1.stage"] == "validate_pool"
    assert run.data.tags["rc1.passed"] == "true"
    assert run.data.tags["sha256.validation_report.json"] == sha256_file(store / "out" / "validation_report.json")
    assert run.data.tags["sha256.diversity_report.json"] == sha256_file(store / "out" / "diversity_report.json")
    assert "sha256.leaks.jsonl" in run.data.tags
    assert run.data.metrics["leak_count"] == 0
    assert {"distinct_2", "kl_3gram_vs_v1", "dup_rate", "near_dup_rate", "len_tokens_max",
            "mix_dev_pp.gsm8k"} <= set(run.data.metrics)
    assert "checks passed" in capsys.readouterr().out


def test_planted_leaks_exit_2_with_a_table_and_a_leaks_artifact(store, capsys):
    pool = make_pool(200)
    pool[3] = make_seed(3, pool[3]["task"], question=SHADOW[0][1])                               # verbatim
    pool[7] = make_seed(7, pool[7]["task"], question=SHADOW[2][1].replace("altogether", "in total"))  # reworded
    f = _files(store, pool)
    assert run_cli(_cmd(f)) == 2
    err = capsys.readouterr().err
    assert "gate failed: validate_pool: 1 of 13 checks failed" in err
    leaks = [json.loads(line) for line in (store / "out" / "leaks.jsonl").read_text().splitlines()]
    assert {(l["seed_id"], l["shadow_id"]) for l in leaks} == {("seed-3", "hotpotqa:s1"), ("seed-7", "gsm8k:s3")}
    rep = read_json(store / "out" / "validation_report.json")
    assert rep["passed"] is False
    assert next(c for c in rep["checks"] if c["name"] == "leak_count")["value"] == 2


def test_threshold_options_override_gates_yaml(store):
    pool = make_pool(200)
    pool[3] = make_seed(3, pool[3]["task"], question=SHADOW[0][1])
    f = _files(store, pool)
    assert run_cli(_cmd(f, "out/r.json", "--leak_count_max", "1")) == 0
    assert read_json(store / "out" / "r.json")["thresholds"]["leak_count_max"] == 1


def test_unset_thresholds_are_gates_yaml_s(store, capsys):
    """Every threshold option defaults to unset, so the gates file decides (nothing passes a copy of its values):
    a --gates file asking for 4-word n-grams and no leak allowed is what the run logs, reports and applies."""
    import yaml
    from mlflow.tracking import MlflowClient

    from rc1.stages import validate_pool

    assert all(getattr(validate_pool.Config(pool="p.jsonl"), k) is None for k in validate_pool.THRESHOLDS)
    gates = yaml.safe_load(Path(GATES).read_text())
    gates["validate_pool"].update(leak_ngram=4, leak_sim=0.9)
    Path("gates.yaml").write_text(yaml.safe_dump(gates))
    pool = make_pool(200)
    pool[3] = make_seed(3, pool[3]["task"], question=SHADOW[0][1])
    f = _files(store, pool)
    args = ["validate-pool", f["pool"], "--leak-check", f["shadow"], "--baseline-pool", f["base"], "--gates",
            "gates.yaml", "--no-reuse"]
    assert run_cli(args) == 2
    rep = read_json(store / "out" / "validation_report.json")
    assert (rep["thresholds"]["leak_ngram"], rep["thresholds"]["leak_sim"]) == (4, 0.9)
    assert next(c for c in rep["checks"] if c["name"] == "leak_count")["value"] == 1
    params = MlflowClient().get_run(rep["run_id"]).data.params
    assert (params["leak_ngram"], params["leak_sim"], params["leak_count_max"]) == ("4", "0.9", "0")


def test_an_empty_baseline_pool_fails_the_kl_check(store, capsys):
    """KL(pool || v1) against an empty --baseline_pool is large for any pool (the smoothed baseline is uniform): a check
    that would pass by construction fails instead, with no value."""
    f = _files(store, make_pool(200))
    Path(f["base"]).write_text("\n")
    assert run_cli(_cmd(f)) == 2
    assert "gate failed: validate_pool: 1 of 13 checks failed" in capsys.readouterr().err
    rep = read_json(store / "out" / "validation_report.json")
    (kl,) = [c for c in rep["checks"] if c["name"] == "kl_3gram_vs_v1"]
    assert kl["value"] is None and not kl["pass"] and "needs a non-empty baseline" in kl["threshold"]
    assert read_json(store / "out" / "diversity_report.json")["kl_3gram_vs_v1"] is None


@pytest.mark.parametrize("bad, expect", [
    ('{"id": "x"}\n', "line 2: not a seed: missing key(s)"),
    ('{"id": \n', "line 2: invalid JSON"),
])
def test_malformed_pool_line_is_one_line_exit_2(store, capsys, bad, expect):
    f = _files(store, make_pool(10))
    good = Path(f["pool"]).read_text().splitlines()[0]
    Path(f["pool"]).write_text(good + "\n" + bad)
    assert run_cli(_cmd(f)) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("rc1:")]
    assert len(lines) == 1 and expect in lines[0] and "pool.jsonl" in lines[0] and "Traceback" not in err
    assert not (store / "out" / "validation_report.json").exists()


def test_bad_mix_and_missing_pool_are_one_line_errors(store, capsys):
    f = _files(store, make_pool(10))
    assert run_cli(_cmd(f, "out/r.json", "--mix", "hotpotqa:0.5,chess:0.5")) == 2
    assert "unknown task 'chess'" in capsys.readouterr().err
    assert run_cli(_cmd(dict(f, pool=str(store / "nope.jsonl")))) == 2
    assert "not found" in capsys.readouterr().err


@pytest.mark.parametrize("blank,fork", [(False, True), (True, True), (False, False)])
def test_the_pool_scanned_in_two_pieces_gives_one_pass_scan(tmp_path, monkeypatch, blank, fork):
    """The stage scans the pool's second half in another process and merges: the same counts (in first-seen
    order), lengths, sample, duplicate verdicts and leaks as one pass. A blank line in the first half moves the
    second half's first seed: the stage then scans the pool in one pass. Without fork (RC1_NO_FORK, or inside
    a process that imported mlflow) the pieces are scanned one after the other, with the same result."""
    if fork:
        monkeypatch.delenv("RC1_NO_FORK", raising=False)
    else:
        monkeypatch.setenv("RC1_NO_FORK", "1")
    from rc1.stages.validate_pool import _scan
    from rc1.quality.reader import iter_pool_items
    from rc1.quality.validate import scan_pool
    from test_quality import GATE

    pool = make_pool(300)
    pool += [dict(s, id=f"copy-{k}") for k, s in enumerate(pool[::7])]  # copies of first-half seeds in the second
    pool.insert(250, make_seed(5000, question=SHADOW[0][1]))
    pool.append(make_seed(5001, question=SHADOW[1][1].replace("were", "was"), role="pirate"))
    path = tmp_path / "pool.jsonl"
    write_jsonl(path, pool)
    if blank:
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        path.write_text("".join(lines[:40] + ["\n", "  \n"] + lines[40:]), encoding="utf-8")
    kw = dict(gate=GATE, shadow=SHADOW, sample_k=150, sample_seed=3)
    got = _scan(path, **kw)
    want = scan_pool(iter_pool_items(path), **kw)
    assert got.dedup["exact_duplicates"] == len(pool[:300:7]) and len(got.leaks) == 2
    for name in ("n", "tasks", "roles", "styles", "templates", "clarify", "lengths", "dedup", "leaks"):
        assert getattr(got, name) == getattr(want, name), name
    assert list(got.roles) == list(want.roles) and got.sample.items == want.sample.items


@pytest.mark.parametrize("extra, expect", [
    (["--leak-sim", "2"], "--leak-sim: Input should be less than or equal to 1"),
    (["--len-tokens-min", "5000"], "len_tokens_min/len_tokens_max: the lower bound 5000 is above the upper bound"),
])
def test_a_bad_threshold_override_is_a_one_line_error(store, capsys, extra, expect):
    f = _files(store, make_pool(20))
    assert run_cli(["validate-pool", f["pool"], "--gates", GATES, "--no-reuse", *extra]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1 and expect in lines[0] and not (store / "out").exists()


def test_another_report_path_reuses_the_finished_run(store, capsys):
    """Where the report goes is not what the run computes: the same pool, gates and options under another --report (or
    another spelling of the gates path) reuse the finished run, its outputs copied to the paths asked for."""
    f = _files(store, make_pool(200))
    first = [a for a in _cmd(f) if a != "--no-reuse"]
    assert run_cli(first) == 0
    capsys.readouterr()
    again = [a if a != "out/validation_report.json" else "elsewhere/report.json" for a in first]
    again[again.index(GATES)] = os.path.relpath(GATES)
    assert run_cli(again) == 0
    assert "reusing finished run" in capsys.readouterr().err
    assert read_json(store / "elsewhere" / "report.json")["passed"] is True


def test_prod_refuses_a_gates_file_loosening_the_issue_29_keys(store, capsys, monkeypatch):
    """Issue 29: a prod gates file that loosened pool_size_min, distinct_2_words, both clue-overlap medians, the
    strategies, the projection and scale.* let validate-pool pass a small pool; each is refused in one line."""
    f = _files(store, make_pool(200))
    monkeypatch.setenv("RUN_MODE", "prod")
    text = Path(GATES).read_text()
    for old, new, key in [("pool_size_min: 20000", "pool_size_min: 1", "validate_pool.pool_size_min"),
                          ("distinct_2_words: 30000", "distinct_2_words: 100", "validate_pool.distinct_2_words"),
                          ("clue_overlap_hard_median_min: 0.10", "clue_overlap_hard_median_min: 0.0",
                           "difficulty.clue_overlap_hard_median_min"),
                          ("clue_overlap_easy_median_max: 0.65", "clue_overlap_easy_median_max: 1.0",
                           "difficulty.clue_overlap_easy_median_max"),
                          ("strategies: [grpo, dr_grpo, dapo, bnpo]", "strategies: [grpo, rloo]",
                           "config_check.strategies"),
                          ("projected_days_per_seed_max: 7", "projected_days_per_seed_max: 70",
                           "config_check.projected_days_per_seed_max"),
                          ("judge_failed_max: 0.02", "judge_failed_max: 1.0", "scale.judge_failed_max")]:
        assert old in text
        (store / "loose.yaml").write_text(text.replace(old, new))
        cmd = _cmd(f)
        cmd[cmd.index("--gates") + 1] = str(store / "loose.yaml")
        assert run_cli(cmd) == 2
        err = capsys.readouterr().err
        assert f"prod refuses thresholds looser than the seed's: {key} =" in err and err.count("\n") == 1, err
    assert not (store / "out" / "validation_report.json").exists()
