"""Pydantic models for every file under configs/ (ppo_scale.yaml's: rc1.core.ppo_config), and one loader that turns
any problem into a single line naming the file, the key and what was wrong (Rc1Error, exit 2).

Strict: no lax coercion (`episodes: true` or `episodes: 2.5` is not an integer, `"0.1"` is not a number,
`yes` is not a string), no non-finite number (`.inf`, `.nan`) anywhere, and thresholds that would
switch a check off are refused (e.g. weights.sum_tolerance above 1e-3)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Literal, Mapping, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from rc1.core.errors import Rc1Error
from rc1.core.settings import run_mode   # which side of configs/gates.yaml applies (the one run-mode rule)


def default_ppo_config(mode: str | None = None) -> str:
    """The ppo config a mode trains with when none is named: ppo_dev.yaml in dev (where it exists), else ppo_scale.yaml."""
    mode = mode or run_mode()
    return "configs/ppo_dev.yaml" if mode == "dev" and Path("configs/ppo_dev.yaml").exists() else "configs/ppo_scale.yaml"


# the task mix (DESIGN.md): build-pool's default, the shadow set's when gates.yaml has none, and prod's floor
TASK_MIX = {"hotpotqa": 0.45, "strategyqa": 0.30, "gsm8k": 0.25}
TASKS = tuple(TASK_MIX)
DIMENSIONS = ("correctness", "reasoning", "grounding", "clarification", "efficiency", "tool_use", "communication")
CONFIG_DIR = Path("configs")
GATES_PATH = "configs/gates.yaml"   # the gate thresholds file, relative to the project
WEIGHTS_PATH = "configs/weights.json"   # the reward's dimension weights


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


# Keys renamed when their unit was put in their name (issue 27): a config that still uses one is refused in one line
# naming the new key, never read in the old unit. Episodes are rollouts generated (the seeds' TRL-legacy PPOConfig
# `steps` counted samples); optimizer steps are what they make (rc1.train.units).
RENAMED = {
    "ppo": {"steps": "ppo.episodes (rollouts generated: the seed's `steps` counted samples, not optimizer steps)"},
    "checkpoint": {"save_every": "checkpoint.save_every_episodes (a checkpoint every this many rollouts generated)"},
    "sampling.seed_pool_schedule": {"step": "from_episode (the seed-pool ratio from this many rollouts generated)"},
    "config_check": {"steps_min": "config_check.episodes_min (ppo.episodes: rollouts generated)"},
}


def refuse_renamed(data: Any, section: str) -> Any:
    """A model's raw input, or ValueError naming the key of RENAMED[section] it still uses and its new name."""
    if isinstance(data, dict):
        for old, new in RENAMED[section].items():
            if old in data:
                raise ValueError(f"{section}.{old} was renamed: use {new}")
    return data


# ---------------------------------------------------------------- gates.yaml
class ShadowThresholds(Strict):
    n: int = Field(245, gt=0)
    seed: int = 20250820
    stratify: bool = True


def _ordered(lo: float, hi: float, what: str) -> None:
    if lo > hi:
        raise ValueError(f"{what}: the lower bound {lo:g} is above the upper bound {hi:g}")


class ValidatePoolThresholds(Strict):
    distinct_2_min: float = Field(ge=0, le=1)
    distinct_2_words: int = Field(30000, gt=0)   # distinct-2 on a random sample of this many user-turn words
    pool_size_min: int = Field(0, ge=0)          # seeds the pool must hold (prod: seed 000 is a pool of 20k-40k)
    kl_3gram_vs_v1_min: float = Field(ge=0)
    roles_min: int = Field(ge=1)
    styles_min: int = Field(ge=1)
    dup_rate_max: float = Field(ge=0, le=1)
    near_dup_jaccard: float = Field(gt=0, le=1)
    len_tokens_min: int = Field(ge=0)
    len_tokens_max: int = Field(gt=0)
    leak_ngram: int = Field(ge=1)
    leak_sim: float = Field(gt=0, le=1)
    leak_count_max: int = Field(ge=0)
    mix_tolerance_pp: float = Field(ge=0, le=100)

    @model_validator(mode="after")
    def _sane(self):
        _ordered(self.len_tokens_min, self.len_tokens_max, "len_tokens_min/len_tokens_max")
        return self


class DifficultyThresholds(Strict):
    hard_min: float = Field(ge=0, le=1)
    easy_max: float = Field(ge=0, le=1)
    len_tokens_max: int = Field(gt=0)
    turns_max: int = Field(gt=0)
    tool_hops_max: int = Field(ge=0)
    clue_overlap_hard_median_max: float = Field(ge=0, le=1)
    clue_overlap_easy_median_min: float = Field(ge=0, le=1)
    clue_overlap_easy_median_max: float = Field(1.0, ge=0, le=1)   # two-sided: easy is not a copy of its evidence
    clue_overlap_hard_median_min: float = Field(0.0, ge=0, le=1)   # hard still rests on evidence the seed carries


