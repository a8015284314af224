"""What the gate runner requires of a preflight run before any training starts (pure: tags and
metrics in, reasons out; the gate and promote pass a run's signed statement's, never the store's tags). The tracking
queries live in rc1/tracking/queries.py, the signatures in rc1/tracking/attestations.py."""

from __future__ import annotations

import operator
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from rc1.core.config import Thresholds, dotted_value
from rc1.core.errors import Rc1Error
from rc1.core.io import sha256_file, why_not_a_file


class GateRefusal(Rc1Error):
    """The gate will not launch training; the message says why."""


# (round-2 metric mirrored on the preflight parent, gates section.key, comparison)
RECHECKS = [
    ("round2.validate_pool.leak_count", "validate_pool.leak_count_max", operator.le),
    ("round2.validate_pool.distinct_2", "validate_pool.distinct_2_min", operator.ge),
    ("round2.validate_pool.dup_rate", "validate_pool.dup_rate_max", operator.le),
    ("round2.shadow_run.spearman", "shadow_run.spearman_min", operator.ge),
    ("round2.shadow_run.top10pct_overlap", "shadow_run.top10pct_overlap_min", operator.ge),
    ("round2.shadow_run.corr_improve_pct", "shadow_run.corr_improve_pct_min", operator.ge),
    ("round2.shadow_run.corr_to_success_new", "shadow_run.corr_to_success_new_min", operator.ge),
]
# the files preflight hashed and logged (tags sha256.<name>, rc1.artifact.<name>); the gate trains with them, and
# rechecks the preflight's numbers from its table of round metrics (round_metrics.json)
SHA_NAMES = ("pool", "balanced", "shadow", "weights", "config", "gates", "trial_config", "accelerate_config",
             "round_metrics")
REQUIRED = ("pool", "shadow", "weights", "config", "gates")
# those that are data, as the dataset inputs of the preflight and gate runs: (name, context)
DATASETS = (("pool", "training"), ("balanced", "training"), ("shadow", "evaluation"))


def round_problems(tags: dict[str, str], metrics: dict[str, float]) -> list[str]:
    """Why this preflight run did not pass both rounds (empty list: it did)."""
    if tags.get("rc1.round2_pass") != "true" or metrics.get("round2_pass") != 1.0:
        return ["it did not pass round 1" if tags.get("rc1.round1_pass") != "true" else "it did not pass round 2"]
    return []


def preflight_problems(tags: dict[str, str], metrics: Mapping[str, float] | None, gates: Thresholds) -> list[str]:
    """Every reason this preflight run must not open the gate (empty list: it may). `metrics`: its table of round
    metrics (round_metrics.json, sha256-checked; None when it cannot be had). Its files are checked where they live,
    in the tracking server (the gate flow downloads them: rc1.checks.admission, rc1.tracking.queries)."""
    if metrics is None:
        return ["its table of round metrics (artifact round_metrics.json) is missing or does not match its sha256"]
    problems = round_problems(tags, metrics)
    if problems:
        return problems
    if tags.get("rc1.mode") == "prod":
        problems += data_source_problems(tags)
    step_flags = {k: v for k, v in metrics.items() if k.startswith("round2.") and k.endswith(".passed")}
    if not step_flags:
        problems.append("it recorded no round-2 step results")
    problems += [f"step {k[len('round2.'):-len('.passed')]} did not pass" for k, v in step_flags.items() if v != 1.0]
    waived = {w for w in tags.get("rc1.waived", "").split(",") if w and w != "none"}
    for metric, dotted, op in RECHECKS:
        step, name = metric.split(".")[1:3]
        if tags.get("rc1.mode") == "dev" and (step in waived or f"{step}.{name}" in waived
                                               or step in gates.dev_mode.waive):
            continue  # a dev preflight recorded this step as waived; prod never waives
        if metric not in metrics:
            problems.append(f"metric {metric} is missing")
            continue
        limit = dotted_value(gates, dotted)
        if not op(metrics[metric], limit):
            problems.append(f"{metric}={metrics[metric]:.4g} no longer meets {dotted}={limit}")
    problems += [f"it recorded no sha256 for the {name}" for name in REQUIRED if not tags.get(f"sha256.{name}")]
    return problems


