"""`rc1 scale`: stages run in order behind their before/after reports, found in the tracking store; every `scale`
threshold of configs/gates.yaml fails through the command. Stage sizes are shrunk (150, 300) to keep it fast."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import mlflow
import pytest

from rc1_cli import run_cli

REPO = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    root = tmp_path_factory.mktemp("scale")
    for d in ("configs", "templates"):
        shutil.copytree(REPO / d, root / d)
    gates = root / "configs" / "gates.yaml"
    gates.write_text(gates.read_text().replace("stages: [1000, 5000]", "stages: [150, 300]"))
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        for var in ("MLFLOW_TRACKING_URI", "MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_ID", "SCORER_PROVIDER",
                    "SCORER_BASE_URL", "SCORER_MODEL", "SCORER_API_KEY", "REWARD_LIVE_MODE"):
            mp.delenv(var, raising=False)
        mp.setenv("RUN_MODE", "dev")
        mp.setenv("RC1_CACHE_DIR", str(root / "cache"))
        assert run_cli(["build-pool", "--n", "900", "--out", "pool.jsonl", "--seed", "3"]) == 0
        assert run_cli(["build-pool", "--n", "300", "--out", "v1.jsonl", "--seed", "3",
                        "--templates_dir", "templates/pack_v1", "--clarify_rate", "0", "--tools", ""]) == 0
        assert run_cli(["difficulty", "--in", "pool.jsonl", "--out", "metrics.jsonl", "--balanced", "balanced.jsonl",
                        "--report", "difficulty_report.json"]) in (0, 2)   # the pool is what scale needs, not the verdict
        yield root
        mlflow.set_tracking_uri(None)


def _stage_runs(stage: int) -> list:
    return mlflow.search_runs(search_all_experiments=True, output_format="list",
                              filter_string=f"tags.`rc1.stage` = 'scale_stage' AND params.stage = '{stage}'",
                              order_by=["attributes.start_time DESC"])


def _gates(ws: Path, name: str, **overrides) -> str:
    text = (ws / "configs" / "gates.yaml").read_text()
    for key, value in overrides.items():
        section, field = key.split(".")
        head, sep, rest = text.partition(f"\n{section}:\n")
        assert sep, section
        lines = rest.split("\n")
        lines = [f"  {field}: {value}" if ln.strip().startswith(f"{field}:") and ln.startswith("  ") else ln
                 for ln in lines]
        text = head + sep + "\n".join(lines)
    path = ws / "configs" / name
    path.write_text(text)
    return str(path)


def test_a_stage_waits_for_the_earlier_one_then_runs(ws, capsys):
    args = ["scale", "--pool", "balanced.jsonl", "--baseline-pool", "v1.jsonl"]
    assert run_cli([*args, "--stage", "300"]) == 2
    err = capsys.readouterr().err
    assert "scale stage 300 refused: stage 150 has no before and after reports" in err and "Traceback" not in err
    assert not _stage_runs(300)

    assert run_cli([*args, "--stage", "150"]) == 0, capsys.readouterr().err
    (s150,) = _stage_runs(150)
    tags = s150.data.tags
    assert tags["rc1.before_pass"] == "true" and tags["rc1.after_pass"] == "true" and tags["rc1.passed"] == "true"
    assert {"before.distinct_2", "after.response_distinct_2", "after.unstable_share"} <= set(s150.data.metrics)
    parent = mlflow.get_run(tags["mlflow.parentRunId"])
    assert parent.data.tags["rc1.stage"] == "scale"
    report = json.loads(Path(mlflow.artifacts.download_artifacts(
        run_id=s150.info.run_id, artifact_path="scale_report_150.json")).read_text())
    assert report["after"]["metrics"]["n"] == 150 and set(report["before"]["difficulty_shares"]) <= {
        "hotpotqa", "strategyqa", "gsm8k"}

    # a stage passed under other gates does not count: passing 150 under lenient gates opens nothing under these
    other = _gates(ws, "gates_other.yaml", **{"scale.judge_failed_max": 0.5})
    capsys.readouterr()
    assert run_cli([*args, "--stage", "300", "--gates", other]) == 2
    assert "stage 150 has no before and after reports on this pool under these gates" in capsys.readouterr().err

    assert run_cli([*args, "--stage", "300"]) == 0, capsys.readouterr().err
    assert _stage_runs(300)[0].data.tags["rc1.passed"] == "true"


@pytest.mark.parametrize("key,value,failing", [
    ("scale.response_distinct_2_min", 0.99, "after.response_distinct_2"),
    ("scale.easy_minus_hard_success_min", 0.9, "after.easy_minus_hard_success"),
    ("validate_pool.roles_min", 400, "before.roles"),
])
def test_a_failing_report_stops_the_stage(ws, capsys, key, value, failing):
    gates = _gates(ws, f"gates_{key}.yaml", **{key: value})
    assert run_cli(["scale", "--pool", "balanced.jsonl", "--baseline-pool", "v1.jsonl", "--stage", "all",
                    "--gates", gates]) == 2
    err = capsys.readouterr().err
    assert failing in err and "Traceback" not in err


@pytest.mark.parametrize("fault,failing", [("unstable", "after.unstable_share"),
                                           ("malformed", "after.judge_failed_share")])
def test_judge_stability_fails_the_stage(ws, tmp_path, monkeypatch, fake_judge_server, capsys, fault, failing):
    """scale.unstable_share_max and scale.judge_failed_max fail through `rc1 scale` (tests/flows/test_gate_keys.py)."""
    srv = fake_judge_server(p_malformed=1.0 if fault == "malformed" else 0.0)
    for k, v in {"SCORER_PROVIDER": "openai-compatible", "SCORER_BASE_URL": srv.url, "SCORER_MODEL": "fake",
                 "SCORER_API_KEY": "sk-test", "SCORER_RATE": "500", "SCORER_BURST": "50"}.items():
        monkeypatch.setenv(k, v)
    pool = tmp_path / "pool.jsonl"
    rows = [json.loads(line) for line in (ws / "balanced.jsonl").read_text().splitlines() if line.strip()]
    if fault == "unstable":   # the fake judge answers a prompt containing UNSTABLE with alternating 0/1 samples
        for r in rows:
            r["dialogue"][-1]["content"] += " UNSTABLE"
    pool.write_text("".join(json.dumps(r) + "\n" for r in rows))
    gates = _gates(ws, "gates_one_stage.yaml", **{"scale.stages": "[150]"})
    assert run_cli(["scale", "--pool", str(pool), "--baseline-pool", "v1.jsonl", "--stage", "150",
                    "--gates", gates]) == 2
    err = capsys.readouterr().err
    assert failing in err and "Traceback" not in err


def test_a_stage_passed_under_another_judge_does_not_open_the_next(ws, monkeypatch, fake_judge_server, capsys):
    """The earlier stage counts only when the judge configured now judged it (rc1.scoring.identity)."""
    args = ["scale", "--pool", "balanced.jsonl", "--baseline-pool", "v1.jsonl"]
    if not _stage_runs(150):
        assert run_cli([*args, "--stage", "150"]) == 0
    srv = fake_judge_server()
    for k, v in {"SCORER_PROVIDER": "openai-compatible", "SCORER_BASE_URL": srv.url, "SCORER_MODEL": "fake",
                 "SCORER_API_KEY": "sk-test"}.items():
        monkeypatch.setenv(k, v)
    capsys.readouterr()
    assert run_cli([*args, "--stage", "300"]) == 2
    err = capsys.readouterr().err
    assert "stage 150 has no before and after reports on this pool under these gates, judge and responder" in err
