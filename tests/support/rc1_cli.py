"""Calling the `rc1` CLI in-process from tests."""

from __future__ import annotations

from rc1.cli import main


def run_cli(args: list[str]) -> int:
    """main()'s exit code: it exits on failure (SystemExit 1 or 2) and returns normally on success."""
    try:
        main(args)
    except SystemExit as e:
        return e.code or 0
    return 0
