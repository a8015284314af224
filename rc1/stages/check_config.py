"""`rc1 check-config`: the ppo config (and its trial config) against configs/gates.yaml config_check."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import click

from rc1.cli.options import logged_params
from rc1.core.config import default_ppo_config, load_thresholds
from rc1.core.ppo_config import load_ppo_config
from rc1.core.errors import Rc1Error
from rc1.checks.preflight_checks import config_checks, trial_checks
from rc1.stages.shared import Gated, Moded, PpoConfigured
from rc1.core.settings import configured


STAGE = "config_check"   # its runs' rc1.stage tag, and its step's name in a flow


@dataclass
class Config(Gated, Moded, PpoConfigured):
    """Check ppo_scale.yaml against configs/gates.yaml config_check (simulate, live mode, mix, steps, KL, seeds...)."""


@configured
def run(cfg: Config) -> dict:
    """The config_check run; returns {checks, projection}. Raises CheckFailed when a check fails; in prod, Rc1Error (one
    line) for a thinking base without a thinking budget (rc1.train.tiny.require_budget)."""
    from rc1.train.tiny import require_budget
    from rc1.tracking import stage_run
    from rc1.train.projection import reference
    from rc1.train.tiny import is_tiny

    config_path = cfg.config or default_ppo_config(cfg.mode)
    gates = load_thresholds(cfg.gates).for_mode(cfg.mode)
    ppo = load_ppo_config(config_path)
    trial = load_ppo_config(ppo.trial) if ppo.trial else None
    require_budget(ppo, config_path, cfg.mode)
    if ppo.accelerate_config:   # exists and is an accelerate config (else exit 2 naming the key and the file)
        from rc1.train.launch import read_accelerate_config
        from rc1.train.engine import prompts_per_process

        spec = read_accelerate_config(ppo.accelerate_config, owner=config_path)
        for path, c in ((config_path, ppo), (ppo.trial, trial)):   # the global batch splits over the processes
            try:
                if c is not None:
                    prompts_per_process(c, spec.num_processes)
            except Rc1Error as e:
                raise Rc1Error(f"{path}: {e} ({ppo.accelerate_config} starts {spec.num_processes})") from None
    inputs = {"config": config_path, "gates": cfg.gates, **({"trial_config": ppo.trial} if trial else {}),
              **({"accelerate_config": ppo.accelerate_config} if ppo.accelerate_config else {})}
    params = {**logged_params(cfg), "config": config_path}
    # the job on the measured H200 (rc1.train.projection.H200, the 4B shape; not for the tiny dev model): recorded and
    # said, not gated (the trial's measured s/step is, at the gate: config_check.projected_days_per_seed_max)
    proj, where = (None, None) if is_tiny(ppo.model.base) else reference(ppo)
    line = proj and f"projected on the reference ({where.where}): {proj.line(Path(config_path).name)}"
    with stage_run(STAGE, params=params, inputs=inputs, reuse=False) as st:
        st.log_config(ppo, Path(config_path).with_suffix(".json").name)
        st.log_config(gates.config_check, "gates_config_check.json")
        if proj:
            st.log_metrics(proj.metrics(prefix="reference."))
            click.echo(f"[rc1{' DEV' if cfg.mode == 'dev' else ''}] config_check: {line}", err=True)
        checks = config_checks(ppo, gates) + (trial_checks(ppo, trial) if trial else [])
        st.verdict(checks)
    return {"checks": checks, "projection": line}


def show(result: dict) -> None:
    click.echo("config check passed")
