"""One `rc1 train` step per RL strategy (trainer.strategy) on a given base model, in one process, with rc1's
real training path (rc1.stages.train.run: the tool environment, the heuristic judge's reward, the MLflow run):

    python benchmarks/bench_strategies.py --base /tmp/br/qwen3-4b --finetune qlora --json out.json    # on a GPU
    python benchmarks/bench_strategies.py                      # the tiny model on this CPU

Each strategy trains 1 step of a toy pool (the train run stops after it, without a checkpoint) and reports its
s/step, loss, reward, KL and peak memory as its train run logged them.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
ALL_PROJECTIONS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def toy_pool(n: int = 24) -> list[dict]:
    """Seeds of the three tasks with short contexts: enough for a step and its held-out split."""
    tasks = {"gsm8k": ("Tom has {i} apples and buys {j} more. How many apples does he have?", lambda i, j: str(i + j)),
             "hotpotqa": ("In which country is the city where festival {i} takes place?", lambda i, j: "France"),
             "strategyqa": ("Is the number {i} even?", lambda i, j: "yes" if i % 2 == 0 else "no")}
    pool = []
    for i in range(n):
        task = list(tasks)[i % 3]
        question, answer = tasks[task]
        pool.append({"id": f"{task}:{i}", "task": task, "source_id": str(i), "template_id": "t1", "role": "student",
                     "style": "terse", "dialogue": [{"role": "system", "content": "You are a careful assistant."},
                                                    {"role": "user", "content": question.format(i=i, j=i + 2)}],
                     "needs_clarification": False, "hidden_info": None, "tools": ["wiki", "calc"],
                     "expected_tool_calls": [], "answer": answer(i, i + 2),
                     "context": [["Paris", ["Paris is the capital of France."]]],
                     "difficulty": ("easy", "medium", "hard")[i % 3]})
    return pool


def strategy_config(work: Path, args, name: str) -> Path:
    import yaml

    cfg = yaml.safe_load((REPO / "configs" / "ppo_dev.yaml").read_text())
    cfg.pop("generation", None)   # ppo_dev.yaml's thinking budget is for its 32 new tokens
    cfg["trainer"] = {"strategy": name}
    cfg["model"].update(base=args.base, finetune=args.finetune)
    if args.base != "tiny":
        cfg["model"].update(lora_r=16, lora_alpha=32, target_modules=ALL_PROJECTIONS)
    cfg["ppo"].update(batch_size=args.prompts, group_size=args.group, max_new_tokens=args.new_tokens,
                      max_turns=1 if name == "rloo" else cfg["ppo"]["max_turns"])
    cfg["checkpoint"].update(save_every_episodes=100000)
    path = work / f"ppo_{name}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", default="tiny", help="a model dir (benchmarks/bench_rollout.py --workdir saves one)")
    ap.add_argument("--finetune", default="lora", choices=["lora", "qlora"])
    ap.add_argument("--strategies", default="grpo,dr_grpo,dapo,bnpo,rloo")
    ap.add_argument("--prompts", type=int, default=4)
    ap.add_argument("--group", type=int, default=2)
    ap.add_argument("--new-tokens", type=int, default=32)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench_strategies-"))
    shutil.copytree(REPO / "configs", work / "configs")   # weights and gates, as a project directory holds them
    os.chdir(work)
    for k, v in {"RUN_MODE": "dev", "SCORER_PROVIDER": "heuristic", "REWARD_LIVE_MODE": "0",
                 "RC1_CACHE_DIR": str(work / "cache")}.items():
        os.environ.setdefault(k, v)
    os.environ.pop("MLFLOW_TRACKING_URI", None)
    import torch
    from mlflow.tracking import MlflowClient

    from rc1.stages import train
    from rc1.core.io import write_jsonl

    write_jsonl(work / "pool.jsonl", toy_pool())
    results = []
    for name in [s for s in args.strategies.split(",") if s]:
        if torch.cuda.is_available():
            torch.cuda.reset_peak_memory_stats()
        t = time.perf_counter()
        try:
            res = train.run(train.Config(config=str(strategy_config(work, args, name)), seed=1,
                                         pool=str(work / "pool.jsonl"), max_steps=2, stop_after=1,
                                         out_dir=str(work / name)))
            m = MlflowClient().get_run(res["run_id"]).data
            row = {"strategy": name, "finetune": m.tags.get("rc1.finetune_effective"),
                   "device": m.tags.get("rc1.device"), "dtype": m.tags.get("rc1.dtype"),
                   "sec_per_step": m.metrics.get("rc1.sec_per_step"), "loss": m.metrics.get("loss"),
                   "reward": m.metrics.get("reward"), "kl": m.metrics.get("kl"),
                   "peak_mem_gb": (torch.cuda.max_memory_allocated() / 1e9 if torch.cuda.is_available()
                                   else m.metrics.get("rc1.mem_used_mb", 0) / 1e3),
                   "wall_s": time.perf_counter() - t}
            row["ok"] = row["loss"] is not None and math.isfinite(row["loss"])
        except Exception as e:   # noqa: BLE001 -- a benchmark reports each strategy's failure and goes on
            row = {"strategy": name, "ok": False, "error": f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"}
        results.append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"base": args.base, "results": results}, indent=1))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
