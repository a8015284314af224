"""Computing ahead: a stage's computation in a forked child process while the stage itself imports mlflow and
opens its run."""

from __future__ import annotations

import contextlib


class Ahead:
    """`fn(*args, **kwargs)` computing in a forked child process while this one goes on (a stage's own set-up:
    importing mlflow and opening its run take ~3 s of one core, and the computation needs none of it).
    `result()` waits for the value (an exception in the child is raised here, the same one); `cancel()`
    stops the child (a reused run needs no computation). The child gets no file or run of its own to write.
    It forks only in a process that has not imported mlflow yet (a fresh `rc1 <stage>` process: forking
    after mlflow's threads and connections exist is not safe), and never where fork is missing or
    RC1_NO_FORK is set; otherwise `result()` computes in this process, when it is asked for."""

    def __init__(self, fn, *args, **kwargs):
        import os
        import sys

        self._call = (fn, args, kwargs)
        self._proc = self._conn = None
        if "mlflow" in sys.modules or not hasattr(os, "fork") or os.environ.get("RC1_NO_FORK"):
            return
        import gc
        import multiprocessing

        gc.freeze()   # both processes' collections then skip what exists now (measured: a scan child's 0.11 s -> 0.04 s)
        ctx = multiprocessing.get_context("fork")
        self._conn, child_end = ctx.Pipe(duplex=False)
        # not a daemon, so that it may fork in turn; the stage stops it on every way out (cleaned_up)
        self._proc = ctx.Process(target=_ahead_child, args=(child_end, os.getpid(), fn, args, kwargs))
        self._proc.start()
        child_end.close()

    @property
    def forked(self) -> bool:
        return self._proc is not None

    def result(self):
        if self._proc is None:
            fn, args, kwargs = self._call
            return fn(*args, **kwargs)
        try:
            ok, value = self._conn.recv()
        except EOFError:
            self._proc.join()
            raise RuntimeError(f"the computing child process died (exit code {self._proc.exitcode})") from None
        finally:
            self._conn.close()
        self._proc.join()
        self._proc = None
        self._call = (_raise, (value,), {}) if not ok else (_return, (value,), {})
        if not ok:
            raise value
        return value

    def cancel(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.join()
            self._conn.close()
            self._proc = None


@contextlib.contextmanager
def cleaned_up(job: Ahead, *tmp_paths):
    """Whatever happens to the run: no computing child and none of its temporary files left behind."""
    try:
        yield
    finally:
        job.cancel()
        for p in tmp_paths:
            p.unlink(missing_ok=True)


def _return(value):
    return value


def _raise(error):
    raise error


def _die_with_parent(parent: int) -> None:
    """Linux: the kernel kills this child when its parent dies, so cancelling (SIGKILL) or killing a stage leaves
    no computing grandchild behind (an Ahead child may start its own: rc1 difficulty does). Elsewhere a no-op."""
    import os
    import signal

    from rc1.core.proc import set_parent_death_signal

    if set_parent_death_signal(signal.SIGKILL) and os.getppid() != parent:   # the parent died already
        os._exit(1)


def _ahead_child(conn, parent, fn, args, kwargs) -> None:
    import pickle

    _die_with_parent(parent)
    try:
        msg = (True, fn(*args, **kwargs))
    except BaseException as e:  # noqa: BLE001 - the parent re-raises it
        msg = (False, e)
    try:
        conn.send(msg)
    except (pickle.PicklingError, TypeError, AttributeError) as e:  # an unpicklable exception: its text
        conn.send((False, RuntimeError(f"{type(msg[1]).__name__}: {msg[1]}" if not msg[0] else str(e))))
    conn.close()
