"""`rc1 build-pool`: the pool (rc1_seed.jsonl) from the task sources and a template pack."""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import click
from tqdm import tqdm

from rc1.core.ahead import Ahead, cleaned_up
from rc1.core.console import no_bar
from rc1.cli.options import arg, logged_params
from rc1.core.config import TASK_MIX, load_thresholds, mix_text, parse_mix
from rc1.data import default_data_config, load_tasks, source_tags
from rc1.core.errors import Rc1Error
from rc1.core.io import iter_jsonl, read_json, sha256_dir, why_not_a_file, write_json
from rc1.data.plan import DEFAULT_MAX_POSES, MAX_TURNS, PoolPlan, PoolSpec, parse_tools, plan_pool
from rc1.data.pool import PoolStats, build_pool, pool_item_lines
from rc1.core.records import record_question
from rc1.stages.shared import BadRecords, Clarifying, FromData, Gated, Moded, PoolSized, Reusable, Seeded, Targeted
from rc1.data.templates import DIFFICULTIES, load_pack
from rc1.core.text import guard_normalize
from rc1.core.settings import configured

# the first part of the stream, built by the process that also plans the pool (before the fork), hashes the file and
# appends the other part to it: 47% of the pool items evens out the two processes (at 30k on ../shared/data the first
# finished ~0.6 s after the second with 50%)
FIRST_PART = 0.47


@dataclass
class Config(FromData, PoolSized, Targeted, Clarifying, BadRecords, Seeded, Moded, Gated, Reusable):
    """Build the pool (rc1_seed.jsonl) from the task sources and a template pack."""

    out: str = arg("out/rc1_seed.jsonl", "Output JSONL of pool items.")
    max_poses_per_item: int = arg(DEFAULT_MAX_POSES, "Pool items one source item may yield at most.")
    mix: str = arg(mix_text(TASK_MIX), "Task mix, fractions summing to 1.")
    max_turns: int = arg(MAX_TURNS, "Most non-system turns a pool item's dialogue may have.")
    tools: str = arg("wiki,calc", "Tools pool items may offer ('' for none).")
    templates_dir: str = arg("templates/pack_v2", "Template pack directory.")
    shadow: str | None = arg(None, "Shadow set JSONL whose questions the pool must not use.")


def shadow_exclusions(path: str | Path) -> frozenset[str]:
    """Task ids and normalized questions of a shadow set (JSONL of Task records, or pool items)."""
    out: set[str] = set()
    for k, row in enumerate(iter_jsonl(path), 1):
        q = record_question(row)
        if not q:
            raise Rc1Error(f"{path}: line {k}: no 'question' to exclude")
        if row.get("id"):
            out.add(str(row["id"]))
        if row.get("source_id"):
            out.add(str(row["source_id"]))
        out.add(guard_normalize(q))
    if not out:
        raise Rc1Error(f"{path}: the shadow set is empty (nothing would be held out of the pool)")
    return frozenset(out)


