"""A crash in training: FATAL line, reports/ERROR_<ts>.json, exit 1, a FAILED run; `rc1 failpack` bundles it."""

import json
import shutil
import tarfile
from pathlib import Path

import mlflow
import pytest

from rc1.cli import main

REPO = Path(__file__).resolve().parents[2]


def test_crash_in_training_is_fatal_with_an_error_report_then_failpack(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    for k, v in {"RUN_MODE": "dev", "SCORER_PROVIDER": "heuristic", "REWARD_LIVE_MODE": "0",
                 "RC1_CACHE_DIR": str(tmp_path / "cache"), "OMP_NUM_THREADS": "1"}.items():
        monkeypatch.setenv(k, v)
    shutil.copytree(REPO / "configs", "configs")
    # a valid pool (train validates it like preflight does); the crash comes from the file system mid-training:
    # the first checkpoint's directory name is taken by a regular file
    rows = [{"id": f"gsm8k:{i}", "task": "gsm8k", "source_id": str(i), "template_id": "t", "role": "r", "style": "s",
             "dialogue": [{"role": "user", "content": f"What is {i}+2?"}], "needs_clarification": False,
             "hidden_info": None, "tools": [], "expected_tool_calls": [], "answer": str(i + 2), "context": []}
            for i in range(40)]
    Path("pool.jsonl").write_text("".join(json.dumps(s) + "\n" for s in rows))
    Path("out/train/crash").mkdir(parents=True)
    Path("out/train/crash/.rc1-output").write_text("train\n")   # an earlier training's directory (rc1.core.outdir)
    Path("out/train/crash/step_00002").write_text("not a checkpoint directory")
    with pytest.raises(SystemExit) as e:
        main(["train", "--config", "configs/ppo_dev.yaml", "--pool", "pool.jsonl", "--max-steps", "2",
              "--out-dir", "out/train/crash"])
    assert e.value.code == 1
    err = capsys.readouterr().err
    assert "FATAL: " in err
    reports = list(Path("reports").glob("ERROR_*.json"))
    assert len(reports) == 1
    report = json.loads(reports[0].read_text())
    assert report["trace"] and isinstance(report["log_tail"], list)
    runs = mlflow.search_runs(search_all_experiments=True, output_format="list")
    assert [r.info.status for r in runs if r.data.tags.get("rc1.stage") == "train"] == ["FAILED"]

    main(["failpack", "--out", "pack.tar.gz"])
    names = tarfile.open("pack.tar.gz").getnames()
    assert any(n.endswith(reports[0].name) for n in names)
    assert any(n.endswith("configs/ppo_dev.yaml") for n in names)
    assert any(n.endswith("run_meta.json") for n in names)
    assert not any("mlruns" in n or n.endswith(".safetensors") for n in names)
    mlflow.set_tracking_uri(None)
