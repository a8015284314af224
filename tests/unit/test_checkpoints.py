"""Checkpoint layout: step dirs, latest, append-only best/, sha256 manifest; a tampered checkpoint refuses."""

import json

import pytest

from rc1.cli import main
from rc1.core.errors import Rc1Error
from rc1.train.checkpoints import MANIFEST, CheckpointStore, resolve_resume


def fake_trainer_checkpoint(root, step, payload=b"weights"):
    d = root / f"checkpoint-{step}"
    d.mkdir(parents=True)
    (d / "adapter_model.safetensors").write_bytes(payload)
    (d / "trainer_state.json").write_text(json.dumps({"global_step": step}))
    return d


def test_commit_best_and_rotate(tmp_path):
    store = CheckpointStore(tmp_path)
    for step, metric in ((2, 0.3), (4, 0.5), (6, 0.4)):
        p = store.commit_step(fake_trainer_checkpoint(tmp_path, step, f"w{step}".encode()), step, {"beta": 0.04}, metric)
        assert p.name == f"step_{step:05d}" and not (tmp_path / f"checkpoint-{step}").exists()
        assert json.loads((p / "rc1_state.json").read_text()) == {"beta": 0.04}
        assert store.latest() == p
        if step != 6:
            store.add_best(step, metric)
    assert [p.name for p in sorted((tmp_path / "best").iterdir())] == ["001_step_00002", "002_step_00004"]
    assert store.best().name == "002_step_00004"
    assert (tmp_path / "best/001_step_00002/adapter_model.safetensors").read_bytes() == b"w2"   # never overwritten
    store.rotate(keep_last=1)
    assert sorted(p.name for p in tmp_path.glob("step_*")) == ["step_00006"]
    assert store.verify(tmp_path / "best/001_step_00002")        # best entries survive rotation
    kinds = [e["kind"] for e in store.entries()]
    assert kinds.count("step") == 3 and kinds.count("best") == 2 and kinds.count("removed") == 2
    assert all(len(e["sha256"]) == 64 for e in store.entries() if e["kind"] != "removed")


def test_rotation_orders_steps_by_number_not_by_name(tmp_path):
    store = CheckpointStore(tmp_path)
    for step in (99998, 99999, 100000):                 # "step_100000" < "step_99999" as strings
        store.commit_step(fake_trainer_checkpoint(tmp_path, step), step, {})
    removed = store.rotate(keep_last=2)
    assert [p.name for p in removed] == ["step_99998"]
    assert sorted(p.name for p in tmp_path.glob("step_*")) == ["step_100000", "step_99999"]
    assert store.latest().name == "step_100000"


def test_sha256_mismatch_refuses_to_load(tmp_path):
    store = CheckpointStore(tmp_path)
    p = store.commit_step(fake_trainer_checkpoint(tmp_path, 2), 2, {})
    assert resolve_resume(tmp_path)[1] == p and resolve_resume(p)[1] == p
    (p / "adapter_model.safetensors").write_bytes(b"tampered")
    with pytest.raises(Rc1Error, match="does not match"):
        resolve_resume(tmp_path)
    with pytest.raises(Rc1Error, match="not in"):
        store.verify(tmp_path / "unrecorded")


def test_resume_without_a_checkpoint_or_manifest_refuses(tmp_path):
    with pytest.raises(Rc1Error, match="no such directory"):
        resolve_resume(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(Rc1Error, match=MANIFEST):
        resolve_resume(tmp_path / "empty")


def test_cli_resume_from_a_tampered_checkpoint_exits_2(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    store = CheckpointStore(tmp_path / "run")
    p = store.commit_step(fake_trainer_checkpoint(tmp_path / "run", 2), 2, {})
    (p / "trainer_state.json").write_text("{}")
    with pytest.raises(SystemExit) as e:
        main(["train", "--config", "unused.yaml", "--resume-from", str(tmp_path / "run")])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "does not match" in err and "Traceback" not in err
