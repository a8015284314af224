"""`rc1 difficulty --pool POOL --out METRICS --balanced OUT --target ... --by-task ... --report OUT.json`:
per-sample metrics, easy/medium/hard buckets, a pool resampled to the target, and the difficulty gate."""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import click
import numpy as np

from rc1.core.ahead import Ahead, cleaned_up
from rc1.cli.options import arg, logged_params
from rc1.core.config import TASKS, load_thresholds, parse_mix, parse_tasks
from rc1.core.errors import Rc1Error
from rc1.core.io import atomic_open, read_json, sha256_file, why_not_a_file, write_json, write_jsonl
from rc1.stages.shared import Gated, Moded, Reusable, Seeded, Targeted
from rc1.data.templates import DIFFICULTIES as BUCKETS
from rc1.core.text import make_token_counter
from rc1.core.settings import configured


@dataclass(kw_only=True)
class Config(Targeted, Seeded, Moded, Gated, Reusable):
    """Per-sample difficulty metrics, easy/medium/hard buckets, resampling to --target, the difficulty gate."""

    pool: str = arg(help="Pool (rc1_seed.jsonl).", aliases=("--in",))
    out: str = arg("out/difficulty_metrics.jsonl", "Per-sample metrics (JSONL).", log=False)
    balanced: str = arg("out/rc1_seed_balanced.jsonl",
                        "Pool resampled to --target, with `difficulty` and `difficulty_metrics` on each pool item.",
                        log=False)
    by_task: str = arg(",".join(TASKS), "Tasks balanced (and checked) one by one; other tasks pass through.")
    report: str = arg("out/difficulty_report.json", "Difficulty report (checks, buckets, their definitions).", log=False)
    size: int | None = arg(None, "Balanced pool size (unset: largest without replacement).")
    tokenizer: str | None = arg(None, "Local tokenizer directory for exact token counts (unset: approximation).")
    plots_dir: str | None = arg(None, "Where the histogram PNGs go (unset: plots/ beside --report).", log=False)


def _raw_lines(path: Path) -> Iterator[str]:
    """Non-empty lines, in the order iter_pool_items yields their pool items."""
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield line.rstrip("\r\n")


def _with_difficulty(line: str, bucket: str, metrics: dict) -> str:
    extra = json.dumps({"difficulty": bucket, "difficulty_metrics": metrics}, ensure_ascii=False)
    if '"difficulty' in line:  # already labelled (a balanced pool run again): replace, don't duplicate keys
        row = json.loads(line)
        row.update(json.loads(extra))
        return json.dumps(row, ensure_ascii=False)
    body = line.rstrip()
    return f"{body[:-1]}, {extra[1:]}"


