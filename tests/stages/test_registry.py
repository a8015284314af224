"""Registry helpers: versions made from a run's LoggedModel, the `best` alias rule, version lookups."""

import pytest

from rc1.core.errors import Rc1Error
from rc1.tracking import stage_run
from rc1.tracking.registry import (alias_version, evaluation_of, log_policy_model, register_logged_model,
                                   resolve_version, set_alias)


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    yield tmp_path
    import mlflow

    mlflow.set_tracking_uri(None)


def register_adapter(tmp_path, name, **kw):
    """A train run whose LoggedModel (a bare adapter directory) becomes a version."""
    adapter = tmp_path / name / "adapter"
    adapter.mkdir(parents=True)
    (adapter / "adapter_config.json").write_text("{}")
    with stage_run("train", params={"name": name}, reuse=False) as st:
        model_id, _ = log_policy_model(st, adapter)
    return register_logged_model(st.run_id, model_id, **kw)


def test_best_alias_is_the_best_of_the_current_gate(store):
    v1 = register_adapter(store, "a", score=0.5, gate_run_id="g1")
    v2 = register_adapter(store, "b", score=0.4, gate_run_id="g1")
    assert str(alias_version("best").version) == v1              # lower reward: best stays
    v3 = register_adapter(store, "c", score=0.6, gate_run_id="g1")
    assert str(alias_version("best").version) == v3
    v4 = register_adapter(store, "d", score=0.1, gate_run_id="g2")
    assert str(alias_version("best").version) == v4              # a new gate's first version takes it
    mv = resolve_version(version=v2)
    assert mv.source.startswith("models:/m-") and mv.tags["rc1.best_reward"] == "0.4"   # no path: the LoggedModel
    assert str(resolve_version(alias="best").version) == v4
    set_alias(v1, "RC1")
    assert str(resolve_version(alias="RC1").version) == v1
    assert evaluation_of(v1) is None


def test_unknown_version_or_alias_is_a_clear_error(store):
    register_adapter(store, "a", score=0.5)
    with pytest.raises(Rc1Error, match="no version 9"):
        resolve_version(version=9)
    with pytest.raises(Rc1Error, match="no alias 'RC1'"):
        resolve_version(alias="RC1")
    with pytest.raises(Rc1Error, match="exactly one"):
        resolve_version(version=1, alias="best")


def test_a_trial_gates_version_takes_trial_best_never_best(store):
    with stage_run("gate", params={}, reuse=False, tags={"rc1.gate_kind": "full"}) as full:
        pass
    with stage_run("gate", params={}, reuse=False, tags={"rc1.gate_kind": "trial"}) as trial:
        pass
    v1 = register_adapter(store, "full", score=0.1, gate_run_id=full.run_id)
    v2 = register_adapter(store, "trial", score=0.9, gate_run_id=trial.run_id)
    assert str(alias_version("best").version) == v1              # unchanged by the trial gate's version
    assert str(alias_version("trial-best").version) == v2
    assert resolve_version(version=v2).tags["rc1.gate_kind"] == "trial"
