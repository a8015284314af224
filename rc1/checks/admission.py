"""What the gate flow admits before any training starts: the newest preflight of the mode, its files fetched from the
tracking server and verified, the options held to what it checked, and the config it trains (a trial, or the full
job once a trial measured it). Each answer is the inputs, or GateRefusal saying why not.

Every fact admitted on is read from a signed statement (rc1.trust.runs), checked against the trust root for the
gate's mode, never from a run's tags: the preflight's round verdicts, mode, data sources, judge, recorded
metrics and the digest of each file (which the downloads are held to), and a trial gate's verdict and projection. The
store's tags only find the runs (a tag edited there can hide a run, never admit one)."""

from __future__ import annotations

import shutil
from pathlib import Path

from rc1.core.config import GATES_PATH, Thresholds, load_thresholds
from rc1.core.ppo_config import load_ppo_config
from rc1.core.errors import Rc1Error
from rc1.checks.gate_rules import (SHA_NAMES, GateRefusal, fresh_shadow_leaks, option_problems, projection_problem,
                                  trial_problem)
from rc1.core.io import read_jsonl, why_not_a_file
from rc1.tracking.evidence import StoreSource, record
from rc1.tracking.store import default_tracking_uri, setup_tracking, shell_command
from rc1.tracking.queries import newest_preflight, newest_trial_gate
from rc1.train.units import optimizer_steps
from rc1.trust.rules import preflight_problems, round_problems
from rc1.trust.runs import SignedRun, signed_run
from rc1.trust.statements import AttestationError


def find_preflight(mode: str) -> SignedRun:
    """The newest preflight run of the mode with its statement, signed by a key the trust file (or, in dev, your dev
    key) lets attest `mode`; or GateRefusal saying why there is none the gate may use."""
    setup_tracking()
    newest = newest_preflight(mode)
    if newest is None:
        other = newest_preflight("dev" if mode == "prod" else "prod")
        hint = f" (there is a {other.data.tags.get('rc1.mode')} preflight {other.info.run_id}, which a {mode} gate never accepts)" if other else ""
        raise GateRefusal(f"no {mode} preflight in {default_tracking_uri()}{hint}; "
                          f"run `{shell_command(f'rc1 preflight --mode {mode}')}` first")
    if newest.info.status == "RUNNING":
        raise GateRefusal(f"the newest {mode} preflight {newest.info.run_id} is still running")
    if "rc1.round1_pass" not in newest.data.tags:
        raise GateRefusal(f"the newest {mode} preflight {newest.info.run_id} did not finish "
                          f"(status {newest.info.status}); run `{shell_command(f'rc1 preflight --mode {mode}')}`")
    try:
        pre = signed_run(StoreSource(), record(newest), "preflight")
    except AttestationError as e:
        raise GateRefusal(f"preflight {newest.info.run_id} cannot be used: {e}") from None
    if pre.stmt.mode != mode:   # the tag that found it says `mode`; its key signed another
        raise GateRefusal(f"preflight {newest.info.run_id} cannot be used: it is signed as a {pre.stmt.mode} run, not "
                          f"{mode} (its rc1.mode tag was edited in the store?)")
    return pre


def fetch_preflight_files(pre: SignedRun, dest: Path) -> dict[str, Path]:
    """Download every file the preflight signed from the tracking server into `dest` (emptied first), each held to
    its signed digest; a missing or altered artifact is a refusal."""
    if dest.exists():
        shutil.rmtree(dest)
    files = {}
    for name in SHA_NAMES:
        if pre.tags.get(f"sha256.{name}"):
            try:
                files[name] = pre.named_file(name, dest)
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


def checked_inputs(pre: SignedRun, mode: str, config_path: str | None, gates_path: str | None,
                   seeds: list[int] | None, workdir: Path, max_steps: int | None = None,
                   trial: bool = False) -> tuple[dict[str, Path], Thresholds, list[int]]:
    """(the preflight's files as downloaded and verified, the gates in force, the seeds to train) or GateRefusal:
    a preflight that did not pass, changed files, or options that would train with what preflight never checked.
    `pre`'s tags and metrics are its signed statement's."""
    tags = pre.tags
    problems = round_problems(tags, pre.metrics)   # say that before asking for its files
    if problems:   # what failed is in that run's one line and round<N>.json; the gate takes the newest preflight
        raise GateRefusal(f"preflight {pre.info.run_id} cannot be used: " + "; ".join(problems) + "; next: "
                          f"{shell_command(f'rc1 preflight --mode {mode}')} until it passes both rounds")
    files = fetch_preflight_files(pre, workdir / pre.info.run_id)
    if "config" not in files or "gates" not in files:
        raise GateRefusal(f"preflight {pre.info.run_id} cannot be used: it recorded no sha256 for its config/gates")
    # the default gates file counts as given when it is here: a threshold edited since preflight makes it stale
    given_gates = gates_path or (GATES_PATH if Path(GATES_PATH).is_file() else None)
    ppo = load_ppo_config(files["config"])
    # --max-steps (optimizer steps) is held to the schedule of the config that trains: with --trial, the trial config's
    trains = load_ppo_config(files["trial_config"]) if trial and ppo.trial and "trial_config" in files else ppo
    shas = {k: v for k, v in tags.items() if k.startswith("sha256.")}
    problems = option_problems({k[len("sha256."):]: v for k, v in shas.items()},
                               {"config": config_path, "gates": given_gates}, seeds, ppo.seeds,
                               mode=mode, max_steps=max_steps,
                               config_steps=optimizer_steps(trains, trains.ppo.episodes),
                               config_episodes=trains.ppo.episodes,
                               steps_of="trial config" if trains is not ppo else "checked config",
                               shell=shell_command)
    if config_path and problems and Path(config_path).is_file():
        strategy = load_ppo_config(config_path).trainer.strategy
        if strategy != ppo.trainer.strategy:
            problems.insert(0, f"trainer.strategy {strategy} (--config {config_path}) is not the strategy preflight "
                               f"checked ({ppo.trainer.strategy})")
    if mode == "prod" and not ppo.trial:   # without a trial nothing measures s/step before the full job starts
        problems.append(f"{files['config'].name} names no trial config (key `trial`): prod trains the full job only "
                        f"after its trial measured s/step within config_check.projected_days_per_seed_max")
    gates = load_thresholds(files["gates"]).for_mode(mode)
    problems += preflight_problems(dict(tags), dict(pre.metrics), gates)   # the numbers it signed
    problems += judge_problems(tags)
    if problems:
        raise GateRefusal(f"preflight {pre.info.run_id} cannot be used: " + "; ".join(problems))
    return files, gates, list(ppo.seeds)