@configured
def run(cfg: Config, progress: bool = True) -> dict:
    """Metrics, buckets, resampling and the difficulty gate for the pool. Returns {passed, checks, report,
    metrics, balanced, n_in, n_out, run_id}; raises CheckFailed when a check fails. `size`: total
    balanced size (split over the balanced tasks by their input shares; unset: no replacement)."""
    gate = load_thresholds(cfg.gates).for_mode(cfg.mode).difficulty
    target_d = parse_mix(cfg.target, what="--target", known=BUCKETS)
    tasks_l = parse_tasks(cfg.by_task)
    pool_p, out_p, bal_p, rep_p = Path(cfg.pool), Path(cfg.out), Path(cfg.balanced), Path(cfg.report)
    if why_not_a_file(pool_p, "pool file"):
        raise Rc1Error(f"{cfg.pool}: {why_not_a_file(pool_p, 'pool file')}")
    if len({p.resolve() for p in (pool_p, out_p, bal_p, rep_p)}) < 4 or len({out_p.name, bal_p.name, rep_p.name}) < 3:
        raise Rc1Error("--pool, --out, --balanced and --report must be four different files (and file names)")
    if cfg.size is not None and cfg.size < 1:
        raise Rc1Error("--size must be a positive number of pool items")
    plots = Path(cfg.plots_dir) if cfg.plots_dir else rep_p.with_name("plots")
    counter = make_token_counter(cfg.tokenizer)
    params = {**logged_params(cfg), "target": target_d, "by_task": tasks_l, "tokenizer": cfg.tokenizer or "approx",
              **gate.model_dump()}
    outputs = {"metrics": out_p, "balanced": bal_p, "report": rep_p}

    # metrics, buckets, report and figures compute in a forked process while this one imports mlflow and opens
    # the run (rc1.core.ahead.Ahead); the same values as computing them here
    # (the metrics and the balanced pool go to temporary files beside their paths, moved there once the run is ours)
    out_tmp, bal_tmp = (p.with_name(f".{p.name}.{os.getpid()}.computing") for p in (out_p, bal_p))
    job = Ahead(_compute, pool_p, counter, target_d, tasks_l, cfg.seed, cfg.size, gate, progress, out_tmp, bal_tmp)
    from rc1.tracking import stage_run

    inputs = {"pool": pool_p, **({"tokenizer": Path(cfg.tokenizer)} if cfg.tokenizer else {})}   # contents, not names
    with cleaned_up(job, out_tmp, bal_tmp), stage_run("difficulty", params, inputs=inputs,
                                                      outputs=outputs, reuse=cfg.reuse) as st:
        if st.reused:
            job.cancel()
            saved = read_json(rep_p)
            return {**_result(saved, out_p, bal_p, rep_p), "run_id": st.run_id, "reused": True}
        checks, rep, pngs, shas = job.result()
        rep.update({"stage": "difficulty", "pool": str(pool_p), "metrics_file": str(out_p),
                    "balanced_file": str(bal_p), "plots": str(plots), "run_id": st.run_id})

        os.replace(out_tmp, out_p)
        os.replace(bal_tmp, bal_p)
        write_json(rep_p, rep)
        figures = _write_plots(pngs, plots)

        st.log_file_input(pool_p, "pool")
        st.log_config(gate, "gates.json")
        st.log_metrics(_metrics(rep, checks))
        st.log_artifact(out_p, sha=shas["metrics"])
        st.log_artifact(bal_p, sha=shas["balanced"])
        st.log_artifact(rep_p)
        for p in figures:
            st.log_artifact(p, artifact_path="plots")
        st.verdict(checks, what="difficulty")
    return {**_result(rep, out_p, bal_p, rep_p), "reused": False}


def _result(rep: dict, out_p: Path, bal_p: Path, rep_p: Path) -> dict:
    return {"passed": rep["passed"], "checks": rep["checks"], "n_in": rep["n_in"], "n_out": rep["n_out"],
            "report": str(rep_p), "metrics": str(out_p), "balanced": str(bal_p), "run_id": rep.get("run_id")}


def _write_balanced(pool_p: Path, bal_p: Path, idx: np.ndarray, bucket: np.ndarray, table) -> str:
    """Stream the pool once more and copy each chosen line (as often as it was drawn) with its labels; returns
    the file's sha256 (hashed as it is written)."""
    times = np.bincount(idx, minlength=len(table)) if len(idx) else np.zeros(len(table), dtype=np.int64)
    times = times.tolist()
    sha = hashlib.sha256()
    with atomic_open(bal_p, "wb", encoding=None) as fh:
        for i, line in enumerate(_raw_lines(pool_p)):
            k = times[i] if i < len(times) else 0
            if k:
                data = (_with_difficulty(line, BUCKETS[bucket[i]], table.row(i)) + "\n").encode("utf-8") * k
                sha.update(data)
                fh.write(data)
    return sha.hexdigest()


def _metrics(rep: dict, checks: list[dict]) -> dict:
    m = {c["name"]: c["value"] for c in checks if isinstance(c["value"], (int, float)) and not isinstance(c["value"], bool)}
    m.update({"n_in": rep["n_in"], "n_out": rep["n_out"], "drawn_with_replacement": rep["drawn_with_replacement"]})
    for name, st in rep["metrics"].items():
        m.update({f"{name}_p10": st["p10"], f"{name}_p50": st["p50"], f"{name}_p90": st["p90"]})
    for b in BUCKETS:
        if rep["clue_overlap_median"].get(b) is not None:
            m[f"clue_overlap_median.{b}"] = rep["clue_overlap_median"][b]
    return m


