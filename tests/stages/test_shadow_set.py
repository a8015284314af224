"""The shadow set: stratified by task, deterministic, written with a manifest as a FINISHED MLflow run."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from rc1.data import bundled_tasks
from rc1.core.errors import Rc1Error
from rc1.core.io import read_json, read_jsonl, sha256_file
from rc1.data.shadow_set import select_shadow
from rc1_cli import run_cli

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data"
GATES = str(REPO / "configs" / "gates.yaml")
MIX = {"hotpotqa": 0.45, "strategyqa": 0.30, "gsm8k": 0.25}


@pytest.fixture(scope="module")
def records():
    return {t: bundled_tasks(t)[:400] for t in MIX}


def test_stratified_and_deterministic(records):
    rows = select_shadow(records, 245, 20250820, True, MIX)
    assert Counter(r["task"] for r in rows) == {"hotpotqa": 110, "strategyqa": 74, "gsm8k": 61}
    assert len({r["id"] for r in rows}) == 245
    assert rows == select_shadow({t: list(reversed(v)) for t, v in records.items()}, 245, 20250820, True, MIX)
    assert rows != select_shadow(records, 245, 1, True, MIX)
    flat = select_shadow(records, 100, 3, False, MIX)
    assert len(flat) == 100 and len({r["id"] for r in flat}) == 100


def test_impossible_sizes(records):
    with pytest.raises(Rc1Error, match=r"needs 500 records, at most 33% of each task's: hotpotqa 400 records "
                                       r"\(134 at most\).*together 402"):
        select_shadow(records, 500, 1, True, MIX)
    with pytest.raises(Rc1Error, match="must be positive"):
        select_shadow(records, 0, 1, True, MIX)


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data not present")
def test_materialize_shadow_cli_run_and_reuse(tmp_path, monkeypatch, capsys):
    from mlflow.tracking import MlflowClient

    monkeypatch.chdir(tmp_path)
    for var in ("MLFLOW_TRACKING_URI", "MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_ID"):
        monkeypatch.delenv(var, raising=False)
    args = ["materialize-shadow", "--data-dir", str(SHARED), "--n", "245", "--seed", "20250820", "--stratify",
            "--materialize", "shadow_eval_245.jsonl", "--dump-manifest", "manifest.json", "--gates", GATES]
    assert run_cli(args) == 0
    rows = read_jsonl("shadow_eval_245.jsonl")
    m = read_json("manifest.json")
    assert len(rows) == m["n"] == 245 and m["sha256"] == sha256_file("shadow_eval_245.jsonl")
    assert {t: v["n"] for t, v in m["per_task"].items()} == {"hotpotqa": 110, "strategyqa": 74, "gsm8k": 61}
    assert m["per_task"]["gsm8k"]["source_kind"] == "local" and len(m["per_task"]["gsm8k"]["digest"]) == 64
    client = MlflowClient()
    run = client.search_runs([client.get_experiment_by_name("rc1").experiment_id],
                             "tags.`rc1.stage` = 'materialize_shadow'")[0]
    assert run.info.status == "FINISHED" and run.data.tags["rc1.passed"] == "true"
    assert run.data.tags["sha256.shadow_eval_245.jsonl"] == m["sha256"] and "sha256.manifest.json" in run.data.tags
    assert run.data.metrics["n.hotpotqa"] == 110
    assert {i.dataset.name for i in run.inputs.dataset_inputs} == {"data.hotpotqa", "data.strategyqa", "data.gsm8k"}
    capsys.readouterr()
    Path("shadow_eval_245.jsonl").unlink()
    assert run_cli(args) == 0
    assert "reusing finished run" in capsys.readouterr().err
    assert sha256_file("shadow_eval_245.jsonl") == m["sha256"]
