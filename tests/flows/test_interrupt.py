"""Issue 29: Ctrl-C (SIGINT) and SIGTERM stop `rc1 preflight` wherever it is: the process exits 130/143 within 20 s,
and no run of the store is left RUNNING (the stopped ones end KILLED, tag rc1.stopped)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    """One checkout and tracking store for the three preflights (each in its own --out-dir)."""
    tmp = tmp_path_factory.mktemp("interrupt")
    for d in ("configs", "templates"):
        shutil.copytree(REPO / d, tmp / d)
    return tmp


def _interrupt_at(tmp: Path, line: str, sig: int) -> tuple[int, float, str]:
    """Start a dev preflight in `tmp`, send `sig` once stderr shows `line`: (exit code, seconds from the signal to the
    exit, stderr)."""
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "SCORER_"))},
           "PYTHONPATH": str(REPO), "RC1_CACHE_DIR": str(tmp / "cache"),
           "RC1_PROGRESS": "1"}   # each step announced as it starts (without a terminal only its end is)
    proc = subprocess.Popen([sys.executable, "-m", "rc1.cli", "preflight", "--mode", "dev", "--n", "300",
                             "--out-dir", f"out-{sig}-{line.split()[-1]}"], cwd=tmp,
                            env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    seen, sent = [], threading.Event()
    t_sig = [0.0]

    def read() -> None:
        for ln in proc.stderr:
            seen.append(ln)
            if line in ln and not sent.is_set():
                time.sleep(0.5)   # inside the step, not at its first line
                t_sig[0] = time.monotonic()
                proc.send_signal(sig)
                sent.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert sent.wait(180), "".join(seen)
        code = proc.wait(timeout=60)
    finally:
        proc.kill()
    reader.join(5)
    return code, time.monotonic() - t_sig[0], "".join(seen)


def _runs(tmp: Path) -> list:
    from mlflow.tracking import MlflowClient

    client = MlflowClient(f"sqlite:///{tmp / 'mlruns' / 'mlflow.db'}")
    return client.search_runs([e.experiment_id for e in client.search_experiments()], run_view_type=3)


@pytest.mark.parametrize("line, sig", [
    ("round 1 · materialize_shadow", signal.SIGINT),   # loading data
    ("round 1 · validate_pool", signal.SIGINT),        # a stage computing in a forked child
    ("round 1 · judge_robustness", signal.SIGTERM),    # judge calls in a thread pool
])
def test_a_stopped_preflight_exits_within_20_s_and_leaves_no_running_run(checkout, line, sig):
    code, took, err = _interrupt_at(checkout, line, sig)
    assert code == 128 + sig and took < 20, (code, took, err)
    last = err.rstrip().splitlines()[-1].split("\r")[-1]   # after a progress bar's carriage return
    assert last.endswith(("rc1: aborted", "rc1: interrupted", "rc1: stopped (SIGTERM)")), err
    runs = _runs(checkout)
    assert runs and not [r for r in runs if r.info.status == "RUNNING"]
    pf = max((r for r in runs if r.data.tags.get("rc1.stage") == "preflight"), key=lambda r: r.info.start_time)
    assert pf.info.status == "KILLED" and pf.data.tags["rc1.stopped"]
    assert "rc1.round1_pass" not in pf.data.tags     # a gate never takes it for a finished preflight
