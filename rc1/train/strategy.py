"""The RL strategy seam: `trainer.strategy` in the ppo config, each value mapped onto one TRL trainer.

grpo, dr_grpo, dapo and bnpo are GRPOTrainer's loss types (how the per-token PPO-clip losses are aggregated);
rloo is TRL's RLOOTrainer (leave-one-out baseline, KL folded into the reward). Every strategy keeps rc1's reward
unscaled by the group's std (GRPO: scale_rewards="none"; RLOO: normalize_advantages=False), so the difficulty
factor of the reward is not divided out of the advantages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Strategy:
    name: str
    trainer: str              # "grpo" (GRPOTrainer) or "rloo" (RLOOTrainer)
    loss_type: str | None     # GRPOConfig.loss_type
    optimises: str            # the README's one line


STRATEGIES: dict[str, Strategy] = {s.name: s for s in (
    Strategy("grpo", "grpo", "grpo", "PPO-clip on group-relative advantages; each sequence's token losses averaged "
             "over its own length, then over sequences (favours short right answers and long wrong ones)"),
    Strategy("dr_grpo", "grpo", "dr_grpo", "the same objective, token losses summed and divided by a constant "
             "(max_completion_length): no length bias (Dr. GRPO)"),
    Strategy("dapo", "grpo", "dapo", "the same objective, token losses averaged over every active token of the global "
             "batch: no length bias, long answers weigh by their tokens (DAPO; TRL's default)"),
    Strategy("bnpo", "grpo", "bnpo", "as dapo, averaged over the tokens of each process's local batch"),
    Strategy("rloo", "rloo", None, "REINFORCE with a leave-one-out baseline (each completion's reward minus the mean "
             "of the other completions of its prompt), KL to the base folded into the reward; TRL's RLOOTrainer, "
             "single-turn episodes (no tool loop)"),
)}

# GRPOConfig settings RLOOConfig does not have (RLOO has no loss types, no std scaling and no tool loop)
GRPO_ONLY = ("loss_type", "scale_rewards", "max_tool_calling_iterations")


def strategy(name: str) -> Strategy:
    return STRATEGIES[name]


def trainer_settings(name: str, settings: dict[str, Any]) -> dict[str, Any]:
    """The config keyword arguments of `name`'s TRL trainer from rc1's GRPO settings (rc1.train.engine.grpo_settings)."""
    s = strategy(name)
    if s.trainer == "rloo":
        return {k: v for k, v in settings.items() if k not in GRPO_ONLY} | {"normalize_advantages": False}
    return settings | {"loss_type": s.loss_type}


def trl_classes(name: str) -> tuple[type, type]:
    """(config class, trainer class) of `name`'s TRL trainer."""
    if strategy(name).trainer == "rloo":
        from trl import RLOOConfig, RLOOTrainer

        return RLOOConfig, RLOOTrainer
    from trl import GRPOConfig, GRPOTrainer

    return GRPOConfig, GRPOTrainer
