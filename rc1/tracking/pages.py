"""Files a run gets after the fact, and the JSON artifacts they are made from: the RC1 report (rc1.report) is
written into its evaluate run, and written again once the runs it shows have ended."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient

from rc1.io import read_json, sha256_file

_REQUIRED = object()


def read_run_json(run_id: str, name: str, missing: Any = _REQUIRED) -> Any:
    """The run's JSON artifact `name`; `missing` when the run has none (given), else MLflow's error."""
    with tempfile.TemporaryDirectory() as d:
        try:
            return read_json(MlflowClient().download_artifacts(run_id, name, d))
        except (MlflowException, OSError):
            if missing is _REQUIRED:
                raise
            return missing


def replace_run_file(run_id: str, name: str, text: str) -> str:
    """Write `text` as the run's artifact `name` (replacing an earlier one) and tag its sha256.<name>; returns it."""
    client = MlflowClient()
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / name
        out.write_text(text, encoding="utf-8")
        client.log_artifact(run_id, str(out))
        sha = sha256_file(out)
    client.set_tag(run_id, f"sha256.{name}", sha)
    return sha
