"""What the trust room asks of a store: records and bytes, nothing it believes.

rc1.tracking implements `Source` for the MLflow tracking server (rc1.tracking.evidence.StoreSource); the trust room
never imports MLflow. A record's `tags` are the store's: they only ever find a run (a search, a run id to follow),
never decide whether it is trusted; `status` and `parent_run_id` are the store's too, and can only break a chain.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Protocol

from rc1.core.errors import Rc1Error


class FetchError(Rc1Error):
    """The store could not give what was asked (a missing run, artifact or model)."""


@dataclass(frozen=True)
class RunRecord:
    run_id: str
    status: str
    parent_run_id: str | None = None
    tags: Mapping[str, str] = field(default_factory=dict)   # the store's: for finding only
    experiment_id: str | None = None
    start_time: int = 0


@dataclass(frozen=True)
class VersionRecord:
    name: str
    version: str
    source: str
    run_id: str
    model_id: str | None = None
    tags: Mapping[str, str] = field(default_factory=dict)   # the store's: for finding only


class Source(Protocol):
    def run(self, run_id: str | None) -> RunRecord | None:
        """The run, or None when the id is empty or unknown."""

    def download(self, run_id: str, artifact: str, dest: Path) -> Path:
        """One artifact (file or directory) of the run, downloaded under `dest`; FetchError when it cannot be."""

    def search(self, stage: str, tags: Mapping[str, str], status: str | None = None, max_results: int = 100,
               started_after: int | None = None, deleted: bool = False) -> list[RunRecord]:
        """The `stage` runs whose store tags equal `tags` (and of `status`; started after `started_after`, ms), newest
        first; `deleted`: deleted runs too (a run deleted in the store still says what it signed)."""

    def version(self, name: str, version: str) -> VersionRecord | None:
        """A registered model version, or None."""

    def alias(self, name: str, alias: str) -> VersionRecord | None:
        """The version an alias points at now, or None."""

    def logged_model_run(self, model_id: str) -> str | None:
        """The source run of a LoggedModel, or None when there is no such model."""

    def download_model(self, uri: str, dest: Path) -> Path:
        """The bytes a model URI serves (models:/<name>/<version>), downloaded under `dest`; FetchError else."""
