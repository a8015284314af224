"""How long the full training job takes, projected from the seconds per step a gate measured.

A step's time is dominated by generating its rollouts (87% at 512 new tokens at the 4B shape on an H200). Decoding
reads every weight once per new token, whatever the batch, so its time grows with the new tokens per completion (the
decode steps) far more than with the batch; the forward and backward passes grow with the rollout tokens per step
(prompts x group x new tokens). A measurement made on one config is carried to another by the larger of the two
ratios, and never below what was measured: an upper bound (a trial of 32 prompts x 128 tokens has the rollout tokens
of 8 prompts x 512, but a quarter of its decode steps). A gate trains its seeds one after another, each on the launcher's processes (one GPU
each).
"""

from __future__ import annotations

from dataclasses import dataclass

from rc1.core.config import PPOScale


def rollout_tokens(ppo: PPOScale) -> int:
    """The most tokens one optimizer step generates: prompts x completions per prompt x new tokens."""
    p = ppo.ppo
    return p.batch_size * p.group_size * p.max_new_tokens


@dataclass(frozen=True)
class Projection:
    measured_sec_per_step: float
    sec_per_step: float          # carried to the projected config
    steps: int
    seeds: int
    processes: int
    device: str = "cpu"          # what trains: cuda (a GPU per process) or cpu

    @property
    def days_per_seed(self) -> float:
        return self.steps * self.sec_per_step / 86400

    @property
    def wall_hours(self) -> float:
        return self.days_per_seed * 24 * self.seeds

    @property
    def device_hours(self) -> float:
        """Hours of the devices that train: GPU-hours on CUDA (one GPU per process), CPU process-hours on a CPU."""
        return self.wall_hours * self.processes

    @property
    def device_word(self) -> str:
        return "GPU-hours" if self.device == "cuda" else f"{self.device.upper()} process-hours"

    def metrics(self) -> dict[str, float]:
        return {"rc1.measured_sec_per_step": self.measured_sec_per_step,
                "rc1.projected_sec_per_step": self.sec_per_step,
                "rc1.projected_days_per_seed": self.days_per_seed,
                "rc1.projected_wall_hours": self.wall_hours,
                "rc1.projected_device_hours": self.device_hours}

    def line(self, name: str) -> str:
        return (f"{name}: {self.steps} steps x {self.sec_per_step:.3g} s/step x {self.seeds} seed(s) on "
                f"{self.processes} process(es) = {self.days_per_seed:.3g} days per seed, {self.wall_hours:.3g} h wall, "
                f"{self.device_hours:.3g} {self.device_word} (measured {self.measured_sec_per_step:.3g} s/step)")


def project(full: PPOScale, measured: PPOScale, sec_per_step: float, processes: int = 1,
            device: str = "cpu") -> Projection:
    """The full config's job from `sec_per_step` measured while training `measured` (the same config or its trial)."""
    # never below 1: what a step spends per completion (the judge's calls, the optimizer) does not shrink with tokens
    ratio = max(1.0, rollout_tokens(full) / rollout_tokens(measured),
                full.ppo.max_new_tokens / measured.ppo.max_new_tokens)
    return Projection(measured_sec_per_step=sec_per_step, sec_per_step=sec_per_step * ratio, steps=full.ppo.steps,
                      seeds=len(full.seeds), processes=processes, device=device)
