"""Other real samples in the official formats: a seeded random share of each file of a data dir
(../shared/data layout), written to another dir in the same layout, so preflight can be tried on data
it was never tuned on.

    python benchmarks/real_subsample.py SRC_DIR DST_DIR --frac 0.5 --seed 1
    rc1 preflight --mode dev --data-dir DST_DIR --n 30000
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from rc1.data.files import DATA_FILES

REAL_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def write_subsample(src: str | Path, dst: str | Path, frac: float, seed: int) -> dict[str, int]:
    """Keep round(frac x records) records of each official file (seeded, file order kept); returns the counts."""
    src, dst = Path(src), Path(dst)
    counts = {}
    for task, rel in DATA_FILES.items():
        text = (src / rel).read_text(encoding="utf-8")
        rows = [line for line in text.splitlines() if line.strip()] if rel.endswith(".jsonl") else json.loads(text)
        keep = sorted(random.Random(f"{seed}|{task}").sample(range(len(rows)), max(1, round(frac * len(rows)))))
        out = dst / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith(".jsonl"):
            out.write_text("".join(rows[i] + "\n" for i in keep), encoding="utf-8")
        else:
            out.write_text(json.dumps([rows[i] for i in keep], ensure_ascii=False), encoding="utf-8")
        counts[task] = len(keep)
    return counts


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--frac", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    print(write_subsample(a.src, a.dst, a.frac, a.seed))
