"""Where the policy runs and in which dtype: the same for training, its rollouts (transformers or vLLM), evaluation
and the served model, recorded on runs as `rc1.device` / `rc1.dtype`.

CUDA runs bfloat16; Apple's mps float16 (seed 004: bf16 is slow or missing there); a CPU bfloat16 when it computes it
natively (AVX512-BF16 or AMX-BF16, as torch reports them: SmolLM2-135M generates 3.8x faster than in float32 on this
machine's AVX512-BF16, benchmarks/bench_rollout.py), float32 elsewhere (emulated bfloat16 is slower than float32).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

# CPU features with native bfloat16 arithmetic (torch.cpu.get_capabilities() keys)
BF16_CPU_FEATURES = ("avx512_bf16", "amx_bf16")


@dataclass(frozen=True)
class Device:
    kind: str     # cuda | mps | cpu
    dtype: str    # the dtype the policy is loaded, trained and sampled in

    @property
    def torch_dtype(self):
        import torch

        return getattr(torch, self.dtype)

    def tags(self) -> dict[str, str]:
        return {"rc1.device": self.kind, "rc1.dtype": self.dtype}


def cpu_capabilities() -> Mapping[str, object]:
    import torch

    get = getattr(torch.cpu, "get_capabilities", None)
    return get() if get is not None else {}


def cpu_dtype(capabilities: Mapping[str, object] | None = None) -> str:
    """bfloat16 on a CPU that computes it natively, else float32."""
    caps = cpu_capabilities() if capabilities is None else capabilities
    return "bfloat16" if any(caps.get(f) for f in BF16_CPU_FEATURES) else "float32"


def device() -> Device:
    import torch

    if torch.cuda.is_available():
        return Device("cuda", "bfloat16")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return Device("mps", "float16")
    return Device("cpu", cpu_dtype())
