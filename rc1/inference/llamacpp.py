"""llama.cpp as an inference backend (llama-cpp-python): greedy generation and logits from a GGUF file.

Inference and offline evaluation only. Training never rolls out on llama.cpp: GRPO needs the training model's own
logits and gradients for every rollout token, which a separate GGUF copy of the weights cannot give.

`LlamaCppGenerator(path)` is the generation function of rc1.inference.policy_vs_base.LlamaCppBackend: token ids in, new token ids
out (the EOS token included when generation stopped on it, as transformers' `generate` returns it). The prompt is
tokenized by the caller with the model's Hugging Face tokenizer and chat template, so both backends see the same ids.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from rc1.core.errors import Rc1Error


def require_llama_cpp():
    try:
        import llama_cpp
    except ImportError:
        raise Rc1Error("the llama.cpp backend needs llama-cpp-python: pip install -e '.[llamacpp]'") from None
    return llama_cpp


def load_gguf(path: str | Path, n_ctx: int = 4096, logits_all: bool = False, n_threads: int | None = None):
    """A llama_cpp.Llama on `path` (CPU), quiet."""
    llama_cpp = require_llama_cpp()
    path = Path(path)
    if not path.is_file():
        raise Rc1Error(f"{path}: no such GGUF file")
    threads = n_threads or int(os.environ.get("OMP_NUM_THREADS") or 0) or max(1, (os.cpu_count() or 2) // 2)
    try:
        return llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, logits_all=logits_all, n_threads=threads,
                               n_threads_batch=threads, verbose=False, seed=0)
    except ValueError as e:
        raise Rc1Error(f"{path}: llama.cpp cannot load it ({e})") from None


class LlamaCppGenerator:
    """Greedy continuation of token ids on a GGUF model."""

    def __init__(self, path: str | Path, n_ctx: int = 4096, n_threads: int | None = None,
                 eos_ids: Sequence[int] = ()):
        """eos_ids: the stop tokens of the Hugging Face side (tokenizer / generation config), added to the GGUF's."""
        self.llm = load_gguf(path, n_ctx=n_ctx, n_threads=n_threads)
        self.eos = {int(self.llm.token_eos()), *(int(i) for i in eos_ids if i is not None)}
        self.n_ctx = n_ctx

    def __call__(self, prompt_ids: Sequence[int], max_new_tokens: int, turn=None) -> list[int]:
        """New ids; `turn` (rc1.generation.budget.TurnBudget) forces tokens and stops the turn as the thinking budget
        says (a logits processor: llama.cpp then picks the forced token), and is fed every token."""
        if len(prompt_ids) >= self.n_ctx:
            raise Rc1Error(f"prompt of {len(prompt_ids)} tokens does not fit llama.cpp's context of {self.n_ctx}")
        limit = min(max_new_tokens, self.n_ctx - len(prompt_ids))

        def force(input_ids, scores):
            token = turn.forced() if turn is not None else None
            if token is not None:
                scores[:] = -float("inf")
                scores[token] = 0.0
            return scores

        out: list[int] = []
        for tok in self.llm.generate(list(prompt_ids), top_k=1, top_p=1.0, min_p=0.0, temp=0.0,
                                     repeat_penalty=1.0, reset=True, logits_processor=[force]):
            out.append(int(tok))
            if turn is not None:
                turn.feed(int(tok))
            if tok in self.eos or len(out) >= limit or (turn is not None and turn.done):
                break
        return out


