"""Child process lifetimes: a process tree that ends with the process that started it.

torchrun (under `accelerate launch`) starts each worker in a session of its own and ends them on SIGTERM/SIGINT; a
launcher killed outright (SIGKILL, the OOM killer) or a caller stopped by a signal would leave the workers running,
holding memory and their gloo/NCCL ports. run_tree() keeps a list of the launch's processes while it runs and ends
whatever of it is left, however the launch or its caller stops.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from typing import Iterator, Mapping, Sequence

GRACE_S = 20.0   # after SIGTERM, how long a launcher gets to stop its own workers before all of them are killed
POLL_S = 1.0     # how often the list of the launch's processes is refreshed
MARK = "RC1_RUN_TREE"   # in the command's environment, so in every process of the launch (a process's own list misses
                        # one that started and lost its launcher between two polls)


def _prctl():
    """libc's prctl, or None where there is none (not Linux)."""
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def set_parent_death_signal(sig: int) -> bool:
    """Linux: the kernel sends `sig` to this process when its parent dies (PR_SET_PDEATHSIG; kept across exec).
    False where that is not available."""
    prctl = _prctl()
    return prctl is not None and prctl(1, int(sig)) == 0   # 1: PR_SET_PDEATHSIG


# run_tree starts its command through this shim, not a preexec_fn: Python code between fork and exec in a threaded
# process (mlflow's, torch's) runs every os.register_at_fork hook in the child (huggingface_hub closes its HTTP client
# there) and may deadlock. The shim asks for SIGTERM when its parent dies, exits if that parent died already, and
# becomes the command (same pid).
_SHIM = (f"import ctypes, os, sys; ctypes.CDLL(None).prctl(1, {int(signal.SIGTERM)}); "
         "os.getppid() == int(sys.argv[1]) or os._exit(1); os.execvp(sys.argv[2], sys.argv[2:])")


class Stopped(SystemExit):
    """This process got SIGTERM (raise_stopped, the handler of `rc1` and of run_tree): it unwinds, then exits 128 + 15."""


# The signal that asked this process to stop, kept: the exception its handler raises can land where Python cannot
# pass it on (a __del__, a weakref callback: "Exception ignored ... KeyboardInterrupt") and the stage would go on.
# check_stop() raises it again at the next stage boundary, so a stop asked for is a stop.
_stop_signal: int | None = None


def _stop_exception(signum: int) -> BaseException:
    return KeyboardInterrupt() if signum == signal.SIGINT else Stopped(128 + signum)


def raise_stopped(signum, frame):
    """A SIGTERM (and SIGINT) handler: unwind this process as Ctrl-C would (runs end KILLED, temporary files go),
    then exit 128 + the signal (130 for SIGINT, 143 for SIGTERM)."""
    global _stop_signal
    _stop_signal = signum
    raise _stop_exception(signum)


def stop_requested() -> int | None:
    """The signal that asked this process to stop, or None. A stop is kept while rc1's handler stays installed for
    that signal: once whoever installed it restored another (the `rc1` command returned, a caller in-process
    handled the stop), it was dealt with."""
    global _stop_signal
    sig = _stop_signal
    if sig is not None and signal.getsignal(sig) is not raise_stopped:
        _stop_signal = sig = None
    return sig


def check_stop() -> None:
    """Raise the stop again if one was asked for (see _stop_signal)."""
    sig = stop_requested()
    if sig is not None:
        raise _stop_exception(sig)


def clear_stop() -> None:
    """Forget a stop (the `rc1` command called in-process returns, and the next call starts afresh)."""
    global _stop_signal
    _stop_signal = None


@contextlib.contextmanager
def deferred_signals() -> Iterator[None]:
    """SIGINT and SIGTERM wait for the block (a few store writes that must not be cut in half: an sqlite commit
    interrupted by Ctrl-C keeps its lock, and the next write, ending the run KILLED, waited 40 s on it); one that came
    meanwhile is sent again as the block ends, to the handler that was in place. Off the main thread (where no signal
    handler runs) the block just runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    for sig in before:
        signal.signal(sig, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
        for sig in dict.fromkeys(held):
            os.kill(os.getpid(), sig)


def run_tree(cmd: Sequence[str], env: Mapping[str, str]) -> int:
    """Run `cmd` and return its exit code. Its processes (the command and, as they appear, every descendant, also
    those in sessions of their own) are recorded each POLL_S and, at the end, found by the MARK in their environment;
    once the command has exited, any of them still running is killed. If this process is interrupted
    (KeyboardInterrupt, SIGTERM, any exception) the command gets SIGTERM, GRACE_S to stop its workers, then everything
    recorded is killed and the interruption goes on. The command gets SIGTERM when this process dies, too
    (PR_SET_PDEATHSIG, through _SHIM)."""
    import subprocess   # here: `rc1 --help` imports this module (rc1.cli), and subprocess costs it ~10 ms

    import psutil

    shim = [sys.executable, "-I", "-S", "-c", _SHIM, str(os.getpid())] if _prctl() is not None else []
    token = f"{os.getpid()}.{os.urandom(8).hex()}"
    proc = subprocess.Popen([*shim, *cmd], env={**env, MARK: token})
    tree: dict[int, psutil.Process] = {}

    def record() -> None:
        try:
            root = psutil.Process(proc.pid)
            for p in [root, *root.children(recursive=True)]:
                tree[p.pid] = p   # the live process of that pid (a recorded one that ended may have had it)
        except psutil.Error:
            pass

    main = threading.current_thread() is threading.main_thread()
    before = signal.signal(signal.SIGTERM, raise_stopped) if main else None
    try:
        while True:
            record()
            try:
                return proc.wait(timeout=POLL_S)
            except subprocess.TimeoutExpired:
                continue
    except BaseException:
        record()
        proc.terminate()
        try:
            proc.wait(timeout=GRACE_S)
        except subprocess.TimeoutExpired:
            pass
        raise
    finally:
        if main:
            signal.signal(signal.SIGTERM, before)
        _end(proc, [*tree.values(), *_marked(token)])


def _marked(token: str) -> list:
    """This user's processes whose environment carries MARK=token."""
    import psutil

    found = []
    for p in psutil.process_iter():
        try:
            if p.environ().get(MARK) == token:
                found.append(p)
        except psutil.Error:
            continue
    return found


def _end(proc, procs) -> None:
    """SIGKILL the command (a subprocess.Popen) and every process of `procs` still running, then wait (GRACE_S at
    most) until they have ended. All are killed before any wait, so that a second interruption while waiting leaves
    none running; a killed process whose parent does not reap it (a zombie) has ended."""
    import psutil

    def running(p: psutil.Process) -> bool:
        try:
            return p.is_running() and p.status() != psutil.STATUS_ZOMBIE   # is_running: same pid, same start time
        except psutil.Error:
            return False

    left = [p for p in procs if p.pid != proc.pid and running(p)]
    if proc.poll() is None:
        proc.kill()
    for p in left:
        try:
            p.kill()
        except psutil.Error:
            pass
    proc.wait()
    deadline = time.monotonic() + GRACE_S
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = [p for p in left if running(p)]


KILL_AT = "RC1_TEST_KILL_AT"   # a test hook: SIGKILL this process at the named point (tests/stages/test_attest.py)


def kill_point(name: str) -> None:
    """SIGKILL this process here when RC1_TEST_KILL_AT names this point (how the tests stop a promote midway, as a
    power cut or the OOM killer would); nothing otherwise."""
    if os.environ.get(KILL_AT) == name:
        os.kill(os.getpid(), signal.SIGKILL)
