"""The README's main command, as a user runs it: `mlflow run .` (entry point main: preflight, then the gate) in a
fresh copy of the project, on the embedded store. Its console is quiet (no MLflow download bar, no FutureWarning,
no library INFO line) and ends with the gate's summary; the store holds one main run with both steps as children."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import mlflow
import pytest

REPO = Path(__file__).resolve().parents[2]
COMMAND = "mlflow run . --env-manager local --experiment-name rc1"


@pytest.mark.slow
def test_main_entry_point_is_quiet_and_ends_with_the_summary(tmp_path):
    assert COMMAND in (REPO / "README.md").read_text(encoding="utf-8"), "the README's main command changed"
    project = tmp_path / "rc1"
    for part in ("rc1", "configs", "templates"):
        shutil.copytree(REPO / part, project / part, ignore=shutil.ignore_patterns("__pycache__"))
    for f in ("MLproject", "conda.yaml"):
        shutil.copy2(REPO / f, project / f)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "RC1_", "SCORER_"))
           and k not in ("RUN_MODE", "REWARD_LIVE_MODE", "PYTHONWARNINGS")}
    uri = f"sqlite:///{project / 'mlruns' / 'mlflow.db'}"
    env.update(MLFLOW_TRACKING_URI=uri, OMP_NUM_THREADS="1", RC1_CACHE_DIR=str(tmp_path / "cache"),
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
    res = subprocess.run([*COMMAND.split(), "-P", "n=2000", "-P", "max_steps=2"], cwd=project, env=env,
                         capture_output=True, text=True, timeout=1500)
    console = res.stdout + res.stderr
    assert res.returncode == 0, console[-4000:]
    assert "Downloading artifacts" not in console and "FutureWarning" not in console
    # the job's output (after the launcher's own INFO lines: creating the store, "=== Running command ...") has no
    # library INFO line; the launcher's closing "=== Run ... succeeded ===" is mlflow run's, not the job's
    job = res.stderr[res.stderr.index("=== Running command"):]
    assert not [line for line in job.splitlines() if re.search(r"\bINFO\b", line) and "=== " not in line]
    summary = console[console.rindex("── gate "):]
    assert "`best` = version" in summary and "by held-out reward" in summary
    assert "RC1 verdict: FAIL (expected in dev" in summary and "failing: " in summary
    assert re.search(r"UI: http://127\.0\.0\.1:5000/#/experiments/\d+/runs/\w+\?workflowType=machine_learning", summary)

    mlflow.set_tracking_uri(uri)
    try:
        (main,) = mlflow.search_runs(search_all_experiments=True, output_format="list",
                                     filter_string="tags.`rc1.stage` = 'main'")
        children = mlflow.search_runs(search_all_experiments=True, output_format="list",
                                      filter_string=f"tags.`mlflow.parentRunId` = '{main.info.run_id}'")
        assert {r.data.tags["rc1.stage"] for r in children} == {"preflight", "gate"}
        assert main.info.status == "FINISHED" and main.data.metrics["rc1_verdict"] == 0.0
        assert main.data.params["max_steps"] == "2"   # as `mlflow run` logged its -P: the name rc1 logs it under too
    finally:
        mlflow.set_tracking_uri(None)
