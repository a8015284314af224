"""The README's main command, as a user runs it: `mlflow run .` (entry point main: preflight, then the gate) in a fresh
copy of the project, on the embedded store. Before it, `rc1 gate` without a preflight refuses with a command that
works as printed (run here, it makes the gate proceed). The console is quiet (no MLflow download bar, no
FutureWarning or UserWarning, no vLLM import by a tiny model's training, no library INFO line, no progress-bar
fragments without a terminal) and ends with the gate's summary, which names the RC1 report. The store holds one main
run with both steps as children, and the runs read as an MLflow user expects: system/ metrics on every train run,
dataset inputs on every evaluate run, one name per param and no param naming a file rc1 deleted, at most 200 metrics
on the preflight run, TRL's metric names; the README's serve command names an alias the job made, and the README
stays under 2,500 words."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import mlflow
import pytest
from mlflow.tracking import MlflowClient

REPO = Path(__file__).resolve().parents[2]
COMMAND = "mlflow run . --env-manager local --experiment-name rc1"
README_WORDS_MAX = 2500


def param_spelling(key: str) -> str:
    """One param's name whatever its spelling: max-steps, max_steps, rc1.max_steps, max_steps.effective,
    reused.max_steps are the same param."""
    key = key.lower().replace("-", "_").removesuffix(".effective").removeprefix("reused.")
    return key.removeprefix("rc1.")


def looks_like_a_file(value: str) -> bool:
    return ":/" not in value and not value.startswith(("[", "{")) and \
        ("/" in value or bool(re.search(r"\.(jsonl?|ya?ml|db|html)$", value)))


def _rc1(args: str, project: Path, env: dict, ok: int) -> str:
    res = subprocess.run(args, shell=True, cwd=project, env=env, capture_output=True, text=True, timeout=900)
    assert res.returncode == ok, (args, res.stdout[-2000:] + res.stderr[-3000:])
    return res.stdout + res.stderr


@pytest.mark.slow
def test_main_entry_point_is_quiet_ends_with_the_summary_and_reads_as_mlflow(tmp_path):
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert COMMAND in readme, "the README's main command changed"
    assert len(readme.split()) <= README_WORDS_MAX, f"README.md has {len(readme.split())} words"
    project = tmp_path / "rc1"
    for part in ("rc1", "configs", "templates"):
        shutil.copytree(REPO / part, project / part, ignore=shutil.ignore_patterns("__pycache__"))
    for f in ("MLproject", "conda.yaml"):
        shutil.copy2(REPO / f, project / f)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "RC1_", "SCORER_"))
           and k not in ("RUN_MODE", "REWARD_LIVE_MODE", "PYTHONWARNINGS")}
    env.update(OMP_NUM_THREADS="1", RC1_CACHE_DIR=str(tmp_path / "cache"),
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")

    # a fresh clone, MLFLOW_TRACKING_URI unset: the gate refuses, and the command it prints, run as printed, is what
    # makes it proceed (to its next check: --seed 1 is not the checked config's seeds)
    refusal = _rc1(f"{sys.executable} -m rc1.cli gate", project, env, 2)
    hint = re.search(r"no dev preflight in \S+; run `([^`]+)` first", refusal)
    assert hint, refusal
    _rc1(hint.group(1), project, env, 0)
    assert "differs from the checked config's seeds" in _rc1(f"{sys.executable} -m rc1.cli gate --seed 1", project,
                                                              env, 2)

    # the README's main command (its preflight reuses the steps the hint's preflight computed)
    env["MLFLOW_TRACKING_URI"] = "sqlite:///mlruns/mlflow.db"
    res = subprocess.run([*COMMAND.split(), "-P", "max_steps=2"], cwd=project, env=env, capture_output=True,
                         text=True, timeout=1500)
    console = res.stdout + res.stderr
    assert res.returncode == 0, console[-4000:]
    assert "Downloading artifacts" not in console and "FutureWarning" not in console
    assert "UserWarning" not in console and "vllm" not in console.lower()   # transformers generate trains here
    # the job's output (after the launcher's own INFO lines: creating the store, "=== Running command ...") has no
    # library INFO line; the launcher's closing "=== Run ... succeeded ===" is mlflow run's, not the job's
    job = res.stderr[res.stderr.index("=== Running command"):]
    assert not [line for line in job.splitlines() if re.search(r"\bINFO\b", line) and "=== " not in line]
    # no terminal: no bar redraws (\r, "it/s"), one line per finished preflight step, no FAIL for a waived check
    assert "\r" not in console and "it/s" not in console and "%|" not in console
    assert re.search(r"round 2 · ok  shadow_run \(waived in dev: [^)]*shadow_run\.", console)
    assert not [line for line in console.splitlines() if re.search(r"\bFAIL\b", line) and "verdict" not in line]
    assert "GPU-hours" not in console and "CPU process-hours" in console   # the device that trained
    assert "win rate vs wrong" not in console   # the attack suite's per-kind table: `rc1 --verbose judge-robustness`
    summary = console[console.rindex("── gate "):]
    assert "`best` = version" in summary and "by held-out reward" in summary
    assert "RC1 verdict: FAIL (expected in dev" in summary and "failing: " in summary
    assert re.search(r"UI: http://127\.0\.0\.1:5000/#/experiments/\d+/runs/\w+\?workflowType=machine_learning", summary)
    report = re.search(r"RC1 report: (\S+) \(UI: http://127\.0\.0\.1:5000/#/experiments/\d+/runs/(\w+)/artifacts/"
                       r"rc1_report\.html\?workflowType=machine_learning\)", summary)
    assert report and (project / report.group(1)).is_file(), summary

    mlflow.set_tracking_uri(f"sqlite:///{project / 'mlruns' / 'mlflow.db'}")
    try:
        runs = mlflow.search_runs(search_all_experiments=True, output_format="list", max_results=1000)
        by_stage = defaultdict(list)
        for r in runs:
            by_stage[r.data.tags.get("rc1.stage")].append(r)
        (main,) = by_stage["main"]
        children = {r.data.tags["rc1.stage"] for r in runs if r.data.tags.get("mlflow.parentRunId") == main.info.run_id}
        assert children == {"preflight", "gate"}
        assert main.info.status == "FINISHED" and main.data.metrics["rc1_verdict"] == 0.0
        assert main.data.params["max_steps"] == "2"   # as `mlflow run` logged its -P: the name rc1 logs it under

        # one name per param across every run; no param names a file that is gone (a gate's download folder)
        spellings = defaultdict(set)
        for r in runs:
            for key, value in r.data.params.items():
                spellings[param_spelling(key)].add(key)
                assert not looks_like_a_file(value) or (project / value).exists(), (r.info.run_name, key, value)
        assert not {k: v for k, v in spellings.items() if len(v) > 1}, "a param under two spellings"

        for r in by_stage["preflight"]:   # per-step metrics live in its table artifact and on the step runs
            assert len(r.data.metrics) <= 200, (r.info.run_id, len(r.data.metrics))
            assert r.data.tags["rc1.artifact.round_metrics"] == "inputs/round_metrics.json"
        trains = by_stage["train"]
        assert len(trains) == 3
        for r in trains:
            names = set(r.data.metrics)
            assert any(k.startswith("system/cpu_") for k in names) and any(k.startswith("system/system_memory")
                                                                            for k in names), sorted(names)
            assert {"reward", "kl", "loss", "clip_ratio/region_mean", "frac_reward_zero_std",
                    "completions/mean_length"} <= names and "rc1.reward" not in names and "rc1.kl" not in names
            inputs = {d.dataset.name: [t.value for t in d.tags if t.key == "mlflow.data.context"]
                      for d in r.inputs.dataset_inputs}
            assert inputs == {"pool": ["training"], "heldout": ["evaluation"]}
        (ev,) = by_stage["evaluate"]
        assert any(k.startswith("system/") for k in ev.data.metrics)
        datasets = {d.dataset.name: d for d in ev.inputs.dataset_inputs}
        assert set(datasets) == {"shadow", "heldout"}
        for name, d in datasets.items():   # rc1's own full-content sha256 (MLflow keeps 36 characters of a digest)
            sha = ev.data.tags[f"input_sha256.{name}"]
            assert d.dataset.digest == sha[:32] and {t.key: t.value for t in d.tags}["rc1.sha256"] == sha
        (gate,) = by_stage["gate"]
        assert {d.dataset.name for d in gate.inputs.dataset_inputs} == {"pool", "balanced", "shadow"}

        # the README's serve command serves an alias this job made
        served = re.findall(r"rc1 serve models:/rc1-policy@([\w-]+)", readme)
        aliases = MlflowClient().get_registered_model("rc1-policy").aliases
        assert served and all(a in aliases for a in served), (served, aliases)
    finally:
        mlflow.set_tracking_uri(None)