class WeightsThresholds(Strict):
    max_each: float = Field(ge=1 / 7, le=1)           # below 1/7 no seven weights can sum to 1
    sum_tolerance: float = Field(gt=0, le=1e-3)       # a looser tolerance would let 1.1 pass as 1


class ProbeThresholds(Strict):
    billable_min: int = Field(ge=1)
    latency_ms_min: float = Field(ge=0)


class AntiSimulationThresholds(Strict):
    cache_hit_lt_round1: float = Field(gt=0, le=1)
    cache_hit_lt_round2: float = Field(gt=0, le=1)


class ConfigCheckThresholds(Strict):
    episodes_min: int = Field(gt=0)   # ppo.episodes: rollouts generated (the seed's `steps`), not optimizer steps
    target_kl_min: float = Field(ge=0)
    target_kl_max: float = Field(gt=0)
    seeds_min: int = Field(ge=1)
    finetune: Literal["qlora", "lora"]
    mix: dict[str, float]
    # the RL strategies (trainer.strategy) preflight accepts
    strategies: list[Literal["grpo", "dr_grpo", "dapo", "bnpo", "rloo"]] = Field(min_length=1)
    # a gate trains a config with a trial only when the trial's measured s/step projects at most this many days per
    # seed for it (rc1.train.projection)
    projected_days_per_seed_max: float = Field(gt=0)

    @model_validator(mode="after")
    def _sane(self):
        _ordered(self.target_kl_min, self.target_kl_max, "target_kl_min/target_kl_max")
        check_mix(self.mix, what="mix", known=TASKS)
        return self

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data):
        return refuse_renamed(data, "config_check")


class ResourcesThresholds(Strict):
    free_disk_gb_min: float = Field(ge=0)
    accelerator_mem_gb_min: float = Field(ge=0)


class ShadowRunThresholds(Strict):
    spearman_min: float = Field(ge=-1, le=1)
    top10pct_overlap_min: float = Field(ge=0, le=1)
    corr_improve_pct_min: float
    corr_to_success_new_min: float = Field(ge=-1, le=1)


class WeightCalibThresholds(Strict):
    rank_corr_median_improve_pct_min: float
    mae_improve_pct_min: float


class OverclarThresholds(Strict):
    overclar_rate_reduction_pct_min: float
    avg_turns_increase_max: float
    success_drop_pp_max: float


class EvaluateThresholds(Strict):
    hard_success_gain_pp_min: float
    clarify_success_gain_pp_min: float
    overclar_reduction_pct_min: float
    avg_turns_increase_max: float
    # promote accepts an evaluate run only when it saw at least this many items of each split
    min_shadow_items: int = Field(ge=1)
    min_heldout_items: int = Field(ge=1)


class JudgeRobustnessThresholds(Strict):
    attack_win_rate_max: float = Field(0.05, ge=0, le=1)   # per attack kind, vs the honest wrong answer
    honest_correct_beats_wrong_rate_min: float = Field(ge=0, le=1)


class ScaleThresholds(Strict):
    stages: list[int] = Field(min_length=1)            # generation sizes in order; each needs the earlier ones passed
    response_distinct_2_min: float = Field(ge=0, le=1)  # distinct-2 of the generated assistant turns
    unstable_share_max: float = Field(ge=0, le=1)       # share of judgements whose K samples disagree
    judge_failed_max: float = Field(ge=0, le=1)         # share of judgements that failed
    easy_minus_hard_success_min: float = Field(ge=-1, le=1)   # hard items must not come out easier than easy ones

    @field_validator("stages")
    @classmethod
    def _ascending(cls, v):
        if any(s <= 0 for s in v) or sorted(set(v)) != v:
            raise ValueError(f"stages must be positive and strictly ascending, got {v}")
        return v


class ScoringThresholds(Strict):
    unstable_variance_max: float = Field(0.08, gt=0, le=1)   # a judge sample set above this is unstable


class DevMode(Strict):
    overrides: dict[str, Any] = Field(default_factory=dict)   # "section.key" -> dev value
    waive: list[str] = Field(default_factory=list)            # step names or "step.check" names


