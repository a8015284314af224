"""The parameters many stages take, each declared once; a stage's `Config` lists these among its bases."""

from __future__ import annotations

from dataclasses import dataclass

from rc1.cli.options import arg
from rc1.config import run_mode

PIPELINE_SEED = 20250820   # the pipeline's random seed: item draws, shadow set, responder


@dataclass
class Gated:
    gates: str = arg("configs/gates.yaml", "Gate thresholds file.")


@dataclass
class Reusable:
    reuse: bool = arg(True, "Reuse a finished run with the same params, input digests and code version instead of "
                            "recomputing.", log=False)


@dataclass
class FromData:
    data_dir: str | None = arg(None, "Directory laid out like ../shared/data (hotpotqa/, strategyqa/, gsm8k/). Unset "
                                     "or 'auto': the sources of configs/data.yaml (the bundled real sample last).")


@dataclass
class Moded:
    mode: str | None = arg(None, "dev or prod (unset: $RUN_MODE, else dev).", choices=("dev", "prod"))

    def __post_init__(self) -> None:
        if self.mode is None:
            self.mode = run_mode()


@dataclass
class Seeded:
    seed: int = arg(PIPELINE_SEED, "The pipeline's random seed (item draws, shadow set, responder).")


@dataclass
class BadRecords:
    on_bad_record: str | None = arg(None, "Override configs/data.yaml on_bad_record.", choices=("error", "skip"))


@dataclass
class Weighted:
    weights: str = arg("configs/weights.json", "Reward weights file (weights.json).")


@dataclass
class PpoConfigured:
    config: str | None = arg(None, "ppo config (unset: configs/ppo_dev.yaml in dev where it exists, else "
                                   "configs/ppo_scale.yaml).")
