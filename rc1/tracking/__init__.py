"""Everything rc1 says to MLflow goes through here (the rest of rc1/ never imports mlflow).

A stage is one MLflow run:

    with stage_run("build_pool", params={...}, inputs={"shadow": path}, outputs={"pool": out}) as st:
        if st.reused:
            return                       # outputs restored from the matching finished run
        ...compute, write `out` atomically...
        st.log_metrics({...})
        st.log_artifact(out)             # + tag sha256.<name>
        st.verdict(checks)               # tags rc1.passed, logs checks.json, raises GateFailed

Reuse (as in MLflow's multistep example): a run is keyed by stage + params + input digests + code
version. When a FINISHED run with the same key exists, the stage is not recomputed: its output
artifacts are copied back to the requested paths and its verdict is re-raised. A reusable run signs what it recorded
(rc1.release.attest), and only a run whose statement holds is reused, its outputs held to the signed digests and its
verdict the signed one: a run edited in the store (or made there by hand) is computed again.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import logging
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator


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
    from mlflow.entities import Run
    from mlflow.tracking import MlflowClient

import rc1
from rc1.core.config import run_mode
from rc1.core.errors import GateFailed, Rc1Error
from rc1.core.io import atomic_open, sha256_dir, sha256_file, sha256_text, writable_outputs, write_json
from rc1.core.proc import Stopped, check_stop, deferred_signals
from rc1.tracking.queries import ORIGINS_ENV, _search, origin_of, origins

log = logging.getLogger("rc1")

EXPERIMENT = os.environ.get("RC1_EXPERIMENT", "rc1")
STORE_DIR = Path("mlruns")


# ---------------------------------------------------------------- store
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
    return mlflow.get_tracking_uri()


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
UI_VIEW = "workflowType=machine_learning"
UI_DEFAULT = "http://127.0.0.1:5000"


def mark_model_training(client: MlflowClient, exp) -> None:
    """Tag an experiment as model training (runs view), unless someone already chose a kind for it."""
    if exp is not None and EXPERIMENT_KIND_TAG not in (exp.tags or {}):
        client.set_experiment_tag(exp.experiment_id, EXPERIMENT_KIND_TAG, EXPERIMENT_KIND)


def ui_url(run_id: str | None = None, experiment_id: str | None = None, artifact: str | None = None) -> str:
    """The MLflow UI's address of a run (else of the experiment's runs table; with `artifact`, of that artifact in the
    run's artifact view), in the model-training view. With a tracking server it is the server's own page; with the
    embedded store, the page `mlflow ui` serves by default."""
    from rc1.core.redaction import safe_url

    uri = mlflow.get_tracking_uri() if mlflow.get_tracking_uri() else default_tracking_uri()
    # the server's page, never its credentials (user info, a token in the query): the link goes into the RC1 report
    base = safe_url(uri).rstrip("/") if uri.startswith(("http://", "https://")) else UI_DEFAULT
    if experiment_id is None:
        experiment_id = MlflowClient().get_run(run_id).info.experiment_id if run_id else setup_tracking()
    page = f"runs/{run_id}" if run_id else "runs"
    if run_id and artifact:
        page += f"/artifacts/{artifact}"
    return f"{base}/#/experiments/{experiment_id}/{page}?{UI_VIEW}"


def artifact_location(run_id: str, artifact: str) -> str:
    """Where a run's artifact can be opened: its file (relative to here when it is below) in a local artifact store,
    else its runs:/ URI (`mlflow artifacts download -u runs:/...` fetches it through the tracking server)."""
    from mlflow.utils.uri import is_local_uri

    root = MlflowClient().get_run(run_id).info.artifact_uri
    if not is_local_uri(root):
        return f"runs:/{run_id}/{artifact}"
    path = Path(root.removeprefix("file://")) / artifact
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def ui_hint() -> str:
    """How to open the UI on this store: nothing to start for a tracking server, `mlflow ui` for the embedded one."""
    from rc1.core.redaction import safe_url

    uri = mlflow.get_tracking_uri() or default_tracking_uri()   # a database URI's password is never printed
    return "" if uri.startswith(("http://", "https://")) else f" (after `mlflow ui --backend-store-uri {safe_url(uri)}`)"


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


def code_version() -> str:
    """sha256 of rc1's own source (library, stages, flows): the 'code version' part of a reuse key."""
    return sha256_text(sha256_dir(Path(rc1.__file__).parent, "**/*.py"))[:16]


