"""Questions the gate runner asks the tracking server (works on the embedded store and over HTTP)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import mlflow
from mlflow.entities import Run
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient

from rc1.core.errors import Rc1Error
from rc1.core.io import sha256_file


def _search(filter_string: str, max_results: int = 1, view=None) -> list[Run]:
    """Runs of every experiment, newest first; `view`: mlflow.entities.ViewType (default: active runs only)."""
    return mlflow.search_runs(
        search_all_experiments=True,
        filter_string=filter_string,
        order_by=["attributes.start_time DESC"],
        max_results=max_results,
        output_format="list",
        **({"run_view_type": view} if view is not None else {}),
    )


def newest_preflight(mode: str, passing: bool | None = None) -> Run | None:
    """The newest preflight run of `mode`, whatever its status (`mlflow run` marks a preflight that
    exited 2 as FAILED, and the gate should say why it failed); only finished passing ones when
    passing=True."""
    f = f"tags.`rc1.stage` = 'preflight' AND tags.`rc1.mode` = '{mode}'"
    if passing:
        f += " AND tags.`rc1.round2_pass` = 'true' AND attributes.status = 'FINISHED'"
    runs = _search(f)
    return runs[0] if runs else None


def child_runs(parent_run_id: str) -> list[Run]:
    runs = _search(f"tags.`mlflow.parentRunId` = '{parent_run_id}'", max_results=1000)
    return sorted(runs, key=lambda r: r.info.start_time)


def get_run(run_id: str) -> Run:
    return MlflowClient().get_run(run_id)


def find_run(run_id: str | None) -> Run | None:
    """The run, or None when the id is empty or unknown to the tracking server."""
    if not run_id:
        return None
    try:
        return get_run(run_id)
    except MlflowException:
        return None


def newest_trial_gate(preflight_run_id: str) -> Run | None:
    """The newest finished trial gate run of a preflight, as the store's tags index it (the gate reads its verdict and
    projection from its signed statement: rc1.checks.admission)."""
    runs = _search(f"tags.`rc1.stage` = 'gate' AND tags.`rc1.gate_kind` = 'trial' AND "
                   f"tags.`rc1.preflight_run_id` = '{preflight_run_id}' AND attributes.status = 'FINISHED'")
    return runs[0] if runs else None


def promote_runs(version: str, name: str = "rc1-policy") -> list[Run]:
    """The promote runs of one registered version, newest first (whatever their status)."""
    return _search(f"tags.`rc1.stage` = 'promote' AND tags.`rc1.registered_model` = '{name}' "
                   f"AND tags.`rc1.model_version` = '{version}'", max_results=100)


# A file downloaded from a run's artifacts lives in a working folder rc1 deletes (the gate's, evaluate's temp dir):
# its params and dataset inputs name where it came from instead, runs:/<run id>/<artifact path>. The map travels to
# the processes a gate launches in ORIGINS_ENV (rc1.tracking.gate_launch.gate_launch_env).
ORIGINS_ENV = "RC1_ARTIFACT_ORIGINS"


def _inherited_origins() -> dict[str, str]:
    try:
        got = json.loads(os.environ.get(ORIGINS_ENV) or "{}")
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in got.items()} if isinstance(got, dict) else {}


_origins: dict[str, str] = _inherited_origins()


def origin_of(value: object) -> str | None:
    """runs:/<run id>/<artifact> for a local file fetch_artifact downloaded (a path string or Path), else None."""
    if not isinstance(value, (str, Path)) or not 0 < len(str(value)) < 4096 or ":/" in str(value):
        return None
    return _origins.get(str(Path(value).resolve()))


def origins() -> dict[str, str]:
    """Every local file this process downloaded -> its runs:/ URI (for a launched process's environment)."""
    return dict(_origins)


def note_origin(local: Path, run_id: str, artifact: str) -> None:
    """Remember that `local` was downloaded from runs:/<run_id>/<artifact> (origin_of)."""
    _origins[str(Path(local).resolve())] = f"runs:/{run_id}/{artifact}"


def fetch_artifact(run: Run, artifact: str, dest_dir: str | Path, want: str | None = None) -> Path:
    """Download one artifact of `run` from the tracking server into dest_dir and check its sha256 against `want`
    (default: the run's `sha256.<file name>` tag). A missing tag or a different digest is a refusal."""
    Path(dest_dir).mkdir(parents=True, exist_ok=True)
    try:
        local = Path(MlflowClient().download_artifacts(run.info.run_id, artifact, str(dest_dir)))
    except (MlflowException, OSError) as e:
        raise Rc1Error(f"run {run.info.run_id}: artifact {artifact} cannot be downloaded from "
                       f"{mlflow.get_tracking_uri()} ({type(e).__name__})") from None
    want = want or run.data.tags.get(f"sha256.{Path(artifact).name}")
    if not want or sha256_file(local) != want:
        raise Rc1Error(f"run {run.info.run_id}: artifact {artifact} in the tracking server does not match its "
                       f"sha256 tag (altered in the store?)")
    note_origin(local, run.info.run_id, artifact)
    return local
