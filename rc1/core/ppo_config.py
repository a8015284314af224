"""The model of configs/ppo_scale.yaml (and ppo_dev.yaml): the policy model, PPO's knobs as TRL runs them, the
trainer, sampling, reward, checkpoints, generation and evaluation (rc1.core.config's strict loader reads it)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from rc1.core.config import CONFIG_DIR, Strict, TASKS, check_mix, load_config, refuse_renamed


class ModelCfg(Strict):
    base: str
    finetune: Literal["qlora", "lora"] = "qlora"
    lora_r: int = Field(16, gt=0)
    lora_alpha: int = Field(32, gt=0)
    lora_dropout: float = Field(0.05, ge=0, lt=1)
    target_modules: list[str] = Field(default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj"])


class PPOCfg(Strict):
    # rollouts generated per seed (episodes: one completion, every turn of it, scored once): the seeds' `steps`, which
    # TRL's legacy PPOConfig counted in samples. The optimizer steps they make: rc1.train.units.optimizer_steps
    episodes: int = Field(gt=0)
    learning_rate: float = Field(gt=0)
    clip_range: float = Field(gt=0, lt=1)
    target_kl: float = Field(gt=0)
    init_kl_coef: float = Field(ge=0)
    batch_size: int = Field(gt=0)
    group_size: int = Field(ge=2)
    max_new_tokens: int = Field(gt=0)
    max_turns: int = Field(gt=0)
    temperature: float = Field(gt=0)
    # how rollouts are generated (rc1.train.rollout): transformers (model.generate), continuous_batching (transformers'
    # paged continuous batching, generate_batch) or vllm (needs CUDA and the vllm package). One that cannot run here
    # is refused in prod and falls back to transformers in dev, loudly (tags rc1.rollout_backend[_effective])
    rollout_backend: Literal["transformers", "continuous_batching", "vllm"] = "transformers"
    use_vllm: bool = False            # the old spelling of rollout_backend: vllm (kept as an alias)
    vllm_mode: Literal["colocate", "server"] = "colocate"   # colocate: in the training processes; server: TRL's
    #                                                         `trl vllm-serve` process
    vllm_server_base_url: str | None = None                 # server mode: its URL (unset: TRL's default host:port)
    vllm_gpu_memory_utilization: float = Field(0.3, gt=0, le=1)   # colocate mode: vLLM's share of each GPU
    # generation settings that matter on a GPU
    cache_implementation: Literal["dynamic", "static", "offloaded", "offloaded_static", "quantized"] | None = None
    cuda_graphs: bool | None = None   # continuous_batching: capture CUDA graphs (None: transformers decides)
    # LoRA while rollouts generate. transformers: adapter (unset) runs the LoRA layers as trained, merged folds LoRA
    # into the base weights while they generate (the exact base restored after). vLLM (rc1.generation.vllm_engine):
    # merged (unset, LoRA) loads the folded weights each step, adapter hands vLLM the adapter (unset, QLoRA)
    lora_generation: Literal["adapter", "merged"] | None = None
    gradient_checkpointing: bool = True   # recompute activations in the backward pass (memory for time)
    # transformers backend: torch.compile the decode step (a static KV cache, CUDA graphs; CUDA only, the CPU ignores
    # it); the first rollouts of a shape pay the compile
    compile_generation: bool = False
    # truncated completions (cut by a length limit before their end-of-turn token) carry no gradient (TRL's
    # mask_truncated_completions, DAPO's overlong filtering); counted every step (episodes/truncated_masked). Prod
    # requires it (config_check); the tiny dev model never ends a turn, so ppo_dev.yaml turns it off
    mask_truncated_completions: bool = True

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data):
        return refuse_renamed(data, "ppo")

    @model_validator(mode="after")
    def _vllm_alias(self):
        if self.use_vllm:
            if self.rollout_backend not in ("transformers", "vllm"):
                raise ValueError(f"use_vllm: true (the old spelling of rollout_backend: vllm) contradicts "
                                 f"rollout_backend: {self.rollout_backend}; keep one")
            self.rollout_backend = "vllm"
        self.use_vllm = self.rollout_backend == "vllm"
        if self.compile_generation and self.rollout_backend != "transformers":
            raise ValueError(f"compile_generation is a setting of rollout_backend: transformers, not "
                             f"{self.rollout_backend}")
        return self

    @field_validator("vllm_server_base_url")
    @classmethod
    def _server_only(cls, v, info):
        if v is not None and info.data.get("vllm_mode") != "server":
            raise ValueError("vllm_server_base_url is only read with vllm_mode: server")
        from rc1.core.redaction import has_credentials

        if v is not None and has_credentials(v):   # the config is logged as an artifact, its values as params
            raise ValueError("vllm_server_base_url carries credentials (user info or a key/token parameter); the ppo "
                             "config is logged to the tracking server, so keep secrets out of it")
        return v

    @field_validator("rollout_backend", mode="before")
    @classmethod
    def _no_llamacpp_rollouts(cls, v):
        if str(v).strip().lower() in ("llamacpp", "llama.cpp", "llama-cpp", "gguf"):
            raise ValueError("llama.cpp cannot produce RL rollouts: GRPO needs the training model's own logits and "
                             "gradients; use it for inference and evaluation (rc1 evaluate --backend llamacpp)")
        return v


class TrainerCfg(Strict):
    # the RL strategy (rc1.train.strategy.STRATEGIES): grpo | dr_grpo | dapo | bnpo are GRPOTrainer loss types,
    # rloo is TRL's RLOOTrainer
    strategy: Literal["grpo", "dr_grpo", "dapo", "bnpo", "rloo"] = "dapo"


class ScheduleStep(Strict):
    from_episode: int = Field(ge=0)   # in force once this many rollouts were generated
    ratio: float = Field(ge=0, le=1)

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data):
        return refuse_renamed(data, "sampling.seed_pool_schedule")


class SamplingCfg(Strict):
    difficulty: dict[Literal["easy", "medium", "hard"], float]
    seed_pool_schedule: list[ScheduleStep] = Field(min_length=1)
    replay_cap: float = Field(ge=0, le=1)
    heldout_frac: float = Field(0.05, ge=0, lt=1)   # pool seeds kept out of training for `rc1 evaluate --heldout pool`
    heldout_eval_items: int = Field(8, ge=1)        # fixed held-out slice scored before every checkpoint (eval/reward)

    @field_validator("difficulty")
    @classmethod
    def _sums_to_one(cls, v):
        return check_mix(v, what="difficulty")


class RewardCfg(Strict):
    overclar_alpha: float = Field(ge=0)
    overclar_cap: int = Field(ge=0)
    difficulty_beta: float = Field(ge=0.05, le=0.10)


class CheckpointCfg(Strict):
    save_every_episodes: int = Field(gt=0)   # a checkpoint (and the held-out eval/reward before it) per this many rollouts
    keep_last: int = Field(ge=1)

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data):
        return refuse_renamed(data, "checkpoint")


# The Qwen3 technical report's closing of a reasoning that reached its budget (rc1.generation.budget), then `</think>`
DEFAULT_CLOSING = ("\n\nConsidering the limited time by the user, I have to give the solution based on the thinking "
                   "directly now.\n")


class GenerationCfg(Strict):
    """Per assistant turn, the same in training rollouts, `rc1 evaluate` and the served model (rc1.generation.budget)."""

    thinking_budget: int | None = Field(None, gt=0)   # tokens of reasoning; at the budget rc1 closes it
    answer_budget: int | None = Field(None, gt=0)     # tokens after `</think>`; a longer answer is cut (truncated)
    closing: str = Field(DEFAULT_CLOSING, min_length=1)   # forced, then `</think>`, when reasoning reaches its budget

    @model_validator(mode="after")
    def _both(self):
        if (self.thinking_budget is None) != (self.answer_budget is None):
            raise ValueError("thinking_budget and answer_budget go together: set both or neither")
        return self

    @property
    def budgeted(self) -> bool:
        return self.thinking_budget is not None


class EvaluateCfg(Strict):
    batch_size: int = Field(32, gt=0)   # `rc1 evaluate`: episodes per batched generate call (left-padded)


class PPOConfig(Strict):
    run_mode: Literal["prod", "dev"] = "prod"
    simulate: bool
    live_mode: bool
    use_overclar_penalty: bool
    model: ModelCfg
    mix: dict[str, float]
    ppo: PPOCfg
    trainer: TrainerCfg = Field(default_factory=TrainerCfg)
    seeds: list[int] = Field(min_length=1)
    sampling: SamplingCfg
    reward: RewardCfg
    checkpoint: CheckpointCfg
    # the small-step trial config of this one (a path): when set, the gate trains this config only after a trial
    # of the same preflight passed its evaluation (`rc1 gate --trial` trains the trial config)
    trial: str | None = None
    evaluate: EvaluateCfg = Field(default_factory=EvaluateCfg)
    generation: GenerationCfg = Field(default_factory=GenerationCfg)
    # how the gate starts each seed's training: in its own process, or through `accelerate launch` with this
    # accelerate config (configs/accelerate/*.yaml: DDP, DeepSpeed ZeRO-2, FSDP, ...; preflight hashes the file)
    launcher: Literal["inprocess", "accelerate"] = "inprocess"
    accelerate_config: str | None = Field(None, validate_default=True)

    @field_validator("accelerate_config")
    @classmethod
    def _accelerate_config(cls, v, info):
        launcher = info.data.get("launcher")
        if launcher == "accelerate" and not v:
            raise ValueError("launcher: accelerate needs accelerate_config (a file such as "
                             "configs/accelerate/ddp.yaml)")
        if launcher == "inprocess" and v is not None:
            raise ValueError("accelerate_config is only read with launcher: accelerate")
        return v

    @field_validator("mix")
    @classmethod
    def _mix(cls, v):
        return check_mix(v, what="mix", known=TASKS)

    @model_validator(mode="after")
    def _trainer_fits(self):
        if self.trainer.strategy == "rloo" and self.ppo.max_turns != 1:
            raise ValueError("trainer.strategy rloo: TRL's RLOOTrainer has no tool loop, so its episodes are one "
                             f"assistant turn without tools; set ppo.max_turns: 1 (it is {self.ppo.max_turns})")
        if self.ppo.lora_generation == "merged" and self.model.finetune == "qlora":
            raise ValueError("ppo.lora_generation merged needs model.finetune: lora (a 4-bit base cannot hold the "
                             "merged weights and give the exact base back)")
        g = self.generation
        if g.budgeted and g.thinking_budget + g.answer_budget > self.ppo.max_new_tokens:
            raise ValueError(f"generation.thinking_budget + answer_budget ({g.thinking_budget} + {g.answer_budget}) "
                             f"exceed ppo.max_new_tokens {self.ppo.max_new_tokens}, the episode's tokens: no turn could "
                             f"use both")
        return self


def load_ppo_config(path: str | Path = CONFIG_DIR / "ppo_scale.yaml") -> PPOConfig:
    return load_config(path, PPOConfig)
