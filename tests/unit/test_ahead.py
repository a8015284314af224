"""rc1.core.ahead.Ahead: a stage's computation in a forked process gives what computing in place gives,
raises the same error, and stops when cancelled (with any child it started). Run in a fresh interpreter: Ahead forks only where mlflow
is not imported yet (as in a fresh `rc1 <stage>` process), and this test process may have imported it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PROBE = r"""
import os, sys, time
from rc1.core.ahead import Ahead
from rc1.core.errors import Rc1Error

def work(n, k=1):
    return {"pid": os.getpid(), "sum": sum(range(n)) * k}

def fail(path):
    raise Rc1Error(f"{path}: line 3: not a seed")

job = Ahead(work, 1000, k=2)
assert job.forked
got = job.result()
assert got["sum"] == sum(range(1000)) * 2 and got["pid"] != os.getpid(), got

bad = Ahead(fail, "pool.jsonl")
try:
    bad.result()
    raise SystemExit("no error")
except Rc1Error as e:
    assert str(e) == "pool.jsonl: line 3: not a seed", e

slow = Ahead(time.sleep, 60)
t0 = time.perf_counter()
slow.cancel()
assert time.perf_counter() - t0 < 10

# a cancelled child takes the children it started with it (rc1 difficulty's child forks again)
pidfile = sys.argv[1]

def nested():
    inner = Ahead(time.sleep, 60)
    with open(pidfile, "w") as fh:
        fh.write(str(inner._proc.pid))
    return inner.result()

outer = Ahead(nested)
t0 = time.perf_counter()
while not (os.path.exists(pidfile) and open(pidfile).read()) and time.perf_counter() - t0 < 30:
    time.sleep(0.05)
grandchild = int(open(pidfile).read())
outer.cancel()

def alive(pid):
    try:
        with open(f"/proc/{pid}/status") as fh:
            return "\nState:\tZ" not in fh.read()
    except FileNotFoundError:
        return False

t0 = time.perf_counter()
while alive(grandchild) and time.perf_counter() - t0 < 10:
    time.sleep(0.05)
if alive(grandchild):
    os.kill(grandchild, 9)
    raise SystemExit("the cancelled child's own child is still running")

import mlflow  # once mlflow is imported, nothing forks: computed in place, when asked
inline = Ahead(work, 10)
assert not inline.forked and inline.result()["pid"] == os.getpid()
print("OK")
"""


def test_ahead_forks_returns_raises_and_cancels(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "grandchild.pid")], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip().endswith("OK"), out.stderr[-3000:]
