"""The `rc1` process ends without the interpreter's teardown (rc1.cli.run), and still does everything a normal
exit does that a user or MLflow relies on: its exit code, its output, atexit functions, threads that were still
working, thread pools left open, and a finished MLflow run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _rc1(args: list[str], tmp_path: Path, prelude: str = "", closed: tuple[int, ...] = (), stdout=subprocess.PIPE
         ) -> subprocess.CompletedProcess:
    """`rc1 ARGS` as the console script runs it, after `prelude` (Python run first in the same process), its
    stdout and stderr buffered as in a user's shell (PYTHONUNBUFFERED dropped), with the file descriptors
    `closed` closed from the start (a daemon, `rc1 ... >&-`)."""
    code = textwrap.dedent(prelude) + f"\nimport sys\nsys.argv = ['rc1', *{args!r}]\nfrom rc1.cli import run\nrun()\n"
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}, "PYTHONPATH": str(REPO),
           "MLFLOW_TRACKING_URI": f"sqlite:///{tmp_path / 'mlflow.db'}"}
    return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, stdout=stdout, stderr=subprocess.PIPE,
                          text=True, timeout=300,
                          preexec_fn=(lambda: [os.close(fd) for fd in closed]) if closed else None)


def test_exit_codes_and_output_are_those_of_main(tmp_path):
    ok = _rc1(["--help"], tmp_path)
    assert ok.returncode == 0 and "build-pool" in ok.stdout
    bad = _rc1(["no-such-command"], tmp_path)
    assert bad.returncode == 2 and "No such command" in bad.stderr
    refused = _rc1(["difficulty", "--in", str(tmp_path / "missing.jsonl")], tmp_path)
    assert refused.returncode == 2 and refused.stderr.strip().splitlines()[-1].startswith("rc1: error:")
    assert "Traceback" not in refused.stderr


def test_atexit_functions_threads_and_open_pools_are_seen_to(tmp_path):
    prelude = f"""
        import atexit, threading, time
        from concurrent.futures import ThreadPoolExecutor
        from pathlib import Path
        out = Path({str(tmp_path)!r})
        atexit.register(lambda: (out / "atexit").write_text("ran"))
        def late():
            time.sleep(0.5)
            (out / "thread").write_text("done")
        threading.Thread(target=late).start()          # not a daemon: the exit waits for it
        pool = ThreadPoolExecutor(2)                    # never shut down: the exit must not hang on its workers
        pool.submit(lambda: (out / "pooled").write_text("done"))
        print("buffered", end="")                       # no newline, no flush: must still reach the pipe
    """
    res = _rc1(["--help"], tmp_path, prelude)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("buffered")
    for name in ("atexit", "thread", "pooled"):
        assert (tmp_path / name).is_file(), name


def test_output_that_other_streams_still_buffer_reaches_its_file(tmp_path):
    """The original stdout after something replaced sys.stdout, and the C library's stdio buffer (a C extension's
    printf): the interpreter's exit flushes both, so must the `rc1` process."""
    prelude = """
        import ctypes, io, sys
        print("original", end="")                      # buffered in sys.__stdout__
        sys.stdout = io.StringIO()                      # a library redirecting stdout and never putting it back
        ctypes.CDLL(None).printf(b"c-level")            # buffered in libc's stdout (a pipe: fully buffered)
    """
    res = _rc1(["--help"], tmp_path, prelude)
    assert res.returncode == 0, res.stderr
    assert "original" in res.stdout and "c-level" in res.stdout, res.stdout


def test_closed_stdout_or_stderr_keep_the_exit_code(tmp_path):
    """Started with fd 1 or 2 closed (sys.stdout / sys.stderr are None): main()'s exit code, no traceback."""
    ok = _rc1(["--help"], tmp_path, closed=(1,))
    assert ok.returncode == 0 and "Traceback" not in ok.stderr, ok.stderr
    bad = _rc1(["no-such-command"], tmp_path, closed=(2,))
    assert bad.returncode == 2 and "Traceback" not in bad.stdout, bad.stdout
    both = _rc1(["no-such-command"], tmp_path, closed=(1, 2))
    assert both.returncode == 2


