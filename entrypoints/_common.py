"""Options and helpers shared by the entry points."""

from __future__ import annotations

import contextlib
import warnings
from typing import Iterator

import click

data_dir_option = click.option(
    "--data-dir", "--data_dir", "data_dir", default=None,
    help="Directory laid out like ../shared/data (hotpotqa/, strategyqa/, gsm8k/). "
         "Unset or 'auto': the sources of configs/data.yaml (builtin generators last).",
)
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


@contextlib.contextmanager
def quiet_trl_deprecations() -> Iterator[None]:
    """Hide the FutureWarnings that TRL's trainer and helpers trigger inside transformers 5.x (the
    gradient_checkpointing -> activation_checkpointing renames): TRL's calls, nothing an rc1 user can act on."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"`\w*gradient_checkpointing\w*` is deprecated", category=FutureWarning)
        yield