class Thresholds(Strict):
    """configs/gates.yaml: every threshold a stage checks, by section (the file keeps its name; `rc1 gate` is the flow)."""
    shadow: ShadowThresholds
    validate_pool: ValidatePoolThresholds
    difficulty: DifficultyThresholds
    weights: WeightsThresholds
    probe_scorer: ProbeThresholds
    anti_simulation: AntiSimulationThresholds
    config_check: ConfigCheckThresholds
    resources: ResourcesThresholds
    shadow_run: ShadowRunThresholds
    weight_calib: WeightCalibThresholds
    overclar_ablation: OverclarThresholds
    evaluate: EvaluateThresholds
    scale: ScaleThresholds
    scoring: ScoringThresholds = Field(default_factory=ScoringThresholds)
    judge_robustness: JudgeRobustnessThresholds = Field(default_factory=JudgeRobustnessThresholds)
    dev_mode: DevMode = Field(default_factory=DevMode)
    _source: str = PrivateAttr(GATES_PATH)   # the file it was read from (named in refusals)

    def for_mode(self, mode: str) -> "Thresholds":
        """The thresholds in force for `mode`: dev applies dev_mode.overrides (and may be looser than the seeds'
        numbers: `looser_than_seed` lists where), prod uses the file as is and refuses it when any threshold is
        looser than SEED_FLOORS."""
        if mode != "dev":
            unfloored = [k for k in gate_keys(self) if k not in SEED_FLOORS]
            if unfloored:   # a threshold prod could loosen unseen: every key needs its floor
                raise Rc1Error(f"{self._source}: {mode} refuses gates key {unfloored[0]!r}: it has no prod floor "
                               f"(add it to SEED_FLOORS in rc1/core/config.py)")
            loose = looser_than_seed(self)
            if loose:
                raise Rc1Error(f"{self._source}: {mode} refuses thresholds looser than the seed's: {loose[0]}"
                               + (f" (and {len(loose) - 1} more)" if len(loose) > 1 else ""))
            return self
        if not self.dev_mode.overrides:
            return self
        data = self.model_dump()
        for dotted, value in self.dev_mode.overrides.items():
            section, _, key = dotted.partition(".")
            if section not in data or key not in data[section]:
                raise Rc1Error(f"{self._source}: key 'dev_mode.overrides.{dotted}': no such gate")
            data[section][key] = value
        out = Thresholds.model_validate(data)
        out._source = self._source
        return out


