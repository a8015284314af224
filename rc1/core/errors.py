"""The two ways rc1 refuses: bad input and a failed gate. Both exit 2 with one clear line."""

from __future__ import annotations


class Rc1Error(Exception):
    """Bad input or a refusal the user can fix: printed as one line, exit code 2."""

    exit_code = 2


class GateFailed(Rc1Error):
    """A gate was evaluated and at least one check failed.

    `checks` is the list of failing check dicts ({name, value, threshold, pass}) so the shell can
    print them as a short table.
    """

    def __init__(self, message: str, checks: list[dict] | None = None):
        super().__init__(message)
        self.checks = checks or []
