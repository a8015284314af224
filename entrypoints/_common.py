"""Options and helpers shared by the entry points."""

from __future__ import annotations

import contextlib
import os
import warnings
from typing import Iterator

import click

data_dir_option = click.option(
    "--data-dir", "--data_dir", "data_dir", default=None,
    help="Directory laid out like ../shared/data (hotpotqa/, strategyqa/, gsm8k/). "
         "Unset or 'auto': the sources of configs/data.yaml (the bundled real sample last).",
)


def pool_options(f):
    """What preflight and main share: the mode, the data, the pool's size and where its files go."""
    for opt in reversed([
        click.option("--mode", type=click.Choice(["dev", "prod"]), default=lambda: os.environ.get("RUN_MODE", "dev"),
                     show_default="$RUN_MODE or dev"),
        data_dir_option,
        click.option("--n", default="auto", show_default=True,
                     help="seed pool size: a ceiling the data must supply, or auto (the largest pool it supports)"),
        click.option("--out-dir", "--out_dir", "out_dir", default="out", show_default=True,
                     help="where the pool, shadow set and reports go (a <mode>/ folder inside)"),
    ]):
        f = opt(f)
    return f


reuse_option = click.option(
    "--reuse/--no-reuse", default=True, show_default=True,
    help="Reuse a finished run with the same params, input digests and code version instead of recomputing.",
)
gates_option = click.option("--gates", "gates_path", default="configs/gates.yaml", show_default=True,
                             help="Gate thresholds file.")


def optional_param(value: str | None) -> str | None:
    """An optional path or name given through MLproject, which has no optional parameters: its defaults
    'auto' / 'none' (and '') mean unset."""
    return None if value in (None, "", "auto", "none", "None") else value


class _IntLike(click.ParamType):
    """An integer that also accepts MLflow's float rendering of it ('245.0'): MLproject has no int type."""
    name = "integer"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        try:
            f = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not an integer", param, ctx)
        if not f.is_integer():
            self.fail(f"{value!r} is not an integer", param, ctx)
        return int(f)


INT = _IntLike()


from rc1.ahead import Ahead, cleaned_up  # noqa: E402,F401  TRANSITION
from rc1.train.quiet import quiet_trl_deprecations  # noqa: E402,F401  TRANSITION
