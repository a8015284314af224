"""Everything rc1 says to MLflow goes through here (the rest of rc1/ never imports mlflow).

A stage is one MLflow run:

    with stage_run("build_pool", params={...}, inputs={"shadow": path}, outputs={"pool": out}) as st:
        if st.reused:
            return                       # outputs restored from the matching finished run
        ...compute, write `out` atomically...
        st.log_metrics({...})
        st.log_artifact(out)             # + tag sha256.<name>
        st.verdict(checks)               # tags rc1.passed, logs checks.json, raises CheckFailed

Reuse (as in MLflow's multistep example): a run is keyed by stage + params + input digests + code
version. When a FINISHED run with the same key exists, the stage is not recomputed: its output
artifacts are copied back to the requested paths and its verdict is re-raised. A reusable run signs what it recorded
(rc1.trust), and only a run whose statement holds is reused, its outputs held to the signed digests and its
verdict the signed one: a run edited in the store (or made there by hand) is computed again.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from rc1.tracking.store import process_tags, setup_tracking   # first: it imports mlflow with the collector paused

import mlflow
from mlflow.tracking import MlflowClient

from rc1.core.config import run_mode
from rc1.core.errors import CheckFailed
from rc1.core.io import sha256_dir, sha256_file, writable_outputs, write_json
from rc1.core.proc import Stopped, check_stop, deferred_signals
from rc1.tracking.queries import origin_of
from rc1.tracking.reuse import (code_version, digest_of, find_reusable, param_value, reraise_verdict, restore_outputs,
                                reuse_key, reused_params, signs_for_reuse)

log = logging.getLogger("rc1")


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
    recorded_params: dict[str, str] = field(default_factory=dict)
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
            v = param_value(v)
            if k not in existing:
                clean[k] = v
            elif existing[k] != v:
                resolved[f"rc1.resolved.{k}"] = v
        with deferred_signals():   # a store write cut by Ctrl-C locks sqlite for the KILLED write after it
            mlflow.log_params(clean)
        self.recorded_params.update({k: param_value(v) for k, v in params.items()})   # the values this run ran with
        if resolved:
            self.set_tags(resolved)

    def log_metrics(self, metrics: dict[str, float], step: int | None = None, model_id: str | None = None) -> None:
        """`model_id`: also linked to that LoggedModel (MLflow 3's model-centric view)."""
        clean = {k: float(v) for k, v in metrics.items() if v is not None and _finite(v)}
        if clean:
            with deferred_signals():
                mlflow.log_metrics(clean, step=step, model_id=model_id)
            self.recorded_metrics.update(clean)

    def set_tags(self, tags: dict[str, Any]) -> None:
        clean = {k: str(v) for k, v in tags.items()}
        with deferred_signals():
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
        (rc1.trust.runs.SignedRun.named_file downloads it and holds it to the digest the run signed)."""
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
        logged and `extra_subjects`, by digest, and its params) as an in-toto statement in a DSSE envelope, logged as
        the artifact rc1.intoto.json (rc1.trust); returns the signing key's id. A later link that trusts this run
        reads its facts from that statement, not from the run's tags, which anyone who can write the store can
        rewrite."""
        from rc1.trust import keys, statements

        trust = keys.load_trust()
        mode = self.recorded_tags.get("rc1.mode") or run_mode()
        signer = keys.signer(mode, trust)
        subjects = [statements.subject(self.artifact_paths[n], sha, directory=n in self.artifact_dirs)
                    for n, sha in sorted(self.artifact_shas.items()) if n != statements.ENVELOPE]
        stmt = statements.statement(stage=self.stage, run_id=self.run_id, mode=mode,
                                    subjects=subjects + self.extra_subjects, tags=self.recorded_tags,
                                    metrics=self.recorded_metrics, trust_sha256=trust.sha256,
                                    params=self.recorded_params)
        with tempfile.TemporaryDirectory() as d:
            mlflow.log_artifact(str(write_json(Path(d) / statements.ENVELOPE, signer.sign(stmt))))
        mlflow.set_tags({"rc1.signed_by": signer.keyid, "rc1.trust_sha256": trust.sha256})
        return signer.keyid

    # -- verdict ------------------------------------------------------
    def verdict(self, checks: list[dict], what: str | None = None) -> bool:
        """Record the checks ({name, value, threshold, pass}): metrics gate.<name>, tag rc1.passed, checks.json;
        then raise CheckFailed if one failed (the run still ends FINISHED with its evidence)."""
        passed = all(bool(c["pass"]) for c in checks)
        self.log_json({"stage": self.stage, "passed": passed, "checks": checks}, "checks.json")
        self.log_metrics({f"gate.{c['name']}": 1.0 if c["pass"] else 0.0 for c in checks})
        self.set_tags({"rc1.passed": str(passed).lower()})
        if not passed:
            failing = [c for c in checks if not c["pass"]]
            raise CheckFailed(f"{what or self.stage}: {len(failing)} of {len(checks)} checks failed", failing)
        return passed


def _finite(v: Any) -> bool:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return False
    return f == f and f not in (float("inf"), float("-inf"))


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
        from rc1.trust.keys import load_trust, signer

        signer(base_tags["rc1.mode"], load_trust())
    signs = attest or (reuse and signs_for_reuse())   # a reusable run signs what a later reuse takes from it

    found = find_reusable(stage, key) if reuse else None
    prior, prior_stmt = found if found is not None and restore_outputs(*found, outputs) else (None, None)
    if prior is not None:
        log.info("%s: inputs unchanged, reusing finished run %s", stage, prior.info.run_id)
        # a progress line, as every [rc1] line: stderr, unbuffered (stdout, piped, printed it after later lines)
        print(f"[rc1] {stage}: reusing finished run {prior.info.run_id} (same params, inputs, code)", file=sys.stderr)
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
        reraise_verdict(prior, prior_stmt)
        return

    parent = {"parent_run_id": parent_run_id,
              "experiment_id": MlflowClient().get_run(parent_run_id).info.experiment_id} if parent_run_id else {}
    outer = mlflow.active_run()
    try:   # a stop while the run opens waits for it to open (else the new run would stay RUNNING), then ends it KILLED
        with _system_metrics_interval(system_metrics), deferred_signals():
            active = mlflow.start_run(run_name=run_name or stage, nested=nested, log_system_metrics=system_metrics,
                                      **parent)
    except (KeyboardInterrupt, Stopped) as e:
        opened = mlflow.active_run()
        if opened is not None and (outer is None or opened.info.run_id != outer.info.run_id):
            _end_stopped(opened.info.run_id, e)
        raise
    with active as run:
        # `mlflow run` hands us its run through MLFLOW_RUN_ID; once we own it, children must not
        # try to resume it (MLflow would say "Run ... is already active").
        os.environ.pop("MLFLOW_RUN_ID", None)
        st = StageRun(stage, run.info.run_id, input_files={k: (v, digests[k]) for k, v in inputs.items()
                                                           if isinstance(v, Path) and v.is_file()})
        st.set_tags(base_tags)
        st.log_params(params)
        check_error: CheckFailed | None = None
        try:
            yield st
            check_stop()   # stopped while it ran (the interrupt swallowed on the way): not a finished stage
        except CheckFailed as e:  # a gate that ran and failed is a finished run with a verdict
            check_error = e
        except (KeyboardInterrupt, Stopped) as e:   # Ctrl-C, SIGTERM: KILLED, saying so; no output is recorded
            _end_stopped(st.run_id, e)
            raise
        try:   # stopped while it signs: the writes end first (a commit cut in half locks sqlite), then KILLED
            with deferred_signals():
                for key_, path in outputs.items():
                    if path.name in st.artifact_paths:   # signed: what a reuse restores
                        st.set_tags({f"rc1.output.{key_}": st.artifact_paths[path.name]})
                missing = [k for k, p in outputs.items() if p.name not in st.artifact_shas]
                if missing and check_error is None:
                    raise RuntimeError(f"stage {stage} did not log its output(s) {missing}")
                mlflow.set_tag("rc1.computed", "true")
                if signs:
                    st.attest()
        except (KeyboardInterrupt, Stopped) as e:
            _end_stopped(st.run_id, e)
            raise
    if check_error is not None:
        if refusal_fails:
            MlflowClient().set_terminated(st.run_id, "FAILED")
        raise check_error
