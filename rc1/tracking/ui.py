"""Links into the MLflow UI: a run's page, an artifact's, the experiment's runs table, and how to open the UI on this
store (the view they open: rc1.tracking.store's EXPERIMENT_KIND_TAG)."""

from __future__ import annotations

from pathlib import Path

import mlflow
from mlflow.tracking import MlflowClient

from rc1.tracking.store import default_tracking_uri, setup_tracking

UI_VIEW = "workflowType=machine_learning"
UI_DEFAULT = "http://127.0.0.1:5000"


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
