"""A page a run gets after the fact: the RC1 report (rc1.report) is written into its evaluate run, and written again
from that run's JSON artifacts once the runs it shows have ended."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from mlflow.tracking import MlflowClient

from rc1.core.io import read_json, sha256_file


def read_run_json(run_id: str, name: str) -> Any:
    """The run's JSON artifact `name` (MLflow's error when it has none)."""
    with tempfile.TemporaryDirectory() as d:
        return read_json(MlflowClient().download_artifacts(run_id, name, d))


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
