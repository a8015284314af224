"""How long the full training job takes, projected from the seconds per optimizer step a gate measured (or from the
H200 measurements below, for a config no trial has measured yet).

A job is `ppo.episodes` rollouts, i.e. the optimizer steps rc1.train.units makes of them. A step's time is dominated
by generating its rollouts (87% at 512 new tokens at the 4B shape on an H200). Decoding reads every weight once per new
token, whatever the batch, so its time grows with the new tokens per completion (the decode steps) far more than with
the batch; the forward and backward passes grow with the rollout tokens per step (prompts x group x new tokens). A
measurement made on one shape is carried to another by the larger of the two ratios, and never below what was
measured: an upper bound (a trial of 32 prompts x 128 tokens has the rollout tokens of 8 prompts x 512, but a quarter
of its decode steps). From several measurements the smallest of those upper bounds holds. A gate trains its seeds one
after another, each on the launcher's processes (one GPU each).

What a faster rollout backend buys (`new_tokens_within`, `speedup_needed`): a step is GENERATION_SHARE generation; a
backend that generates S times faster makes it (1 - share) + share / S of the measured step. Only a measured S moves a
plan: no vLLM step has been measured at the 4B shape (vLLM cannot be installed on the lent GPU machine), so the
shipped budget stands (docs/training.md "A plan that finishes").
"""

from __future__ import annotations

from dataclasses import dataclass

from rc1.core.ppo_config import PPOConfig
from rc1.train.units import optimizer_steps


@dataclass(frozen=True)
class Shape:
    """What a step's time depends on: prompts x completions per prompt x new tokens per completion."""

    batch_size: int
    group_size: int
    max_new_tokens: int

    @property
    def rollout_tokens(self) -> int:
        """The most tokens one optimizer step generates."""
        return self.batch_size * self.group_size * self.max_new_tokens


def shape(ppo: PPOConfig) -> Shape:
    return Shape(ppo.ppo.batch_size, ppo.ppo.group_size, ppo.ppo.max_new_tokens)


@dataclass(frozen=True)
class Measured:
    shape: Shape
    sec_per_step: float
    where: str


# `rc1 train` at the Qwen3-4B shape on one H200, transformers generate, LoRA r16, 8 prompts x 4 (../shared/GPU.md,
# benchmarks/results/h200_*.json): what a config is projected from before its trial measured it
H200 = (Measured(Shape(8, 4, 128), 19.4, "H200, 4B shape, transformers generate, 8 x 4 x 128 new tokens"),
        Measured(Shape(8, 4, 512), 70.1, "H200, 4B shape, transformers generate, 8 x 4 x 512 new tokens"))


@dataclass(frozen=True)
class Projection:
    measured_sec_per_step: float
    sec_per_step: float          # carried to the projected config
    episodes: int                # ppo.episodes of the projected config
    steps: int                   # the optimizer steps they make
    seeds: int
    processes: int
    device: str = "cpu"          # what trains: cuda (a GPU per process) or cpu

    @property
    def days_per_seed(self) -> float:
        return self.steps * self.sec_per_step / 86400

    @property
    def hours_per_seed(self) -> float:
        return self.days_per_seed * 24

    @property
    def wall_hours(self) -> float:
        return self.hours_per_seed * self.seeds

    @property
    def device_hours(self) -> float:
        """Hours of the devices that train: GPU-hours on CUDA (one GPU per process), CPU process-hours on a CPU."""
        return self.wall_hours * self.processes

    @property
    def device_word(self) -> str:
        return "GPU-hours" if self.device == "cuda" else f"{self.device.upper()} process-hours"

    def metrics(self, prefix: str = "rc1.") -> dict[str, float]:
        return {f"{prefix}measured_sec_per_step": self.measured_sec_per_step,
                f"{prefix}projected_sec_per_step": self.sec_per_step,
                f"{prefix}projected_optimizer_steps": float(self.steps),
                f"{prefix}projected_days_per_seed": self.days_per_seed,
                f"{prefix}projected_hours_per_seed": self.hours_per_seed,
                f"{prefix}projected_wall_hours": self.wall_hours,
                f"{prefix}projected_device_hours": self.device_hours}

    def line(self, name: str) -> str:
        return (f"{name}: {self.episodes} episodes = {self.steps} optimizer steps x {self.sec_per_step:.3g} s/step = "
                f"{self.hours_per_seed:.3g} h per seed ({self.days_per_seed:.3g} days); {self.seeds} seed(s) on "
                f"{self.processes} process(es): {self.wall_hours:.3g} h wall, {self.device_hours:.3g} {self.device_word} "
                f"(measured {self.measured_sec_per_step:.3g} s/step)")


