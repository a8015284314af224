"""Concurrent and killed runs through the real commands (issue 20): two first runs on a fresh sqlite store both
succeed; a second preflight on the same --out-dir is refused at once (one line) instead of mixing its files with the
first's; a run whose process was killed with SIGKILL is marked FAILED, with the reason, by the next rc1 command."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(600)


def _env(cwd: Path) -> dict[str, str]:
    inherited = ("MLFLOW_", "SCORER_", "RC1_GATE", "RC1_LAUNCH")
    return {**{k: v for k, v in os.environ.items() if not k.startswith(inherited)},
            "PYTHONPATH": str(REPO), "MLFLOW_TRACKING_URI": f"sqlite:///{cwd / 'mlruns' / 'mlflow.db'}",
            "RUN_MODE": "dev", "RC1_CACHE_DIR": str(cwd / "cache")}


def start(args: list[str], cwd: Path) -> subprocess.Popen:
    """`rc1 ARGS` started in a process group of its own (so a test can kill the whole of it)."""
    code = f"import sys\nsys.argv = ['rc1', *{args!r}]\nfrom rc1.cli import run\nrun()\n"
    return subprocess.Popen([sys.executable, "-c", code], cwd=cwd, env=_env(cwd), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def finish(p: subprocess.Popen) -> tuple[int, str]:
    _, err = p.communicate(timeout=300)
    return p.returncode, err


@pytest.fixture
def ws(tmp_path) -> Path:
    shutil.copytree(REPO / "configs", tmp_path / "configs")
    return tmp_path


CHECK = ["check-weights"]


def test_two_first_runs_on_a_fresh_sqlite_store_both_succeed(ws):
    for k in range(3):   # three fresh stores, two runs started together on each
        d = ws / f"s{k}"
        shutil.copytree(ws / "configs", d / "configs")
        procs = [start(CHECK, d) for _ in range(2)]
        for p in procs:
            code, err = finish(p)
            assert code == 0, err[-3000:]


def _runs(cwd: Path, stage: str) -> list:
    import mlflow

    from rc1.tracking.store import _store_lock

    uri = _env(cwd)["MLFLOW_TRACKING_URI"]
    mlflow.set_tracking_uri(uri)
    try:
        with _store_lock(uri):   # this process may be the one that meets the store first
            return mlflow.search_runs(search_all_experiments=True, output_format="list",
                                      filter_string=f"tags.`rc1.stage` = '{stage}'")
    finally:
        mlflow.set_tracking_uri(None)


def test_a_second_preflight_on_the_same_out_dir_is_refused_and_a_killed_one_is_failed_later(ws):
    first = start(["preflight", "--mode", "dev", "--n", "300", "--out-dir", "out", "--no-reuse"], ws)
    try:
        deadline = time.monotonic() + 240
        while not [r for r in _runs(ws, "preflight") if r.info.status == "RUNNING"]:
            assert first.poll() is None and time.monotonic() < deadline, first.stderr.read()[-3000:]
            time.sleep(0.5)
        second = start(["preflight", "--mode", "dev", "--n", "300", "--out-dir", "out", "--no-reuse"], ws)
        code, err = finish(second)
        lines = [ln for ln in err.splitlines() if ln.startswith("rc1:")]
        assert code == 2 and len(lines) == 1 and "Traceback" not in err, err[-3000:]
        assert "out/dev: --out-dir is in use by rc1 pid" in lines[0] and str(first.pid) in lines[0], lines[0]
        assert len(_runs(ws, "preflight")) == 1   # refused before it opened a run
    finally:
        os.killpg(first.pid, signal.SIGKILL)   # kill -9: the run cannot end itself
        first.wait(timeout=60)
    (run,) = _runs(ws, "preflight")
    assert run.info.status == "RUNNING"
    code, err = finish(start(CHECK, ws))   # the next rc1 command that opens the store
    assert code == 0, err[-3000:]
    (run,) = _runs(ws, "preflight")
    assert run.info.status == "FAILED"
    assert f"its process {first.pid} on" in run.data.tags["rc1.ended_by"] and "is gone" in run.data.tags["rc1.ended_by"]
    # the lock died with its holder: the out dir can be used again at once
    code, err = finish(start(["preflight", "--mode", "dev", "--n", "300", "--out-dir", "out", "--gates", "nope.yaml"],
                             ws))
    assert code == 2 and "in use" not in err and "nope.yaml" in err, err[-2000:]
