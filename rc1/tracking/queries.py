"""Questions the gate runner asks the tracking server (works on the embedded store and over HTTP)."""

from __future__ import annotations

import mlflow
from mlflow.entities import Run
from mlflow.tracking import MlflowClient


def _search(filter_string: str, max_results: int = 1) -> list[Run]:
    return mlflow.search_runs(
        search_all_experiments=True,
        filter_string=filter_string,
        order_by=["attributes.start_time DESC"],
        max_results=max_results,
        output_format="list",
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

