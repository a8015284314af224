"""The stage-run layer against a real embedded MLflow store: sha256 tags, inputs, reuse, verdicts."""

import mlflow
import pytest
from mlflow.tracking import MlflowClient

from rc1.core.errors import CheckFailed
from rc1.core.io import sha256_file, write_json
from rc1.tracking import stage_run


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.delenv("MLFLOW_RUN_ID", raising=False)
    return tmp_path


def _stage(calls, out="o/out.json", value=1, reuse=True):
    with stage_run("demo", params={"value": value}, inputs={"cfg": {"a": 1}}, outputs={"out": out}, reuse=reuse) as st:
        if st.reused:
            return st
        calls.append(value)
        write_json(out, {"v": value})
        st.log_artifact(out)
        st.log_metrics({"m": 0.5})
        st.log_file_input(out, "self")
    return st


def test_finished_run_has_metrics_and_sha_tags(store):
    st = _stage([])
    run = mlflow.get_run(st.run_id)
    assert run.info.status == "FINISHED"
    assert run.data.tags["rc1.stage"] == "demo" and run.data.metrics["m"] == 0.5
    assert run.data.tags["sha256.out.json"] == sha256_file(store / "o/out.json")
    assert run.inputs.dataset_inputs and run.inputs.dataset_inputs[0].dataset.name == "self"


def test_same_inputs_reuse_the_first_run_and_restore_outputs(store):
    calls = []
    first = _stage(calls)
    (store / "o/out.json").unlink()
    second = _stage(calls)
    assert calls == [1] and second.reused and second.run_id == first.run_id
    assert (store / "o/out.json").read_text().strip().startswith("{")
    _stage(calls, value=2)  # other params: computed again
    _stage(calls, reuse=False)  # --no-reuse: computed again
    assert calls == [1, 2, 1]


def test_failed_gate_is_a_finished_run_and_stays_failed_on_reuse(store):
    checks = [{"name": "x", "value": 1, "threshold": 0, "pass": False}]
    with pytest.raises(CheckFailed) as e:
        with stage_run("g", params={}) as st:
            st.verdict(checks)
    assert e.value.checks == checks
    run = mlflow.get_run(st.run_id)
    assert run.info.status == "FINISHED" and run.data.tags["rc1.passed"] == "false"
    with pytest.raises(CheckFailed, match="reused run"):
        with stage_run("g", params={}) as st2:
            assert st2.reused


def test_crash_inside_a_stage_leaves_a_failed_run_that_is_never_reused(store):
    with pytest.raises(RuntimeError):
        with stage_run("boom", params={}):
            raise RuntimeError("x")
    runs = mlflow.search_runs(search_all_experiments=True, filter_string="tags.`rc1.stage` = 'boom'")
    assert list(runs["status"]) == ["FAILED"]
    with stage_run("boom", params={}) as st:
        assert not st.reused


def test_reuse_inside_mlflow_run_never_relogs_a_param_that_differs(store, monkeypatch):
    """`mlflow run` logs the MLproject parameters as spelled on its command line, then hands the run over
    (MLFLOW_RUN_ID). When the reused run came from the direct CLI with a differently spelled value, the run keeps the
    value as given (no crash on "Changing param values is not allowed", no second key such as reused.<key>: one name
    per param); the earlier run, rc1.reused_from, holds its own."""
    first = _stage([], value=1)                            # direct CLI: param value=1
    client = MlflowClient()
    outer = client.create_run(mlflow.get_experiment_by_name("rc1").experiment_id)
    client.log_param(outer.info.run_id, "value", "1.0")   # as `mlflow run -P value=1.0` would log it
    client.log_param(outer.info.run_id, "other", "x")
    monkeypatch.setenv("MLFLOW_RUN_ID", outer.info.run_id)
    monkeypatch.setenv("MLFLOW_EXPERIMENT_ID", outer.info.experiment_id)
    calls = []
    st = _stage(calls, value=1)
    assert calls == [] and st.reused and st.run_id == outer.info.run_id
    run = client.get_run(outer.info.run_id)
    assert run.info.status == "FINISHED"
    assert run.data.params == {"value": "1.0", "other": "x"}
    assert run.data.tags["rc1.reused_from"] == first.run_id


def test_experiment_is_tagged_as_model_training_for_the_runs_view(store):
    _stage([])
    exp = mlflow.get_experiment_by_name("rc1")
    assert exp.tags["mlflow.experimentKind"] == "custom_model_development"


