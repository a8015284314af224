"""`mlflow run . -e gate -P mode=dev|prod` / `rc1 gate --mode ...`: the gate runner.

It asks the tracking server (embedded store or `mlflow server` over HTTP) for the newest preflight of
the mode, refuses unless that run passed round 2, its metrics still satisfy configs/gates.yaml and
every sha256 it recorded matches the file on disk; then it trains one child run per seed of the
ppo config and evaluates the registered `best` version, all as children of the gate run.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from entrypoints._common import INT, optional_param

from entrypoints.checks import default_ppo_config
from rc1.config import Gates, load_gates, load_ppo_scale
from rc1.errors import Rc1Error
from rc1.io import read_jsonl
from rc1.gate import GateRefusal, fresh_shadow_leaks, preflight_problems
from rc1.tracking import default_tracking_uri, stage_run, setup_tracking
from rc1.tracking.queries import newest_preflight


def find_preflight(mode: str, gates: Gates):
    """The preflight run the gate may build on, or GateRefusal saying why not."""
    setup_tracking()
    newest = newest_preflight(mode)
    if newest is None:
        other = newest_preflight("dev" if mode == "prod" else "prod")
        hint = f" (there is a {other.data.tags.get('rc1.mode')} preflight {other.info.run_id}, which a {mode} gate never accepts)" if other else ""
        raise GateRefusal(f"no {mode} preflight in {default_tracking_uri()}{hint}; "
                          f"run `mlflow run . -e preflight -P mode={mode} --env-manager local` first")
    if newest.info.status == "RUNNING":
        raise GateRefusal(f"the newest {mode} preflight {newest.info.run_id} is still running")
    if "rc1.round1_pass" not in newest.data.tags:
        raise GateRefusal(f"the newest {mode} preflight {newest.info.run_id} did not finish "
                          f"(status {newest.info.status}); rerun preflight")
    problems = preflight_problems(newest.data.tags, newest.data.metrics, gates, files_on_disk=True)
    if problems:
        raise GateRefusal(f"preflight {newest.info.run_id} cannot be used: " + "; ".join(problems))
    return newest


def check_fresh(fresh_path: str, shadow: str | None, gates: Gates) -> None:
    """Refuse a --fresh file that is missing, malformed, or poses shadow-set questions."""
    from entrypoints.train import load_fresh

    if not Path(fresh_path).is_file():
        raise Rc1Error(f"--fresh {fresh_path}: file not found")
    fresh = load_fresh(fresh_path)
    if not fresh:
        raise Rc1Error(f"--fresh {fresh_path}: no items")
    if shadow:
        leaks = fresh_shadow_leaks(fresh, read_jsonl(shadow), gates.validate_pool.leak_ngram,
                                   gates.validate_pool.leak_sim)
        if leaks:
            raise GateRefusal(f"--fresh {fresh_path}: {len(leaks)} of {len(fresh)} item(s) pose shadow-set "
                              f"questions (first: {leaks[0]}); training on them would leak the evaluation set")


def run_gate(mode: str = "dev", config_path: str | None = None, gates_path: str = "configs/gates.yaml",
             max_steps: int | None = None, seeds: list[int] | None = None, evaluate: bool = True,
             fresh_path: str | None = None) -> dict:
    from entrypoints.evaluate import run_evaluate
    from entrypoints.train import run_train

    os.environ["RUN_MODE"] = mode
    if mode == "dev":
        os.environ.setdefault("SCORER_PROVIDER", "heuristic")
        os.environ.setdefault("REWARD_LIVE_MODE", "0")
    gates = load_gates(gates_path).for_mode(mode)
    pre = find_preflight(mode, gates)
    tags = pre.data.tags
    config_path = config_path or tags.get("rc1.path.config") or default_ppo_config(mode)
    ppo = load_ppo_scale(config_path)
    seeds = seeds or ppo.seeds
    pool = tags.get("rc1.path.balanced") or tags["rc1.path.pool"]
    shadow = tags.get("rc1.path.shadow")
    link = {"rc1.preflight_run_id": pre.info.run_id}
    if fresh_path:
        check_fresh(fresh_path, shadow, gates)
    params = {"mode": mode, "config": config_path, "seeds": seeds, "max_steps": max_steps,
              "preflight_run_id": pre.info.run_id, "fresh": fresh_path or ""}
    with stage_run("gate", params=params, reuse=False, tags={**link, "rc1.mode": mode}) as g:
        click.echo(f"[rc1{' DEV' if mode == 'dev' else ''}] gate: preflight {pre.info.run_id} passed; "
                   f"training {len(seeds)} seed(s)", err=True)
        g.log_config(gates, "gates_effective.json")
        g.log_config(ppo, "ppo.json")
        link["rc1.gate_run_id"] = g.run_id
        trained = []
        for seed in seeds:
            res = run_train(config_path, seed=seed, pool_path=pool, max_steps=max_steps, parent_tags=link,
                            fresh_path=fresh_path)
            trained.append(res)
        g.log_json({"preflight_run_id": pre.info.run_id, "trained": trained}, "gate_summary.json")
        result = {"run_id": g.run_id, "preflight_run_id": pre.info.run_id, "trained": trained}
        if evaluate:
            # the RC1 verdict is recorded on the evaluate run and decides `promote`; the gate itself
            # succeeded once training ran, so a failing verdict is reported, not raised
            ev = run_evaluate(alias="best", shadow=shadow, parent_tags=link, raise_on_fail=False)
            result["evaluate"] = ev
            g.set_tags({"rc1.evaluated_version": ev.get("version"), "rc1.rc1_verdict": "pass" if ev.get("passed") else "fail"})
            click.echo(f"[rc1{' DEV' if mode == 'dev' else ''}] evaluate: version {ev.get('version')} "
                       f"{'meets' if ev.get('passed') else 'does not meet'} the RC1 gates "
                       f"(`rc1 promote --alias best` {'will set' if ev.get('passed') else 'will refuse'} RC1)", err=True)
    return result


@click.command("gate")
@click.option("--mode", type=click.Choice(["dev", "prod"]), default=lambda: os.environ.get("RUN_MODE", "dev"),
              show_default="$RUN_MODE or dev")
@click.option("--config", "config_path", default=None, help="ppo config (default: the one preflight checked)")
@click.option("--gates", "gates_path", default="configs/gates.yaml", show_default=True)
@click.option("--max-steps", "--max_steps", "max_steps", type=INT, default=None,
              help="cap training steps per seed (0 or unset: the config's ppo.steps)")
@click.option("--seed", "seeds", type=INT, multiple=True, help="train only these seeds (default: the config's seeds)")
@click.option("--evaluate/--no-evaluate", default=True, show_default=True)
@click.option("--fresh", "fresh_path", default=None,
              help="task records (JSONL) for the non-pool share of every seed's training; default: filled from "
                   "the pool (logged as sample/pool_fill)")
def command(mode, config_path, gates_path, max_steps, seeds, evaluate, fresh_path):
    """Refuse unless a passing, unchanged preflight is in the tracking store; then train each seed and evaluate."""
    try:
        run_gate(mode, config_path, gates_path, max_steps or None, list(seeds) or None, evaluate,
                 optional_param(fresh_path))
    except GateRefusal as e:
        raise Rc1Error(f"gate refused: {e}") from None
