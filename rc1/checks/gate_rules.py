"""What the gate runner requires of its options and inputs before any training starts (pure: facts in, reasons out).
What a preflight must hold to be trusted at all (its rounds, data sources, rechecked numbers) is the trust room's
(rc1.trust.rules), which the gate admission and the chain check both apply to a signed statement's facts."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from rc1.core.config import Thresholds
from rc1.core.errors import Rc1Error
from rc1.core.io import sha256_file, why_not_a_file


class GateRefusal(Rc1Error):
    """The gate will not launch training; the message says why."""


# the files preflight hashed and logged (tags sha256.<name>, rc1.artifact.<name>); the gate trains with them, and
# rechecks the preflight's numbers from its table of round metrics (round_metrics.json)
SHA_NAMES = ("pool", "balanced", "shadow", "weights", "config", "gates", "trial_config", "accelerate_config",
             "round_metrics")
# those that are data, as the dataset inputs of the preflight and gate runs: (name, context)
DATASETS = (("pool", "training"), ("balanced", "training"), ("shadow", "evaluation"))


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
