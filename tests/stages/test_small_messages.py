"""Issue 29's small messages, each one clear line with exit 2 through the real command: a tracking store another
process holds locked, a file-size limit (not blamed on the store), a JSON error said whole (not cut at "at"), and a
symlink loop (not "file not found")."""

from __future__ import annotations

import os
import resource
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from rc1_cli import run_cli

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def here(tmp_path, monkeypatch):
    for d in ("configs", "templates"):
        (tmp_path / d).symlink_to(REPO / d)
    monkeypatch.chdir(tmp_path)
    for var in ("MLFLOW_TRACKING_URI", "MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_ID", "RUN_MODE"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    said = [ln for ln in err.splitlines() if ln.strip() and "seeds/s" not in ln]   # a progress bar may come first
    assert len(said) == 1 and said[0].startswith("rc1: error: ") and "Traceback" not in err, err
    return said[0]


def _rc1(cwd: Path, *args: str, preexec_fn=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "rc1.cli", *args], cwd=cwd, env=env, preexec_fn=preexec_fn,
                          capture_output=True, text=True, timeout=120)


def test_a_locked_store_is_one_line(here):
    assert run_cli(["check-weights"]) == 0   # the store exists
    holder = sqlite3.connect(here / "mlruns" / "mlflow.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")   # another process writing the store
    try:
        res = _rc1(here, "check-weights")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
    assert "is locked by another process" in res.stderr and "SQL" not in res.stderr


def test_a_file_size_limit_is_named_not_blamed_on_the_store(here):
    def limit():   # 400 KB: less than the tracking store's first tables
        resource.setrlimit(resource.RLIMIT_FSIZE, (400 * 1024, 400 * 1024))

    res = _rc1(here, "check-weights", preexec_fn=limit)
    assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
    assert "file-size limit (409600 bytes, `ulimit -f`)" in res.stderr and "SQL" not in res.stderr


def test_json_errors_are_said_whole_and_a_symlink_loop_is_not_file_not_found(here, capsys):
    (here / "pool.jsonl").write_text('{"id": "a\tb"}\n')   # a raw tab inside a JSON string
    assert run_cli(["validate-pool", "pool.jsonl"]) == 2
    err = _one_line(capsys)
    assert "line 1: invalid JSON at column 10 (Invalid control character)" in err and "at)" not in err
    (here / "loop.jsonl").symlink_to("loop.jsonl")
    for cmd in (["validate-pool", "loop.jsonl"], ["build-pool", "--shadow", "loop.jsonl"],
                ["difficulty", "--pool", "loop.jsonl"]):
        assert run_cli(cmd) == 2
        err = _one_line(capsys)
        assert "loop.jsonl: a symlink loop" in err and "not found" not in err, err
