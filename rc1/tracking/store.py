"""The tracking store: where rc1's runs go (the embedded sqlite store or MLFLOW_TRACKING_URI), the experiment, the
runs whose process is gone, and the shell hint that reaches the same store."""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic collector off while mlflow and its store import (~280k objects, ~4k garbage: collecting took ~18%
    of the import, 2.21 s vs 1.86 s), then what exists frozen (later collections walk only the stage's own objects:
    unpickling a child's 63k n-grams, 0.19 s -> 0.03 s). Only a block that imported something freezes: a frozen
    object is never collected, so freezing at every setup_tracking would keep earlier stages' garbage for good."""
    imported = len(sys.modules)
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if len(sys.modules) > imported:
            gc.freeze()
        if was_on:
            gc.enable()


with _collector_paused():
    import mlflow
    from mlflow.tracking import MlflowClient

from rc1.core.errors import Rc1Error
from rc1.tracking.queries import _search

EXPERIMENT = os.environ.get("RC1_EXPERIMENT", "rc1")
STORE_DIR = Path("mlruns")


def default_tracking_uri() -> str:
    """MLFLOW_TRACKING_URI when set, else the embedded sqlite store under ./mlruns."""
    uri = os.environ.get("MLFLOW_TRACKING_URI")
    if uri:
        return uri
    return f"sqlite:///{(STORE_DIR / 'mlflow.db').resolve()}"


def use_tracking() -> str:
    """Point mlflow at the store (as setup_tracking does) and create nothing: for read-only callers (verify)."""
    from mlflow.tracking._tracking_service.utils import is_tracking_uri_set

    if not is_tracking_uri_set():
        mlflow.set_tracking_uri(default_tracking_uri())
    uri = mlflow.get_tracking_uri()
    if uri.startswith("sqlite:///") and not Path(uri[len("sqlite:///"):].split("?", 1)[0]).is_file():
        # MLflow would create the database (and its tables) on the first query
        raise Rc1Error(f"no tracking store at {uri}: nothing to read (set MLFLOW_TRACKING_URI to the team's store, or "
                       f"run where the runs are)")
    return uri


def setup_tracking(experiment: str | None = None) -> str:
    """Point mlflow at the store and make sure the experiment exists; returns its id.
    With the embedded default, artifacts live beside the db in ./mlruns/<experiment id>/."""
    uri = default_tracking_uri()
    mlflow.set_tracking_uri(uri)
    name = experiment or EXPERIMENT
    active = mlflow.active_run()
    if active is not None:  # a child stage lives in its parent's experiment
        return active.info.experiment_id
    # two first runs on a fresh sqlite store would both create its tables ("table experiments already exists"):
    # the first store access of each process is serialized by a lock file beside the database
    with _store_lock(uri), _collector_paused():   # the first client imports the store's modules (sqlalchemy, alembic)
        client = MlflowClient()
        client.search_experiments(max_results=1)
    fail_dead_runs(client)
    if os.environ.get("MLFLOW_RUN_ID") and os.environ.get("MLFLOW_EXPERIMENT_ID"):
        exp_id = os.environ["MLFLOW_EXPERIMENT_ID"]  # inside `mlflow run`: the experiment it chose
        mark_model_training(client, client.get_experiment(exp_id))
        return exp_id
    exp = client.get_experiment_by_name(name)
    if exp is None:
        try:
            exp_id = client.create_experiment(name, tags={EXPERIMENT_KIND_TAG: EXPERIMENT_KIND})
        except mlflow.exceptions.MlflowException:  # created meanwhile by a sibling process
            exp_id = client.get_experiment_by_name(name).experiment_id
    else:
        exp_id = exp.experiment_id
        mark_model_training(client, exp)
    mlflow.set_experiment(experiment_id=exp_id)
    return exp_id


@contextlib.contextmanager
def _store_lock(uri: str) -> Iterator[None]:
    """An exclusive lock on `<database>.lock` for a sqlite store (nothing for a server: it serializes itself)."""
    import fcntl

    if not uri.startswith("sqlite:///"):
        yield
        return
    db = Path(uri.removeprefix("sqlite:///").split("?", 1)[0])
    db.parent.mkdir(parents=True, exist_ok=True)
    with open(db.with_name(db.name + ".lock"), "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


# ---------------------------------------------------------------- runs whose process is gone
HOST = __import__("socket").gethostname()
_swept: set[str] = set()


def process_tags() -> dict[str, str]:
    """Which process holds a run (rc1.pid, its start time, rc1.host): a later rc1 command on the same host can tell
    that a RUNNING run's process is gone (kill -9, OOM) and end the run."""
    import psutil

    return {"rc1.pid": str(os.getpid()), "rc1.pid_started": f"{psutil.Process().create_time():.2f}", "rc1.host": HOST}


def _process_gone(tags: dict[str, str]) -> bool:
    import psutil

    try:
        pid, started = int(tags["rc1.pid"]), float(tags["rc1.pid_started"])
    except (KeyError, ValueError):
        return False   # not recorded: nothing to tell
    try:
        return abs(psutil.Process(pid).create_time() - started) > 1.0   # a reused pid is another process
    except psutil.NoSuchProcess:
        return True
    except psutil.Error:
        return False


def fail_dead_runs(client: MlflowClient) -> list[str]:
    """Mark FAILED (tag rc1.ended_by saying why) every RUNNING rc1 run of this host whose process is gone; once per
    process and store. Returns their ids."""
    uri = mlflow.get_tracking_uri()
    if uri in _swept:
        return []
    _swept.add(uri)
    runs = _search(f"attributes.status = 'RUNNING' AND tags.`rc1.host` = '{HOST}'", max_results=1000)
    dead = [r for r in runs if _process_gone(r.data.tags)]
    for r in dead:
        client.set_tag(r.info.run_id, "rc1.ended_by",
                       f"rc1 (pid {os.getpid()}): its process {r.data.tags['rc1.pid']} on {HOST} is gone and never "
                       f"ended the run (killed?)")
        client.set_terminated(r.info.run_id, "FAILED")
    return [r.info.run_id for r in dead]


# What the MLflow UI reads to open an experiment on its runs table (3.17.2's bundle, mlflow/server/js/build): with its
# workflow-based navigation (always on in 3.17) the view is the *workflow type*, taken from the URL's
# `?workflowType=machine_learning|genai`, else the browser's localStorage `mlflow.workflowType`, else genai (the
# "Overview" page with traces). The experiment tag `mlflow.experimentKind` is what the experiment's kind selector
# writes and what UIs without that navigation read (custom_model_development: the runs table). So rc1 sets the tag on
# its experiment and every UI link it prints (ui_url) carries ?workflowType=machine_learning.
EXPERIMENT_KIND_TAG = "mlflow.experimentKind"
EXPERIMENT_KIND = "custom_model_development"


def mark_model_training(client: MlflowClient, exp) -> None:
    """Tag an experiment as model training (runs view), unless someone already chose a kind for it."""
    if exp is not None and EXPERIMENT_KIND_TAG not in (exp.tags or {}):
        client.set_experiment_tag(exp.experiment_id, EXPERIMENT_KIND_TAG, EXPERIMENT_KIND)


def _store_path(uri: str) -> Path | None:
    """The database file of a sqlite URI (relative ones against the working directory), else None."""
    if not uri.startswith("sqlite:///"):
        return None
    return Path(uri.removeprefix("sqlite:///").split("?", 1)[0]).resolve()


def shell_command(command: str) -> str:
    """`command` as a hint to paste into a shell: prefixed with MLFLOW_TRACKING_URI=<the store in use> when a plain
    shell here would reach another store (`mlflow run` hands its URI to rc1 through the environment; a shell without
    it gets rc1's embedded store), so the command finds what this one found."""
    import shlex

    uri = default_tracking_uri()
    default = f"sqlite:///{STORE_DIR / 'mlflow.db'}"
    here = _store_path(uri)
    if here is not None and here == _store_path(default):
        return command
    return f"MLFLOW_TRACKING_URI={shlex.quote(uri)} {command}"
