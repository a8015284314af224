"""What rc1 adds to TRL's training loop: its trainer subclass (advantages kept per batch, rollouts under the LoRA
generation mode and the thinking budget), its callback (metrics, adaptive KL, held-out eval, checkpoints) and the
state a checkpoint carries for an identical resume."""

from __future__ import annotations

import contextlib
import json
import math
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from rc1.core.ppo_config import PPOConfig
from rc1.train.checkpoints import CheckpointStore
from rc1.train.sampler import ReplayHistory
from rc1.train.strategy import trl_classes

KL_HORIZON = 10000


def adapt_beta(beta: float, kl: float | None, target: float, n_steps: int, horizon: int = KL_HORIZON) -> float:
    """PPO's adaptive KL controller: move beta toward the value that keeps kl near target."""
    if kl is None or not math.isfinite(kl) or beta <= 0 or target <= 0:
        return beta
    err = max(-0.2, min(0.2, kl / target - 1.0))
    return beta * (1.0 + err * n_steps / horizon)


def _mem_used_mb() -> float:
    import torch

    if torch.cuda.is_available():
        return torch.cuda.max_memory_allocated() / 2**20
    import psutil

    return psutil.Process().memory_info().rss / 2**20


@dataclass
class TrainState:
    """rc1's part of a checkpoint (rc1_state.json): restored on resume for an identical continuation."""

    beta: float
    history: ReplayHistory = field(default_factory=ReplayHistory)
    best_metric: float | None = None
    eval_reward: float | None = None      # the latest held-out eval/reward (what the next save compares)

    def to_json(self) -> dict:
        return {"beta": self.beta, "history": self.history.to_json(), "best_metric": self.best_metric,
                "eval_reward": self.eval_reward}

    @classmethod
    def from_json(cls, d: dict, default_beta: float) -> "TrainState":
        return cls(beta=float(d.get("beta", default_beta)), history=ReplayHistory.from_json(d.get("history", {})),
                   best_metric=d.get("best_metric"), eval_reward=d.get("eval_reward"))


@contextlib.contextmanager
def budgeted(model, call) -> Iterator[None]:
    """`model.generate` applies the thinking budget of `call` (rc1.generation.budget.GenerateCall) inside the block:
    TRL calls generate itself, so its arguments are added there; the model's own method is back afterwards."""
    if call is None:
        yield
        return
    own = vars(model).get("generate")
    inner = model.generate
    extra = call.kwargs()
    model.generate = lambda *a, **kw: inner(*a, **{**extra, **kw})
    try:
        yield
    finally:
        if own is None:
            del model.generate
        else:
            model.generate = own


