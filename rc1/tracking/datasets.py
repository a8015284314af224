"""Files as MLflow dataset inputs (`mlflow.log_input`): named, with a context (training, evaluation), the file's
own full-content sha256 as digest (MLflow's pandas datasets hash their first 10k rows only), and a source that still
exists after the run: a run artifact (runs:/<run id>/<path>) for a file downloaded from one, else the file's path.

MLflow keeps at most 36 characters of a digest: the dataset's digest is the first 32 hex digits of the sha256, the
whole sha256 is the input's tag `rc1.sha256` (and the run's tag input_sha256.<name>)."""

from __future__ import annotations

from typing import Any

import mlflow
from mlflow.data.dataset_source import DatasetSource

DIGEST_CHARS = 32
SHA_TAG = "rc1.sha256"


class RunArtifactSource(DatasetSource):
    """A dataset that is a run's artifact, runs:/<run id>/<path>; load() downloads it from the tracking server."""

    def __init__(self, uri: str):
        self.uri = uri

    @staticmethod
    def _get_source_type() -> str:
        return "mlflow_run_artifact"

    def load(self, dst_path: str | None = None) -> str:
        return mlflow.artifacts.download_artifacts(artifact_uri=self.uri, dst_path=dst_path)

    @staticmethod
    def _can_resolve(raw_source: Any) -> bool:
        return isinstance(raw_source, str) and raw_source.startswith("runs:/")

    @classmethod
    def _resolve(cls, raw_source: Any) -> "RunArtifactSource":
        return cls(raw_source)

    def to_dict(self) -> dict[str, Any]:
        return {"uri": self.uri}

    @classmethod
    def from_dict(cls, source_dict: dict[Any, Any]) -> "RunArtifactSource":
        return cls(source_dict["uri"])


def _register() -> None:
    from mlflow.data.dataset_source_registry import get_registered_sources, register_dataset_source

    if RunArtifactSource not in get_registered_sources():
        register_dataset_source(RunArtifactSource)


_register()   # mlflow.data.get_source(dataset_input) then loads an rc1 input


def _source(uri: str) -> DatasetSource:
    from mlflow.data.code_dataset_source import CodeDatasetSource
    from mlflow.data.dataset_source_registry import get_registered_sources

    if uri.startswith("runs:/"):
        return RunArtifactSource(uri)
    if uri.startswith("/") or uri.startswith("file:"):
        # LocalArtifactDatasetSource is registered dynamically; look it up instead of importing it
        local = next(s for s in get_registered_sources() if s.__name__ == "LocalArtifactDatasetSource")
        return local(uri)
    return CodeDatasetSource(tags={"uri": uri})   # a Hugging Face name, rc1's own description of a derived set


def log_input(name: str, source_uri: str, sha: str, context: str) -> None:
    """Log one dataset input of the active run."""
    from mlflow.data.meta_dataset import MetaDataset

    mlflow.log_input(MetaDataset(source=_source(source_uri), name=name, digest=sha[:DIGEST_CHARS]), context=context,
                     tags={SHA_TAG: sha})
