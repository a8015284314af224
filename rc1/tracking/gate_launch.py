"""Which gate a train run is inside of: the active gate run, or the one that launched this process with a one-time
token (`accelerate launch`), and the launched runs a dead process left RUNNING."""

from __future__ import annotations

import json
import os

import mlflow
from mlflow.entities import Run
from mlflow.tracking import MlflowClient

from rc1.core.errors import Rc1Error
from rc1.core.io import sha256_text
from rc1.tracking.queries import ORIGINS_ENV, origins
from rc1.tracking.store import default_tracking_uri


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


def fail_orphaned_runs(parent_run_id: str, stage: str, *, since_ms: int | None = None) -> list[str]:
    """Mark FAILED the `stage` runs under `parent_run_id` that are still RUNNING: a launched process that was killed
    (torchrun ends every process of the group when one dies) cannot end its own run. With `since_ms` (the launch
    failed, its launcher was not stopped), the runs it opened since then that ended KILLED fail too: torchrun's
    SIGTERM to the survivors of a crashed process is not a user's stop. Returns their ids."""
    statuses = ("RUNNING", "KILLED") if since_ms is not None else ("RUNNING",)
    runs = mlflow.search_runs(search_all_experiments=True, output_format="list",
                              filter_string=f"tags.`mlflow.parentRunId` = '{parent_run_id}' AND "
                                            f"tags.`rc1.stage` = '{stage}'")
    runs = [r for r in runs if r.info.status in statuses and (since_ms is None or r.info.start_time >= since_ms)]
    client = MlflowClient()
    for r in runs:
        client.set_tag(r.info.run_id, "rc1.ended_by", "its launcher: the process died without ending its run"
                       if r.info.status == "RUNNING" else "its launcher: another process of its launch died")
        client.set_terminated(r.info.run_id, "FAILED")
    return [r.info.run_id for r in runs]