def carried(full: Shape, measured: Shape) -> float:
    """The factor a step measured at `measured` is carried by to `full` (an upper bound, never below 1)."""
    # never below 1: what a step spends per completion (the judge's calls, the optimizer) does not shrink with tokens
    return max(1.0, full.rollout_tokens / measured.rollout_tokens, full.max_new_tokens / measured.max_new_tokens)


def project(full: PPOConfig, measured: PPOConfig | Shape, sec_per_step: float, processes: int = 1,
            device: str = "cpu") -> Projection:
    """The full config's job from `sec_per_step` measured while training `measured` (the same config, its trial, or
    a shape measured elsewhere) on `device`."""
    at = measured if isinstance(measured, Shape) else shape(measured)
    return Projection(measured_sec_per_step=sec_per_step, sec_per_step=sec_per_step * carried(shape(full), at),
                      episodes=full.ppo.episodes, steps=optimizer_steps(full, full.ppo.episodes),
                      seeds=len(full.seeds), processes=processes, device=device)


# of a step at the 4B shape, 512 new tokens, H200: transformers generate took 60.8 s of 70.1 s (../shared/GPU.md)
GENERATION_SHARE = 60.8 / 70.1


def with_tokens(full: PPOConfig, max_new_tokens: int) -> PPOConfig:
    return full.model_copy(update={"ppo": full.ppo.model_copy(update={"max_new_tokens": int(max_new_tokens)})})


def faster(sec_per_step: float, speedup: float, share: float = GENERATION_SHARE) -> float:
    """A step's seconds when its generation (`share` of it) runs `speedup` times faster."""
    return sec_per_step * ((1 - share) + share / speedup)


def hours_per_seed(full: PPOConfig, m: Measured, speedup: float = 1.0) -> float:
    p = project(full, m.shape, m.sec_per_step, device="cuda")
    return p.steps * faster(p.sec_per_step, speedup) / 3600


def new_tokens_within(full: PPOConfig, hours: float, measurements=H200, speedup: float = 1.0) -> int:
    """The most ppo.max_new_tokens at which one seed of `full` (its episodes and batch) projects within `hours` from
    the measurements, generation `speedup` times faster than where they were measured (0: not even one token)."""
    def fits(n: int) -> bool:
        return min(hours_per_seed(with_tokens(full, n), m, speedup) for m in measurements) <= hours

    lo, hi = 0, 1
    while fits(hi) and hi < 1 << 20:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def speedup_needed(full: PPOConfig, hours: float, measurements=H200) -> float | None:
    """How many times faster than the measurements generation must be for `full` as it is to fit `hours` per seed
    (1.0: it fits already; None: not even infinitely fast generation makes it fit)."""
    best = min(measurements, key=lambda m: hours_per_seed(full, m))
    now = hours_per_seed(full, best)
    if now <= hours:
        return 1.0
    floor = now * (1 - GENERATION_SHARE)
    if floor >= hours:
        return None
    return GENERATION_SHARE / (hours / now - (1 - GENERATION_SHARE))


def reference(full: PPOConfig, measurements=H200) -> tuple[Projection, Measured]:
    """The full config's job on the reference hardware (GPUs): the smallest upper bound its measurements give."""
    return min(((project(full, m.shape, m.sec_per_step, device="cuda"), m) for m in measurements),
               key=lambda pm: pm[0].sec_per_step)
