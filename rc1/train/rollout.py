"""Where rollouts are generated and on what: the device and dtype of training, the rollout backend
(`ppo.rollout_backend`), and LoRA handling while rollouts generate (`ppo.lora_generation`).

A backend that cannot run here is refused in prod (one line, exit 2) and falls back to transformers' generate in
dev, loudly: the train run is tagged with what was asked and what ran (rc1.rollout_backend[_effective]).
"""

from __future__ import annotations

import contextlib
import importlib.util
from dataclasses import dataclass
from typing import Iterator

from rc1.core.ppo_config import PPOConfig
from rc1.core.errors import Rc1Error

# transformers' paged continuous batching (`generate_batch`) as TRL 1.16 drives it
CONTINUOUS_BATCHING_MIN_TRANSFORMERS = "5.8.0"


@dataclass(frozen=True)
class Device:
    kind: str     # cuda | mps | cpu
    dtype: str    # the dtype the policy is loaded and trained in

    @property
    def torch_dtype(self):
        import torch

        return getattr(torch, self.dtype)

    def tags(self) -> dict[str, str]:
        return {"rc1.device": self.kind, "rc1.dtype": self.dtype}


def device() -> Device:
    """CUDA trains in bf16, Apple's mps in fp16 (seed 004: bf16 is slow or missing there), the CPU in fp32."""
    import torch

    if torch.cuda.is_available():
        return Device("cuda", "bfloat16")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return Device("mps", "float16")
    return Device("cpu", "float32")


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
    return importlib.util.find_spec(package) is not None


def _transformers_at_least(version: str) -> bool:
    import transformers
    from packaging.version import Version

    return Version(transformers.__version__) >= Version(version)


def backend_missing(backend: str, cuda: bool, vllm: bool, cb: bool) -> str | None:
    """What `backend` lacks here (None: it can run). continuous_batching runs on a CPU too, but ~10x slower than
    generate on the tiny model: it is a GPU engine (paged KV cache, CUDA graphs)."""
    have = {"CUDA": cuda, "the vllm package": vllm, f"transformers>={CONTINUOUS_BATCHING_MIN_TRANSFORMERS}": cb}
    needs = {"vllm": ("CUDA", "the vllm package"),
             "continuous_batching": ("CUDA", f"transformers>={CONTINUOUS_BATCHING_MIN_TRANSFORMERS}")}
    return " and ".join(x for x in needs.get(backend, ()) if not have[x]) or None


def has_cuda() -> bool:
    import torch

    return torch.cuda.is_available()


def rollout_plan(ppo: PPOConfig, mode: str, cuda: bool | None = None, vllm: bool | None = None,
                 cb: bool | None = None) -> RolloutPlan:
    """The backend that generates this run's rollouts: the configured one, or (dev only) transformers' generate when
    it cannot run here; prod refuses."""
    p = ppo.ppo
    want = p.rollout_backend
    cuda = has_cuda() if cuda is None else cuda
    vllm = installed("vllm") if vllm is None else vllm
    cb = _transformers_at_least(CONTINUOUS_BATCHING_MIN_TRANSFORMERS) if cb is None else cb
    missing = backend_missing(want, cuda, vllm, cb)
    if missing is None:
        if ppo.generation.budgeted and want != "transformers":   # where it runs, it would not apply the budget
            raise Rc1Error(f"generation.thinking_budget is applied by rc1's logits processor in transformers' generate; "
                           f"ppo.rollout_backend={want} does not run it (use rollout_backend: transformers, or unset "
                           f"the budget)")
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
    """The context rollouts generate in: `merged_lora` or nothing."""
    if ppo.ppo.lora_generation == "merged":
        return merged_lora
    return lambda model: contextlib.nullcontext()
