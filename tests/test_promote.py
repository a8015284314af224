"""promote refuses without a passing evaluate run (the passing path runs in test_train_grpo.py)."""

import pytest

from entrypoints.cli import main
from rc1.tracking import stage_run
from rc1.tracking.registry import register_adapter


@pytest.fixture
def version(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    adapter = tmp_path / "adapter"
    adapter.mkdir()
    (adapter / "adapter_config.json").write_text("{}")
    with stage_run("train", params={}, reuse=False) as st:
        st.log_artifact(adapter, name="adapter")
    yield register_adapter(st.run_id, score=0.5)
    import mlflow

    mlflow.set_tracking_uri(None)


def promote(args, capsys):
    with pytest.raises(SystemExit) as e:
        main(["promote", *args])
    return e.value.code, capsys.readouterr().err


def test_refuses_a_version_without_an_evaluate_run(version, capsys):
    code, err = promote(["--version", version], capsys)
    assert code == 2 and "no finished evaluate run" in err


def test_refuses_unknown_versions_and_needs_one_selector(version, capsys):
    assert promote(["--version", "42"], capsys)[0] == 2
    assert promote(["--alias", "RC1"], capsys)[0] == 2
    code, err = promote([], capsys)
    assert code == 2 and "exactly one" in err
