"""`mlflow run . -e gate -P mode=dev|prod` / `rc1 gate --mode ...`: the gate runner.

It asks the tracking server (embedded store or `mlflow server` over HTTP) for the newest preflight of
the mode and downloads the files that preflight hashed (pool, balanced pool, shadow set, weights, ppo config,
gates) from the server, so preflight may have run in another directory or on another machine. It refuses
unless that run's signed statement verifies under the local trust file for the mode and says it passed round 2,
every downloaded file matches the sha256 that statement signed, its signed metrics still satisfy the gates, and
--config/--gates/--seed (when given) are what preflight checked (rc1.checks.admission; a trial gate's verdict and
projection are read from its signed statement too); then it trains
one child run per seed with exactly those files and evaluates the registered `best` version, all as children
of the gate run.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import click

from rc1.checks.admission import check_fresh, checked_inputs, find_preflight, training_config, training_launcher
from rc1.release.chain import target_alias
from rc1.cli.options import arg
from rc1.core.ppo_config import load_ppo_config
from rc1.core.errors import Rc1Error
from rc1.checks.gate_rules import DATASETS, GateRefusal
from rc1.stages import evaluate, train
from rc1.core.settings import configured
from rc1.flows.step import Step
from rc1.stages.shared import Freshened, Judged, Moded, StepCapped, SystemMetered
from rc1.tracking import stage_run
from rc1.tracking.gate_launch import gate_launch_env
from rc1.tracking.registry import BEST, TRIAL_BEST


@dataclass
class Config(Moded, Judged, StepCapped, Freshened, SystemMetered):
    """Refuse unless a passing, unchanged preflight is in the tracking store; then train each seed and evaluate."""

    config: str | None = arg(None, "ppo config (default: the one preflight checked; another one is refused unless "
                                   "its sha256 matches)")
    gates: str | None = arg(None, "gates file (default: configs/gates.yaml when present, else the one preflight "
                                  "checked; refused unless its sha256 matches preflight's)")
    seeds: tuple[int, ...] = arg((), "the seeds to train: refused unless they are the checked config's seeds "
                                     "(default: those)", flag="--seed")
    evaluate: bool = arg(True, "evaluate `best` once every seed trained")
    trial: bool = arg(False, "train the small-step trial config that the checked config names (ppo config key "
                             "`trial`)")


# the gate's steps: each seed's training (in this process, or each process of `accelerate launch`), then `best`'s
# evaluation; the ppo config evaluate reads is the evaluated version's own
TRAIN = Step(train)
EVALUATE = Step(evaluate, not_shared=("config",))


@configured
def run(cfg: Config, workdir: str | Path = "out/gate") -> dict:
    """Train each seed of the config preflight checked (or, with `trial`, of the trial config it names), with the
    files preflight hashed, fetched from the tracking server (so preflight may have run on another machine); then
    evaluate `best`. GateRefusal (exit 2, "gate refused: ...") when the preflight cannot be used."""
    try:
        return _gate(cfg, Path(workdir))
    except GateRefusal as e:
        raise Rc1Error(f"gate refused: {e}") from None


def _gate(cfg: Config, workdir: Path) -> dict:
    mode, config_path, gates_path, trial, fresh_path = cfg.mode, cfg.config, cfg.gates, cfg.trial, cfg.fresh
    max_steps, seeds = cfg.max_steps or None, list(cfg.seeds) or None
    world = os.environ.get("WORLD_SIZE", "1")
    if world != "1":   # every process would open its own gate run, train and evaluate: N gates, N evaluate runs
        raise Rc1Error(f"rc1 gate runs as one process (WORLD_SIZE={world} here): it launches each seed's training "
                       f"itself (ppo config launcher: accelerate); run `rc1 gate`, not under accelerate launch/torchrun")
    from rc1.train.launch import launch_train
    from rc1.train.engine import rollout_plan
    from rc1.train.projection import project
    from rc1.generation.device import device

    pre = find_preflight(mode)
    files, gates, seeds = checked_inputs(pre, mode, config_path, gates_path, seeds, workdir, max_steps,
                                         trial)
    train_config, train_seeds = training_config(pre, files, trial, gates)
    seeds = train_seeds if trial else seeds
    launcher = training_launcher(pre, files, train_config)
    rollout_plan(load_ppo_config(train_config), mode)   # vLLM without CUDA/vllm in prod: refused before any training
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
                   tags={**link, "rc1.mode": mode}, attest=True) as g:
        click.echo(f"[rc1{' DEV' if mode == 'dev' else ''}] gate: preflight {pre.info.run_id} passed (signed by "
                   f"{pre.stmt.key.name}); its files match the sha256 it signed; training {len(seeds)} seed(s)", err=True)
        g.log_config(gates, "gates_effective.json")
        for name, context in DATASETS:   # the preflight's files this gate trains and evaluates on
            if name in files:
                g.log_dataset(files[name], name, context, pre.tags.get(f"sha256.{name}"))
        link["rc1.gate_run_id"] = g.run_id
        trained = []
        for seed in seeds:
            own = {"config": str(train_config), "seed": seed, "pool": str(pool), "weights": str(files["weights"]),
                   "gates": str(files["gates"])}
            if launcher:   # `accelerate launch ... rc1 train` with the accelerate config preflight hashed
                res = launch_train(launcher, TRAIN.config(cfg, **own), env=gate_launch_env())
            else:
                res = TRAIN.run(cfg, run_kwargs={"parent_tags": link}, **own)
            trained.append(res)
            g.log_metrics({f"heldout_reward.seed_{seed}": res.get("best_reward")})
        g.log_json({"preflight_run_id": pre.info.run_id, "trained": trained}, "gate_summary.json")
        measured = [r["sec_per_step"] for r in trained if r.get("sec_per_step")]
        projected = None
        if measured:   # the full config's job at the s/step this gate measured (rc1.train.projection)
            proj = project(load_ppo_config(files["config"]), load_ppo_config(train_config),
                           sum(measured) / len(measured), launcher.num_processes if launcher else 1,
                           device=device().kind)
            g.log_metrics(proj.metrics())
            projected = proj.line(files["config"].name)
            click.echo(f"[rc1{' DEV' if mode == 'dev' else ''}] projected {projected}", err=True)
        result = {"run_id": g.run_id, "preflight_run_id": pre.info.run_id, "trained": trained, "projected": projected}
        if cfg.evaluate:
            # the RC1 verdict is recorded on the evaluate run and decides `promote`; the gate itself
            # succeeded once training ran, so a failing verdict is reported, not raised
            # a trial gate's versions register under `trial-best` (rc1.tracking.registry), never `best`
            ev = EVALUATE.run(cfg, alias=TRIAL_BEST if trial else BEST, shadow=shadow or "auto",
                              gates=str(files["gates"]), run_kwargs={"parent_tags": link, "raise_on_fail": False})
            result["evaluate"] = ev
            g.log_metrics(gate_summary_metrics(ev))
            g.set_tags({"rc1.evaluated_version": ev.get("version"), "rc1.rc1_verdict": "pass" if ev.get("passed") else "fail"})
            click.echo(f"[rc1{' DEV' if mode == 'dev' else ''}] evaluate: version {ev.get('version')} "
                       f"{'meets' if ev.get('passed') else 'does not meet'} the RC1 gates "
                       + ("(a trial version: alias trial-best, never promoted)" if trial else
                          f"(`rc1 promote --alias best` {'may set' if ev.get('passed') else 'will refuse'} "
                          f"{target_alias(mode)})"), err=True)
    if (result.get("evaluate") or {}).get("run_id"):   # the gate has ended: the report's chain, final
        from rc1.release.rc1_report import refresh_rc1_report

        refresh_rc1_report(result["evaluate"]["run_id"])
    # the preflight's files as this gate downloaded them (a dev pool twice: 162 MB of a 703 MB dev run): they stay in
    # the tracking server, and the next gate downloads and verifies them again
    shutil.rmtree(workdir / pre.info.run_id, ignore_errors=True)
    click.echo(gate_summary(result, mode, trial), err=True)
    return result


def gate_summary(result: dict, mode: str, trial: bool) -> str:
    """The gate's closing lines: the versions, which took `best` (or `trial-best`) and why, the verdict, the UI."""
    from rc1.core import summary
    from rc1.release.rc1_report import report_line
    from rc1.tracking.store import shell_command
    from rc1.tracking.ui import ui_hint, ui_url
    from rc1.tracking.registry import MODEL_NAME, alias_version

    alias = TRIAL_BEST if trial else BEST
    ev = result.get("evaluate") or {}
    holder = ev.get("version") or getattr(alias_version(alias), "version", None)
    lines = [summary.registered_line(result["trained"], MODEL_NAME),
             summary.best_line(result["trained"], holder, alias=alias),
             summary.verdict_line(ev.get("passed") if ev else None, ev.get("checks") or (), mode)]
    if result.get("projected"):   # the full job at this gate's measured s/step, in episodes and optimizer steps
        lines.append(f"projected {result['projected']}")
    if ev.get("run_id"):   # the evaluate run's page: verdict, policy vs base, curves, sample dialogues, the chain
        lines.append(report_line(ev["run_id"]))
    if ev and not trial:
        lines.append(f"next: {shell_command(f'rc1 promote --alias {alias}')}" + ("" if ev.get("passed") else
                                                             " (it will refuse: the verdict is FAIL)"))
    return summary.render(f"gate {result['run_id']} ({mode})", lines, ui_url(result["run_id"]), ui_hint())


def gate_summary_metrics(ev: dict) -> dict[str, float]:
    """What the gate run shows in the runs table: the RC1 verdict as 1/0 and the evaluation's deltas (policy minus
    base, in percentage points unless named otherwise); the per-seed held-out rewards are logged as each seed ends."""
    deltas = (ev.get("report") or {}).get("deltas") or {}
    out = {"rc1_verdict": 1.0 if ev.get("passed") else 0.0}
    out.update({f"delta.{k}": v for k, v in deltas.items() if isinstance(v, (int, float))})
    return out

