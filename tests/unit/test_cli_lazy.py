"""`rc1`'s lazy subcommands: the listing read from source equals the commands the modules define, and
`rc1 --help` imports none of the heavy libraries."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click

from rc1.cli import COMMANDS, LazyGroup, cli, load_command, module_path, source_help

REPO = Path(__file__).resolve().parents[2]


def test_every_command_module_is_listed():
    """Every module of rc1/stages and rc1/flows with a Config (or a click `command`) is a command, and only those."""
    found = set()
    for package in ("stages", "flows"):
        for path in (REPO / "rc1" / package).glob("*.py"):
            text = path.read_text()
            if "\nclass Config" in text or "\ndef command" in text or "\ncommand = " in text:
                found.add(f"rc1.{package}.{path.stem}")
    assert found == set(COMMANDS.values())
    assert all(module_path(m).is_file() for m in COMMANDS.values())


def test_source_help_matches_the_imported_commands():
    for name, module in COMMANDS.items():
        assert source_help(module) == (load_command(name).help or "").strip(), name


def test_help_listing_equals_the_eager_group():
    eager = click.Group(name="rc1", help=cli.help, context_settings=cli.context_settings)
    for name in COMMANDS:
        eager.add_command(load_command(name), name)
    fresh = LazyGroup(name="rc1", help=cli.help, context_settings=cli.context_settings)
    lazy_help = fresh.get_help(click.Context(fresh, info_name="rc1"))
    eager_help = eager.get_help(click.Context(eager, info_name="rc1"))
    assert sorted(lazy_help.splitlines()) == sorted(eager_help.splitlines())
    assert "validate-pool" in lazy_help and "scorecache" in lazy_help


def test_help_imports_no_heavy_library():
    # main() in-process: the `rc1` process itself (run()) ends with os._exit, so nothing would print after it
    probe = ("import sys; from rc1.cli import main\n"
             "try:\n    main(['--help'])\n"
             "except SystemExit:\n    pass\n"
             "heavy = sorted(m for m in ('mlflow', 'torch', 'sklearn', 'transformers', 'trl', 'datasketch', 'scipy',"
             " 'numpy', 'pydantic') if m in sys.modules)\n"
             "print('HEAVY', heavy, file=sys.stderr)\n")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert "Commands:" in out.stdout
    assert "HEAVY []" in out.stderr, out.stderr[-2000:]
