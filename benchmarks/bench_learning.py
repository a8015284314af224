"""Does the RL loop learn, not only run? A CPU run of a few minutes through rc1's trainer (rc1.train.engine.make_trainer:
the strategy, LoRA, TRL's GRPO) on StrategyQA questions, with a reward a small model can learn: the reply states a
yes/no verdict (rc1.scoring.answers: the answer as rc1 reads it, the format half of StrategyQA success).

    python benchmarks/bench_learning.py                   # ../shared/data's StrategyQA, 3 runs: learn, flipped, frozen
    python benchmarks/bench_learning.py --steps 60 --data path/to/strategyqa_train.json

Three runs from the same random-init model (a Qwen3 of hidden 128, 4 layers, rc1's tokenizer), same seed and data:
- learn: reward = 1 when the reply states a verdict, else 0;
- flipped: the same reward with its sign flipped (a control: the policy is pushed away from verdicts);
- frozen: the learn reward with the LoRA frozen (learning rate 0; a control: nothing can move).
Printed per run: the mean training reward per fifth of the run (the curve), and the held-out success (rc1.scoring.answers.
is_correct: the right yes/no) and verdict rate on held-out questions, sampled as in training, before and after. The verdict reward
alone lifts success from ~0 toward chance (half the verdicts are right); the controls must not rise.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DATA = REPO.parent / "shared" / "data" / "strategyqa" / "strategyqa_train.json"
BUNDLED = REPO / "rc1" / "data" / "bundled" / "strategyqa" / "strategyqa_train.json.gz"
SHAPE = {"hidden_size": 128, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
         "head_dim": 32, "intermediate_size": 256}
SYSTEM = "Answer the question with yes or no."
CLOSING = "\nTime is up.\n"   # ppo_dev.yaml's: a short forced closing of the reasoning


def load_items(path: Path) -> list[dict]:
    from rc1.data.files import read_json_list

    return [{"question": t["question"], "answer": t["answer"]} for t in read_json_list(path, "strategyqa").records]


def verdict(text: str) -> str | None:
    """The one yes/no the reply commits to, as rc1 reads it (None: none, or both)."""
    from rc1.scoring.answers import extract_yes_no, final_answer, states_one_answer

    span = final_answer(text).span
    return extract_yes_no(span) if span and states_one_answer("strategyqa", span) else None


def prompt(q: str) -> list[dict]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": q}]


def heldout_scores(trainer, items: list[dict], new_tokens: int, samples: int) -> dict[str, float]:
    """The policy's replies to held-out questions, sampled as in training (temperature 1, the thinking budget, the
    reply's content read as TRL reads it for the reward: the reasoning apart): success (the right yes/no,
    rc1.scoring.answers.is_correct) and verdict rate, over `samples` replies per question."""
    import torch
    from trl.chat_template_utils import parse_response

    from rc1.generation.budget import GenerateCall
    from rc1.scoring.answers import final_answer, is_correct

    tok, model = trainer.processing_class, trainer.model
    model.eval()
    right = stated = 0
    with torch.no_grad():
        for it in items:
            ids = tok.apply_chat_template(prompt(it["question"]), add_generation_prompt=True, return_tensors="pt",
                                          return_dict=True)
            call = GenerateCall(trainer.rc1_budget)
            out = model.generate(**ids, max_new_tokens=new_tokens, do_sample=True, temperature=1.0, top_k=0,
                                 num_return_sequences=samples, pad_token_id=tok.pad_token_id, **call.kwargs())
            prefix = ids["input_ids"][0].tolist()
            for row in call.trim(out[:, len(prefix):].tolist()):
                text = parse_response(tok, row, prefix=prefix).get("content") or ""
                stated += verdict(text) is not None
                right += is_correct("strategyqa", final_answer(text).span, it["answer"])
    model.train()
    n = len(items) * samples
    return {"success": right / n, "verdict_rate": stated / n}


def verdict_reward(sign: float = 1.0):
    """The benchmark's reward: `sign` x 1 when the reply (its content, the reasoning apart) states one verdict."""
    def reward(completions, **_):
        texts = [c[-1]["content"] if isinstance(c, list) else str(c) for c in completions]
        return [sign * float(verdict(t) is not None) for t in texts]

    return reward


