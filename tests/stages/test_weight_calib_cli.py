"""`rc1 weight-calib`: constrained weights, reproducible reports, the repo's weights untouched, exit codes,
and the newest shadow run's scored candidates as the default input."""

import json

import numpy as np
import yaml
from rc1_cli import run_cli
from test_shadow_run_cli import stage_runs, workdir  # noqa: F401  (fixture)

from rc1.core.config import DIMENSIONS, load_thresholds, load_weights
from rc1.core.io import sha256_file
from rc1.scoring.reward import weights_check


def write_scored(path, n=240, seed=0):
    """Success follows correctness and clarification; a few judge failures are mixed in."""
    rng = np.random.default_rng(seed)
    with open(path, "w") as fh:
        for i in range(n):
            x = rng.uniform(0, 1, 7)
            success = bool(0.7 * x[0] + 0.3 * x[3] + rng.normal(0, 0.05) > 0.5)
            row = {"item_id": f"i{i // 6}", "candidate_id": f"c{i}", "failed": i % 50 == 7, "success": success,
                   "responder": "reference", "judge_provider": "heuristic", "weight": 1.0}
            row["scores"] = None if row["failed"] else dict(zip(DIMENSIONS, x.round(4).tolist()))
            fh.write(json.dumps(row) + "\n")


def gates_file(path, rank_min, mae_min):
    g = yaml.safe_load((path / "configs" / "gates.yaml").read_text())
    g["weight_calib"] = {"rank_corr_median_improve_pct_min": rank_min, "mae_improve_pct_min": mae_min}
    out = path / "gates_calib.yaml"
    out.write_text(yaml.safe_dump(g))
    return str(out)


def test_calibrated_weights_satisfy_the_constraints_and_the_report_is_reproducible(workdir):  # noqa: F811
    write_scored(workdir / "scored.jsonl")
    repo_weights = sha256_file(workdir / "configs/weights.json")
    gates = gates_file(workdir, -1000, -1000)
    args = ["weight-calib", "--cv", "5", "--boot", "40", "--l2", "0.1", "--seed", "42", "--scored", "scored.jsonl",
            "--out", "w.json", "--gates", gates, "--no-reuse"]
    assert run_cli([*args, "--report", "r1.json"]) == 0
    assert run_cli([*args, "--report", "r2.json"]) == 0
    r1, r2 = (json.loads((workdir / p).read_text()) for p in ("r1.json", "r2.json"))
    assert r1 == r2
    assert r1["skipped_failed_rows"] == 5 and r1["n"] == 235 and len(r1["folds"]) == 5
    assert r1["bootstrap"]["n"] == 40 and set(r1["bootstrap"]["weights"]) == set(DIMENSIONS)
    w = load_weights(workdir / "w.json")
    assert all(c["pass"] for c in weights_check(w, load_thresholds("configs/gates.yaml")))
    assert w.as_dict() == r1["weights"] and max(w.as_dict(), key=w.as_dict().get) == "correctness"
    assert sha256_file(workdir / "configs/weights.json") == repo_weights

    runs = stage_runs("weight_calib")
    assert len(runs) == 2 and all(r.info.status == "FINISHED" for r in runs)
    tags = runs[0].data.tags
    assert tags["sha256.w.json"] == sha256_file(workdir / "w.json") and tags["sha256.r2.json"]
    assert tags["rc1.responder"] == "reference" and tags["rc1.judge_provider"] == "heuristic"


def test_failed_gate_leaves_the_weights_file_alone_and_exits_2_also_when_reused(workdir, capsys):  # noqa: F811
    write_scored(workdir / "scored.jsonl")
    gates = gates_file(workdir, 1e6, 1e6)
    args = ["weight-calib", "--boot", "10", "--scored", "scored.jsonl", "--out", "w.json", "--report", "r.json",
            "--gates", gates]
    assert run_cli(args) == 2
    assert not (workdir / "w.json").exists()
    rep = json.loads((workdir / "r.json").read_text())
    assert rep["passed"] is False and rep["weights_written"] is None
    assert run_cli(args) == 2  # the reused failed run re-raises its verdict
    assert "reusing finished run" in capsys.readouterr().err and not (workdir / "w.json").exists()
    assert run_cli(["weight-calib", "--scored", "missing.jsonl", "--out", "w.json"]) == 2


def test_default_input_is_the_newest_shadow_runs_scored_candidates(workdir):  # noqa: F811
    assert run_cli(["shadow-run", "--shadow", "shadow.jsonl", "--report", "s/report.json"]) in (0, 2)
    gates = gates_file(workdir, -1000, -1000)
    assert run_cli(["weight-calib", "--boot", "10", "--out", "w.json", "--report", "r.json", "--gates", gates]) == 0
    rep = json.loads((workdir / "r.json").read_text())
    (shadow,) = stage_runs("shadow_run")
    assert rep["scored_source"] == f"shadow_run:{shadow.info.run_id}" and rep["n"] == 90


def test_without_a_shadow_run_one_is_started_in_its_own_process(workdir, monkeypatch):  # noqa: F811
    """No --scored and no finished shadow run: `rc1 shadow-run` runs (its own process, gates.yaml's shadow.n items
    built from the configured data) and its candidates are read. Under `mlflow run` (MLFLOW_RUN_ID) the run mlflow
    made is weight-calib's, not the shadow run's."""
    from mlflow.tracking import MlflowClient

    g = yaml.safe_load((workdir / "configs" / "gates.yaml").read_text())
    g["shadow"]["n"] = 30
    g["weight_calib"] = {"rank_corr_median_improve_pct_min": -1000, "mae_improve_pct_min": -1000}
    (workdir / "configs" / "gates.yaml").write_text(yaml.safe_dump(g))
    assert run_cli(["weight-calib", "--boot", "5", "--cv", "2", "--out", "w.json", "--report", "r.json"]) == 0
    (shadow,) = stage_runs("shadow_run")
    assert shadow.info.status == "FINISHED" and shadow.data.params["n"] == "30"
    rep = json.loads((workdir / "r.json").read_text())
    assert rep["scored_source"] == "file:reports/scored_candidates.jsonl" and rep["n"] == 30 * 6
    (workdir / "reports" / "scored_candidates.jsonl").unlink()
    for run in stage_runs("shadow_run"):   # none finished: a second fallback
        MlflowClient().set_terminated(run.info.run_id, "FAILED")
    given = MlflowClient().create_run(shadow.info.experiment_id)
    monkeypatch.setenv("MLFLOW_RUN_ID", given.info.run_id)
    monkeypatch.setenv("MLFLOW_EXPERIMENT_ID", shadow.info.experiment_id)
    assert run_cli(["weight-calib", "--boot", "5", "--cv", "2", "--out", "w.json", "--report", "r2.json",
                    "--no-reuse"]) == 0
    monkeypatch.delenv("MLFLOW_RUN_ID", raising=False)   # stage_run took it
    assert MlflowClient().get_run(given.info.run_id).data.tags["rc1.stage"] == "weight_calib"
    assert len(stage_runs("shadow_run")) == 2
