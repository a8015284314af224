"""Where the policy runs and in which dtype: the same for training, its rollouts (transformers or vLLM), evaluation
and the served model, recorded on runs as `rc1.device` / `rc1.dtype`.

CUDA runs bfloat16; Apple's mps float16 (seed 004: bf16 is slow or missing there); a CPU bfloat16 when it computes it
natively (AVX512-BF16 or AMX-BF16, as torch reports them; benchmarks/bench_rollout.py measures both), float32 elsewhere
(emulated bfloat16 is slower than float32). `RC1_DTYPE` (float32 | bfloat16 | float16) overrides the choice, on any
device; the tag says what ran.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

from rc1.core.errors import Rc1Error

# CPU features with native bfloat16 arithmetic (torch.cpu.get_capabilities() keys)
BF16_CPU_FEATURES = ("avx512_bf16", "amx_bf16")
DTYPES = ("float32", "bfloat16", "float16")


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

    forced = os.environ.get("RC1_DTYPE", "").strip()
    if forced and forced not in DTYPES:
        raise Rc1Error(f"RC1_DTYPE={forced!r}: use one of {', '.join(DTYPES)} (or unset it: the hardware decides)")
    if torch.cuda.is_available():
        return Device("cuda", forced or "bfloat16")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return Device("mps", forced or "float16")
    return Device("cpu", forced or cpu_dtype())