def check_fresh(fresh_path: str, shadow: str | None, gates: Thresholds) -> None:
    """Refuse a --fresh file that is missing, malformed, or poses shadow-set questions."""
    from rc1.train.inputs import load_fresh

    if why_not_a_file(fresh_path):
        raise Rc1Error(f"--fresh {fresh_path}: {why_not_a_file(fresh_path)}")
    fresh = load_fresh(fresh_path)
    if not fresh:
        raise Rc1Error(f"--fresh {fresh_path}: no items")
    if shadow:
        leaks = fresh_shadow_leaks(fresh, read_jsonl(shadow), gates.validate_pool.leak_ngram,
                                   gates.validate_pool.leak_sim)
        if leaks:
            raise GateRefusal(f"--fresh {fresh_path}: {len(leaks)} of {len(fresh)} item(s) pose shadow-set "
                              f"questions (first: {leaks[0]}); training on them would leak the evaluation set")


def training_config(pre: SignedRun, files: dict[str, Path], trial: bool, gates: Thresholds) -> tuple[Path, list[int]]:
    """(the ppo config this gate trains, its seeds): the checked config, or with --trial the trial config it names.
    A config that names a trial trains only after a trial of the same preflight passed its evaluation and projected
    the config's time within config_check.projected_days_per_seed_max."""
    ppo = load_ppo_config(files["config"])
    if trial:
        if not ppo.trial or "trial_config" not in files:
            raise GateRefusal(f"--trial: the config preflight {pre.info.run_id} checked names no trial config")
        return files["trial_config"], list(load_ppo_config(files["trial_config"]).seeds)
    if ppo.trial:
        newest = newest_trial_gate(pre.info.run_id)
        trials = [signed_trial(newest, pre)] if newest else []
        trial_cmd = shell_command(f"rc1 gate --mode {pre.stmt.mode} --trial")
        problem = (projection_problem(trials, gates.config_check.projected_days_per_seed_max, files["config"].name,
                                      trial_cmd)
                   or trial_problem(trials, pre.info.run_id, trial_cmd))
        if problem:
            raise GateRefusal(problem)
    return files["config"], list(ppo.seeds)


def signed_trial(run, pre: SignedRun) -> dict:
    """The trial gate run as its statement signed it, {run_id, verdict, projected_days_per_seed}; GateRefusal when
    that statement does not hold or is not of a trial of this preflight in its mode (a run retagged in the store)."""
    where = f"the newest trial of preflight {pre.info.run_id}, gate run {run.info.run_id},"
    try:
        trial = signed_run(pre.source, record(run), "gate")
    except AttestationError as e:
        raise GateRefusal(f"{where} cannot be used: {e}") from None
    said = (trial.tags.get("rc1.gate_kind"), trial.tags.get("rc1.preflight_run_id"), trial.stmt.mode)
    if said != ("trial", pre.info.run_id, pre.stmt.mode):
        raise GateRefusal(f"{where} cannot be used: its statement signs a {said[0]} gate of preflight {said[1]} in "
                          f"{said[2]} (retagged in the store?)")
    return {"run_id": run.info.run_id, "verdict": trial.tags.get("rc1.rc1_verdict"),
            "projected_days_per_seed": trial.metrics.get("rc1.projected_days_per_seed")}


def training_launcher(pre, files: dict[str, Path], train_config: Path):
    """None to train in this process, or the accelerate config (as preflight hashed it, downloaded and verified) to
    train each seed through `accelerate launch` (ppo config `launcher: accelerate`)."""
    from rc1.train.launch import read_accelerate_config

    ppo = load_ppo_config(train_config)
    if ppo.launcher != "accelerate":
        return None
    if "accelerate_config" not in files:
        raise GateRefusal(f"preflight {pre.info.run_id} cannot be used: {train_config.name} trains through accelerate "
                          f"but the preflight recorded no sha256 for its accelerate config {ppo.accelerate_config}")
    return read_accelerate_config(files["accelerate_config"], owner=train_config.name)
