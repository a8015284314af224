"""Greedy decoding speed of the tiny dev model: PyTorch `generate` vs llama.cpp (llama-cpp-python) on its GGUF export.

    python benchmarks/bench_inference.py [--new-tokens 256] [--threads 1] [--repeats 3]

Builds (or reuses) the tiny Qwen3-architecture model, exports it with rc1.inference.gguf_export to f32, f16 and q8_0, and
times `--new-tokens` greedy tokens after the same chat-template prompt (EOS ignored, so every run decodes the same
count), best of `--repeats`. Prints one JSON object: prompt length, and per backend tokens/s (decode, prompt
included in the timing as a user sees it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--new-tokens", type=int, default=256)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)

    import torch

    from rc1.inference.gguf_export import merged_model, write_gguf
    from rc1.inference.llamacpp import load_gguf
    from rc1.train.env import pool_item_prompt
    from rc1.train.tiny import corpus_from_pool_items, load_tokenizer, tiny_dir

    torch.set_num_threads(args.threads)
    seed = {"id": "b", "task": "gsm8k", "answer": "12",
            "dialogue": [{"role": "system", "content": "You are a careful assistant."},
                         {"role": "user", "content": "Tom has 4 apples and buys 8 more. How many apples does he have?"}]}
    model_dir = tiny_dir(corpus_from_pool_items([seed]), seed=0)
    tok = load_tokenizer(str(model_dir))
    model = merged_model(str(model_dir), None)
    ids = tok.apply_chat_template(pool_item_prompt(seed), add_generation_prompt=True, tokenize=True, return_dict=False)
    n = args.new_tokens
    out: dict = {"model": "tiny (hidden 64, 2 layers)", "prompt_tokens": len(ids), "new_tokens": n,
                 "threads": args.threads, "tokens_per_s": {}}

    def best(fn) -> float:
        times = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return n / min(times)

    inp = torch.tensor([ids])

    def torch_run():
        with torch.no_grad():
            o = model.generate(inp, attention_mask=torch.ones_like(inp), do_sample=False, max_new_tokens=n,
                               min_new_tokens=n, pad_token_id=tok.pad_token_id)
        assert o.shape[1] == len(ids) + n

    torch_run()   # warm-up
    out["tokens_per_s"]["pytorch_f32"] = round(best(torch_run), 1)

    with tempfile.TemporaryDirectory() as d:
        for outtype in ("f32", "f16", "q8_0"):
            path = write_gguf(model, tok, Path(d) / f"tiny-{outtype}.gguf", outtype)
            llm = load_gguf(path, n_ctx=len(ids) + n + 8, n_threads=args.threads)

            def cpp_run():
                k = 0
                for _ in llm.generate(list(ids), top_k=1, temp=0.0, repeat_penalty=1.0, reset=True):
                    k += 1
                    if k >= n:
                        break
                assert k == n

            cpp_run()
            out["tokens_per_s"][f"llamacpp_{outtype}"] = round(best(cpp_run), 1)
            del llm
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