def digest_of(value: Any) -> str:
    """A stable digest for an input: a file's or directory's sha256, or the sha256 of a JSON value."""
    if isinstance(value, (str, os.PathLike)) and Path(value).is_file():
        return sha256_file(value)
    if isinstance(value, (str, os.PathLike)) and Path(value).is_dir():
        return sha256_dir(value)
    return sha256_text(json.dumps(value, sort_keys=True, default=str))


def active_gate_run() -> Run | None:
    """The gate run this process is inside of (the active run when it is a `gate` stage), else None: a train
    run is gated exactly when a gate launched it, whatever tags its caller passes."""
    active = mlflow.active_run()
    if active is None:
        return None
    run = MlflowClient().get_run(active.info.run_id)
    return run if run.data.tags.get("rc1.stage") == "gate" else None


# A gate that trains through `accelerate launch` starts other processes; they have no active run to find. The gate
# names its run and hands them a one-time token whose sha256 it has recorded on that run: only a process the gate
# started holds it, so setting RC1_GATE_RUN_ID by hand does not make a run gated. The first train run that proves it
# spends it (the tag becomes LAUNCH_TOKEN_SPENT), and each launch gets a new one: a token copied from a launched
# process's environment opens no second gated run.
LAUNCH_GATE_ENV = "RC1_GATE_RUN_ID"
LAUNCH_TOKEN_ENV = "RC1_LAUNCH_TOKEN"
LAUNCH_TOKEN_TAG = "rc1.launch_token_sha256"
LAUNCH_TOKEN_SPENT = "spent"


def gate_launch_env() -> dict[str, str]:
    """The environment for a process the active gate run launches (see launched_gate_run); records the token's
    sha256 on the gate run (never the token)."""
    import secrets

    gate = active_gate_run()
    if gate is None:
        raise RuntimeError("gate_launch_env: no active gate run")
    token = secrets.token_hex(32)
    mlflow.set_tag(LAUNCH_TOKEN_TAG, sha256_text(token))
    return {LAUNCH_GATE_ENV: gate.info.run_id, LAUNCH_TOKEN_ENV: token,
            "MLFLOW_TRACKING_URI": mlflow.get_tracking_uri(), ORIGINS_ENV: json.dumps(origins())}


def launched_gate_run() -> Run | None:
    """The gate run that started this process (RC1_GATE_RUN_ID), proven by RC1_LAUNCH_TOKEN: its sha256 must be the
    gate run's rc1.launch_token_sha256 tag and the gate must still be running. None when no gate is named; a named
    gate that does not hold is a refusal (Rc1Error). The token leaves the environment once read, and is spent on the
    gate run (its tag becomes LAUNCH_TOKEN_SPENT, which no token's sha256 matches) once it has proven one."""
    run_id = os.environ.get(LAUNCH_GATE_ENV)
    token = os.environ.pop(LAUNCH_TOKEN_ENV, "")
    if not run_id:
        return None
    try:
        run = MlflowClient().get_run(run_id)
    except mlflow.exceptions.MlflowException:
        raise Rc1Error(f"{LAUNCH_GATE_ENV}={run_id}: no such run in {default_tracking_uri()}") from None
    want = run.data.tags.get(LAUNCH_TOKEN_TAG)
    if run.data.tags.get("rc1.stage") != "gate" or not want or not token or sha256_text(token) != want:
        raise Rc1Error(f"{LAUNCH_GATE_ENV}={run_id}: not a gate run that launched this process (no matching, "
                       f"unspent {LAUNCH_TOKEN_ENV}); a train run is gated only when its gate starts it")
    if run.info.status != "RUNNING":
        raise Rc1Error(f"{LAUNCH_GATE_ENV}={run_id}: the gate run is {run.info.status}, not running")
    MlflowClient().set_tag(run_id, LAUNCH_TOKEN_TAG, LAUNCH_TOKEN_SPENT)
    return run