def run_probe(tmp_path, probe: str) -> None:
    """Run `probe` (Python that prints ok) in a fresh interpreter on an embedded store in tmp_path: how the collector
    is left depends on what the process imported before, so the pytest process itself cannot show it."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
           "MLFLOW_TRACKING_URI": f"sqlite:///{tmp_path / 'mlflow.db'}"}
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_importing_mlflow_leaves_the_garbage_collector_as_it_was(tmp_path):
    """rc1.tracking pauses the collector only while mlflow and its store are imported
    (rc1.tracking.store._collector_paused), then freezes what the import made: a cycle made afterwards is collected as
    before, and a collector the caller turned off stays off."""
    probe = ("import gc, weakref; gc.set_threshold(900, 11, 12)\n"
             "import rc1.tracking.store as t\n"
             "assert gc.get_threshold() == (900, 11, 12) and gc.isenabled() and gc.get_freeze_count() > 100000\n"
             "t.setup_tracking()\n"
             "assert gc.get_threshold() == (900, 11, 12) and gc.isenabled(), gc.get_threshold()\n"
             "class C: pass\n"
             "a = C(); a.me = a; gone = weakref.ref(a); del a; gc.collect()\n"
             "assert gone() is None\n"
             "gc.disable()\n"
             "with t._collector_paused(): pass\n"
             "assert not gc.isenabled()\n"
             "print('ok')\n")
    run_probe(tmp_path, probe)


def test_a_cycle_left_by_one_stage_is_still_collected_after_the_next_stage_opens(tmp_path):
    """Freezing is for what the mlflow import made: a later stage's setup_tracking (a gate's next seed, evaluate after
    training, the next test in one pytest process) must not freeze the cycles earlier stages left as garbage, which
    would then never be collected (a trainer and its model, every seed)."""
    probe = ("import gc, weakref\n"
             "import rc1.tracking as t\n"
             "t.setup_tracking()\n"
             "class C: pass\n"
             "for _ in range(2):\n"
             "    a = C(); a.me = a; gone = weakref.ref(a); del a\n"
             "    with t.stage_run('probe', params={}, reuse=False):\n"
             "        pass\n"
             "    gc.collect()\n"
             "    assert gone() is None, 'a cycle that was garbage when a stage opened was never collected'\n"
             "print('ok')\n")
    run_probe(tmp_path, probe)


def test_a_downloaded_file_is_named_by_the_run_artifact_it_came_from(store):
    """A file fetched from a run's artifacts (the gate's copy of preflight's pool) lives in a folder rc1 deletes: a
    param that passes it, and the dataset input made of it, name runs:/<run>/<path>, and load() gets it back."""
    import shutil

    from mlflow.data import get_source

    from rc1.tracking.queries import fetch_artifact

    src = _stage([])
    local = fetch_artifact(mlflow.get_run(src.run_id), "out.json", store / "gate")
    with stage_run("user", params={"pool": str(local)}, reuse=False) as st:
        st.log_dataset(local, "pool", "training")
    shutil.rmtree(store / "gate")
    run = mlflow.get_run(st.run_id)
    uri = f"runs:/{src.run_id}/out.json"
    (ds,) = run.inputs.dataset_inputs
    assert run.data.params["pool"] == uri and ds.dataset.source == '{"uri": "%s"}' % uri
    assert ds.dataset.digest == sha256_file(store / "o/out.json")[:32]
    assert {t.key: t.value for t in ds.tags} == {"mlflow.data.context": "training",
                                                   "rc1.sha256": sha256_file(store / "o/out.json")}
    assert sha256_file(get_source(ds).load(str(store / "again"))) == sha256_file(store / "o/out.json")


def test_a_stop_while_the_run_opens_ends_it_killed_not_running(store, monkeypatch):
    """Ctrl-C landing inside mlflow.start_run, just after the store created the run (test_interrupt saw such a run
    left RUNNING under load): the stop waits for the run to open, then ends it KILLED."""
    import os
    import signal

    from rc1.core.proc import clear_stop, raise_stopped

    create_run = MlflowClient.create_run

    def create_then_interrupt(self, *args, **kwargs):
        run = create_run(self, *args, **kwargs)
        os.kill(os.getpid(), signal.SIGINT)
        return run

    monkeypatch.setattr(MlflowClient, "create_run", create_then_interrupt)
    before = signal.signal(signal.SIGINT, raise_stopped)
    try:
        with pytest.raises(KeyboardInterrupt):
            with stage_run("probe", params={"a": 1}, reuse=False):
                pass
    finally:
        signal.signal(signal.SIGINT, before)
        clear_stop()
    client = MlflowClient()
    runs = client.search_runs([e.experiment_id for e in client.search_experiments()], run_view_type=3)
    assert [r.info.status for r in runs] == ["KILLED"]