# The seeds' numbers (seed 000: the data, judge and training gates; seed 002: the shadow-run overlap; DESIGN.md's
# stage table): a prod gates file may be stricter, never looser. ">=": the threshold may only be raised; "<=": only
# lowered; "==": fixed; "subset": only items of the floor's list (fewer is stricter); "superset": at least its items.
# Every key of gates.yaml (outside dev_mode) has one: prod refuses a key without (Thresholds.for_mode). Dev may be looser
# (dev_mode.overrides, or a dev gates file) and every screen says so.
SEED_FLOORS: dict[str, tuple[str, Any]] = {
    "shadow.n": (">=", 245), "shadow.seed": ("==", 20250820), "shadow.stratify": ("==", True),
    "validate_pool.pool_size_min": (">=", 20000),
    # distinct-n falls as the text measured grows: a smaller word budget would flatter the pool
    "validate_pool.distinct_2_words": (">=", 30000),
    "validate_pool.distinct_2_min": (">=", 0.60), "validate_pool.kl_3gram_vs_v1_min": (">=", 0.15),
    "validate_pool.roles_min": (">=", 4), "validate_pool.styles_min": (">=", 3),
    "validate_pool.dup_rate_max": ("<=", 0.02), "validate_pool.near_dup_jaccard": ("<=", 0.85),
    "validate_pool.len_tokens_min": (">=", 64), "validate_pool.len_tokens_max": ("<=", 4096),
    "validate_pool.leak_ngram": ("<=", 5), "validate_pool.leak_sim": ("<=", 0.85),
    "validate_pool.leak_count_max": ("<=", 0), "validate_pool.mix_tolerance_pp": ("<=", 3.0),
    "difficulty.hard_min": (">=", 0.30), "difficulty.easy_max": ("<=", 0.30),
    "difficulty.len_tokens_max": ("<=", 3500), "difficulty.turns_max": ("<=", 8), "difficulty.tool_hops_max": ("<=", 8),
    "difficulty.clue_overlap_hard_median_max": ("<=", 0.20), "difficulty.clue_overlap_easy_median_min": (">=", 0.40),
    "difficulty.clue_overlap_hard_median_min": (">=", 0.10), "difficulty.clue_overlap_easy_median_max": ("<=", 0.65),
    "weights.max_each": ("<=", 0.5), "weights.sum_tolerance": ("<=", 1.0e-6),
    "probe_scorer.billable_min": (">=", 1), "probe_scorer.latency_ms_min": (">=", 0.0),
    "anti_simulation.cache_hit_lt_round1": ("<=", 0.90), "anti_simulation.cache_hit_lt_round2": ("<=", 0.95),
    "config_check.episodes_min": (">=", 50000), "config_check.target_kl_min": (">=", 0.02),
    "config_check.target_kl_max": ("<=", 0.05), "config_check.seeds_min": (">=", 3),
    "config_check.finetune": ("==", "qlora"),
    "config_check.strategies": ("subset", ["grpo", "dr_grpo", "dapo", "bnpo"]),
    "config_check.projected_days_per_seed_max": ("<=", 7.0),
    "config_check.mix": ("==", TASK_MIX),
    "resources.free_disk_gb_min": (">=", 50), "resources.accelerator_mem_gb_min": (">=", 0.0),
    "scoring.unstable_variance_max": ("<=", 0.08),
    "judge_robustness.attack_win_rate_max": ("<=", 0.05),
    "shadow_run.spearman_min": (">=", 0.75), "shadow_run.top10pct_overlap_min": (">=", 0.70),
    "shadow_run.corr_improve_pct_min": (">=", 10.0),
    # not the seed's (issue 32): the two gates above compare the reward with the old score under the same judge and
    # cannot see a bad judge (a real 135M judge anti-correlated with success passed them). The judge must rank a
    # right answer above a wrong one: the heuristic does on every item (1.0) and its reward tracks success at
    # .53-.55; the 135M judge: 0 or 1 of 3 items, -0.49
    "judge_robustness.honest_correct_beats_wrong_rate_min": (">=", 0.90),
    "shadow_run.corr_to_success_new_min": (">=", 0.30),
    "weight_calib.rank_corr_median_improve_pct_min": (">=", 8.0), "weight_calib.mae_improve_pct_min": (">=", 5.0),
    "overclar_ablation.overclar_rate_reduction_pct_min": (">=", 20.0),
    "overclar_ablation.avg_turns_increase_max": ("<=", 0.0), "overclar_ablation.success_drop_pp_max": ("<=", 1.0),
    "evaluate.hard_success_gain_pp_min": (">=", 5.0), "evaluate.clarify_success_gain_pp_min": (">=", 5.0),
    "evaluate.overclar_reduction_pct_min": (">=", 20.0), "evaluate.avg_turns_increase_max": ("<=", 0.0),
    "evaluate.min_shadow_items": (">=", 245), "evaluate.min_heldout_items": (">=", 50),
    "scale.stages": ("superset", [1000, 5000]), "scale.response_distinct_2_min": (">=", 0.30),
    "scale.unstable_share_max": ("<=", 0.10), "scale.judge_failed_max": ("<=", 0.02),
    "scale.easy_minus_hard_success_min": (">=", 0.0),
}


def gate_keys(gates: BaseModel) -> list[str]:
    """Every `section.key` threshold of a gates file (dev_mode, which only dev reads, left out)."""
    return [f"{section}.{key}" for section, model in gates if section != "dev_mode" for key, _ in model]


def dotted_value(model: BaseModel, dotted: str) -> Any:
    """The value of `section.key` in a config model (gates.yaml's thresholds, a ppo config's settings)."""
    section, _, key = dotted.partition(".")
    return getattr(getattr(model, section), key)


def looser_than_seed(gates: Thresholds) -> list[str]:
    """'key = value (seed: >= floor)' for every threshold of `gates` looser than SEED_FLOORS, in the table's order."""
    out = []
    for dotted, (op, floor) in SEED_FLOORS.items():
        value = dotted_value(gates, dotted)
        ok = (value >= floor if op == ">=" else value <= floor if op == "<=" else set(value) <= set(floor)
              if op == "subset" else set(value) >= set(floor) if op == "superset" else value == floor)
        if not ok:
            out.append(f"{dotted} = {value} (seed: {op} {floor})")
    return out


# ---------------------------------------------------------------- data.yaml
class Source(Strict):
    kind: Literal["local", "hf", "bundled"]
    path: str | None = None     # local: the official file; bundled: a directory in its layout (default the shipped one)
    name: str | None = None
    config: str | None = None
    split: str | None = None

    @model_validator(mode="after")
    def _needs(self):
        if self.kind == "local" and not self.path:
            raise ValueError("a local source needs 'path'")
        if self.kind == "hf" and not self.name:
            raise ValueError("an hf source needs 'name'")
        return self


class TaskSources(Strict):
    sources: list[Source] = Field(min_length=1)


