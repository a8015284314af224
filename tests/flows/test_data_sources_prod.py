"""Prod trains only on a configured dataset: the bundled sample is refused, a failing dataset is an error naming
it (never a fallback), every data run tags rc1.data_source.<task>, and the gate refuses a prod preflight whose
data came from the bundled sample."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import mlflow
import pytest

from rc1.core.config import DataConfig, Source, TaskSources
from rc1.data import load_tasks
from rc1.core.errors import Rc1Error
from rc1.trust.rules import data_source_problems
from rc1.tracking.store import setup_tracking
from rc1_cli import run_cli

REPO = Path(__file__).resolve().parents[2]


def _cfg(*sources: Source) -> DataConfig:
    return DataConfig(tasks={"gsm8k": TaskSources(sources=list(sources))}, on_bad_record="error")


def test_prod_refuses_the_bundled_sample_naming_task_and_source(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    cfg = _cfg(Source(kind="hf", name="openai/gsm8k", config="main", split="train"), Source(kind="bundled"))
    assert load_tasks("gsm8k", data_cfg=cfg, mode="dev").source_kind == "bundled"  # dev: offline fallback
    with pytest.raises(Rc1Error, match=r"gsm8k: prod refuses the bundled sample .*gsm8k/train\.jsonl\.gz; "
                                       r"passed over: hf openai/gsm8k: offline"):
        load_tasks("gsm8k", data_cfg=cfg, mode="prod")
    monkeypatch.setenv("RUN_MODE", "prod")  # the mode defaults to $RUN_MODE
    with pytest.raises(Rc1Error, match="prod refuses the bundled sample"):
        load_tasks("gsm8k", data_cfg=cfg)


def test_gate_refuses_prod_preflight_on_the_bundled_sample():
    tags = {"rc1.data_source.gsm8k": "bundled", "rc1.data_uri.gsm8k": "/x/rc1/data/bundled/gsm8k/train.jsonl.gz",
            "rc1.data_source.hotpotqa": "local"}
    (problem,) = data_source_problems(tags)
    assert "gsm8k" in problem and "bundled/gsm8k/train.jsonl.gz" in problem
    assert data_source_problems({"rc1.data_source.gsm8k": "hf"}) == []
    assert "no data source" in data_source_problems({})[0]


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    root.mkdir()
    for d in ("configs", "templates"):
        shutil.copytree(REPO / d, root / d)
    monkeypatch.chdir(root)
    for var in ("MLFLOW_TRACKING_URI", "MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_ID", "RUN_MODE", "SCORER_PROVIDER",
                "REWARD_LIVE_MODE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return root


def test_prod_preflight_without_a_reachable_dataset_exits_2_naming_the_source(project, monkeypatch, capsys):
    """The bar: RUN_MODE=prod, hub offline, no --data-dir: exit 2, one line naming the data source; nothing ran."""
    monkeypatch.setenv("RUN_MODE", "prod")
    assert run_cli(["preflight", "--n", "300"]) == 2
    err = [line for line in capsys.readouterr().err.strip().splitlines() if line.strip()]
    assert len(err) == 1, err
    assert "prod refuses the bundled sample" in err[0] and "rc1/data/bundled/hotpotqa/" in err[0]
    assert "hotpotqa/hotpot_qa: offline" in err[0]
    assert not (project / "out").exists() and not (project / "mlruns").exists()  # nothing built, nothing tracked


def test_data_runs_tag_their_source(project, capsys):
    from test_data_loaders import GSM, HOTPOT, STRATEGY, write_data_dir

    d = write_data_dir(project / "data", [HOTPOT, {**HOTPOT, "_id": "h2", "question": "Where is Vienna?"}],
                       [STRATEGY, {**STRATEGY, "qid": "s2", "question": "Is ice hot?"}],
                       [json.dumps(GSM), json.dumps({**GSM, "question": "Ann has 2 pens and buys 5. How many?"})])
    common = ["--data-dir", str(d), "--no-reuse"]
    assert run_cli(["materialize-shadow", "--n", "3", "--materialize", "out/s.jsonl", *common]) == 0
    assert run_cli(["build-pool", "--n", "12", "--out", "out/p.jsonl", *common]) == 0
    setup_tracking()
    for stage in ("build_pool", "materialize_shadow"):
        (run,) = mlflow.search_runs(search_all_experiments=True, filter_string=f"tags.`rc1.stage` = '{stage}'",
                                    output_format="list")
        assert {t: run.data.tags.get(f"rc1.data_source.{t}") for t in ("hotpotqa", "strategyqa", "gsm8k")} \
            == {"hotpotqa": "local", "strategyqa": "local", "gsm8k": "local"}
        assert run.data.tags["rc1.data_uri.gsm8k"].endswith("train.jsonl")


def test_a_failing_hugging_face_source_is_an_error_naming_the_dataset_never_a_fallback(tmp_path, monkeypatch):
    """The hub 'answers' (a listener on the HF endpoint's port) but the dataset cannot be loaded: an error naming
    it, in dev as in prod, and the bundled sample after it is not used."""
    import socket

    from rc1.data import hf

    srv = socket.socket()
    try:
        srv.bind(("127.0.0.1", 443))
    except OSError:
        pytest.skip("port 443 on 127.0.0.1 is not available to stand in for the hub")
    srv.listen()
    try:
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
        monkeypatch.setenv("HF_ENDPOINT", "https://127.0.0.1")
        monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
        hf.hub_online.cache_clear()
        broken = tmp_path / "broken_ds"
        broken.mkdir()
        (broken / "train.json").write_text("{not json")
        cfg = _cfg(Source(kind="hf", name=str(broken), split="train"), Source(kind="bundled"))
        for mode in ("dev", "prod"):
            with pytest.raises(Rc1Error, match=rf"gsm8k: Hugging Face dataset {broken} split train failed to load"):
                load_tasks("gsm8k", data_cfg=cfg, mode=mode)
    finally:
        srv.close()
        hf.hub_online.cache_clear()
