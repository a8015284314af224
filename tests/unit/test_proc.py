"""rc1.core.proc.run_tree on real process trees: a launcher whose worker runs in a session of its own (as torchrun starts
them). However the launch or its caller stops, no worker is left running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from rc1.core.proc import POLL_S, run_tree

REPO = Path(__file__).resolve().parents[2]
# a stand-in for torchrun: starts a worker in its own session, writes its pid, and (like torchrun) stops the worker
# on SIGTERM before exiting; then waits
LAUNCHER = textwrap.dedent("""
    import signal, subprocess, sys, time
    worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True)
    def stop(signum, frame):
        worker.kill(); worker.wait(); sys.exit(128 + signum)
    signal.signal(signal.SIGTERM, stop)
    open(sys.argv[1], "w").write(str(worker.pid))
    if sys.argv[2] == "quick":
        sys.exit(3)   # the launcher ends at once (before run_tree could list its worker)
    if sys.argv[2] == "exit":
        time.sleep(3)
        sys.exit(3)   # the launcher ends after a while, its worker does not
    time.sleep(300)
""")


def wait_for_pid(path: Path, timeout: float = 30.0) -> int:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if path.is_file() and path.read_text():
            return int(path.read_text())
        time.sleep(0.1)
    raise AssertionError("the launcher never started its worker")


def gone(pid: int, timeout: float = 30.0) -> bool:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.1)
    return False


def caller(tmp_path: Path, mode: str, launcher: str = LAUNCHER, setup: str = "") -> subprocess.Popen:
    """A process that runs the launcher through run_tree (as the gate does), after the statements `setup`."""
    code = (f"import sys\nimport rc1.core.proc\nfrom rc1.core.proc import POLL_S, run_tree\n{setup}\n"
            f"sys.exit(run_tree([sys.executable, '-c', {launcher!r}, {str(tmp_path / 'pid')!r}, {mode!r}], {{}}))")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-c", code], env=env)


@pytest.mark.timeout(120)
def test_a_launcher_that_exits_leaves_no_worker(tmp_path):
    """The launcher crashes while its worker in another session runs on: run_tree returns the launcher's exit code and
    the worker is killed (run_tree knows it: the worker ran for more than POLL_S)."""
    assert run_tree([sys.executable, "-c", LAUNCHER, str(tmp_path / "pid"), "exit"], os.environ) == 3
    assert gone(wait_for_pid(tmp_path / "pid"))


@pytest.mark.timeout(120)
def test_a_worker_that_lost_its_launcher_at_once_is_found(tmp_path):
    """The launcher exits right after starting its worker, before run_tree's next look at the tree: the worker is found
    by the mark in its environment (MARK) and killed."""
    assert run_tree([sys.executable, "-c", LAUNCHER, str(tmp_path / "pid"), "quick"], os.environ) == 3
    assert gone(wait_for_pid(tmp_path / "pid"))


@pytest.mark.timeout(120)
def test_no_python_runs_between_fork_and_exec(tmp_path):
    """The caller's at-fork hooks (mlflow's, huggingface_hub's, in a threaded gate) do not run in the forked child
    before it execs the launch: a hook that would end that child changes nothing."""
    proc = caller(tmp_path, "quick", setup="import os; os.register_at_fork(after_in_child=lambda: os._exit(7))")
    assert proc.wait(timeout=60) == 3   # the launcher's own exit code
    assert gone(wait_for_pid(tmp_path / "pid"))


@pytest.mark.timeout(120)
def test_a_launcher_killed_outright_leaves_no_worker(tmp_path):
    """SIGKILL (the OOM killer) gives the launcher no chance to stop its worker: run_tree does."""
    proc = caller(tmp_path, "wait")
    worker = wait_for_pid(tmp_path / "pid")
    time.sleep(2 * POLL_S)   # run_tree has recorded the tree
    (launcher,) = psutil.Process(proc.pid).children()
    launcher.kill()
    assert proc.wait(timeout=60) == -signal.SIGKILL & 0xFF   # run_tree returned the launcher's -9: sys.exit(-9)
    assert gone(worker)


@pytest.mark.timeout(120)
def test_a_stopped_caller_stops_the_launch(tmp_path):
    """SIGTERM to the caller (a scheduler stopping the gate): the launch is stopped, then the caller exits 143."""
    proc = caller(tmp_path, "wait")
    worker = wait_for_pid(tmp_path / "pid")
    time.sleep(2 * POLL_S)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 128 + signal.SIGTERM
    assert gone(worker)


# a launcher that ignores SIGTERM and never reaps its worker (a hung torchrun): once killed, the worker stays a zombie
STUBBORN = textwrap.dedent("""
    import signal, subprocess, sys, time
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True)
    open(sys.argv[1], "w").write(str(worker.pid))
    time.sleep(300)
