"""`rc1 check-resources`: free disk (and accelerator memory) against configs/gates.yaml resources."""

from __future__ import annotations

from dataclasses import dataclass

import click

from rc1.cli.options import arg, logged_params
from rc1.core.config import load_thresholds
from rc1.checks.preflight_checks import resources_checks
from rc1.stages.shared import Gated, Moded
from rc1.core.settings import configured


STAGE = "resources"   # its runs' rc1.stage tag, and its step's name in a flow


@dataclass
class Config(Gated, Moded):
    """Free disk (and accelerator memory when present) against configs/gates.yaml resources."""

    path: str = arg(".", "Where checkpoints will be written.")
    needs_accelerator: bool = arg(False, "Check accelerator memory even where none is found (it fails then).")


@configured
def run(cfg: Config) -> dict:
    """The resources run; returns {checks}. Raises CheckFailed when a check fails."""
    from rc1.tracking import stage_run

    gates = load_thresholds(cfg.gates).for_mode(cfg.mode)
    with stage_run(STAGE, params=logged_params(cfg), reuse=False) as st:
        st.log_config(gates.resources, "gates_resources.json")
        checks = resources_checks(cfg.path, gates, needs_accelerator=cfg.needs_accelerator)
        st.log_metrics({c["name"]: c["value"] for c in checks if isinstance(c["value"], (int, float))})
        st.verdict(checks)
    return {"checks": checks}


def show(result: dict) -> None:
    click.echo("resources check passed")
