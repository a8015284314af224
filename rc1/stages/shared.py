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
class Versioned:
    """The registered version a stage works on: --version N, or --alias A (with neither, the stage's own alias:
    `best` for evaluate, export-gguf and promote, `RC1` for bundle)."""

    version: str | None = arg(None, "Model version of rc1-policy.")
    alias: str | None = arg(None, "Model alias of rc1-policy, when no --version (unset: best; bundle: RC1).")

    def version_or_alias(self, default_alias: str) -> tuple[str | None, str | None]:
        """(version, alias) to resolve: the alias `default_alias` when neither is given."""
        if self.version is None and self.alias is None:
            return None, default_alias
        return self.version, self.alias


@dataclass
class Weighted:
    weights: str = arg("configs/weights.json", "Reward weights file (weights.json).")


@dataclass
class PPOConfigured:
    config: str | None = arg(None, "ppo config (unset: what the run being continued used: an interrupted training's, "
                                   "an evaluated version's; else the mode's: configs/ppo_dev.yaml in dev, "
                                   "configs/ppo_scale.yaml in prod).")


@dataclass
class StepCapped:
    max_steps: int | None = arg(None, "Cap on optimizer steps per seed (0 or unset: the config's ppo.steps).")


@dataclass
class Freshened:
    fresh: str | None = arg(None, "Task records (JSONL) for the non-pool share of training (unset: filled from the "
                                  "pool).")