def make_run(kind: str, args, base: str, train: list[dict], out_dir: str, callbacks=(), reward=None):
    """rc1's trainer (rc1.train.engine.make_trainer) for one run of the benchmark, not yet trained: ppo_dev.yaml with
    the benchmark's settings, one turn without tools, the verdict reward (its sign flipped for `flipped`), the LoRA
    frozen (learning rate 0) for `frozen`."""
    import yaml
    from datasets import Dataset
    from transformers import set_seed

    from rc1.core.ppo_config import PPOConfig
    from rc1.train.engine import make_trainer

    set_seed(args.seed)
    cfg = yaml.safe_load((REPO / "configs" / "ppo_dev.yaml").read_text())
    # the thinking template opens <think> and the random model never closes it: the budget closes it after
    # --think-tokens and leaves --answer-tokens for the reply the reward reads (without one, no reply states anything)
    cfg["generation"] = {"thinking_budget": args.think_tokens, "answer_budget": args.answer_tokens, "closing": CLOSING}
    cfg["model"].update(base=base, lora_r=8, lora_alpha=16,
                        target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"])
    cfg["ppo"].update(batch_size=args.prompts, group_size=args.group, max_new_tokens=args.new_tokens, max_turns=1,
                      learning_rate=args.lr, init_kl_coef=0.0, temperature=1.0)
    cfg["trainer"] = {"strategy": args.strategy}
    rows = [prompt(train[(i * 7919) % len(train)]["question"]) for i in range(args.steps * args.prompts)]
    trainer = make_trainer(PPOConfig.model_validate(cfg), base=base,
                           reward_funcs=[reward or verdict_reward(-1.0 if kind == "flipped" else 1.0)],
                           train_dataset=Dataset.from_dict({"prompt": rows}), seed=args.seed, out_dir=out_dir,
                           max_steps=args.steps, mode="dev", callbacks=list(callbacks), frozen=kind == "frozen",
                           environment=False)   # one turn, no tools: the verdict is all that is asked
    trainer.args.save_strategy = "no"
    return trainer


def run(kind: str, args, base: str, train: list[dict], heldout: list[dict]) -> dict:
    from transformers import TrainerCallback

    sign = -1.0 if kind == "flipped" else 1.0
    curve: list[float] = []

    class Curve(TrainerCallback):
        def on_log(self, a, state, control, logs=None, **kw):
            if logs and "reward" in logs:
                curve.append(sign * float(logs["reward"]))   # the verdict rate of the step's rollouts

    with tempfile.TemporaryDirectory() as d:
        trainer = make_run(kind, args, base, train, d, callbacks=[Curve()])
        before = heldout_scores(trainer, heldout, args.new_tokens, args.samples)
        trainer.train()
        after = heldout_scores(trainer, heldout, args.new_tokens, args.samples)
    return {"run": kind, "curve": curve, "before": before, "after": after}


def episode_tokens(base: str, args) -> int:
    """ppo.max_new_tokens of a turn that uses both budgets: the reasoning, the forced closing (the sentence, </think>,
    a blank line), the answer and its end-of-turn token."""
    from rc1.core.ppo_config import GenerationCfg
    from rc1.generation.budget import for_tokenizer
    from rc1.train.tiny import load_tokenizer

    tok = load_tokenizer(base)
    gen = GenerationCfg(thinking_budget=args.think_tokens, answer_budget=args.answer_tokens, closing=CLOSING)
    return args.think_tokens + len(for_tokenizer(tok, gen).closing_ids) + args.answer_tokens + 1


def blocks(curve: list[float], n: int = 5) -> list[float]:
    """The mean of each of `n` consecutive parts of the curve, together covering every step (the last part ends with
    the last step)."""
    cuts = [round(i * len(curve) / n) for i in range(n + 1)]
    return [sum(curve[a:b]) / (b - a) for a, b in zip(cuts, cuts[1:]) if b > a]


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DATA if DATA.is_file() else BUNDLED),
                    help="StrategyQA in its official JSON format (plain or .gz; default ../shared/data's, else the "
                         "sample bundled with rc1)")
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--prompts", type=int, default=8)
    ap.add_argument("--group", type=int, default=8)
    ap.add_argument("--think-tokens", type=int, default=2, help="thinking budget: reasoning tokens, then rc1 closes it")
    ap.add_argument("--answer-tokens", type=int, default=12, help="answer budget: the reply the reward reads")
    ap.add_argument("--lr", type=float, default=2e-2)
    ap.add_argument("--strategy", default="dapo")
    ap.add_argument("--heldout", type=int, default=50, help="held-out questions (never trained on)")
    ap.add_argument("--samples", type=int, default=4, help="sampled replies per held-out question")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--vocab", type=int, default=512, help="tokenizer vocabulary (smaller: verdict words less rare)")
    ap.add_argument("--runs", default="learn,flipped,frozen")
    ap.add_argument("--json", default=None)
    return ap


