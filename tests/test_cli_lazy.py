"""`rc1`'s lazy subcommands: the listing read from source equals the commands the modules define, and
`rc1 --help` imports none of the heavy libraries."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import click

from entrypoints.cli import LazyGroup, cli, discover_commands

REPO = Path(__file__).resolve().parents[1]


def _eager_commands() -> dict[str, click.Command]:
    out = {}
    for spec in discover_commands().values():
        cmds = getattr(importlib.import_module(spec.module), "command")
        for cmd in cmds if isinstance(cmds, (list, tuple)) else [cmds]:
            out[cmd.name] = cmd
    return out


def test_source_listing_matches_the_imported_commands():
    import entrypoints
    import pkgutil

    lazy = discover_commands()
    eager = _eager_commands()
    assert set(lazy) == set(eager)
    for name, spec in lazy.items():
        assert spec.help == eager[name].help, name
    # every entry point module that exports `command` is listed
    exporting = {m.name for m in pkgutil.iter_modules(entrypoints.__path__)
                 if not m.name.startswith("_") and m.name != "cli"
                 and getattr(importlib.import_module(f"entrypoints.{m.name}"), "command", None)}
    assert exporting == {spec.module.split(".")[-1] for spec in lazy.values()}


def test_help_listing_equals_the_eager_group():
    eager = click.Group(name="rc1", help=cli.help, context_settings=cli.context_settings)
    for cmd in _eager_commands().values():
        eager.add_command(cmd)
    fresh = LazyGroup(name="rc1", help=cli.help, context_settings=cli.context_settings)
    lazy_help = fresh.get_help(click.Context(fresh, info_name="rc1"))
    assert lazy_help == eager.get_help(click.Context(eager, info_name="rc1"))
    assert "validate-pool" in lazy_help and "scorecache" in lazy_help


def test_help_imports_no_heavy_library():
    # main() in-process: the `rc1` process itself (run()) ends with os._exit, so nothing would print after it
    probe = ("import sys; from entrypoints.cli import main\n"
             "try:\n    main(['--help'])\n"
             "except SystemExit:\n    pass\n"
             "heavy = sorted(m for m in ('mlflow', 'torch', 'sklearn', 'transformers', 'trl', 'datasketch', 'scipy',"
             " 'numpy', 'pydantic') if m in sys.modules)\n"
             "print('HEAVY', heavy, file=sys.stderr)\n")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert "Commands:" in out.stdout
    assert "HEAVY []" in out.stderr, out.stderr[-2000:]
