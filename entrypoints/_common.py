"""Options and helpers shared by the entry points."""

from __future__ import annotations

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


def norm_data_dir(value: str | None) -> str | None:
    """MLproject passes 'auto' for 'no --data-dir'."""
    return None if value in (None, "", "auto", "none", "None") else value
