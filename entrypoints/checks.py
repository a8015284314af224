"""Preflight's small checks as stages: `rc1 check-config`, `rc1 check-resources`, `rc1 check-weights`."""

from __future__ import annotations

from pathlib import Path

import click

from entrypoints._common import gates_option
from rc1.config import default_ppo_config, load_gates, load_ppo_scale, load_weights
from rc1.errors import Rc1Error
from rc1.preflight import config_checks, resources_checks, trial_checks
from rc1.tracking import run_mode, stage_run




def run_check_config(config_path: str, gates_path: str = "configs/gates.yaml", mode: str | None = None) -> dict:
    mode = mode or run_mode()
    gates = load_gates(gates_path).for_mode(mode)
    ppo = load_ppo_scale(config_path)
    trial = load_ppo_scale(ppo.trial) if ppo.trial else None
    if ppo.accelerate_config:   # exists and is an accelerate config (else exit 2 naming the key and the file)
        from rc1.launch import read_accelerate_config
        from rc1.train.engine import prompts_per_process

        spec = read_accelerate_config(ppo.accelerate_config, owner=config_path)
        for path, cfg in ((config_path, ppo), (ppo.trial, trial)):   # the global batch splits over the processes
            try:
                if cfg is not None:
                    prompts_per_process(cfg, spec.num_processes)
            except Rc1Error as e:
                raise Rc1Error(f"{path}: {e} ({ppo.accelerate_config} starts {spec.num_processes})") from None
    inputs = {"config": config_path, "gates": gates_path, **({"trial_config": ppo.trial} if trial else {}),
              **({"accelerate_config": ppo.accelerate_config} if ppo.accelerate_config else {})}
    with stage_run("config_check", params={"config": config_path, "mode": mode}, inputs=inputs, reuse=False) as st:
        st.log_config(ppo, Path(config_path).with_suffix(".json").name)
        st.log_config(gates.config_check, "gates_config_check.json")
        checks = config_checks(ppo, gates) + (trial_checks(ppo, trial) if trial else [])
        st.verdict(checks)
    return {"checks": checks}


def run_check_resources(path: str = ".", gates_path: str = "configs/gates.yaml", mode: str | None = None,
                        needs_accelerator: bool = False) -> dict:
    mode = mode or run_mode()
    gates = load_gates(gates_path).for_mode(mode)
    with stage_run("resources", params={"path": path, "mode": mode, "needs_accelerator": needs_accelerator},
                   reuse=False) as st:
        st.log_config(gates.resources, "gates_resources.json")
        checks = resources_checks(path, gates, needs_accelerator=needs_accelerator)
        st.log_metrics({c["name"]: c["value"] for c in checks if isinstance(c["value"], (int, float))})
        st.verdict(checks)
    return {"checks": checks}


def run_check_weights(weights_path: str = "configs/weights.json", gates_path: str = "configs/gates.yaml") -> dict:
    from rc1.reward import weights_check

    gates = load_gates(gates_path)
    weights = load_weights(weights_path)
    with stage_run("weights_check", params={"weights": weights_path}, inputs={"weights": weights_path},
                   reuse=False) as st:
        st.log_artifact(weights_path)
        st.log_config(gates.weights, "gates_weights.json")
        st.log_metrics({f"weight.{k}": v for k, v in weights.as_dict().items()})
        checks = weights_check(weights, gates)
        st.verdict(checks)
    return {"checks": checks}


@click.command("check-config")
@click.option("--config", "config_path", default=None, help="ppo config (default: ppo_scale.yaml; dev: ppo_dev.yaml)")
@click.option("--mode", type=click.Choice(["dev", "prod"]), default=None, help="default: $RUN_MODE or dev")
@gates_option
def check_config(config_path, mode, gates_path):
    """Check ppo_scale.yaml against configs/gates.yaml config_check (simulate, live mode, mix, steps, KL, seeds...)."""
    mode = mode or run_mode()
    run_check_config(config_path or default_ppo_config(mode), gates_path, mode)
    click.echo("config check passed")


@click.command("check-resources")
@click.option("--path", default=".", show_default=True, help="where checkpoints will be written")
@click.option("--mode", type=click.Choice(["dev", "prod"]), default=None)
@click.option("--needs-accelerator/--no-needs-accelerator", default=False)
@gates_option
def check_resources(path, mode, needs_accelerator, gates_path):
    """Free disk (and accelerator memory when present) against configs/gates.yaml resources."""
    run_check_resources(path, gates_path, mode, needs_accelerator)
    click.echo("resources check passed")


@click.command("check-weights")
@click.option("--weights", "weights_path", default="configs/weights.json", show_default=True)
@gates_option
def check_weights(weights_path, gates_path):
    """weights.json: non-negative, sums to 1, each at most the configured cap."""
    run_check_weights(weights_path, gates_path)
    click.echo("weights check passed")


command = [check_config, check_resources, check_weights]
