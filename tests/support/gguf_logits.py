"""Every position's logits of a GGUF model under llama-cpp-python (the test that compares them with transformers')."""

from __future__ import annotations

from typing import Sequence


def prompt_logits(llm, ids: Sequence[int]):
    """Logits (len(ids) x vocab, float32 numpy) for every position of `ids`; `llm` loaded with logits_all=True."""
    import numpy as np

    llm.reset()
    llm.eval(list(ids))
    return np.array(llm.scores[: len(ids)], dtype=np.float32)
