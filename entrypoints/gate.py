"""`mlflow run . -e gate -P mode=dev|prod` / `rc1 gate --mode ...`: the gate runner.

It asks the tracking server (embedded store or `mlflow server` over HTTP) for the newest preflight of
the mode and downloads the files that preflight hashed (pool, balanced pool, shadow set, weights, ppo config,
gates) from the server, so preflight may have run in another directory or on another machine. It refuses
unless that run passed round 2, every downloaded file matches the sha256 the preflight recorded, its metrics
still satisfy the gates, and --config/--gates/--seed (when given) are what preflight checked; then it trains
one child run per seed with exactly those files and evaluates the registered `best` version, all as children
of the gate run.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import click

from entrypoints._common import INT, optional_param

from rc1.chain import target_alias
from rc1.config import Gates, load_gates, load_ppo_scale
from rc1.errors import Rc1Error
from rc1.io import read_jsonl
from rc1.gate import (SHA_NAMES, GateRefusal, fresh_shadow_leaks, option_problems, preflight_problems,
                      projection_problem, round_problems, trial_problem)
from rc1.tracking import default_tracking_uri, gate_launch_env, stage_run, setup_tracking
from rc1.tracking.queries import fetch_verified, newest_preflight, trial_gates
from rc1.tracking.registry import BEST, TRIAL_BEST

GATES_FILE = "configs/gates.yaml"


def find_preflight(mode: str):
    """The newest preflight run of the mode, or GateRefusal saying why there is none the gate may use."""
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
    return newest


def fetch_preflight_files(pre, dest: Path) -> dict[str, Path]:
    """Download every file the preflight hashed from the tracking server into `dest` (emptied first) and check
    each against the sha256 the preflight recorded; a missing or altered artifact is a refusal."""
    if dest.exists():
        shutil.rmtree(dest)
    files = {}
    for name in SHA_NAMES:
        if pre.data.tags.get(f"sha256.{name}"):
            try:
                files[name] = fetch_verified(pre, name, dest)
            except Rc1Error as e:
                raise GateRefusal(f"preflight {pre.info.run_id} cannot be used: {e}") from None
    return files


def judge_problems(tags: dict[str, str]) -> list[str]:
    """The judge configured now (the training reward's) must be the one preflight's rounds checked
    (rc1.scoring.identity): a shadow run and an attack suite passed by another judge say nothing about this one."""
    from rc1.scoring.identity import JUDGE_TAG, identity_digest
    from rc1.scoring.judge import make_judge

    try:
        now = identity_digest(make_judge(cache=False).identity())
    except Rc1Error as e:
        return [f"the judge configured now cannot be built ({e})"]
    if tags.get(JUDGE_TAG) != now:
        return ["it checked another judge than the one configured now (endpoint, model, sampling or spec version "
                "differ; tag rc1.judge_identity): rerun preflight with the judge that trains"]
    return []


def checked_inputs(pre, mode: str, config_path: str | None, gates_path: str | None,
                   seeds: list[int] | None, workdir: Path, max_steps: int | None = None,
                   trial: bool = False) -> tuple[dict[str, Path], Gates, list[int]]:
    """(the preflight's files as downloaded and verified, the gates in force, the seeds to train) or GateRefusal:
    a preflight that did not pass, changed files, or options that would train with what preflight never checked."""
    tags = pre.data.tags
    problems = round_problems(tags, pre.data.metrics)   # say that before asking for its files
    if problems:
        raise GateRefusal(f"preflight {pre.info.run_id} cannot be used: " + "; ".join(problems))
    files = fetch_preflight_files(pre, workdir / pre.info.run_id)
    if "config" not in files or "gates" not in files:
        raise GateRefusal(f"preflight {pre.info.run_id} cannot be used: it recorded no sha256 for its config/gates")
    # the default gates file counts as given when it is here: a threshold edited since preflight makes it stale
    given_gates = gates_path or (GATES_FILE if Path(GATES_FILE).is_file() else None)
    ppo = load_ppo_scale(files["config"])
    # --max-steps is held to the schedule of the config that trains: with --trial, the trial config's
    trains = load_ppo_scale(files["trial_config"]) if trial and ppo.trial and "trial_config" in files else ppo
    shas = {k: v for k, v in tags.items() if k.startswith("sha256.")}
    problems = option_problems({k[len("sha256."):]: v for k, v in shas.items()},
                               {"config": config_path, "gates": given_gates}, seeds, ppo.seeds,
                               mode=mode, max_steps=max_steps, config_steps=trains.ppo.steps,
                               steps_of="trial config" if trains is not ppo else "checked config")
    if config_path and problems and Path(config_path).is_file():
        strategy = load_ppo_scale(config_path).trainer.strategy
        if strategy != ppo.trainer.strategy:
            problems.insert(0, f"trainer.strategy {strategy} (--config {config_path}) is not the strategy preflight "
                               f"checked ({ppo.trainer.strategy})")
    if mode == "prod" and not ppo.trial:   # without a trial nothing measures s/step before the full job starts
        problems.append(f"{files['config'].name} names no trial config (key `trial`): prod trains the full job only "
                        f"after its trial measured s/step within config_check.projected_days_per_seed_max")
    gates = load_gates(files["gates"]).for_mode(mode)
    problems += preflight_problems(tags, pre.data.metrics, gates)
    problems += judge_problems(tags)
    if problems:
        raise GateRefusal(f"preflight {pre.info.run_id} cannot be used: " + "; ".join(problems))
    return files, gates, list(ppo.seeds)


def check_fresh(fresh_path: str, shadow: str | None, gates: Gates) -> None:
    """Refuse a --fresh file that is missing, malformed, or poses shadow-set questions."""
    from rc1.train.inputs import load_fresh

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


def training_config(pre, files: dict[str, Path], trial: bool, gates: Gates) -> tuple[Path, list[int]]:
    """(the ppo config this gate trains, its seeds): the checked config, or with --trial the trial config it names.
    A config that names a trial trains only after a trial of the same preflight passed its evaluation and projected
    the config's time within config_check.projected_days_per_seed_max."""
    ppo = load_ppo_scale(files["config"])
    if trial:
        if not ppo.trial or "trial_config" not in files:
            raise GateRefusal(f"--trial: the config preflight {pre.info.run_id} checked names no trial config")
        return files["trial_config"], list(load_ppo_scale(files["trial_config"]).seeds)
    if ppo.trial:
        trials = trial_gates(pre.info.run_id)
        problem = (projection_problem(trials, gates.config_check.projected_days_per_seed_max, files["config"].name)
                   or trial_problem(trials, pre.info.run_id))
        if problem:
            raise GateRefusal(problem)
    return files["config"], list(ppo.seeds)


def training_launcher(pre, files: dict[str, Path], train_config: Path):
    """None to train in this process, or the accelerate config (as preflight hashed it, downloaded and verified) to
    train each seed through `accelerate launch` (ppo config `launcher: accelerate`)."""
    from rc1.launch import read_accelerate_config

    ppo = load_ppo_scale(train_config)
    if ppo.launcher != "accelerate":
        return None
    if "accelerate_config" not in files:
        raise GateRefusal(f"preflight {pre.info.run_id} cannot be used: {train_config.name} trains through accelerate "
                          f"but the preflight recorded no sha256 for its accelerate config {ppo.accelerate_config}")
    return read_accelerate_config(files["accelerate_config"], owner=train_config.name)


def run_gate(mode: str = "dev", config_path: str | None = None, gates_path: str | None = None,
             max_steps: int | None = None, seeds: list[int] | None = None, evaluate: bool = True,
             fresh_path: str | None = None, workdir: str | Path = "out/gate", trial: bool = False) -> dict:
    """Train each seed of the config preflight checked (or, with `trial`, of the trial config it names), with the
    files preflight hashed, fetched from the tracking server (so preflight may have run on another machine); then
    evaluate `best`."""
    world = os.environ.get("WORLD_SIZE", "1")
    if world != "1":   # every process would open its own gate run, train and evaluate: N gates, N evaluate runs
        raise Rc1Error(f"rc1 gate runs as one process (WORLD_SIZE={world} here): it launches each seed's training "
                       f"itself (ppo config launcher: accelerate); run `rc1 gate`, not under accelerate launch/torchrun")
    from rc1.launch import launch_train
    from rc1.stages import evaluate as evaluate_stage, train
    from rc1.train.engine import rollout_plan
    from rc1.train.projection import project

    os.environ["RUN_MODE"] = mode
    if mode == "dev":
        os.environ.setdefault("SCORER_PROVIDER", "heuristic")
        os.environ.setdefault("REWARD_LIVE_MODE", "0")
    pre = find_preflight(mode)
    files, gates, seeds = checked_inputs(pre, mode, config_path, gates_path, seeds, Path(workdir), max_steps,
                                         trial)
    train_config, train_seeds = training_config(pre, files, trial, gates)
    seeds = train_seeds if trial else seeds
    launcher = training_launcher(pre, files, train_config)
    rollout_plan(load_ppo_scale(train_config), mode)   # vLLM without CUDA/vllm in prod: refused before any training
    kind = "trial" if trial else "full"
    pool = files.get("balanced") or files["pool"]
    shadow = str(files["shadow"]) if "shadow" in files else None
    link = {"rc1.preflight_run_id": pre.info.run_id, "rc1.gate_kind": kind}
    if fresh_path:
        check_fresh(fresh_path, shadow, gates)
    params = {"mode": mode, "config": str(train_config), "seeds": seeds, "max_steps": max_steps,
              "preflight_run_id": pre.info.run_id, "fresh": fresh_path or "", "kind": kind}
    # the fresh prompts' sha256 as checked (input_sha256.fresh): promote holds each train run's to it
    with stage_run("gate", params=params, inputs={"fresh": fresh_path} if fresh_path else None, reuse=False,
                   tags={**link, "rc1.mode": mode}) as g:
        click.echo(f"[rc1{' DEV' if mode == 'dev' else ''}] gate: preflight {pre.info.run_id} passed; its files "
                   f"match their sha256 in the tracking server; training {len(seeds)} seed(s)", err=True)
        g.log_config(gates, "gates_effective.json")
        link["rc1.gate_run_id"] = g.run_id
        trained = []
        for seed in seeds:
            if launcher:   # `accelerate launch ... rc1 train` with the accelerate config preflight hashed
                res = launch_train(launcher, str(train_config), seed, str(pool), env=gate_launch_env(),
                                   max_steps=max_steps,
                                   fresh_path=fresh_path, weights_path=str(files["weights"]),
                                   gates_path=str(files["gates"]))
            else:
                res = train.run(train.Config(config=str(train_config), seed=seed, pool=str(pool), max_steps=max_steps,
                                             fresh=fresh_path, weights=str(files["weights"]),
                                             gates=str(files["gates"])), parent_tags=link)
            trained.append(res)
            g.log_metrics({f"heldout_reward.seed_{seed}": res.get("best_reward")})
        g.log_json({"preflight_run_id": pre.info.run_id, "trained": trained}, "gate_summary.json")
        measured = [r["sec_per_step"] for r in trained if r.get("sec_per_step")]
        if measured:   # the full config's job at the s/step this gate measured (rc1.train.projection)
            proj = project(load_ppo_scale(files["config"]), load_ppo_scale(train_config),
                           sum(measured) / len(measured), launcher.num_processes if launcher else 1)
            g.log_metrics(proj.metrics())
            click.echo(f"[rc1{' DEV' if mode == 'dev' else ''}] projected {proj.line(files['config'].name)}", err=True)
        result = {"run_id": g.run_id, "preflight_run_id": pre.info.run_id, "trained": trained}
        if evaluate:
            # the RC1 verdict is recorded on the evaluate run and decides `promote`; the gate itself
            # succeeded once training ran, so a failing verdict is reported, not raised
            # a trial gate's versions register under `trial-best` (rc1.tracking.registry), never `best`
            ev = evaluate_stage.run(evaluate_stage.Config(alias=TRIAL_BEST if trial else BEST, shadow=shadow or "auto",
                                                          gates=str(files["gates"])),
                                    parent_tags=link, raise_on_fail=False)
            result["evaluate"] = ev
            g.log_metrics(gate_summary_metrics(ev))
            g.set_tags({"rc1.evaluated_version": ev.get("version"), "rc1.rc1_verdict": "pass" if ev.get("passed") else "fail"})
            click.echo(f"[rc1{' DEV' if mode == 'dev' else ''}] evaluate: version {ev.get('version')} "
                       f"{'meets' if ev.get('passed') else 'does not meet'} the RC1 gates "
                       + ("(a trial version: alias trial-best, never promoted)" if trial else
                          f"(`rc1 promote --alias best` {'may set' if ev.get('passed') else 'will refuse'} "
                          f"{target_alias(mode)})"), err=True)
    if (result.get("evaluate") or {}).get("run_id"):   # the gate has ended: the report's chain, final
        from rc1.report import refresh_rc1_report

        refresh_rc1_report(result["evaluate"]["run_id"])
    # the preflight's files as this gate downloaded them (a dev pool twice: 162 MB of a 703 MB dev run): they stay in
    # the tracking server, and the next gate downloads and verifies them again
    shutil.rmtree(Path(workdir) / pre.info.run_id, ignore_errors=True)
    click.echo(gate_summary(result, mode, trial), err=True)
    return result


def gate_summary(result: dict, mode: str, trial: bool) -> str:
    """The gate's closing lines: the versions, which took `best` (or `trial-best`) and why, the verdict, the UI."""
    from rc1 import summary
    from rc1.tracking import ui_hint, ui_url
    from rc1.tracking.registry import MODEL_NAME, alias_version

    alias = TRIAL_BEST if trial else BEST
    ev = result.get("evaluate") or {}
    holder = ev.get("version") or getattr(alias_version(alias), "version", None)
    lines = [summary.registered_line(result["trained"], MODEL_NAME),
             summary.best_line(result["trained"], holder, alias=alias),
             summary.verdict_line(ev.get("passed") if ev else None, ev.get("checks") or (), mode)]
    if ev and not trial:
        lines.append(f"next: rc1 promote --alias {alias}" + ("" if ev.get("passed") else
                                                             " (it will refuse: the verdict is FAIL)"))
    return summary.render(f"gate {result['run_id']} ({mode})", lines, ui_url(result["run_id"]), ui_hint())


def gate_summary_metrics(ev: dict) -> dict[str, float]:
    """What the gate run shows in the runs table: the RC1 verdict as 1/0 and the evaluation's deltas (policy minus
    base, in percentage points unless named otherwise); the per-seed held-out rewards are logged as each seed ends."""
    deltas = (ev.get("report") or {}).get("deltas") or {}
    out = {"rc1_verdict": 1.0 if ev.get("passed") else 0.0}
    out.update({f"delta.{k}": v for k, v in deltas.items() if isinstance(v, (int, float))})
    return out


@click.command("gate")
@click.option("--mode", type=click.Choice(["dev", "prod"]), default=lambda: os.environ.get("RUN_MODE", "dev"),
              show_default="$RUN_MODE or dev")
@click.option("--config", "config_path", default=None,
              help="ppo config (default: the one preflight checked; another one is refused unless its sha256 matches)")
@click.option("--gates", "gates_path", default=None,
              help="gates file (default: configs/gates.yaml when present, else the one preflight checked; "
                   "refused unless its sha256 matches preflight's)")
@click.option("--max-steps", "--max_steps", "max_steps", type=INT, default=None,
              help="cap training steps per seed (0 or unset: the config's ppo.steps)")
@click.option("--seed", "seeds", type=INT, multiple=True,
              help="the seeds to train: refused unless they are the checked config's seeds (default: those)")
@click.option("--evaluate/--no-evaluate", default=True, show_default=True)
@click.option("--trial", type=click.BOOL, is_flag=False, flag_value=True, default=False, show_default=True,
              help="train the small-step trial config that the checked config names (ppo config key `trial`)")
@click.option("--fresh", "fresh_path", default=None,
              help="task records (JSONL) for the non-pool share of every seed's training; default: filled from "
                   "the pool (logged as rc1.sample.pool_fill)")
def command(mode, config_path, gates_path, max_steps, seeds, evaluate, trial, fresh_path):
    """Refuse unless a passing, unchanged preflight is in the tracking store; then train each seed and evaluate."""
    try:
        run_gate(mode, config_path, gates_path, max_steps or None, list(seeds) or None, evaluate,
                 optional_param(fresh_path), trial=trial)
    except GateRefusal as e:
        raise Rc1Error(f"gate refused: {e}") from None
