"""Other real samples in the official formats: a seeded random share (or count) of each file of a data dir
(../shared/data layout), written to another dir in the same layout, so preflight can be tried on data
it was never tuned on. It also builds the sample bundled with rc1 (rc1/data/bundled, gzip-compressed):

    python benchmarks/real_subsample.py SRC_DIR DST_DIR --frac 0.5 --seed 1
    rc1 preflight --mode dev --data-dir DST_DIR
    python benchmarks/real_subsample.py ../shared/data rc1/data/bundled --n hotpotqa=360,strategyqa=600,gsm8k=800 \
        --seed 19 --gzip          # the bundled sample, byte for byte (gzip without a timestamp)
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
from pathlib import Path

from rc1.data.files import DATA_FILES

REAL_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _write(path: Path, text: str, compress: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not compress:
        path.write_text(text, encoding="utf-8")
        return
    with open(path.with_name(path.name + ".gz"), "wb") as raw, \
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as fh:
        fh.write(text.encode("utf-8"))


def write_subsample(src: str | Path, dst: str | Path, frac: float | None = 0.5, seed: int = 1,
                    counts: dict[str, int] | None = None, compress: bool = False) -> dict[str, int]:
    """Keep round(frac x records) records of each official file, or counts[task] of them (seeded, file order kept);
    `compress`: write DST/<official file>.gz. Returns the counts kept."""
    src, dst = Path(src), Path(dst)
    kept = {}
    for task, rel in DATA_FILES.items():
        text = (src / rel).read_text(encoding="utf-8")
        rows = [line for line in text.splitlines() if line.strip()] if rel.endswith(".jsonl") else json.loads(text)
        k = counts[task] if counts else max(1, round((frac or 0.0) * len(rows)))
        keep = sorted(random.Random(f"{seed}|{task}").sample(range(len(rows)), min(k, len(rows))))
        if rel.endswith(".jsonl"):
            body = "".join(rows[i] + "\n" for i in keep)
        else:
            body = json.dumps([rows[i] for i in keep], ensure_ascii=False)
        _write(dst / rel, body, compress)
        kept[task] = len(keep)
    return kept


def parse_counts(text: str) -> dict[str, int]:
    """'hotpotqa=360,strategyqa=600,gsm8k=800' -> {task: n} (every task of DATA_FILES)."""
    out = {k.strip(): int(v) for k, _, v in (p.partition("=") for p in text.split(",") if p.strip())}
    missing = set(DATA_FILES) - set(out)
    if missing or set(out) - set(DATA_FILES):
        raise SystemExit(f"--n: give a count for each of {', '.join(DATA_FILES)}")
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--frac", type=float, default=0.5)
    ap.add_argument("--n", default=None, help="records per task instead of --frac: hotpotqa=N,strategyqa=N,gsm8k=N")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--gzip", action="store_true", help="write <official file>.gz")
    a = ap.parse_args()
    print(write_subsample(a.src, a.dst, a.frac, a.seed, parse_counts(a.n) if a.n else None, a.gzip))
