"""`rc1 check-weights`: the reward weights against configs/gates.yaml weights."""

from __future__ import annotations

from dataclasses import dataclass

import click

from rc1.cli.options import logged_params
from rc1.core.config import load_thresholds, load_weights
from rc1.stages.shared import Gated, Moded, Weighted
from rc1.core.settings import configured


STAGE = "weights_check"   # its runs' rc1.stage tag, and its step's name in a flow


@dataclass
class Config(Moded, Gated, Weighted):
    """weights.json: non-negative, sums to 1, each at most the configured cap."""


@configured
def run(cfg: Config) -> dict:
    """The weights_check run; returns {checks}. Raises CheckFailed when a check fails."""
    from rc1.scoring.reward import weights_check
    from rc1.tracking import stage_run

    gates = load_thresholds(cfg.gates)
    weights = load_weights(cfg.weights)
    with stage_run(STAGE, params=logged_params(cfg), inputs={"weights": cfg.weights}, reuse=False) as st:
        st.log_artifact(cfg.weights)
        st.log_config(gates.weights, "gates_weights.json")
        st.log_metrics({f"weight.{k}": v for k, v in weights.as_dict().items()})
        checks = weights_check(weights, gates)
        st.verdict(checks)
    return {"checks": checks}


def show(result: dict) -> None:
    click.echo("weights check passed")