@configured
def run(cfg: Config, progress: bool = True) -> dict[str, Any]:
    """Build the pool; returns {path, n, counts, clarify_rate, tool_seeds, seconds, stats, run_id, reused}."""
    mix_d = parse_mix(cfg.mix)
    target_d = parse_mix(cfg.target, what="--target", known=DIFFICULTIES)
    tools_t = parse_tools(cfg.tools)
    pool_size = cfg.n
    shadow, templates_dir, on_bad_record = cfg.shadow, cfg.templates_dir, cfg.on_bad_record
    out_p = Path(cfg.out)
    pack = load_pack(templates_dir)
    if shadow and why_not_a_file(shadow):
        raise Rc1Error(f"--shadow {shadow}: {why_not_a_file(shadow)}")
    exclude = shadow_exclusions(shadow) if shadow else frozenset()
    leak = load_thresholds(cfg.gates).validate_pool
    spec = PoolSpec(n=pool_size, mix=mix_d, max_turns=cfg.max_turns, clarify_rate=cfg.clarify_rate, tools=tools_t,
                    seed=cfg.seed, exclude=exclude, leak_ngram=leak.leak_ngram, leak_sim=leak.leak_sim,
                    target=target_d, max_poses_per_item=cfg.max_poses_per_item)
    spec.validate()
    data_cfg = default_data_config()
    loaded = {t: load_tasks(t, cfg.data_dir, data_cfg, on_bad_record) for t, w in mix_d.items() if w > 0}
    records = {t: lt.records for t, lt in loaded.items()}
    plan = plan_pool(records, spec)  # before anything is tracked: an --n the data cannot supply is exit 2 here
    if not shadow:
        click.echo("[rc1] build-pool: no --shadow given, so no question is held out of the pool", err=True)

    params = {**logged_params(cfg), "mix": mix_d, "target": target_d, "tools": ",".join(tools_t),
              "on_bad_record": on_bad_record or data_cfg.on_bad_record, "leak_ngram": spec.leak_ngram,
              "leak_sim": spec.leak_sim}
    inputs: dict[str, Any] = {f"data.{t}": lt.digest for t, lt in loaded.items()}
    inputs["templates"] = Path(templates_dir)
    if shadow:
        inputs["shadow"] = Path(shadow)
    # the pool is built (into a temporary file beside --out) in a forked process while this one imports mlflow
    # and opens the run (rc1.core.ahead.Ahead); the file is moved onto --out only once the run is ours
    tmp = out_p.with_name(f".{out_p.name}.{os.getpid()}.building")
    job = Ahead(_write_pool, records, pack, spec, tmp, progress, plan)
    from rc1.tracking import stage_run

    with cleaned_up(job, tmp), stage_run("build_pool", params, inputs=inputs, outputs={"pool": out_p}, reuse=cfg.reuse,
                                       tags=source_tags(loaded)) as st:
        summary_p = out_p.with_name(out_p.stem + ".summary.json")
        if st.reused:
            saved = read_json(summary_p) if summary_p.is_file() else {}
            return {**saved, "path": str(out_p), "run_id": st.run_id, "reused": True}
        stats, written, seconds, sha, largest = job.result()
        os.replace(tmp, out_p)
        n_clar = sum(stats.clarify.values())
        summary = {"stage": "build_pool", "path": str(out_p), "n": written,
                   "n_requested": "auto" if pool_size is None else pool_size, "n_largest": largest,
                   "max_poses_per_item": spec.max_poses_per_item, "counts": stats.counts,
                   "clarify": stats.clarify, "clarify_rate": n_clar / written if written else 0.0,
                   "tool_seeds": stats.tool_seeds, "worked_seeds": stats.worked_seeds, "poses": stats.poses,
                   "items": stats.items,
                   "excluded": stats.excluded, "items_used": stats.items_used,
                   "seeds_per_item": {t: round(stats.counts.get(t, 0) / u, 2) for t, u in stats.items_used.items() if u},
                   "poses_per_item": {t: {"max": -(-stats.counts.get(t, 0) // u), "mean": round(stats.counts.get(t, 0) / u, 2)}
                                      for t, u in stats.items_used.items() if u},
                   "sources": {t: lt.summary() for t, lt in loaded.items()}, "pack": pack.summary(),
                   "seconds": round(seconds, 3), "samples_per_s": round(written / seconds, 1) if seconds else None}
        write_json(summary_p, summary)

        st.log_sources(loaded)
        if shadow:
            st.log_file_input(shadow, "shadow")
        st.log_source_input("templates", str(Path(templates_dir).resolve()), sha256_dir(templates_dir))
        st.log_config(data_cfg, "data.json")
        st.log_metrics({
            "n": written, "n_largest": largest, **{f"n.{t}": c for t, c in stats.counts.items()},
            **{f"items_used.{t}": c for t, c in stats.items_used.items()},
            **{f"poses_per_item_max.{t}": v["max"] for t, v in summary["poses_per_item"].items()},
            **{f"clarify.{t}": c for t, c in stats.clarify.items()}, "clarify_rate": summary["clarify_rate"],
            "tool_seeds": stats.tool_seeds, "worked_seeds": stats.worked_seeds,
            **{f"excluded.{t}": c for t, c in stats.excluded.items()},
            **{f"skipped.{t}": lt.skipped for t, lt in loaded.items()},
            **{f"format_chars.{t}": lt.format_chars for t, lt in loaded.items()},
            **{f"seeds_per_item.{t}": v for t, v in summary["seeds_per_item"].items()},
            **{f"pose.{t}.{d}": c for t, per in stats.poses.items() for d, c in per.items()},
            "seconds": seconds, "samples_per_s": summary["samples_per_s"] or 0.0,
        })
        st.log_json(summary, "pool_summary.json")
        st.log_artifact(out_p, sha=sha)
    return {**summary, "run_id": st.run_id, "reused": False}


def _write_pool(records: dict, pack, spec: PoolSpec, tmp: Path, progress: bool, plan: PoolPlan | None = None
                ) -> tuple[PoolStats, int, float, str, int]:
    """Build the pool into `tmp` (flushed to disk); (stats, pool items written, seconds, sha256 of the file). The
    stream after its first FIRST_PART is built in another forked process into a temporary file beside `tmp`,
    appended once the first part is written (the same seeds as one pass); the file is hashed as it is written."""
    stats = PoolStats()
    t0 = time.perf_counter()
    plan = plan or plan_pool(records, spec)  # once, before the fork (the shadow exclusion checks every item)
    spec = replace(spec, n=plan.n)   # auto resolved
    split = int(plan.n * FIRST_PART)
    tmp.parent.mkdir(parents=True, exist_ok=True)
    sha = hashlib.sha256()
    with tempfile.TemporaryFile(prefix=".rc1-pool-", dir=tmp.parent) as rest_fh:
        rest = Ahead(_write_pool_items, records, pack, spec, plan, split, spec.n, rest_fh, PoolStats(), False)
        with cleaned_up(rest), open(tmp, "wb") as fh:
            written = _write_pool_items(records, pack, spec, plan, 0, split, fh, stats, progress, sha)[0]
            n_rest, rest_stats = rest.result()
            rest_fh.seek(0)
            while block := rest_fh.read(1 << 22):
                sha.update(block)
                fh.write(block)
            written += n_rest
            fh.flush()
            os.fsync(fh.fileno())
    stats.counts = rest_stats.counts  # counted on from the counts at `split`
    # a task's clarify and items_used are set when its stream starts: in the first part, or else in the second
    stats.clarify = {**stats.clarify, **rest_stats.clarify}
    stats.items_used = {**stats.items_used, **rest_stats.items_used}
    for t, per in rest_stats.poses.items():
        mine = stats.poses.setdefault(t, dict.fromkeys(per, 0))
        for d, c in per.items():
            mine[d] += c
    stats.tool_seeds += rest_stats.tool_seeds
    stats.worked_seeds += rest_stats.worked_seeds
    stats.leak_redraws += rest_stats.leak_redraws
    return stats, written, time.perf_counter() - t0, sha.hexdigest(), plan.largest


def _write_pool_items(records: dict, pack, spec: PoolSpec, plan: PoolPlan, start: int, stop: int, fh, stats: PoolStats,
                 progress: bool, sha=None) -> tuple[int, PoolStats]:
    """Write the pool item lines (UTF-8) of stream positions [start, stop) to binary `fh` (and into hash `sha`);
    (lines written, their stats)."""
    pool_items = build_pool(records, pack, spec, stats, start, stop, plan)
    bar = tqdm(pool_items, total=stop - start, desc="build-pool", unit=" seeds", file=sys.stderr, mininterval=1,
               disable=no_bar(progress))
    written = 0
    for line in pool_item_lines(bar):
        data = line.encode("utf-8")
        if sha is not None:
            sha.update(data)
        fh.write(data)
        written += 1
    fh.flush()
    return written, stats


def show(res: dict[str, Any]) -> None:
    counts = ", ".join(f"{t} {c}" for t, c in (res.get("counts") or {}).items())
    click.echo(f"build-pool: {res.get('n')} pool items -> {res['path']} [{counts}]"
               + (" (reused)" if res["reused"] else f" in {res.get('seconds')} s"))