def _compute(pool_p: Path, counter, target_d: dict[str, float], tasks_l: list[str], seed: int, size: int | None,
             gate, progress: bool, out_tmp: Path, bal_tmp: Path
             ) -> tuple[list[dict], dict, dict[str, bytes], dict[str, str]]:
    """Metrics, buckets, resampling and checks of a pool: writes the per-item metrics to `out_tmp` and the
    balanced pool to `bal_tmp`; returns (checks, report, {png name: bytes}, sha256 of the two files)."""
    from rc1.difficulty.bucket import assign_buckets, resample
    from rc1.difficulty.distribution import DEFINITIONS, difficulty_checks, difficulty_report
    from rc1.difficulty.table import concat_tables
    from rc1.core.io import line_ranges

    # the second half of the pool is measured in another forked process (the metrics are per seed)
    pieces = line_ranges(pool_p, 2)
    rest = [Ahead(_table, pool_p, piece, counter, False) for piece in pieces[1:]]
    table = concat_tables([_table(pool_p, pieces[0], counter, progress), *(job.result() for job in rest)])
    if not len(table):
        raise Rc1Error(f"{pool_p}: no pool items")
    score, bucket = assign_buckets(table.columns, table.tasks, table.ids)
    sizes = None
    if size:
        shares = Counter(t for t in table.tasks.tolist() if t in tasks_l)
        total = sum(shares.values())
        sizes = {t: max(1, round(size * c / total)) for t, c in shares.items()}
    idx, summary = resample(bucket, table.tasks, target_d, tasks_l, seed, sizes)
    checks = difficulty_checks(table, bucket, idx, tasks_l, gate)
    rep = difficulty_report(table, score, bucket, idx, summary, target_d, tasks_l, seed, checks, DEFINITIONS)
    figures = Ahead(_render_plots, table, bucket, rep)  # on the other core while the files are written
    write_jsonl(out_tmp, ({"id": table.ids[i], "task": table.tasks[i], "difficulty": BUCKETS[bucket[i]],
                           "score": round(float(score[i]), 5), **table.row(i)} for i in range(len(table))))
    shas = {"metrics": sha256_file(out_tmp), "balanced": _write_balanced(pool_p, bal_tmp, idx, bucket, table)}
    return checks, rep, figures.result(), shas


def _table(pool_p: Path, piece: tuple[int, int, int], counter, progress: bool):
    from rc1.difficulty.table import build_table
    from rc1.quality.reader import iter_pool_items

    return build_table(iter_pool_items(pool_p, piece), counter, progress=progress)


def _render_plots(table, bucket: np.ndarray, rep: dict) -> dict[str, bytes]:
    import io

    from rc1.difficulty import plots as P

    out = {}
    for name, fig in (
        ("difficulty_metrics.png", P.metrics_figure(table.columns, bucket,
                                                    f"difficulty metrics of {len(table)} items, stacked by bucket")),
        ("difficulty_buckets.png", P.buckets_figure(rep["buckets_in"], rep["buckets_balanced"])),
    ):
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=100)   # laid out by tight_layout (a "tight" bbox would draw it twice)
        P.close(fig)
        out[name] = buf.getvalue()
    return out


def _write_plots(pngs: dict[str, bytes], plots: Path) -> list[Path]:
    plots.mkdir(parents=True, exist_ok=True)
    made = []
    for name, data in pngs.items():
        path = plots / name
        with atomic_open(path, "wb", encoding=None) as fh:
            fh.write(data)
        made.append(path)
    return made


def show(res: dict) -> None:
    click.echo(f"difficulty: {len(res['checks'])} checks passed; {res['n_in']} pool items -> {res['n_out']} balanced "
               f"({res['balanced']}); report {res['report']}")
