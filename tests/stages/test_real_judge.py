"""A real LLM judge offline: SmolLM2-135M-Instruct (tests/support/local_llm.py) on llama-cpp-python's one-slot server
on 127.0.0.1, through the real commands, configured as a user would: SCORER_PROVIDER=openai-compatible,
SCORER_BASE_URL and SCORER_MODEL, nothing else about the judge.

- `rc1 probe-scorer` passes on the default limits: one call at a time after one probe of a second slot; the server
  refuses the json_schema request once and answers JSON mode carrying the schema (a grammar): nothing malformed.
- `rc1 judge-robustness` refuses it: a ready-made all-1 JSON verdict after a wrong answer beats the honest wrong
  answer (the paper's "One Token to Fool LLM-as-a-Judge" finding; 100% of 24 pairs in issue 32's 12-item run),
  padding past the context fails the judge, which counts as a win, and the honest correct answer does not beat the
  honest wrong one on the share of items the gate asks (judge_robustness.honest_correct_beats_wrong_rate_min: .90;
  measured 0 of 3 items when the module runs whole, after the probe warmed the server, 1 of 3 when this test runs
  alone: llama.cpp's answers follow its prompt cache; 2 of 3 whole since the prompt escapes "<"). Its report holds
  the numbers.
- `rc1 shadow-run` scores its 6 candidates and holds them to shadow_run.corr_to_success_new_min (.30) and
  corr_improve_pct (undefined, a failed check, when the old score does not track success). Over 6 candidates this
  judge's correlation is noise: -0.49 (whole module) and -0.29 (alone) before the judge prompt escaped "<", +0.49
  after, on the same candidates; so the test checks that the verdict follows the thresholds, not which way it goes.
  judge-robustness is the gate that refuses this judge in every run seen (honest correct beats wrong 0 to 2 of 3).
K=1 (SCORER_SAMPLES), three items and two attack kinds keep this to a few minutes on 2 cores (the module 179 s at
load 3-4: the probe 52 s, this test 125 s; this test alone 114-166 s at load 2-6).

The model is a pinned wheel from PyPI: without it (no install, no registry) the tests skip and say why; in CI
(CI=true) they fail instead, so a lost model never passes unseen.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from rc1.core.config import load_thresholds
from rc1.core.io import read_json, write_jsonl
from rc1_cli import run_cli

pytestmark = [pytest.mark.timeout(900), pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
TASKS = ("hotpotqa", "strategyqa", "gsm8k")
ATTACKS = "json_verdict,padding"


@pytest.fixture(scope="module")
def judge_env(tmp_path_factory):
    """The real judge behind SCORER_* and a fresh MLflow store; cwd a temp dir (the reports land there)."""
    from local_llm import Unavailable, llama_server, smollm2_gguf

    try:
        gguf = smollm2_gguf()
    except Unavailable as e:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the real judge's model is not available in CI: {e}")
        pytest.skip(f"SmolLM2-135M-Instruct not available: {e}")
    root = tmp_path_factory.mktemp("real_judge")
    shutil.copytree(REPO / "configs", root / "configs")   # the stages read configs/ from the working directory
    with llama_server(gguf, "smollm2", root / "server.log") as url, pytest.MonkeyPatch.context() as mp:
        for var in ("SCORER_API_KEY", "SCORER_RATE", "SCORER_BURST", "SCORER_TIMEOUT_S", "SCORER_JSON_MODE",
                    "SCORER_TPM", "SCORER_MAX_CONCURRENCY", "SCORER_SAMPLES", "REWARD_LIVE_MODE", "MLFLOW_RUN_ID",
                    "MLFLOW_EXPERIMENT_ID"):
            mp.delenv(var, raising=False)
        for k, v in {"SCORER_PROVIDER": "openai-compatible", "SCORER_BASE_URL": url, "SCORER_MODEL": "smollm2",
                     "RUN_MODE": "dev", "RC1_CACHE_DIR": str(root / "cache"),
                     "MLFLOW_TRACKING_URI": f"sqlite:///{root / 'mlflow.db'}"}.items():
            mp.setenv(k, v)
        mp.chdir(root)
        yield {"root": root, "mp": mp}


def _latest(stage: str):
    client = MlflowClient()
    (run, *_) = client.search_runs([client.get_experiment_by_name("rc1").experiment_id],
                                   f"tags.`rc1.stage` = '{stage}'", order_by=["attributes.start_time DESC"])
    return client, run


def test_probe_scorer_passes_on_a_one_slot_server_with_the_default_limits(judge_env, capsys):
    assert run_cli(["probe-scorer", "--n", "3"]) == 0
    client, run = _latest("probe_scorer")
    m = run.data.metrics
    assert run.data.tags["rc1.passed"] == "true" and m["billable_count"] == 9 and m["failed"] == 0
    assert m["concurrency_max_seen"] <= 2 and m["malformed"] == 0   # 9 calls: the probe of a 2nd slot may be open
    stats = json.loads(Path(client.download_artifacts(run.info.run_id, "probe_results.json",
                                                      str(judge_env["root"]))).read_text())["stats"]
    assert stats["response_format"] == "json_object+schema"   # json_schema refused (HTTP 500), said once
    with capsys.disabled():
        print(f"\n[real judge SmolLM2-135M] probe-scorer --n 3: {m['answered']:.0f} answered, {m['abandoned']:.0f} "
              f"abandoned, mean latency {m['avg_latency_ms'] / 1000:.1f} s, load average {os.getloadavg()[0]:.1f}")


def _bundled_shadow(path: Path) -> Path:
    """One bundled item per task: the first of each whose judge prompt is short (a 135M model prefills ~100 tokens/s)."""
    from rc1.data import bundled_tasks

    rows = [min(bundled_tasks(t)[:20], key=lambda r: len(json.dumps(r))) for t in TASKS]
    write_jsonl(path, [dict(r) for r in rows])
    return path


def test_the_judge_quality_gates_on_the_135m_judge(judge_env, capsys):
    judge_env["mp"].setenv("SCORER_SAMPLES", "1")
    shadow = _bundled_shadow(judge_env["root"] / "shadow.jsonl")
    rc = run_cli(["judge-robustness", "--shadow", str(shadow), "--n", "3", "--attacks", ATTACKS,
                  "--report", "rob/judge_robustness.json", "--no-reuse"])
    rob = read_json("rob/judge_robustness.json")
    rc2 = run_cli(["shadow-run", "--shadow", str(shadow), "--k", "2", "--report", "shadow/shadow_run.json",
                   "--no-reuse"])
    sh = read_json("shadow/shadow_run.json")
    with capsys.disabled():
        print("\n[real judge SmolLM2-135M] judge-robustness:", {k: (v["win_rate_vs_wrong"], v["mean_gap_vs_wrong"])
                                                              for k, v in rob["metrics"]["per_kind"].items()},
              "honest correct beats wrong:", rob["metrics"]["honest_correct_beats_wrong_rate"])
        print("[real judge SmolLM2-135M] shadow-run:", {c["name"]: c["value"] for c in sh["checks"]},
              "corr_to_success new/old:", sh["metrics"]["corr_to_success_new"], sh["metrics"]["corr_to_success_old"])
    gates = load_thresholds("configs/gates.yaml")
    # judge-robustness refuses it twice over: it can be talked into a score, and the honest correct answer does not
    # beat the honest wrong one (0 of 3 items measured); refused for what it scored, not because nothing was scored
    assert rc == 2 and not rob["passed"] and rob["metrics"]["n_items_scored"] == 3
    failing = {c["name"] for c in rob["checks"] if not c["pass"]}
    assert "honest_correct_beats_wrong_rate" in failing
    assert failing <= {"honest_correct_beats_wrong_rate", *(f"attack_win_rate.{k}" for k in ATTACKS.split(","))}
    honest_min = gates.judge_robustness.honest_correct_beats_wrong_rate_min
    assert rob["metrics"]["honest_correct_beats_wrong_rate"] < honest_min
    assert set(rob["metrics"]["per_kind"]) == set(ATTACKS.split(","))
    assert rob["judge_stats"]["concurrency_max_seen"] <= 2
    # the shadow run over 6 candidates: every one scored, and its verdict is what its thresholds say of the numbers.
    # Whether this judge's reward tracks success there is noise: corr_to_success_new was -0.49 (whole module) and
    # -0.29 (alone) until the judge prompt escaped "<" in the dialogue, +0.49 (whole module) after, same candidates
    assert sh["metrics"]["n_failed"] == 0 and sh["metrics"]["n_scored"] == 6
    checks = {c["name"]: c for c in sh["checks"]}
    new, old = sh["metrics"]["corr_to_success_new"], sh["metrics"]["corr_to_success_old"]
    floor = gates.shadow_run.corr_to_success_new_min
    assert checks["corr_to_success_new"]["pass"] == (new is not None and new >= floor), (new, floor)
    if old is None or old <= 0:   # no improvement is counted from an old score that does not track success
        assert checks["corr_improve_pct"]["value"] is None and not checks["corr_improve_pct"]["pass"]
    assert sh["passed"] == all(c["pass"] for c in sh["checks"]) and (rc2 == 2) == (not sh["passed"]), sh["checks"]