class DataConfig(Strict):
    on_bad_record: Literal["error", "skip"] = "error"
    tasks: dict[str, TaskSources]

    @field_validator("tasks")
    @classmethod
    def _known_tasks(cls, v):
        unknown = set(v) - set(TASKS)
        if unknown:
            raise ValueError(f"unknown task(s) {sorted(unknown)}; known: {list(TASKS)}")
        return v


# ---------------------------------------------------------------- weights.json
class Weights(Strict):
    correctness: float
    reasoning: float
    grounding: float
    clarification: float
    efficiency: float
    tool_use: float
    communication: float

    def as_dict(self) -> dict[str, float]:
        return {d: getattr(self, d) for d in DIMENSIONS}


# ---------------------------------------------------------------- helpers
def check_mix(mix: dict[str, float], what: str = "mix", known: tuple[str, ...] | None = None, tol: float = 1e-6):
    """A mix is non-negative fractions over known names that sum to 1."""
    if known is not None:
        unknown = [k for k in mix if k not in known]
        if unknown:
            raise ValueError(f"unknown task {unknown[0]!r} in {what}; known: {', '.join(known)}")
    if any(v < 0 for v in mix.values()):
        raise ValueError(f"{what} has a negative fraction")
    total = sum(mix.values())
    if not math.isclose(total, 1.0, abs_tol=tol):
        raise ValueError(f"{what} sums to {total:.4g}, not 1")
    return mix


def mix_text(mix: Mapping[str, float]) -> str:
    """{'hotpotqa': 0.45, 'strategyqa': 0.3} -> 'hotpotqa:0.45,strategyqa:0.30' (parse_mix's inverse)."""
    return ",".join(f"{k}:{v:.2f}" if round(v, 2) == v else f"{k}:{v!r}" for k, v in mix.items())


def parse_tasks(text: str) -> list[str]:
    """--by-task's comma-separated tasks, each one of TASKS."""
    tasks = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [t for t in tasks if t not in TASKS]
    if unknown or not tasks:
        raise Rc1Error(f"--by-task: unknown task {unknown[0]!r}; known: {', '.join(TASKS)}" if unknown
                       else "--by-task: empty")
    return tasks


def parse_mix(text: str, what: str = "--mix", known: tuple[str, ...] | None = TASKS) -> dict[str, float]:
    """'hotpotqa:0.45,strategyqa:0.30' -> {'hotpotqa': 0.45, ...}; bad text is an Rc1Error."""
    mix: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, val = part.partition(":")
        if not sep:
            raise Rc1Error(f"{what}: {part!r} is not name:fraction")
        try:
            mix[name.strip()] = float(val)
        except ValueError:
            raise Rc1Error(f"{what}: {val!r} is not a number (in {part!r})") from None
    if not mix:
        raise Rc1Error(f"{what}: empty")
    try:
        return check_mix(mix, what=what, known=known, tol=1e-3)
    except ValueError as e:
        raise Rc1Error(str(e)) from None


M = TypeVar("M", bound=BaseModel)


def load_config(path: str | Path, model: type[M]) -> M:
    """Read YAML/JSON at `path` into `model`; any problem -> Rc1Error 'path: key: message'."""
    from rc1.core.io import PARSE_ERRORS, parse_problem, readable_file

    path = readable_file(path, "config file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise Rc1Error(f"{path}: not UTF-8 text (byte {e.start})") from None
    except OSError as e:
        raise Rc1Error(f"{path}: cannot read ({e.strerror or type(e).__name__})") from None
    try:
        raw = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except json.JSONDecodeError as e:
        raise Rc1Error(f"{path}: line {e.lineno}: not valid JSON") from None
    except yaml.YAMLError as e:
        from rc1.core.io import yaml_problem

        raise Rc1Error(f"{path}: {yaml_problem(e)}") from None
    except PARSE_ERRORS as e:
        raise Rc1Error(f"{path}: {parse_problem(e)}") from None
    if not isinstance(raw, dict):
        raise Rc1Error(f"{path}: expected a mapping at the top level")
    try:
        return model.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        key = ".".join(str(p) for p in err["loc"]) or "(top level)"
        msg = err["msg"].removeprefix("Value error, ")
        raise Rc1Error(f"{path}: key '{key}': {msg}") from None


def load_thresholds(path: str | Path = GATES_PATH) -> Thresholds:
    gates = load_config(path, Thresholds)
    gates._source = str(path)
    return gates


def load_data_config(path: str | Path = CONFIG_DIR / "data.yaml") -> DataConfig:
    return load_config(path, DataConfig)


def load_weights(path: str | Path = CONFIG_DIR / "weights.json") -> Weights:
    return load_config(path, Weights)