def fail_orphaned_runs(parent_run_id: str, stage: str) -> list[str]:
    """Mark FAILED the `stage` runs under `parent_run_id` that are still RUNNING: a launched process that was killed
    (torchrun ends every process of the group when one dies) cannot end its own run. Returns their ids."""
    runs = mlflow.search_runs(search_all_experiments=True, output_format="list",
                              filter_string=f"tags.`mlflow.parentRunId` = '{parent_run_id}' AND "
                                            f"tags.`rc1.stage` = '{stage}' AND attributes.status = 'RUNNING'")
    client = MlflowClient()
    for r in runs:
        client.set_tag(r.info.run_id, "rc1.ended_by", "its launcher: the process died without ending its run")
        client.set_terminated(r.info.run_id, "FAILED")
    return [r.info.run_id for r in runs]


# ---------------------------------------------------------------- stage run
@dataclass
class StageRun:
    stage: str
    run_id: str
    reused: bool = False
    artifact_shas: dict[str, str] = field(default_factory=dict)
    artifact_paths: dict[str, str] = field(default_factory=dict)
    input_files: dict[str, tuple[Path, str]] = field(default_factory=dict)  # name -> (file, sha256 at the start)
    # what this process itself wrote on the run: the facts its signed statement carries (attest), never read back
    recorded_tags: dict[str, str] = field(default_factory=dict)
    recorded_metrics: dict[str, float] = field(default_factory=dict)
    artifact_dirs: set[str] = field(default_factory=set)
    extra_subjects: list[dict] = field(default_factory=list)

    # -- logging ------------------------------------------------------
    def log_params(self, params: dict[str, Any]) -> None:
        # `mlflow run` has already logged the MLproject parameters on the run we adopt, as given (mode=auto); MLflow
        # forbids changing a param, and a second key would spell one param twice: a value rc1 resolved differently
        # goes into the tag rc1.resolved.<key>
        existing = mlflow.get_run(self.run_id).data.params
        clean, resolved = {}, {}
        for k, v in params.items():
            v = _param_value(v)
            if k not in existing:
                clean[k] = v
            elif existing[k] != v:
                resolved[f"rc1.resolved.{k}"] = v
        mlflow.log_params(clean)
        if resolved:
            self.set_tags(resolved)

    def log_metrics(self, metrics: dict[str, float], step: int | None = None, model_id: str | None = None) -> None:
        """`model_id`: also linked to that LoggedModel (MLflow 3's model-centric view)."""
        clean = {k: float(v) for k, v in metrics.items() if v is not None and _finite(v)}
        if clean:
            mlflow.log_metrics(clean, step=step, model_id=model_id)
            self.recorded_metrics.update(clean)

    def set_tags(self, tags: dict[str, Any]) -> None:
        clean = {k: str(v) for k, v in tags.items()}
        mlflow.set_tags(clean)
        self.recorded_tags.update(clean)

    def log_artifact(self, path: str | Path, artifact_path: str | None = None, name: str | None = None,
                     sha: str | None = None) -> str:
        """Log a file (or directory) and tag it `sha256.<name>`; returns the sha256. `sha`: a file's sha256 when
        the stage has it already (hashed while writing it: reading a 13 GB pool again took half a minute)."""
        path = Path(path)
        name = name or path.name
        if path.is_dir():
            mlflow.log_artifacts(str(path), artifact_path=f"{artifact_path}/{name}" if artifact_path else name)
            sha = sha256_dir(path)
            self.artifact_dirs.add(name)
        else:
            mlflow.log_artifact(str(path), artifact_path=artifact_path)
            sha = sha or sha256_file(path)
        self.artifact_shas[name] = sha
        self.artifact_paths[name] = f"{artifact_path}/{name}" if artifact_path else name
        self.set_tags({f"sha256.{name}": sha})
        return sha

    def log_named_artifact(self, name: str, path: str | Path, artifact_path: str = "inputs") -> str:
        """Log a file another machine will need and name it: tag `rc1.artifact.<name>` holds its artifact path
        (rc1.tracking.attestations.SignedRun.named_file downloads it and holds it to the digest the run signed)."""
        sha = self.log_artifact(path, artifact_path=artifact_path)
        self.set_tags({f"rc1.artifact.{name}": f"{artifact_path}/{Path(path).name}"})
        return sha

    def log_json(self, obj: Any, name: str, artifact_path: str | None = None) -> str:
        with tempfile.TemporaryDirectory() as d:
            p = write_json(Path(d) / name, obj)
            return self.log_artifact(p, artifact_path=artifact_path)

    def log_config(self, model: Any, name: str) -> str:
        """The effective (validated) config as an artifact under config/."""
        data = model.model_dump(mode="json") if hasattr(model, "model_dump") else model
        return self.log_json(data, name, artifact_path="config")

    def log_dataset(self, path: str | Path, name: str, context: str, sha: str | None = None,
                    source: str | None = None) -> str:
        """mlflow.log_input for a file (rc1.tracking.datasets): its sha256 as digest (not a 10k-row pandas digest),
        its source where it lasts (`source`, else the run artifact it was downloaded from, else its path). The file
        of the stage's input `name` has its digest from the start of the run (the one in the reuse key): hashing a
        13 GB pool again took half a minute. Returns the sha256."""
        from rc1.tracking.datasets import log_input

        path = Path(path)
        known = self.input_files.get(name)
        sha = sha or (known[1] if known and known[0] == path else sha256_file(path))
        log_input(name, source or origin_of(path) or str(path.resolve()), sha, context)
        return sha

    def log_file_input(self, path: str | Path, name: str, context: str = "input", sha: str | None = None) -> str:
        """log_dataset, and the run's tag input_sha256.<name> (what promote compares; signed with the run)."""
        sha = self.log_dataset(path, name, context, sha)
        self.set_tags({f"input_sha256.{name}": sha})
        return sha

    def log_source_input(self, name: str, source_uri: str, digest: str, context: str = "input") -> None:
        """mlflow.log_input for a non-file source (a Hugging Face dataset)."""
        from rc1.tracking.datasets import log_input

        log_input(name, source_uri, digest, context)
        self.set_tags({f"input_sha256.{name}": digest})

    def log_sources(self, loaded: dict) -> None:
        """Each task's loaded data (rc1.data.sources.LoadedTasks) as input `data.<task>`: its file, or its source."""
        for t, lt in loaded.items():
            if lt.source_kind == "local":
                self.log_file_input(lt.source_uri, f"data.{t}", sha=lt.digest)
            else:
                self.log_source_input(f"data.{t}", lt.source_uri, lt.digest)

    # -- signed statement ---------------------------------------------
    def attest(self) -> str:
        """Sign what this process recorded on the run (its tags, the last value of each metric, every artifact it
        logged and `extra_subjects`, by digest) as an in-toto statement in a DSSE envelope, logged as the artifact
        rc1.intoto.json (rc1.release.attest); returns the signing key's id. A later link that trusts this run reads
        its facts from that statement, not from the run's tags, which anyone who can write the store can rewrite."""
        from rc1.release import attest

        trust = attest.load_trust()
        mode = self.recorded_tags.get("rc1.mode") or run_mode()
        signer = attest.signer(mode, trust)
        subjects = [attest.subject(self.artifact_paths[n], sha, directory=n in self.artifact_dirs)
                    for n, sha in sorted(self.artifact_shas.items()) if n != attest.ENVELOPE]
        stmt = attest.statement(stage=self.stage, run_id=self.run_id, mode=mode,
                                subjects=subjects + self.extra_subjects, tags=self.recorded_tags,
                                metrics=self.recorded_metrics, trust_sha256=trust.sha256)
        with tempfile.TemporaryDirectory() as d:
            mlflow.log_artifact(str(write_json(Path(d) / attest.ENVELOPE, signer.sign(stmt))))
        mlflow.set_tags({"rc1.signed_by": signer.keyid, "rc1.trust_sha256": trust.sha256})
        return signer.keyid

    # -- verdict ------------------------------------------------------
    def verdict(self, checks: list[dict], what: str | None = None) -> bool:
        """Record the checks ({name, value, threshold, pass}): metrics gate.<name>, tag rc1.passed, checks.json;
        then raise GateFailed if one failed (the run still ends FINISHED with its evidence)."""
        passed = all(bool(c["pass"]) for c in checks)
        self.log_json({"stage": self.stage, "passed": passed, "checks": checks}, "checks.json")
        self.log_metrics({f"gate.{c['name']}": 1.0 if c["pass"] else 0.0 for c in checks})
        self.set_tags({"rc1.passed": str(passed).lower()})
        if not passed:
            failing = [c for c in checks if not c["pass"]]
            raise GateFailed(f"{what or self.stage}: {len(failing)} of {len(checks)} checks failed", failing)
        return passed


