"""The two ways rc1 refuses: bad input and a failed gate. Both exit 2 with one clear line."""

from __future__ import annotations


class Rc1Error(Exception):
    """Bad input or a refusal the user can fix: printed as one line, exit code 2."""

    exit_code = 2


class CheckFailed(Rc1Error):
    """A stage evaluated its checks (thresholds of configs/gates.yaml) and at least one failed.

    `checks` is the list of failing check dicts ({name, value, threshold, pass}, and `next`: what to do about it,
    where the check knows) so the shell can print them as a short table; `what` names the refusal (a stage's gate,
    the preflight); `next_step` says what to do, else the failing checks' own `next`; `named`: the message names the
    failing checks itself. line() is the one line the shell prints first: what failed, the first failing checks, and
    what to do next.
    """

    SHOWN = 3   # failing checks named in the line; the table under it has them all

    def __init__(self, message: str, checks: list[dict] | None = None, *, what: str = "gate failed",
                 next_step: str | None = None, named: bool = False):
        super().__init__(message)
        self.checks = checks or []
        self.what = what
        self.next_step = next_step
        self.named = named

    def line(self) -> str:
        from rc1.core.summary import failing_checks

        shown = "" if self.named else failing_checks(self.checks[:self.SHOWN])
        more = 0 if self.named else len(self.checks) - self.SHOWN
        hints = [self.next_step] if self.next_step else list(dict.fromkeys(c["next"] for c in self.checks
                                                                            if c.get("next")))
        return (f"{self.what}: {self}" + (f": {shown}" if shown else "") + (f" and {more} more" if more > 0 else "")
                + (f"; next: {'; '.join(hints)}" if hints else ""))


def _chain(e: BaseException):
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        yield e
        e = e.__cause__ or e.__context__


def _file_size_limit() -> int | None:
    """This process's file-size limit in bytes (`ulimit -f`), or None when there is none."""
    import resource

    soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    return None if soft == resource.RLIM_INFINITY else soft


def environment_problem(e: BaseException, store: str = "the tracking store") -> str | None:
    """One line for a failure of the machine rather than of rc1 (a file-size limit, a full disk, a tracking store
    another process holds locked), or None. The first cause that says which it is wins: a write past `ulimit -f`
    reaches the user as sqlite's "disk I/O error" when the store's file is what grew."""
    import errno

    for x in _chain(e):
        if isinstance(x, OSError) and x.errno in (errno.EFBIG, errno.ENOSPC, errno.EDQUOT):
            where = f"{x.filename}: " if getattr(x, "filename", None) else ""
            if x.errno == errno.EFBIG:
                limit = _file_size_limit()
                return (f"{where}cannot write: a file reached this process's file-size limit"
                        f"{f' ({limit} bytes, `ulimit -f`)' if limit else ''}; raise the limit and run again")
            return f"{where}cannot write: no space left on the disk (or the quota is used up)"
        text = str(x)
        if "database is locked" in text:
            return (f"{store} is locked by another process writing it (sqlite allows one writer at a time): wait for "
                    f"it to finish, or point MLFLOW_TRACKING_URI at an `mlflow server`")
        if "disk I/O error" in text or "database or disk is full" in text:
            limit = _file_size_limit()
            if limit is not None:
                return (f"{store} cannot be written: its file reached this process's file-size limit ({limit} bytes, "
                        f"`ulimit -f`); raise the limit and run again")
            return f"{store} cannot be written (sqlite: {'disk I/O error' if 'I/O' in text else 'disk full'})"
    return None
