"""Issue 29: a preflight pointed at the wrong --data-dir reports nothing computed on the last dataset's leftover files
(its steps find no pool or shadow set, instead of reusing runs made on them), and a preflight whose round failed is a
FAILED run, not a green "Finished" one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rc1_cli import run_cli

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    for d in ("configs", "templates"):
        shutil.copytree(REPO / d, tmp_path / d)
    monkeypatch.chdir(tmp_path)
    for var in ("MLFLOW_TRACKING_URI", "MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_ID", "RUN_MODE", "SCORER_PROVIDER",
                "REWARD_LIVE_MODE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("RC1_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def test_a_wrong_data_dir_reuses_nothing_and_a_failed_round_is_a_failed_run(checkout, capsys):
    from mlflow.tracking import MlflowClient

    gates = checkout / "configs" / "gates.yaml"
    # round 1 builds and measures the pool; an unmeetable roles gate fails it there (fast)
    gates.write_text(gates.read_text().replace("roles_min: 4", "roles_min: 400"))
    assert run_cli(["preflight", "--mode", "dev", "--n", "400"]) == 2
    assert (checkout / "out" / "dev" / "rc1_seed.jsonl").is_file()
    capsys.readouterr()

    (checkout / "wrong").mkdir()
    assert run_cli(["preflight", "--mode", "dev", "--n", "400", "--data-dir", str(checkout / "wrong")]) == 2
    err = capsys.readouterr().err
    assert "FAIL materialize_shadow" in err and "FAIL build_pool" in err
    for step in ("validate_pool", "difficulty", "judge_robustness"):   # nothing of the last dataset passes for this one
        assert f"ok  {step}" not in err and f"FAIL {step}" in err, err

    client = MlflowClient()
    pfs = client.search_runs([e.experiment_id for e in client.search_experiments()],
                             "tags.`rc1.stage` = 'preflight'", order_by=["attributes.start_time DESC"])
    assert len(pfs) == 2 and all(r.info.status == "FAILED" for r in pfs)      # red in the UI, evidence kept
    assert all(r.data.tags["rc1.round1_pass"] == "false" for r in pfs)
    reused = client.search_runs([e.experiment_id for e in client.search_experiments()],
                                f"tags.`rc1.reused_from` LIKE '%'")
    assert reused == []
