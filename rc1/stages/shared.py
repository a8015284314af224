"""The parameters many stages take, each declared once; a stage's `Config` lists these among its bases."""

from __future__ import annotations

from dataclasses import dataclass

from rc1.cli.options import arg
from rc1.config import GATES_PATH, run_mode

PIPELINE_SEED = 20250820   # the pipeline's random seed: item draws, shadow set, responder


@dataclass
class Gated:
    gates: str = arg(GATES_PATH, "Gate thresholds file.")


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
