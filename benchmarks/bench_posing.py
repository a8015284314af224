"""The data half of preflight on real samples, without MLflow: the shadow set, the posed pool, the difficulty
table (clue-overlap medians and shares per task and bucket) and distinct-2 on the word budget, as preflight
builds and checks them (the same library calls and settings). For measuring how data is posed:

    python benchmarks/bench_posing.py                     # the bundled sample
    python benchmarks/bench_posing.py ../shared/data /tmp/third1 ...

It prints one block per data dir; the verdicts are the shipped gates' (dev).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rc1.core.config import load_thresholds, parse_mix  # noqa: E402
from rc1.core.ppo_config import load_ppo_config
from rc1.data import load_tasks  # noqa: E402
from rc1.difficulty.bucket import assign_buckets, resample  # noqa: E402
from rc1.difficulty.distribution import bucket_counts, difficulty_checks, median_by_bucket  # noqa: E402
from rc1.difficulty.table import build_table  # noqa: E402
from rc1.data.plan import PoolSpec  # noqa: E402
from rc1.data.pool import PoolStats, build_pool  # noqa: E402
from rc1.quality.diversity import distinct_n  # noqa: E402
from rc1.quality.validate import budget_indices  # noqa: E402
from rc1.data.shadow_set import default_mix, select_shadow  # noqa: E402
from rc1.data.templates import load_pack  # noqa: E402
from rc1.core.text import normalize, words  # noqa: E402

TARGET = "easy:0.25,medium:0.45,hard:0.30"   # preflight's
from rc1.quality.diversity import kl_divergence, ngram_counts  # noqa: E402
from rc1.quality.validate import baseline_stats  # noqa: E402
from rc1.quality.views import KL_SAMPLE_SIZE, SAMPLE_SEED, SAMPLE_SIZE  # noqa: E402  (validate-pool's)


def measure(data_dir: str | None, seed: int = 20250820, max_poses: int | None = None) -> dict:
    gates = load_thresholds(ROOT / "configs/gates.yaml").for_mode("dev")
    ppo = load_ppo_config(ROOT / "configs/ppo_dev.yaml")
    mix = dict(ppo.mix)
    records = {t: load_tasks(t, data_dir, mode="dev").records for t in mix}
    shadow = select_shadow(records, gates.shadow.n, gates.shadow.seed, gates.shadow.stratify, default_mix(
        ROOT / "configs/gates.yaml"))
    exclude = frozenset({r["id"] for r in shadow} | {normalize(r["question"]) for r in shadow})
    spec = PoolSpec(n=None, mix=mix, max_turns=ppo.ppo.max_turns, clarify_rate=0.30, tools=("wiki", "calc"),
                    seed=seed, exclude=exclude, leak_ngram=gates.validate_pool.leak_ngram,
                    leak_sim=gates.validate_pool.leak_sim, target=parse_mix(TARGET, known=("easy", "medium", "hard")),
                    **({"max_poses_per_item": max_poses} if max_poses else {}))
    stats = PoolStats()
    pool_items = list(build_pool(records, load_pack(ROOT / "templates/pack_v2"), spec, stats))
    table = build_table(pool_items)
    _, bucket = assign_buckets(table.columns, table.tasks, table.ids)
    target = parse_mix(TARGET, known=("easy", "medium", "hard"))
    idx, _ = resample(bucket, table.tasks, target, list(mix), 20250820)
    checks = difficulty_checks(table, bucket, idx, list(mix), gates.difficulty)
    clue = table.columns["clue_overlap"][idx]
    tasks = table.tasks[idx]
    per_task = {t: median_by_bucket(clue[tasks == t], bucket[idx][tasks == t]) for t in mix}
    pose = np.array([s["pose"] for s in pool_items])[idx]
    agree = {b: {p: int(((bucket[idx] == i) & (pose == p)).sum()) for p in ("easy", "medium", "hard")}
             for i, b in enumerate(("easy", "medium", "hard"))}
    toks = [words("\n".join(t["content"] for t in s["dialogue"] if t.get("role") == "user")) for s in pool_items]
    chosen = budget_indices([len(w) for w in toks], gates.validate_pool.distinct_2_words, SAMPLE_SEED)
    # the 3-gram KL to a pack_v1 pool of the same size over the same items (validate-pool's reference)
    v1 = build_pool(records, load_pack(ROOT / "templates/pack_v1"),
                    PoolSpec(n=len(pool_items), mix=mix, seed=SAMPLE_SEED, max_poses_per_item=10**9))
    base = baseline_stats(v1, KL_SAMPLE_SIZE, SAMPLE_SIZE, SAMPLE_SEED)
    kl = kl_divergence(ngram_counts(toks if len(toks) <= KL_SAMPLE_SIZE else
                                    [toks[i] for i in sorted(random.Random(SAMPLE_SEED).sample(
                                        range(len(toks)), KL_SAMPLE_SIZE))], 3), base.trigrams)
    return {"n": len(pool_items), "kl_3gram_vs_v1": kl, "shadow": {t: sum(r["task"] == t for r in shadow) for t in mix},
            "items": stats.items_used, "medians": median_by_bucket(clue, bucket[idx]), "per_task": per_task,
            "shares": bucket_counts(table.tasks, bucket, idx), "pose_by_bucket": agree,
            "distinct_2": distinct_n([toks[i] for i in chosen], 2),
            "distinct_2_by_task": {t: round(distinct_n([toks[i] for i in chosen if pool_items[i]["task"] == t], 2), 3)
                                   for t in mix},
            "failed": [f"{c['name']}={c['value']}" for c in checks if not c["pass"]]}


def show(name: str, r: dict) -> None:
    f = lambda x: "-" if x is None else f"{x:.3f}"  # noqa: E731
    print(f"== {name}: pool {r['n']}, shadow {r['shadow']}, items used {r['items']}, "
          f"distinct_2 {r['distinct_2']:.3f} {r['distinct_2_by_task']}, kl_3gram_vs_v1 {r['kl_3gram_vs_v1']:.4f}")
    print("   clue_overlap median  easy {} medium {} hard {}".format(*(f(r["medians"][b]) for b in
                                                                     ("easy", "medium", "hard"))))
    for t, m in r["per_task"].items():
        s = r["shares"].get(t, {})
        print(f"   {t:10s} easy {f(m['easy'])} medium {f(m['medium'])} hard {f(m['hard'])}   shares "
              f"{s.get('easy_share', 0):.2f}/{s.get('medium_share', 0):.2f}/{s.get('hard_share', 0):.2f} (n {s.get('n')})")
    print(f"   pose by bucket {r['pose_by_bucket']}")
    print(f"   failed: {r['failed'] or 'none'}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dirs", nargs="*", help="data dirs (../shared/data layout); none or '-': the bundled sample")
    ap.add_argument("--max-poses", type=int, default=None)
    a = ap.parse_args()
    for d in a.data_dirs or [None]:
        t0 = time.perf_counter()
        d = None if d == "-" else d
        r = measure(d, max_poses=a.max_poses)
        show(d or "bundled", r)
        print(f"   ({time.perf_counter() - t0:.1f} s)")