def option_problems(shas: dict[str, str], given: dict[str, str | None], seeds: list[int] | None,
                    config_seeds: list[int], *, mode: str = "dev", max_steps: int | None = None,
                    config_steps: int | None = None, config_episodes: int | None = None,
                    steps_of: str = "checked config", shell: Callable[[str], str] = str) -> list[str]:
    """Gate options that would train with something preflight did not check: a --config/--gates file whose
    sha256 differs from the one preflight hashed (`given`: name -> local path or None when not given), --seed
    values other than the checked config's seeds, or, in prod, a --max-steps (optimizer steps) other than the
    `config_steps` the checked config's ppo.episodes make (dev keeps it for quick runs)."""
    problems = []
    if mode == "prod" and max_steps and max_steps != config_steps:
        trial = shell("rc1 gate --mode prod --trial")
        problems.append(f"--max-steps {max_steps} differs from the {config_steps} optimizer steps the {steps_of}'s "
                        f"ppo.episodes {config_episodes} make (prod trains the schedule preflight checked; a short run "
                        f"is `{trial}`)")
    for name, path in given.items():
        if path is None:
            continue
        if why_not_a_file(path):
            problems.append(f"--{name} {path}: {why_not_a_file(path)}")
        elif sha256_file(path) != shas.get(name):
            problems.append(f"--{name} {path} is not the {name} preflight checked (sha256 differs); "
                            f"rerun preflight with it: `{shell(f'rc1 preflight --mode {mode} --{name} {path}')}`")
    if seeds and sorted(set(seeds)) != sorted(set(config_seeds)):
        problems.append(f"--seed {','.join(map(str, seeds))} differs from the checked config's seeds "
                        f"{','.join(map(str, config_seeds))}")
    return problems


def data_source_problems(tags: Mapping[str, str]) -> list[str]:
    """Why a prod preflight's data disqualifies it: a task whose tag rc1.data_source.<task> is bundled (the small
    sample shipped for offline runs and tests) or builtin (synthetic data), or no such tag at all (the data's origin
    was not recorded)."""
    sources = {k[len("rc1.data_source."):]: v for k, v in tags.items() if k.startswith("rc1.data_source.")}
    if not sources:
        return ["it recorded no data source (tags rc1.data_source.<task>)"]
    return [f"its {task} data came from the {kind} source {tags.get(f'rc1.data_uri.{task}') or f'({kind})'} "
            "(prod trains only on a configured dataset)" for task, kind in sorted(sources.items())
            if kind in ("bundled", "builtin")]   # builtin: the synthetic generators of earlier versions


def fresh_shadow_leaks(fresh: Iterable[Mapping[str, Any]], shadow: Sequence[Mapping[str, Any]], ngram: int,
                       sim: float) -> list[str]:
    """Ids of the fresh training prompts that pose a shadow-set question: by id, or by the validator's leak rule
    (rc1.core.leak) on the prompt's question. Training on them would leak the evaluation set."""
    from rc1.core.leak import ShadowIndex
    from rc1.core.records import record_question, posed_question
    from rc1.core.text import guard_words

    ids = {str(r[k]) for r in shadow for k in ("id", "source_id") if r.get(k)}
    index = ShadowIndex([(str(i), record_question(dict(r))) for i, r in enumerate(shadow)], ngram=ngram, sim=sim)
    leaks = []
    for s in fresh:
        question = posed_question(s)  # type: ignore[arg-type]
        if str(s.get("source_id")) in ids or index.match(str(s["id"]), guard_words(question), question):
            leaks.append(str(s["id"]))
    return leaks


def trial_problem(trials: Sequence[Mapping[str, Any]], preflight_run_id: str,
                  trial_cmd: str = "rc1 gate --trial") -> str | None:
    """Why full training may not start yet (None: the newest trial gate run of this preflight passed its evaluation;
    an older pass does not count, or trials could be rerun until one passes by chance).
    `trials`: the finished trial gate runs of that preflight, newest first, as {run_id, verdict}."""
    if trials and trials[0]["verdict"] == "pass":
        return None
    if not trials:
        return (f"full training needs a passing trial of preflight {preflight_run_id}, and there is none: "
                f"run `{trial_cmd}` first")
    return (f"full training needs a passing trial of preflight {preflight_run_id}: the newest trial, gate run "
            f"{trials[0]['run_id']}, did not pass its evaluation (verdict {trials[0]['verdict'] or 'none'})")


def projection_problem(trials: Sequence[Mapping[str, Any]], max_days: float, config_name: str,
                       trial_cmd: str = "rc1 gate --trial") -> str | None:
    """Why the full config may not train on its projected time (None: the newest trial, the one whose verdict counts
    in trial_problem, measured its s/step and projects at most `max_days` days per seed). `trials` as in
    trial_problem."""
    if not trials:
        return None
    t = trials[0]
    if t.get("projected_days_per_seed") is None:
        return (f"the newest trial of this preflight, gate run {t['run_id']}, recorded no rc1.projected_days_per_seed "
                f"(it measured no s/step); rerun `{trial_cmd}`")
    if not t["projected_days_per_seed"] <= max_days:   # NaN (a projection that measured nothing) is no pass
        return (f"{config_name} would take {t['projected_days_per_seed']:.3g} days per seed at the s/step trial gate "
                f"run {t['run_id']} measured, above config_check.projected_days_per_seed_max {max_days:g} (a faster "
                f"rollout backend, fewer steps or fewer rollout tokens per step)")
    return None
