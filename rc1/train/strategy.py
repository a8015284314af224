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


# what each one optimises: docs/training.md's strategy table
STRATEGIES: dict[str, Strategy] = {s.name: s for s in (
    Strategy("grpo", "grpo", "grpo"),
    Strategy("dr_grpo", "grpo", "dr_grpo"),
    Strategy("dapo", "grpo", "dapo"),
    Strategy("bnpo", "grpo", "bnpo"),
    Strategy("rloo", "rloo", None),
)}

# GRPOConfig settings RLOOConfig does not have (RLOO has no loss types, no std scaling and no tool loop)
GRPO_ONLY = ("loss_type", "scale_rewards", "max_tool_calling_iterations")


def trainer_settings(name: str, settings: dict[str, Any]) -> dict[str, Any]:
    """The config keyword arguments of `name`'s TRL trainer from rc1's GRPO settings (rc1.train.engine.grpo_settings)."""
    s = STRATEGIES[name]
    if s.trainer == "rloo":
        return {k: v for k, v in settings.items() if k not in GRPO_ONLY} | {"normalize_advantages": False}
    return settings | {"loss_type": s.loss_type}


def trl_classes(name: str) -> tuple[type, type]:
    """(config class, trainer class) of `name`'s TRL trainer."""
    if STRATEGIES[name].trainer == "rloo":
        from trl import RLOOConfig, RLOOTrainer

        return RLOOConfig, RLOOTrainer
    from trl import GRPOConfig, GRPOTrainer

    return GRPOConfig, GRPOTrainer
