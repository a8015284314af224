"""probe-scorer, assert-not-simulated and scorecache as a user runs them: real MLflow store in tmp,
a local OpenAI-compatible server, exit codes, and no API key anywhere in the store, cache or logs."""

import json
import logging
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from rc1.cli import main
from rc1.core.errors import CheckFailed
from rc1.stages import assert_not_simulated, probe_scorer
from rc1.scoring.spec import JUDGE_SPEC_VERSION

pytestmark = pytest.mark.timeout(240)

REPO = Path(__file__).resolve().parents[2]
GATES = str(REPO / "configs" / "gates.yaml")
PPO = str(REPO / "configs" / "ppo_scale.yaml")
KEY = "sk-test-SECRET"


def rc(args) -> int:
    try:
        main(args)
    except SystemExit as e:
        return e.code
    return 0


def runs_of(stage):
    client = MlflowClient()
    exp = client.get_experiment_by_name("rc1")
    return client.search_runs([exp.experiment_id], f"tags.`rc1.stage` = '{stage}'", order_by=["attributes.start_time ASC"])


@pytest.fixture
def live_env(scorer_env, monkeypatch, fake_judge_server):
    monkeypatch.chdir(scorer_env)
    srv = fake_judge_server()
    for k, v in {"SCORER_PROVIDER": "openai-compatible", "SCORER_BASE_URL": srv.url, "SCORER_MODEL": "fake",
                 "SCORER_API_KEY": KEY, "RUN_MODE": "prod", "SCORER_RATE": "200", "SCORER_BURST": "10"}.items():
        monkeypatch.setenv(k, v)
    return srv


def test_probe_passes_live_and_no_key_reaches_store_cache_or_logs(live_env, scorer_env, capsys, caplog):
    caplog.set_level(logging.DEBUG)
    assert rc(["probe-scorer", "--n", "4", "--live", "--gates", GATES]) == 0
    assert live_env.headers and all(h["authorization"] == f"Bearer {KEY}" for h in live_env.headers)  # key used
    (run,) = runs_of("probe_scorer")
    m = run.data.metrics
    assert m["billable_count"] == 12 and m["latency_ms"] > 0 and m["cache_hit_rate"] == 0.0
    assert {"rps", "429_rate", "gate.provider_live"} <= set(m) and run.data.tags["rc1.passed"] == "true"
    assert run.data.tags["scorer.provider"] == "openai-compatible"
    # the key in nothing MLflow recorded, nothing the cache holds, nothing printed or logged
    assert KEY not in json.dumps([run.data.params, run.data.tags, m])
    leaked = [p for p in scorer_env.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]
    assert leaked == []
    assert any(p.name == "probe_results.json" for p in scorer_env.rglob("*"))  # artifacts were searched
    out = capsys.readouterr()
    assert KEY not in out.out + out.err and KEY not in caplog.text


SCORING = ["shadow-run", "--shadow", "shadow.jsonl", "--k", "3", "--report", "out/shadow_run.json", "--gates", GATES,
           "--weights", str(REPO / "configs" / "weights.json"), "--config", PPO, "--no-reuse"]


def scoring_run(scorer_env) -> list[str]:
    """A shadow run through the live judge (15 items x 3 candidates x K=3: 135 scoring records)."""
    from rc1.core.io import write_jsonl
    from test_shadow_run_cli import shadow_records

    if not (scorer_env / "shadow.jsonl").is_file():
        write_jsonl(scorer_env / "shadow.jsonl", shadow_records())
    rc(SCORING)
    return SCORING


def test_plain_anti_simulation_judges_the_latest_100_scoring_records(live_env, scorer_env):
    """Seed 000's check: without --run-id the latest 100 scoring records; a run answered from the cache fails it."""
    args = ["assert-not-simulated", "--cache_hit_lt", "0.90", "--config", PPO, "--gates", GATES]
    assert rc(args) == 2                                    # nothing scored yet: no billable call, no latency
    assert live_env.stats()["requests"] == 0                # it scores nothing itself
    scoring_run(scorer_env)
    calls = live_env.stats()["requests"]
    assert calls >= 100
    assert rc(args) == 0                                    # the latest 100: billable replies with latency
    first_scoring = runs_of("shadow_run")[-1].info.run_id
    scoring_run(scorer_env)                                 # the same candidates again: all from the cache
    assert live_env.stats()["requests"] == calls
    assert rc(args) == 2
    ok, cached = runs_of("assert_not_simulated")[-2:]
    assert ok.data.tags["rc1.passed"] == "true" and cached.data.tags["rc1.passed"] == "false"
    assert cached.data.metrics["billable_count"] == 0 and cached.data.metrics["cache_hit_rate"] == 1.0
    assert "scoring records" in cached.data.tags["scorer.source"]
    # --run-id stays as it was: the first shadow run's own counters pass
    assert rc(args + ["--run-id", first_scoring]) == 0