def rc1_trainer_class(strategy_name: str, generating: Callable = lambda model: contextlib.nullcontext(),
                      vllm: dict | None = None):
    """TRL's trainer for the strategy (GRPOTrainer or RLOOTrainer), unchanged but for these: it keeps each training
    batch's advantages (per rollout, with its prompt's difficulty and how often it asked the user) so rc1 can log what
    the update actually weighs; its rollouts generate inside `generating(model)` (ppo.lora_generation); each turn
    applies the thinking budget `rc1_budget` (rc1.generation.budget: transformers generate, or vLLM in phases), whose
    per-turn counts of a training batch are kept in rc1_batch["turns"]; the tokens the budget forced carry no gradient
    (GRPO: its tool mask, rc1.generation.budget.forced_mask), and the share of sequences TRL's importance-sampling
    correction of vLLM samples masked is counted (rc1_batch["sampling"]). With `vllm` (dtype, lora_r, seed,
    quantization) a trainer configured with use_vllm samples on rc1's colocated engine (rc1.train.vllm_rollout)."""
    import sys

    from rc1.generation.budget import GenerateCall, TurnStats, forced_mask, summarize_turns

    _, base = trl_classes(strategy_name, vllm=vllm is not None)

    class Rc1Trainer(base):
        rc1_batch: dict = {}
        rc1_gather: Callable[[list], list] = staticmethod(list)   # across the training processes (rc1.train.dist)
        rc1_budget = None   # a ThinkingBudget (rc1.generation.budget.for_tokenizer)

        def __init__(self, *args, **kwargs):
            from rc1.train.vllm_rollout import rc1_vllm

            with rc1_vllm(sys.modules[base.__module__], vllm or {}) if vllm else contextlib.nullcontext():
                super().__init__(*args, **kwargs)

        def _rc1_vllm(self):
            from rc1.train.vllm_rollout import Rc1VllmGeneration

            gen = getattr(self, "vllm_generation", None) if getattr(self, "use_vllm", False) else None
            return gen if isinstance(gen, Rc1VllmGeneration) else None

        def _generate_single_turn(self, *args, **kwargs):
            if (gen := self._rc1_vllm()) is not None:   # the budget is applied by the engine's phased generation
                out = super()._generate_single_turn(*args, **kwargs)
                if self.model.training:
                    self.rc1_batch.setdefault("turns", []).extend(g.turn.stats() for g in gen.last)
                return out
            model = self.accelerator.unwrap_model(self.model)
            call = GenerateCall(self.rc1_budget) if self.rc1_budget is not None else None
            with generating(model), budgeted(model, call):
                out = super()._generate_single_turn(*args, **kwargs)
            if call is None:
                return out
            # GRPOTrainer returns (completion ids, logprobs), RLOOTrainer the completion ids
            completion_ids, rest = (out[0], out[1:]) if isinstance(out, tuple) else (out, None)
            completion_ids = call.trim(completion_ids)
            if self.model.training:
                self.rc1_batch.setdefault("turns", []).extend(call.stats())
            return completion_ids if rest is None else (completion_ids, *rest)

        def _generate(self, prompts):
            out = super()._generate(prompts)
            if self.rc1_budget is None or not (isinstance(out, tuple) and len(out) == 8):
                return out   # RLOOTrainer has no token mask: there the forced closing takes part in the loss
            prompt_ids, completion_ids, tool_mask, *rest = out
            plain = tool_mask or [[1] * len(c) for c in completion_ids]
            masks = [forced_mask(self.rc1_budget, p, c, m) for p, c, m in zip(prompt_ids, completion_ids, plain)]
            if self.model.training:
                self.rc1_batch["forced"] = [sum(m) < sum(t) for m, t in zip(masks, plain)]
            return (prompt_ids, completion_ids, masks, *rest)

        def _generate_and_score_completions(self, inputs):
            if self.model.training:
                self.rc1_batch["turns"] = []
                self.rc1_batch["forced"] = []
            out = super()._generate_and_score_completions(inputs)
            if self.model.training:
                adv = out["advantages"].detach().float().cpu().reshape(len(inputs), -1).mean(dim=1).tolist()
                rows = self.rc1_gather([(float(a), str(x.get("difficulty"))) for a, x in zip(adv, inputs)])
                self.rc1_batch["advantages"] = [a for a, _ in rows]
                self.rc1_batch["difficulty"] = [d for _, d in rows]
                turns = self.rc1_gather([tuple(vars(t).values()) for t in self.rc1_batch.get("turns", [])])
                self.rc1_batch["think"] = summarize_turns([TurnStats(*t) for t in turns]) if turns else {}
                forced = self.rc1_batch.get("forced") or []
                self.rc1_batch["sampling"] = masked_shares(out.get("importance_sampling_ratio"), forced,
                                                           self.rc1_gather)
                if self.rc1_budget is not None and self.rc1_budget.thinking is not None:
                    everyone = self.rc1_gather(list(forced))
                    self.rc1_batch["think"]["think/forced_share"] = sum(everyone) / max(1, len(everyone))
            return out

    return Rc1Trainer


def masked_shares(ratio, forced: list[bool], gather: Callable[[list], list] = list) -> dict[str, float]:
    """What TRL's importance-sampling correction of vLLM samples dropped this step: the share of sequences whose ratio
    it masked to 0 (sequence_mask, its default; in a token mode: sequences with a masked token), overall and among the
    sequences with tokens the thinking budget forced. No ratio (no vLLM, or the correction off): nothing."""
    if ratio is None:
        return {}
    masked = (ratio.detach() == 0).any(dim=-1).cpu().tolist()
    rows = gather([(bool(m), bool(f)) for m, f in zip(masked, forced + [False] * (len(masked) - len(forced)))])
    out = {"sampling/masked_share": sum(m for m, _ in rows) / max(1, len(rows))}
    hit = [m for m, f in rows if f]
    if hit:
        out["sampling/masked_share_forced"] = sum(hit) / len(hit)
    return out


def advantage_stats(batch: dict) -> dict[str, float]:
    """What one training batch's update weighs: mean |advantage| per prompt difficulty (adv_abs.<difficulty>;
    the difficulty factor scales these) and the mean advantage of rollouts that asked the user vs did not
    (adv_mean.asked / adv_mean.not_asked; the over-clarification penalty pushes the first down)."""
    adv = batch.get("advantages") or []
    groups: dict[str, list[float]] = defaultdict(list)
    for d, a in zip(batch.get("difficulty") or [], adv):
        groups[f"adv_abs.{d}"].append(abs(a))
    asked = batch.get("asked") or []
    if len(asked) == len(adv):
        for n, a in zip(asked, adv):
            groups["adv_mean.asked" if n else "adv_mean.not_asked"].append(a)
    return {k: sum(v) / len(v) for k, v in sorted(groups.items()) if v}