def setup(args, models: Path) -> tuple[str, list[dict], list[dict]]:
    """(the random-init base model built under `models`, training questions, held-out questions); sets
    args.new_tokens."""
    from rc1.train.tiny import build_tiny

    items = load_items(Path(args.data))
    random.Random(args.seed).shuffle(items)
    heldout, train = items[:args.heldout], items[args.heldout:]
    corpus = [f"{SYSTEM} {it['question']} Answer: {it['answer']}" for it in train]
    base = str(build_tiny(Path(models) / "base", corpus, seed=args.seed,
                          shape={**SHAPE, "max_position_embeddings": 4096, "vocab_size": args.vocab}))
    args.new_tokens = episode_tokens(base, args)
    return base, train, heldout


def main() -> int:
    args = parser().parse_args()
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    import torch

    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    base, train, heldout = setup(args, Path(tempfile.mkdtemp()))
    results = []
    for kind in args.runs.split(","):
        r = run(kind, args, base, train, heldout)
        results.append(r)
        b = blocks(r["curve"])
        print(f"{kind:<8} reward by fifth of the run: {' '.join(f'{x:.3f}' for x in b)}  (start {b[0]:.3f}, end "
              f"{b[-1]:.3f})  held-out success {r['before']['success']:.3f} -> {r['after']['success']:.3f}, verdict "
              f"rate {r['before']['verdict_rate']:.3f} -> {r['after']['verdict_rate']:.3f}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    learn = next((r for r in results if r["run"] == "learn"), None)
    if learn:
        start, end = head_tail(learn["curve"])
        rose = end > start + 0.05 and learn["after"]["success"] > learn["before"]["success"]
        controls = {r["run"]: head_tail(r["curve"]) for r in results if r["run"] != "learn"}
        flat = all(e <= s0 + 0.02 for s0, e in controls.values())
        print(f"learn: reward {start:.3f} (first 5 steps) -> {end:.3f} (last 10): {'rose' if rose else 'did not rise'}; "
              + "; ".join(f"{k}: {a:.3f} -> {b:.3f}" for k, (a, b) in controls.items())
              + f": {'flat or falling' if flat else 'ROSE'}")
        return 0 if rose and flat else 1
    return 0


def head_tail(curve: list[float]) -> tuple[float, float]:
    """The mean reward of the first 5 steps and of the last 10."""
    head, tail = curve[:5], curve[-10:]
    return sum(head) / len(head), sum(tail) / len(tail)

if __name__ == "__main__":
    sys.exit(main())
