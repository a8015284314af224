"""Episodes and optimizer steps: the one conversion between them.

A ppo config counts in episodes: rollouts generated (one completion of one prompt, every turn of it, scored once).
That is the unit of the seeds' PPO vocabulary (TRL's legacy PPOConfig `steps`: its trainer ran
ceil(steps / batch_size) optimisation rounds of batch_size samples; today's TRL calls the quantity total_episodes).
An optimizer step of rc1's GRPO trains on `ppo.batch_size` prompts x `ppo.group_size` completions, so it consumes
that many episodes. `ppo.episodes`, `checkpoint.save_every_episodes` and the seed-pool schedule's `from_episode` are
episodes; TRL's max_steps, save_steps/eval_steps and the sampler's schedule are the optimizer steps `optimizer_steps`
makes of them (rounded up: a partial step is a step).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rc1.core.ppo_config import PPOConfig


def episodes_per_step(ppo: PPOConfig) -> int:
    """Rollouts one optimizer step generates and trains on: prompts x completions per prompt."""
    return ppo.ppo.batch_size * ppo.ppo.group_size


def optimizer_steps(ppo: PPOConfig, episodes: int) -> int:
    """The optimizer steps that generate `episodes` rollouts, rounded up: the first step whose rollouts start at or
    after episode `episodes` (0 for 0)."""
    return math.ceil(int(episodes) / episodes_per_step(ppo))


@dataclass(frozen=True)
class Schedule:
    """A config's episode counts as the optimizer steps TRL and the sampler run."""

    episodes: int                 # ppo.episodes
    episodes_per_step: int
    steps: int                    # TRL max_steps
    save_every_steps: int         # TRL save_steps = eval_steps (the held-out eval/reward before each checkpoint)
    pool_schedule: tuple[tuple[int, float], ...]   # (first optimizer step, seed-pool ratio)

    def params(self) -> dict[str, int]:
        """What a train run logs: both units."""
        return {"episodes": self.episodes, "episodes_per_step": self.episodes_per_step,
                "optimizer_steps": self.steps, "save_every_steps": self.save_every_steps}


def schedule(ppo: PPOConfig) -> Schedule:
    """`ppo`'s schedule in optimizer steps."""
    pool = tuple((optimizer_steps(ppo, x.from_episode), x.ratio) for x in ppo.sampling.seed_pool_schedule)
    return Schedule(episodes=ppo.ppo.episodes, episodes_per_step=episodes_per_step(ppo),
                    steps=optimizer_steps(ppo, ppo.ppo.episodes),
                    save_every_steps=optimizer_steps(ppo, ppo.checkpoint.save_every_episodes), pool_schedule=pool)