def test_a_heuristic_run_after_a_live_one_is_among_the_latest_records(live_env, scorer_env, monkeypatch):
    scoring_run(scorer_env)                                 # live: billable records
    assert rc(["assert-not-simulated", "--config", PPO, "--gates", GATES]) == 0
    monkeypatch.setenv("RUN_MODE", "dev")
    monkeypatch.setenv("SCORER_PROVIDER", "heuristic")
    rc(SCORING)                                             # the heuristic, never cached, still leaves its records
    monkeypatch.setenv("RUN_MODE", "prod")
    assert rc(["assert-not-simulated", "--config", PPO, "--gates", GATES]) == 2
    assert "heuristic" in runs_of("assert_not_simulated")[-1].data.tags["scorer.provider"]


def test_anti_simulation_from_a_scoring_runs_counters_and_prod_only(live_env, monkeypatch):
    probe = probe_scorer.run(probe_scorer.Config(n=2, live=True, gates=GATES), progress=False)
    out = assert_not_simulated.run(assert_not_simulated.Config(run_id=probe["run_id"], config=PPO, gates=GATES))
    assert all(c["pass"] for c in out["checks"]) and out["stats"]["billable_count"] == 6
    monkeypatch.setenv("RUN_MODE", "dev")
    with pytest.raises(CheckFailed) as e:
        assert_not_simulated.run(assert_not_simulated.Config(run_id=probe["run_id"], config=PPO, gates=GATES))
    assert [c["name"] for c in e.value.checks] == ["run_mode"]


def test_heuristic_always_fails_probe_and_anti_simulation(scorer_env, monkeypatch):
    monkeypatch.chdir(scorer_env)
    with pytest.raises(CheckFailed) as e:   # dev mode: it scores, quickly, and still fails
        probe_scorer.run(probe_scorer.Config(n=2, judge_provider="heuristic", gates=GATES), progress=False)
    assert {"provider_live", "billable_count"} <= {c["name"] for c in e.value.checks}
    assert rc(["probe-scorer", "--n", "2", "--judge-provider", "heuristic", "--live", "--gates", GATES]) == 2
    monkeypatch.setenv("RUN_MODE", "prod")
    with pytest.raises(CheckFailed) as e:   # the latest scoring: the heuristic's probes (never cached, never billable)
        assert_not_simulated.run(assert_not_simulated.Config(config=PPO, gates=GATES))
    failing = {c["name"] for c in e.value.checks}
    assert {"provider_live", "billable_count"} <= failing and "run_mode" not in failing
    refused = [r for r in runs_of("assert_not_simulated")][-1]
    assert "heuristic" in refused.data.tags["scorer.provider"] and refused.data.tags["rc1.passed"] == "false"


def test_scorecache_commands(live_env, scorer_env, capsys):
    from rc1.scoring.judge import make_judge
    from rc1.scoring.probe import probe_requests

    make_judge().score_many(probe_requests(3), progress=False)               # fills the cache (K=3 each)
    capsys.readouterr()
    assert rc(["scorecache", "stat"]) == 0
    stat = json.loads(capsys.readouterr().out)
    assert stat["entries"] == 9 and stat["by_key"][0]["provider"] == "openai-compatible"
    assert stat["path"] == str(scorer_env / "cache" / "judge_cache.sqlite")
    assert rc(["scorecache", "replay-bad"]) == 0
    assert json.loads(capsys.readouterr().out)["replayed"] == 0
    assert rc(["scorecache", "invalidate", "--spec", JUDGE_SPEC_VERSION]) == 0
    assert json.loads(capsys.readouterr().out)["deleted"]["samples"] == 9
    assert rc(["scorecache", "invalidate"]) == 2                              # --spec is required


def test_heuristic_is_never_cached(scorer_env):
    from rc1.scoring.judge import make_judge

    judge = make_judge("heuristic")
    assert judge.cache is None and judge.cache_mode == "off"
