"""Preflight's own checks (config, resources) and how a round's step results become one verdict.

A check is {name, value, threshold, pass}. Dev mode may waive named checks (configs/gates.yaml
dev_mode.waive: a step name waives the whole step, "step.check" one check); a waived check keeps its
real value and pass=false and gains waived=true, so nothing pretends to have passed.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rc1.core.config import Thresholds, dotted_value
from rc1.core.ppo_config import PPOConfig
from rc1.core.summary import check


def config_checks(ppo: PPOConfig, gates: Thresholds) -> list[dict]:
    g = gates.config_check
    mix_ok = set(ppo.mix) == set(g.mix) and all(abs(ppo.mix[k] - g.mix[k]) < 1e-6 for k in g.mix)
    return [
        check("simulate", ppo.simulate, False, ppo.simulate is False),
        check("live_mode", ppo.live_mode, True, ppo.live_mode is True),
        check("mix", ppo.mix, g.mix, mix_ok),
        check("episodes", ppo.ppo.episodes, f">= {g.episodes_min}", ppo.ppo.episodes >= g.episodes_min),
        check("target_kl", ppo.ppo.target_kl, f"[{g.target_kl_min}, {g.target_kl_max}]",
              g.target_kl_min <= ppo.ppo.target_kl <= g.target_kl_max),
        check("seeds", len(ppo.seeds), f">= {g.seeds_min}", len(set(ppo.seeds)) >= g.seeds_min),
        check("finetune", ppo.model.finetune, g.finetune, ppo.model.finetune == g.finetune),
        check("use_overclar_penalty", ppo.use_overclar_penalty, True, ppo.use_overclar_penalty is True),
        check("strategy", ppo.trainer.strategy, g.strategies, ppo.trainer.strategy in g.strategies),
        # truncated completions carry no gradient (DAPO's overlong filtering): prod trains only so
        check("mask_truncated_completions", ppo.ppo.mask_truncated_completions, True,
              ppo.ppo.mask_truncated_completions is True),
    ]


ENGINE_SETTINGS = ("model.finetune", "model.lora_r", "model.target_modules", "ppo.max_turns", "ppo.lora_generation",
                   "ppo.compile_generation", "ppo.cache_implementation", "ppo.cuda_graphs",
                   "ppo.gradient_checkpointing", "ppo.vllm_mode", "ppo.mask_truncated_completions",
                   "generation.thinking_budget", "generation.answer_budget", "generation.closing")


def engine_settings(trial: PPOConfig, ppo: PPOConfig) -> list[tuple[str, Any, Any]]:
    """(name, the trial's value, the full config's value) of each ENGINE_SETTINGS key."""
    return [(d.split(".")[1], dotted_value(trial, d), dotted_value(ppo, d)) for d in ENGINE_SETTINGS]


def trial_checks(ppo: PPOConfig, trial: PPOConfig) -> list[dict]:
    """A full config's trial must be the same job at a smaller scale: same base model, task mix and mode, and the same
    training engine (strategy, rollout backend, ENGINE_SETTINGS: the thinking budget among them), so that its
    evaluation and its s/step speak for the full job."""
    return [
        check("trial.episodes", trial.ppo.episodes, f"< {ppo.ppo.episodes}", trial.ppo.episodes < ppo.ppo.episodes),
        check("trial.model", trial.model.base, ppo.model.base, trial.model.base == ppo.model.base),
        check("trial.mix", trial.mix, ppo.mix, trial.mix == ppo.mix),
        check("trial.run_mode", trial.run_mode, ppo.run_mode, trial.run_mode == ppo.run_mode),
        check("trial.strategy", trial.trainer.strategy, ppo.trainer.strategy,
              trial.trainer.strategy == ppo.trainer.strategy),
        check("trial.rollout_backend", trial.ppo.rollout_backend, ppo.ppo.rollout_backend,
              trial.ppo.rollout_backend == ppo.ppo.rollout_backend),
        # what a step's speed depends on besides its shape: the trial's s/step projects the full job
        *[check(f"trial.{name}", a, b, a == b) for name, a, b in engine_settings(trial, ppo)],
        check("trial.no_trial_of_its_own", trial.trial, None, trial.trial is None),
        check("trial.launcher", [trial.launcher, trial.accelerate_config], [ppo.launcher, ppo.accelerate_config],
              (trial.launcher, trial.accelerate_config) == (ppo.launcher, ppo.accelerate_config)),
    ]


def accelerator_memory_gb() -> float | None:
    """Free memory of the first CUDA device in GB, or None when there is none."""
    try:
        import torch

        if torch.cuda.is_available():
            free, _total = torch.cuda.mem_get_info(0)
            return free / 1e9
    except Exception:  # a broken CUDA install reads as "no accelerator", the check then says so
        return None
    return None


def resources_checks(path: str | Path, gates: Thresholds, *, needs_accelerator: bool = False) -> list[dict]:
    g = gates.resources
    probe = Path(path)
    while not probe.exists():
        probe = probe.parent
    free_gb = shutil.disk_usage(probe).free / 1e9
    checks = [check("free_disk_gb", round(free_gb, 2), f"> {g.free_disk_gb_min}", free_gb > g.free_disk_gb_min)]
    mem = accelerator_memory_gb()
    if mem is not None or needs_accelerator:
        value = round(mem, 2) if mem is not None else "none"
        checks.append(check("accelerator_mem_gb", value, f">= {g.accelerator_mem_gb_min}",
                            mem is not None and mem >= g.accelerator_mem_gb_min))
    return checks


def waive(step: str, checks: list[dict], gates: Thresholds, mode: str) -> list[dict]:
    """Mark failing checks that dev mode waives; prod waives nothing."""
    if mode != "dev":
        return checks
    names = set(gates.dev_mode.waive)
    out = []
    for c in checks:
        c = dict(c)
        if not c["pass"] and (step in names or f"{step}.{c['name']}" in names):
            c["waived"] = True
        out.append(c)
    return out


@dataclass
class StepResult:
    step: str
    passed: bool                      # every check passed or was waived
    checks: list[dict] = field(default_factory=list)
    run_id: str | None = None
    error: str | None = None          # bad input / crash inside the step (never waived)
    skipped: str | None = None        # why the step did not run (prod: the live judge is not paid for data that failed)

    @property
    def waived(self) -> list[str]:
        return [f"{self.step}.{c['name']}" for c in self.checks if c.get("waived")]

    @property
    def failing(self) -> list[dict]:
        return [c for c in self.checks if not c["pass"] and not c.get("waived")]


def step_result(step: str, checks: list[dict], gates: Thresholds, mode: str, run_id: str | None = None,
                error: str | None = None) -> StepResult:
    checks = waive(step, checks, gates, mode)
    ok = error is None and all(c["pass"] or c.get("waived") for c in checks)
    return StepResult(step, ok, checks, run_id, error)


def round_summary(round_no: int, mode: str, results: list[StepResult]) -> dict:
    """The round verdict as written to reports/preflight/round<N>.json."""
    return {
        "round": round_no,
        "mode": mode,
        "passed": all(r.passed for r in results) and bool(results),
        "steps": [
            {"step": r.step, "passed": r.passed, "run_id": r.run_id, "error": r.error,
             "waived": r.waived, "checks": r.checks, "skipped": r.skipped}
            for r in results
        ],
        "failing": [
            {"step": r.step, **c} for r in results for c in r.failing
        ] + [{"step": r.step, "name": "error", "value": r.error, "threshold": "-", "pass": False}
             for r in results if r.error],
    }
