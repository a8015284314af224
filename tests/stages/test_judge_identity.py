"""A stage's reuse key holds the full judge identity (rc1.scoring.identity): the same command against another
endpoint, or with other sampling settings, is computed again and calls the new judge; what weight-calib reads is
what the judge configured now scored; validate-pool's KL baseline follows configs/data.yaml's sources. All through
the real commands, against local OpenAI-compatible servers (tests/support/fake_openai_server.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import mlflow
import pytest

from rc1.core.io import read_json, write_jsonl
from rc1_cli import run_cli
from test_judge_robustness import _bundled_shadow
from test_shadow_run_cli import shadow_records

pytestmark = pytest.mark.timeout(300)
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def ws(scorer_env, monkeypatch):
    monkeypatch.chdir(scorer_env)
    shutil.copytree(REPO / "configs", scorer_env / "configs")
    for var in ("MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_ID"):
        monkeypatch.delenv(var, raising=False)
    for k, v in {"RUN_MODE": "dev", "REWARD_LIVE_MODE": "0", "SCORER_PROVIDER": "openai-compatible",
                 "SCORER_MODEL": "judge-1", "SCORER_API_KEY": "sk-test", "SCORER_RATE": "500", "SCORER_BURST": "100",
                 "HF_HUB_OFFLINE": "1"}.items():
        monkeypatch.setenv(k, v)
    write_jsonl(scorer_env / "shadow.jsonl", shadow_records())
    yield scorer_env
    mlflow.set_tracking_uri(None)


def _runs(stage: str) -> list:
    return mlflow.search_runs(search_all_experiments=True, filter_string=f"tags.`rc1.stage` = '{stage}'",
                              order_by=["attributes.start_time ASC"], output_format="list")


SHADOW_RUN = ["shadow-run", "--shadow", "shadow.jsonl", "--k", "2", "--report", "out/shadow_run.json"]


def test_the_same_shadow_run_against_another_endpoint_calls_it(ws, monkeypatch, fake_judge_server, capsys):
    a, b = fake_judge_server(), fake_judge_server()   # the same model name behind two servers
    monkeypatch.setenv("SCORER_BASE_URL", a.url)
    run_cli(SHADOW_RUN)
    calls_a = a.stats()["requests"]
    assert calls_a > 0
    monkeypatch.setenv("SCORER_BASE_URL", b.url)
    run_cli(SHADOW_RUN)
    assert b.stats()["requests"] >= 0.9 * calls_a, "endpoint B answered from A's run"
    assert "reusing finished run" not in capsys.readouterr().err
    first, second = _runs("shadow_run")
    assert first.data.tags["rc1.judge_identity"] != second.data.tags["rc1.judge_identity"]
    assert read_json(ws / "out" / "shadow_run.json")["identity"]["judge"]["base_url"] == b.url
    # the same judge again: reused, no call
    n_b = b.stats()["requests"]
    run_cli(SHADOW_RUN)
    assert b.stats()["requests"] == n_b and "reusing finished run" in capsys.readouterr().err
    # other sampling settings (no response_format) on the same endpoint: another judge
    monkeypatch.setenv("SCORER_JSON_MODE", "0")
    run_cli(SHADOW_RUN)
    assert b.stats()["requests"] >= n_b + 0.9 * calls_a
    # another mode under the same judge: its gates differ, nothing is reused
    monkeypatch.setenv("RUN_MODE", "prod")
    monkeypatch.setenv("REWARD_LIVE_MODE", "1")
    n_b = b.stats()["requests"]
    run_cli(SHADOW_RUN)
    assert "reusing finished run" not in capsys.readouterr().err


def test_judge_robustness_against_a_gullible_endpoint_is_not_answered_by_the_honest_one(ws, monkeypatch,
                                                                                      fake_judge_server):
    honest, gullible = fake_judge_server(), fake_judge_server(gullible=True)
    shadow = _bundled_shadow(ws / "rb_shadow.jsonl", per_task=2)
    args = ["judge-robustness", "--shadow", str(shadow), "--n", "6", "--report", "out/judge_robustness.json"]
    monkeypatch.setenv("SCORER_BASE_URL", honest.url)
    run_cli(args)
    assert honest.stats()["requests"] > 0
    monkeypatch.setenv("SCORER_BASE_URL", gullible.url)
    assert run_cli(args) == 2                      # the gullible judge fails the gate it would have inherited
    assert gullible.stats()["requests"] >= 0.9 * honest.stats()["requests"]
    rep = read_json(ws / "out" / "judge_robustness.json")
    assert rep["metrics"]["per_kind"]["json_verdict"]["win_rate_vs_wrong"] == 1.0


def test_weight_calib_reads_what_the_configured_judge_scored(ws, monkeypatch, fake_judge_server):
    a, b = fake_judge_server(), fake_judge_server()
    for srv in (a, b):
        monkeypatch.setenv("SCORER_BASE_URL", srv.url)
        run_cli(SHADOW_RUN)
    run_a, run_b = _runs("shadow_run")
    monkeypatch.setenv("SCORER_BASE_URL", a.url)   # back to A: B's newer candidates are not A's
    for cmd in (["weight-calib", "--boot", "5", "--cv", "2", "--out", "out/w.json", "--report", "out/cal.json"],
                ["overclar-ablation", "--report", "out/overclar.json"]):
        run_cli(cmd)
    (calib,), (ablation,) = _runs("weight_calib"), _runs("overclar_ablation")
    assert calib.data.params["scored_source"] == f"shadow_run:{run_a.info.run_id}"
    assert ablation.data.params["scored_source"] == f"shadow_run:{run_a.info.run_id}"


def test_validate_pool_baseline_follows_the_data_sources(ws, monkeypatch, capsys):
    from test_quality import make_pool

    monkeypatch.setenv("SCORER_PROVIDER", "heuristic")
    shutil.copytree(REPO / "templates", ws / "templates")   # pack_v1: the KL baseline's templates
    write_jsonl(ws / "pool.jsonl", make_pool(200))
    args = ["validate-pool", "pool.jsonl", "--report", "out/validation_report.json"]
    run_cli(args)
    kl_before = read_json(ws / "out" / "diversity_report.json")["kl_3gram_vs_v1"]
    capsys.readouterr()
    data = ws / "configs" / "data.yaml"
    data.write_text(data.read_text().replace("config: distractor, split: validation", "config: distractor, split: train"))
    run_cli(args)
    out = capsys.readouterr().err
    assert "reusing finished run" not in out, "validate-pool reused a KL computed against other sources"
    first, second = _runs("validate_pool")
    assert first.data.tags["input_sha256.data_sources"] != second.data.tags["input_sha256.data_sources"]
    assert second.data.tags.get("rc1.computed") == "true" and "kl_3gram_vs_v1" in second.data.metrics
    assert kl_before is not None


@pytest.mark.slow
def test_the_gate_refuses_to_train_with_another_judge_than_preflight_checked(ws, monkeypatch, fake_judge_server,
                                                                             capsys):
    shutil.copytree(REPO / "templates", ws / "templates")
    for var in ("SCORER_PROVIDER", "SCORER_MODEL", "SCORER_API_KEY", "REWARD_LIVE_MODE"):
        monkeypatch.delenv(var)                    # dev preflight: the heuristic judge
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert run_cli(["preflight", "--mode", "dev", "--n", "1500"]) == 0, capsys.readouterr().err
    (pre,) = _runs("preflight")
    assert pre.data.tags["rc1.judge_identity"]
    srv = fake_judge_server()
    for k, v in {"SCORER_PROVIDER": "openai-compatible", "SCORER_BASE_URL": srv.url, "SCORER_MODEL": "judge-2",
                 "SCORER_API_KEY": "sk-test"}.items():
        monkeypatch.setenv(k, v)
    capsys.readouterr()
    assert run_cli(["gate", "--mode", "dev", "--max-steps", "1", "--no-evaluate"]) == 2
    err = capsys.readouterr().err
    assert "it checked another judge than the one configured now" in err and not _runs("gate")