def _param_value(v: Any) -> str:
    v = origin_of(v) or v   # a downloaded file: where it came from, not the folder rc1 deletes
    if isinstance(v, (dict, list, tuple)):
        s = json.dumps(v, sort_keys=True, default=str)
    else:
        s = str(v)
    return s if len(s) <= 6000 else s[:5990] + "…"


def _finite(v: Any) -> bool:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return False
    return f == f and f not in (float("inf"), float("-inf"))


def reuse_key(stage: str, params: dict[str, Any], input_digests: dict[str, str]) -> str:
    """Stage, params, input digests, code version and run mode (a stage reads its gates for the mode: a dev run's
    verdict never answers for prod)."""
    blob = json.dumps(
        {"stage": stage, "params": {k: _param_value(v) for k, v in params.items()}, "inputs": input_digests,
         "code": code_version(), "mode": run_mode()},
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def _signs_for_reuse() -> bool:
    """Whether this process can sign a reusable run (dev: the user's dev key; prod: RC1_SIGNING_KEY, trusted for prod).
    A run it cannot sign is never reused: reuse takes a run's outputs and verdict from its signed statement."""
    from rc1.release import attest

    try:
        attest.signer(run_mode(), attest.load_trust())
    except Rc1Error:
        return False
    return True


def find_reusable(stage: str, key: str):
    """(the newest finished `stage` run with this reuse key whose signed statement holds and says so, that statement),
    else None. The store's tags only find candidates: a run edited there (its outputs, report or rc1.passed) or made
    there by hand has no statement that holds, and is computed again instead."""
    from rc1.release.attest import AttestationError
    from rc1.tracking.attestations import run_statement

    runs = _search(f"tags.`rc1.stage` = '{stage}' AND tags.`rc1.reuse_key` = '{key}' "
                   f"AND tags.`rc1.computed` = 'true' AND attributes.status = 'FINISHED'", max_results=5)
    for run in runs:
        try:
            stmt = run_statement(run, stage)
        except (AttestationError, Rc1Error):
            continue
        if stmt.tags.get("rc1.reuse_key") == key:
            return run, stmt
    return None


def _restore_outputs(run: Run, stmt, outputs: dict[str, Path]) -> bool:
    """Copy a finished run's output artifacts to the requested paths, each held to the digest its statement signed;
    False (nothing to reuse) when one does not match or was not signed."""
    client = MlflowClient()
    for key, dest in outputs.items():
        art = stmt.tags.get(f"rc1.output.{key}")
        if art is None:
            if stmt.tags.get("rc1.passed") == "false":
                continue  # a failed gate may withhold an output (weight_calib's weights); its verdict is re-raised
            return False
        with tempfile.TemporaryDirectory() as d:
            local = Path(client.download_artifacts(run.info.run_id, art, d))
            got = sha256_dir(local) if local.is_dir() else sha256_file(local)
            if got != stmt.subjects.get(art):
                log.warning("run %s: artifact %s does not match the digest its statement signed (altered in the "
                            "store?); computing it again", run.info.run_id, art)
                return False
            dest = Path(dest)
            if local.is_dir():   # never in place of a directory rc1 did not write (rc1.core.outdir)
                from rc1.core.outdir import replace_out_dir

                replace_out_dir(local, dest, run.data.tags.get("rc1.stage", "stage"), what=f"output {key}")
            else:
                with atomic_open(dest, "wb") as out, open(local, "rb") as src:
                    shutil.copyfileobj(src, out)
    return True


def reused_params(prior: dict[str, str], run_id: str) -> dict[str, str]:
    """The earlier run's params for the run that reuses it, but for those already logged there (`mlflow run` logs -P
    values as given; MLflow forbids changing a param, and the earlier run, rc1.reused_from, shows its own)."""
    existing = mlflow.get_run(run_id).data.params
    return {k: v for k, v in prior.items() if k not in existing}


def _end_stopped(run_id: str, e: BaseException) -> None:
    """End the active run KILLED with the reason (tag rc1.stopped): a stage stopped by a signal never stays RUNNING and
    never reads as finished. Best effort: the store may be what was interrupted."""
    reason = "SIGINT (Ctrl-C)" if isinstance(e, KeyboardInterrupt) else f"signal {getattr(e, 'code', 143) - 128}"
    with contextlib.suppress(Exception):
        MlflowClient().set_tag(run_id, "rc1.stopped", reason)
    try:
        mlflow.end_run("KILLED")
    except Exception:
        with contextlib.suppress(Exception):
            MlflowClient().set_terminated(run_id, "KILLED")


def _reraise_verdict(run: Run, stmt) -> None:
    """The reused run's verdict, as its statement signed it (its checks.json held to the signed digest)."""
    from rc1.tracking.attestations import fetch_signed

    if stmt.tags.get("rc1.passed") != "false":
        return
    failing: list[dict] = []
    with tempfile.TemporaryDirectory() as d, contextlib.suppress(Exception):
        checks = json.loads(fetch_signed(run, "checks.json", stmt.subjects["checks.json"], d).read_text())
        failing = [c for c in checks["checks"] if not c["pass"]]
    stage = stmt.stage
    raise GateFailed(f"{stage}: {len(failing)} checks failed (reused run {run.info.run_id})", failing)


# MLflow's system metrics monitor logs a sample only once its interval has passed (a run shorter than the interval
# gets none); a dev train or evaluate run lasts seconds, a prod one hours (10 s, MLflow's default, is 8640 points a day)
SYSTEM_METRICS_INTERVAL_S = {"dev": 1, "prod": 10}


@contextlib.contextmanager
def _system_metrics_interval(on: bool | None) -> Iterator[None]:
    """The sampling interval for the monitor a run starts (it reads the variable once), unless the user set one."""
    key = "MLFLOW_SYSTEM_METRICS_SAMPLING_INTERVAL"
    if not on or os.environ.get(key):
        yield
        return
    os.environ[key] = str(SYSTEM_METRICS_INTERVAL_S.get(run_mode(), 10))
    try:
        yield
    finally:
        os.environ.pop(key, None)


@contextlib.contextmanager
def stage_run(stage: str, params: dict[str, Any], inputs: dict[str, Any] | None = None,
              outputs: dict[str, str | Path] | None = None, reuse: bool = True, run_name: str | None = None,
              tags: dict[str, Any] | None = None, parent_run_id: str | None = None,
              refusal_fails: bool = False, attest: bool = False,
              system_metrics: bool | None = None) -> Iterator[StageRun]:
    """Open (or reuse) the MLflow run of one stage. See the module docstring.

    `inputs` maps a name to a file/dir path or any JSON value; its digest goes into the reuse key.
    `outputs` maps a name to the path the stage writes; the stage must `log_artifact` each one
    (rc1 records which artifact is which output so a later reuse can restore it).
    A run opened while another is active in this process is its child (nested); `parent_run_id` makes it the
    child of a run another process holds (a gate that launched this one), in that run's experiment.
    A stage that fails its checks ends FINISHED with its evidence (a measurement that was made); with
    `refusal_fails` it ends FAILED (a refused action, such as a promotion: the UI shows it red).
    With `attest`, a run that ends (passed or failed its checks, not crashed) signs what it recorded
    (StageRun.attest); the signing key is looked up before the run opens, so a prod run without one is refused
    before it computes anything. `system_metrics`: MLflow's system/ metrics (CPU, memory, GPU when present) while
    the run is open (None: as MLflow's MLFLOW_ENABLE_SYSTEM_METRICS_LOGGING says).
    """
    check_stop()   # a stop asked for (and swallowed somewhere) starts no further stage
    inputs = inputs or {}
    outputs = {k: Path(v) for k, v in (outputs or {}).items()}
    writable_outputs(*outputs.values())   # before the run opens: no stage leaves some outputs behind a refused one
    setup_tracking()
    digests = {k: digest_of(v) for k, v in inputs.items()}
    key = reuse_key(stage, params, digests)
    nested = mlflow.active_run() is not None
    base_tags = {
        "rc1.stage": stage,
        "rc1.mode": run_mode(),
        "rc1.reuse_key": key,
        "rc1.code_version": code_version(),
        **process_tags(),
        **{f"input_sha256.{k}": v for k, v in digests.items()},
        **(tags or {}),
    }
    base_tags = {k: str(v) for k, v in base_tags.items()}
    if attest:   # prod without a trusted key: refused before anything runs (the key itself stays in this process)
        from rc1.release.attest import load_trust, signer

        signer(base_tags["rc1.mode"], load_trust())
    signs = attest or (reuse and _signs_for_reuse())   # a reusable run signs what a later reuse takes from it

    found = find_reusable(stage, key) if reuse else None
    prior, prior_stmt = found if found is not None and _restore_outputs(*found, outputs) else (None, None)
    if prior is not None:
        log.info("%s: inputs unchanged, reusing finished run %s", stage, prior.info.run_id)
        print(f"[rc1] {stage}: reusing finished run {prior.info.run_id} (same params, inputs, code)")
        # Inside `mlflow run` (or a parent) a run already exists for this step: mark it as a reuse.
        if nested or os.environ.get("MLFLOW_RUN_ID"):
            with mlflow.start_run(run_name=run_name or stage, nested=nested):
                os.environ.pop("MLFLOW_RUN_ID", None)
                mlflow.set_tags({**base_tags, "rc1.reused_from": prior.info.run_id,
                                 **{k: v for k, v in prior_stmt.tags.items()
                                    if k.startswith(("sha256.", "rc1.passed", "rc1.output."))}})
                mlflow.log_params(reused_params(prior.data.params, mlflow.active_run().info.run_id))
                mlflow.log_metrics(dict(prior_stmt.metrics))
                st = StageRun(stage, mlflow.active_run().info.run_id, reused=True)
                yield st
        else:
            yield StageRun(stage, prior.info.run_id, reused=True)
        check_stop()
        _reraise_verdict(prior, prior_stmt)
        return

    parent = {"parent_run_id": parent_run_id,
              "experiment_id": MlflowClient().get_run(parent_run_id).info.experiment_id} if parent_run_id else {}
    with _system_metrics_interval(system_metrics):
        active = mlflow.start_run(run_name=run_name or stage, nested=nested, log_system_metrics=system_metrics,
                                  **parent)
    with active as run:
        # `mlflow run` hands us its run through MLFLOW_RUN_ID; once we own it, children must not
        # try to resume it (MLflow would say "Run ... is already active").
        os.environ.pop("MLFLOW_RUN_ID", None)
        st = StageRun(stage, run.info.run_id, input_files={k: (v, digests[k]) for k, v in inputs.items()
                                                           if isinstance(v, Path) and v.is_file()})
        st.set_tags(base_tags)
        st.log_params(params)
        gate_error: GateFailed | None = None
        try:
            yield st
            check_stop()   # stopped while it ran (the interrupt swallowed on the way): not a finished stage
        except GateFailed as e:  # a gate that ran and failed is a finished run with a verdict
            gate_error = e
        except (KeyboardInterrupt, Stopped) as e:   # Ctrl-C, SIGTERM: KILLED, saying so; no output is recorded
            _end_stopped(st.run_id, e)
            raise
        try:   # stopped while it signs: the writes end first (a commit cut in half locks sqlite), then KILLED
            with deferred_signals():
                for key_, path in outputs.items():
                    if path.name in st.artifact_paths:   # signed: what a reuse restores
                        st.set_tags({f"rc1.output.{key_}": st.artifact_paths[path.name]})
                missing = [k for k, p in outputs.items() if p.name not in st.artifact_shas]
                if missing and gate_error is None:
                    raise RuntimeError(f"stage {stage} did not log its output(s) {missing}")
                mlflow.set_tag("rc1.computed", "true")
                if signs:
                    st.attest()
        except (KeyboardInterrupt, Stopped) as e:
            _end_stopped(st.run_id, e)
            raise
    if gate_error is not None:
        if refusal_fails:
            MlflowClient().set_terminated(st.run_id, "FAILED")
        raise gate_error