def rc1_callback_class():
    from transformers import TrainerCallback

    class Rc1Callback(TrainerCallback):
        """rc1 metrics per step, adaptive beta, held-out eval/reward, checkpoints to step_XXXXX/ + manifest + best/
        (best = the highest eval/reward so far, measured just before the save), a simulated kill."""

        def __init__(self, *, store: CheckpointStore, state: TrainState, ppo: PPOConfig, log_metrics, metrics_path,
                     reward_stats: dict, stop_after: int | None = None, barrier: Callable[[], None] = lambda: None):
            self.store, self.st, self.ppo = store, state, ppo
            self.log_metrics, self.metrics_path, self.reward_stats = log_metrics, Path(metrics_path), reward_stats
            self.stop_after = stop_after
            self.barrier = barrier
            self.trainer = None   # set by train() before training starts
            self._t = None
            self.sec_per_step: list[float] = []

        def on_train_begin(self, args, state, control, **kw):
            self._t = time.perf_counter()
            self.trainer.beta = self.st.beta

        def on_step_end(self, args, state, control, **kw):
            now = time.perf_counter()
            self.sec_per_step.append(now - (self._t or now))
            self._t = now
            if self.stop_after is not None and state.global_step >= self.stop_after:
                control.should_training_stop = True   # the test's stand-in for a kill: no final save

        def on_log(self, args, state, control, logs=None, **kw):
            logs = logs or {}
            if "loss" not in logs:
                return
            kl = logs.get("kl")
            # what TRL computes under TRL's names (loss, reward, reward_std, kl, entropy, clip_ratio/*,
            # frac_reward_zero_std, completions/*, learning_rate, grad_norm, ...); rc1's own under rc1.* (the reward
            # function's statistics reach TRL's logs too, through its log_metric: once, as rc1's)
            trl = {k: v for k, v in logs.items() if k not in self.reward_stats}
            m = {**trl, "rc1.beta": self.st.beta, "rc1.mem_used_mb": _mem_used_mb(),
                 "rc1.sec_per_step": self.sec_per_step[-1] if self.sec_per_step else None,
                 **{f"rc1.{k.replace('/', '.')}": v for k, v in self.reward_stats.items()},
                 **{f"rc1.{k}": v for k, v in advantage_stats(getattr(self.trainer, "rc1_batch", {})).items()},
                 # the thinking budget and truncation (rc1.generation.budget), under TRL-style names
                 **getattr(self.trainer, "rc1_batch", {}).get("think", {}),
                 **getattr(self.trainer, "rc1_batch", {}).get("sampling", {}),
                 **getattr(self.trainer, "rc1_batch", {}).get("episodes", {})}
            m = {k: float(v) for k, v in m.items()
                 if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(float(v))}
            if state.is_world_process_zero:   # every process computed the same (gathered) numbers
                self.log_metrics(m, state.global_step)
                self.metrics_path.parent.mkdir(parents=True, exist_ok=True)
                with open(self.metrics_path, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps({"step": state.global_step, **m}, sort_keys=True) + "\n")
            self.st.beta = adapt_beta(self.st.beta, kl, self.ppo.ppo.target_kl, self.ppo.ppo.batch_size)
            self.trainer.beta = self.st.beta

        def on_evaluate(self, args, state, control, metrics=None, **kw):
            reward = (metrics or {}).get("eval_reward")
            if reward is None or not math.isfinite(float(reward)):
                return
            self.st.eval_reward = float(reward)
            self._eval_step = state.global_step
            if state.is_world_process_zero:
                self.log_metrics({"eval/reward": float(reward)}, state.global_step)

        def on_save(self, args, state, control, **kw):
            step = state.global_step
            src = Path(args.output_dir) / f"checkpoint-{step}"
            # only an evaluation of this very step may make it best (TRL evaluates before it saves)
            metric = self.st.eval_reward if getattr(self, "_eval_step", None) == step else None
            is_best = metric is not None and (self.st.best_metric is None or metric > self.st.best_metric)
            if is_best:
                self.st.best_metric = metric
            self.barrier()   # every process has written its part (its RNG state) of checkpoint-<step>
            if state.is_world_process_zero:
                self.store.commit_step(src, step, self.st.to_json(), metric)
                if is_best:
                    self.store.add_best(step, metric)
                self.store.rotate(self.ppo.checkpoint.keep_last)
            self.barrier()

    return Rc1Callback
