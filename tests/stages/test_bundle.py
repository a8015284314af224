"""`rc1 bundle`: the package of a preflight re-creates its pool byte for byte in another directory, and a bundle
of files that changed since the preflight is refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import mlflow
import pytest

from rc1_cli import run_cli

REPO = Path(__file__).parents[2]


def _preflights() -> list:
    return mlflow.search_runs(search_all_experiments=True, filter_string="tags.`rc1.stage` = 'preflight'",
                              order_by=["attributes.start_time DESC"], output_format="list")


@pytest.fixture
def clean_env(monkeypatch):
    for var in ("MLFLOW_TRACKING_URI", "MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_ID", "RUN_MODE", "SCORER_PROVIDER",
                "REWARD_LIVE_MODE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    yield
    mlflow.set_tracking_uri(None)


def _use_store(monkeypatch, root: Path) -> None:
    uri = f"sqlite:///{root / 'mlruns.db'}"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    mlflow.set_tracking_uri(uri)


def test_bundle_reproduces_the_preflight_pool(tmp_path, monkeypatch, clean_env, capsys):
    orig = tmp_path / "orig"
    for d in ("configs", "templates"):
        shutil.copytree(REPO / d, orig / d)
    gates = orig / "configs" / "gates.yaml"
    # round 1 is enough to build and hash the pool; an unmeetable roles gate stops the preflight there (fast)
    gates.write_text(gates.read_text().replace("roles_min: 4", "roles_min: 400"))
    monkeypatch.chdir(orig)
    _use_store(monkeypatch, orig)
    assert run_cli(["preflight", "--mode", "dev", "--n", "600"]) == 2
    (pf,) = _preflights()
    pool_sha = pf.data.tags["sha256.pool"]
    # Why 4: the store's tags are not what a bundle says: the pool digest retagged, and a preflight made in the
    # store by hand whose params point the re-run at an attacker's data
    from mlflow.tracking import MlflowClient

    MlflowClient().set_tag(pf.info.run_id, "sha256.pool", "f" * 64)
    with mlflow.start_run() as fake:
        mlflow.set_tags({**pf.data.tags, "rc1.stage": "preflight"})
        mlflow.log_params({"mode": "dev", "data_dir": "/attacker/data"})
    capsys.readouterr()
    assert run_cli(["bundle", "--preflight", fake.info.run_id, "--out", str(tmp_path / "forged")]) == 2
    assert "carries no signed statement" in capsys.readouterr().err and not (tmp_path / "forged").exists()

    assert run_cli(["bundle", "--preflight", pf.info.run_id, "--out", str(tmp_path / "bundle")]) == 0
    bundle = tmp_path / "bundle"
    m = json.loads((bundle / "bundle.json").read_text())
    assert m["expect"]["pool"] == pool_sha and m["runs"]["preflight"]["run_id"] == pf.info.run_id
    assert m["commands"][0][:2] == ["rc1", "preflight"] and "torch" in m["packages"]
    assert (bundle / "configs" / "gates.yaml").read_text() == gates.read_text()
    assert "roles_min: 400" in (bundle / "configs" / "gates.yaml").read_text()
    assert pool_sha in (bundle / "REPRODUCE.md").read_text() and "f" * 64 not in (bundle / "REPRODUCE.md").read_text()
    assert "/attacker/data" not in json.dumps(m)
    MlflowClient().set_tag(pf.info.run_id, "sha256.pool", pool_sha)
    (bundle_run,) = mlflow.search_runs(search_all_experiments=True, output_format="list",
                                       filter_string="tags.`rc1.stage` = 'bundle'")
    assert "sha256.bundle" in bundle_run.data.tags

    # issue 29: rc1 never deletes what it did not write. A directory holding a user's file, the working directory
    # (a checkout's .git, mlruns/) and its parents are refused in one line; an earlier bundle is replaced
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes")
    theirs = tmp_path / "theirs"   # review: a file named like a bundle's beside the user's own is no earlier bundle
    theirs.mkdir()
    (theirs / "notes.txt").write_text("my notes")
    (theirs / "bundle.json").write_text("{}")
    capsys.readouterr()
    for out in (mine, theirs, ".", str(tmp_path)):
        assert run_cli(["bundle", "--preflight", pf.info.run_id, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "rc1: error: --out" in err and "Traceback" not in err, err
    assert (mine / "notes.txt").read_text() == "my notes" and (orig / "mlruns.db").is_file()
    assert (theirs / "notes.txt").read_text() == "my notes"
    assert run_cli(["bundle", "--preflight", pf.info.run_id, "--out", str(bundle)]) == 0
    assert (bundle / "bundle.json").is_file() and (bundle / ".rc1-output").read_text().strip() == "bundle"
    assert not (bundle / "configs" / "trust.yaml").exists()   # Why 5: a bundle never carries (or asks to adopt) one
    assert "keep your own `configs/trust.yaml`" in (bundle / "REPRODUCE.md").read_text()
    # Why 6: a file of the user's own inside an earlier bundle is never deleted: that bundle is refused, naming it
    (bundle / "configs" / "my_private.yaml").write_text("mine: true\n")
    capsys.readouterr()
    assert run_cli(["bundle", "--preflight", pf.info.run_id, "--out", str(bundle)]) == 2
    assert "configs/my_private.yaml, which rc1 did not write there" in capsys.readouterr().err
    assert (bundle / "configs" / "my_private.yaml").read_text() == "mine: true\n"
    (bundle / "configs" / "my_private.yaml").unlink()
    # nor a symlink of the user's (to a directory, which the walk does not enter) nor a directory of their own
    (tmp_path / "theirs_data").mkdir()
    (bundle / "data").symlink_to(tmp_path / "theirs_data", target_is_directory=True)
    (bundle / "templates" / "drafts").mkdir()
    assert run_cli(["bundle", "--preflight", pf.info.run_id, "--out", str(bundle)]) == 2
    assert "holds data and 1 more, which rc1 did not write there" in capsys.readouterr().err
    assert (bundle / "data").is_symlink() and (bundle / "templates" / "drafts").is_dir()
    (bundle / "data").unlink()
    (bundle / "templates" / "drafts").rmdir()
    assert len(mlflow.search_runs(search_all_experiments=True, output_format="list",
                                  filter_string="tags.`rc1.stage` = 'bundle'")) == 2   # the refusals opened no run

    # the gates file preflight hashed has changed: a bundle of today's file would not reproduce it
    gates.write_text(gates.read_text() + "\n")
    capsys.readouterr()
    assert run_cli(["bundle", "--preflight", pf.info.run_id, "--out", str(tmp_path / "stale")]) == 2
    err = capsys.readouterr().err
    assert "changed since preflight" in err and "Traceback" not in err and not (tmp_path / "stale").exists()
    # so have the templates (they word the pool): refused too
    gates.write_text(gates.read_text()[:-1])
    math = orig / "templates" / "pack_v2" / "math.json"
    math.write_text(math.read_text() + "\n")
    assert run_cli(["bundle", "--preflight", pf.info.run_id, "--out", str(tmp_path / "stale")]) == 2
    assert "templates/ changed since preflight" in capsys.readouterr().err

    # elsewhere, from the bundle alone: the same command gives the same pool
    again = tmp_path / "again"
    for d in ("configs", "templates"):
        shutil.copytree(bundle / d, again / d)
    monkeypatch.chdir(again)
    _use_store(monkeypatch, again)
    assert run_cli(m["commands"][0][1:]) == 2          # the same preflight, failing the same way
    (rerun,) = _preflights()
    assert rerun.info.run_id != pf.info.run_id and rerun.data.tags["sha256.pool"] == pool_sha


def test_bundle_needs_exactly_one_subject(tmp_path, monkeypatch, clean_env, capsys):
    monkeypatch.chdir(tmp_path)
    _use_store(monkeypatch, tmp_path)
    assert run_cli(["bundle"]) == 2                       # no subject: alias RC1, as under `mlflow run -e bundle`
    assert run_cli(["bundle", "--version", "1", "--alias", "best"]) == 2
    assert run_cli(["bundle", "--preflight", "0" * 32]) == 2
    err = capsys.readouterr().err
    assert "has no alias 'RC1'" in err and "exactly one of" in err and "no such run" in err and "Traceback" not in err