""")


@pytest.mark.timeout(120)
def test_a_second_sigterm_cuts_the_grace_short(tmp_path):
    """A second SIGTERM while the launcher has its grace (here 300 s): every process of the launch is killed at once
    and the caller exits 143; a killed worker its hung launcher never reaps (a zombie) is not waited for."""
    proc = caller(tmp_path, "wait", launcher=STUBBORN, setup="rc1.core.proc.GRACE_S = 300")
    worker = wait_for_pid(tmp_path / "pid")
    (launcher,) = psutil.Process(proc.pid).children()
    try:
        time.sleep(2 * POLL_S)
        proc.send_signal(signal.SIGTERM)
        time.sleep(2 * POLL_S)   # the launcher has been sent SIGTERM, and ignores it
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 128 + signal.SIGTERM
        assert gone(worker) and gone(launcher.pid)
    finally:   # a failure here must not leave the test's own processes behind
        for p in (proc, launcher):
            try:
                p.kill()
            except (OSError, psutil.Error):
                pass


@pytest.mark.timeout(120)
def test_a_caller_killed_outright_still_stops_the_launch(tmp_path):
    """SIGKILL to the caller: the kernel sends the launcher SIGTERM (parent death signal), and it stops its worker."""
    proc = caller(tmp_path, "wait")
    worker = wait_for_pid(tmp_path / "pid")
    proc.kill()
    proc.wait(timeout=60)
    assert gone(worker)


@pytest.mark.timeout(300)
def test_a_stopped_stage_ends_its_run(tmp_path, monkeypatch):
    """SIGTERM to `rc1 train` while it trains: one line, exit 143, and its MLflow run FAILED (not RUNNING forever)."""
    import mlflow

    from test_train_accelerate import dev_workspace

    dev_workspace(monkeypatch, tmp_path)
    store = f"sqlite:///{tmp_path / 'mlflow.db'}"
    env = {**os.environ, "PYTHONPATH": str(REPO), "MLFLOW_TRACKING_URI": store}
    proc = subprocess.Popen([sys.executable, "-m", "rc1.cli", "train", "--config", "configs/ppo_dev.yaml",
                             "--pool", "pool.jsonl", "--max-steps", "200"], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    mlflow.set_tracking_uri(store)
    try:
        deadline = time.time() + 200
        while time.time() < deadline and proc.poll() is None and not list(tmp_path.glob("out/train/*/metrics.jsonl")):
            time.sleep(0.5)   # until a step was logged: the run is open and training
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 128 + signal.SIGTERM, err[-2000:]
        assert "rc1: stopped (SIGTERM)" in err and "Traceback" not in err, err[-3000:]
        (run,) = mlflow.search_runs(search_all_experiments=True, output_format="list",
                                    filter_string="tags.`rc1.stage` = 'train'")
        assert run.info.status in ("FAILED", "KILLED"), run.info.status
    finally:
        mlflow.set_tracking_uri(None)
        if proc.poll() is None:
            proc.kill()