def test_output_that_cannot_be_written_at_exit_is_not_a_success(tmp_path):
    """stdout on a full disk: what is still buffered at exit cannot be written, and the process does not exit 0 (the
    interpreter's exit gives 120), with one line saying so and no traceback."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    prelude = "import rc1.cli as c\nc.main = lambda: print('the report')\n"   # buffered, not flushed
    with open("/dev/full", "w") as full:
        res = _rc1(["--help"], tmp_path, prelude, stdout=full)
    assert res.returncode == 120, res.stderr
    assert "rc1: error: output lost at exit" in res.stderr and "Traceback" not in res.stderr, res.stderr


def test_an_exit_code_beyond_a_c_int_exits_255_without_a_traceback(tmp_path):
    res = _rc1(["--help"], tmp_path, "import sys\nimport rc1.cli as c\nc.main = lambda: sys.exit(2**70)\n")
    assert res.returncode == 255 and "Traceback" not in res.stderr, res.stderr


def test_ctrl_c_while_a_thread_is_waited_for_keeps_the_exit_code_and_runs_atexit(tmp_path):
    """Ctrl-C once main() is done and the exit waits for a thread: as the interpreter's own exit, the wait is given
    up, the atexit functions still run and the exit code is main()'s (2 here), not a KeyboardInterrupt's."""
    prelude = f"""
        import atexit, os, signal, threading, time
        from pathlib import Path
        atexit.register(lambda: Path({str(tmp_path)!r}, "atexit").write_text("ran"))
        waiting = threading.Event()
        threading._register_atexit(waiting.set)        # the exit has begun to wait for threads
        def late():
            waiting.wait()
            time.sleep(0.3)
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(2)
        threading.Thread(target=late).start()
    """
    res = _rc1(["no-such-command"], tmp_path, prelude)
    assert res.returncode == 2, res.stderr
    assert (tmp_path / "atexit").is_file()


def test_a_non_integer_exit_prints_and_exits_1(tmp_path):
    res = _rc1(["--help"], tmp_path, "import sys, atexit\nimport rc1.cli as c\n"
                                     "c.main = lambda: sys.exit('rc1: something odd')\n")
    assert res.returncode == 1 and "rc1: something odd" in res.stderr


def test_a_stage_run_ends_finished_with_its_outputs_written(tmp_path):
    """The stage's files are complete and its MLflow run is FINISHED in the store, read back by another process."""
    pool = tmp_path / "pool.jsonl"
    built = _rc1(["build-pool", "--out", str(pool), "--n", "60", "--templates_dir", str(REPO / "templates" / "pack_v2"),
                  "--gates", str(REPO / "configs" / "gates.yaml"), "--no-reuse"], tmp_path)
    assert built.returncode == 0, built.stderr
    lines = pool.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 60 and all(json.loads(line)["dialogue"] for line in lines)
    read = subprocess.run(
        [sys.executable, "-c", "import mlflow; r = mlflow.search_runs(search_all_experiments=True); "
                               "print(sorted(set(r['status'])), len(r))"],
        cwd=tmp_path, env={**os.environ, "MLFLOW_TRACKING_URI": f"sqlite:///{tmp_path / 'mlflow.db'}"},
        capture_output=True, text=True, timeout=120)
    assert read.returncode == 0, read.stderr
    assert read.stdout.strip() == "['FINISHED'] 1"


def test_under_mlflow_run_the_real_exit_code_is_a_tag_of_its_run(tmp_path):
    """`mlflow run` reports every failure of its command as exit 1: rc1 records its own status (2, a refusal) on the
    run `mlflow run` handed it (MLFLOW_RUN_ID), as the tag rc1.exit_code."""
    import mlflow
    from mlflow.tracking import MlflowClient

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    client = MlflowClient(tracking_uri=uri)
    run = client.create_run(client.create_experiment("outer"))
    prelude = f"import os; os.environ['MLFLOW_RUN_ID'] = {run.info.run_id!r}"
    refused = _rc1(["difficulty", "--in", str(tmp_path / "missing.jsonl")], tmp_path, prelude=prelude)
    assert refused.returncode == 2 and "rc1: error:" in refused.stderr
    assert client.get_run(run.info.run_id).data.tags["rc1.exit_code"] == "2"
    mlflow.set_tracking_uri(None)
