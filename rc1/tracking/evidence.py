"""The tracking server as the trust room's store (rc1.trust.source.Source): records and bytes, fetched through MLflow.

    from rc1.tracking.evidence import store_source
    verdict = rc1.trust.version.verify_version(store_source(), "rc1-policy", "3", alias="RC1")

Nothing here decides what is trusted: the trust room verifies what this fetches.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import mlflow
from mlflow.entities import Run
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient

from rc1.trust.source import FetchError, RunRecord, VersionRecord


def record(run: Run) -> RunRecord:
    """The trust room's view of an MLflow run."""
    tags = dict(run.data.tags)
    return RunRecord(run.info.run_id, run.info.status, tags.get("mlflow.parentRunId"), tags, run.info.experiment_id,
                     run.info.start_time or 0)


def version_record(mv) -> VersionRecord:
    return VersionRecord(mv.name, str(mv.version), mv.source or "", mv.run_id or "",
                         getattr(mv, "model_id", None) or None, dict(mv.tags or {}))


class StoreSource:
    """rc1.trust.source.Source on the tracking server in use (MLFLOW_TRACKING_URI)."""

    def __init__(self, client: MlflowClient | None = None):
        self.client = client or MlflowClient()

    def run(self, run_id: str | None) -> RunRecord | None:
        if not run_id:
            return None
        try:
            return record(self.client.get_run(run_id))
        except MlflowException:
            return None

    def download(self, run_id: str, artifact: str, dest: Path) -> Path:
        from rc1.tracking.queries import note_origin

        Path(dest).mkdir(parents=True, exist_ok=True)
        try:
            local = Path(self.client.download_artifacts(run_id, artifact, str(dest)))
        except (MlflowException, OSError) as e:
            raise FetchError(f"{type(e).__name__} from {mlflow.get_tracking_uri()}") from None
        note_origin(local, run_id, artifact)
        return local

    def search(self, stage: str, tags: Mapping[str, str], status: str | None = None, max_results: int = 100,
               started_after: int | None = None, deleted: bool = False) -> list[RunRecord]:
        from mlflow.entities import ViewType

        from rc1.tracking.queries import _search

        where = [f"tags.`rc1.stage` = '{stage}'"] + [f"tags.`{k}` = '{_quoted(v)}'" for k, v in tags.items()]
        if status:
            where.append(f"attributes.status = '{status}'")
        if started_after is not None:
            where.append(f"attributes.start_time > {int(started_after)}")
        return [record(r) for r in _search(" AND ".join(where), max_results=max_results,
                                           view=ViewType.ALL if deleted else ViewType.ACTIVE_ONLY)]

    def version(self, name: str, version: str) -> VersionRecord | None:
        try:
            return version_record(self.client.get_model_version(name, str(version)))
        except MlflowException:
            return None

    def alias(self, name: str, alias: str) -> VersionRecord | None:
        try:
            return version_record(self.client.get_model_version_by_alias(name, alias))
        except MlflowException:
            return None

    def logged_model_run(self, model_id: str) -> str | None:
        try:
            return self.client.get_logged_model(model_id).source_run_id
        except MlflowException:
            return None

    def download_model(self, uri: str, dest: Path) -> Path:
        Path(dest).mkdir(parents=True, exist_ok=True)
        try:
            return Path(mlflow.artifacts.download_artifacts(uri, dst_path=str(dest)))
        except (MlflowException, OSError) as e:
            raise FetchError(f"{type(e).__name__} from {mlflow.get_tracking_uri()}") from None


def _quoted(value: str) -> str:
    if "'" in str(value):   # a search value never holds a quote: nothing rc1 records has one
        raise FetchError(f"a search value with a quote: {value!r}")
    return str(value)


def store_source(read_only: bool = False) -> StoreSource:
    """The tracking server in use as the trust room's store: set up (rc1.tracking.store.setup_tracking), or with
    `read_only` only pointed at (use_tracking: nothing created, no dead run marked)."""
    from rc1.tracking.store import setup_tracking, use_tracking

    use_tracking() if read_only else setup_tracking()
    return StoreSource()
