"""`rc1 validate-pool POOL --leak-check SHADOW ...`: diversity report + the validate_pool gate."""

from __future__ import annotations

import contextlib
import tempfile
from dataclasses import dataclass, make_dataclass
from pathlib import Path
from typing import Any

import click
from pydantic import ValidationError

from rc1.core.ahead import Ahead, cleaned_up
from rc1.cli.options import Scaled, arg, logged_params
from rc1.core.config import ValidatePoolThresholds, load_thresholds, parse_mix, parse_tasks
from rc1.core.errors import Rc1Error
from rc1.core.io import (iter_jsonl, read_json, readable_file, sha256_dir, why_not_a_file, writable_outputs, write_json,
                         write_jsonl)
from rc1.quality.baseline import V1_PACK, baseline_pool_items
from rc1.core.records import record_question
from rc1.quality.views import KL_SAMPLE_SIZE, SAMPLE_SIZE
from rc1.stages.shared import FromData, Gated, Moded, Reusable, Seeded
from rc1.core.text import make_token_counter
from rc1.core.settings import configured

THRESHOLDS = tuple(ValidatePoolThresholds.model_fields)
_HELP = {"leak_ngram": "Shared word n-gram length (unset: gates.yaml).",
         "leak_sim": "Containment at or above which a match leaks (unset: gates.yaml)."}
# the seeds' runbook spellings (`--max_dup_pct 2.0`: a percentage)
_SEED_SPELLINGS = {"distinct_2_min": ("--min_distinct2",), "kl_3gram_vs_v1_min": ("--kl3_min",),
                   "dup_rate_max": (Scaled("--max_dup_pct", 100),), "len_tokens_min": ("--min_len",),
                   "len_tokens_max": ("--max_len",)}

# one option per threshold of configs/gates.yaml validate_pool, unset (None) = the file's value
ThresholdFields = make_dataclass("ThresholdFields", [
    (name, (int if info.annotation is int else float) | None,
     arg(None, _HELP.get(name, f"Unset: configs/gates.yaml validate_pool.{name}."),
         aliases=_SEED_SPELLINGS.get(name, ())))
    for name, info in ValidatePoolThresholds.model_fields.items()])
ThresholdFields.__module__ = __name__


@dataclass(kw_only=True)
class Config(ThresholdFields, FromData, Seeded, Moded, Gated, Reusable):
    """Diversity, duplicates, lengths, leaks and task mix of a pool; exit 2 when a check fails."""

    pool: str = arg(help="Pool (JSONL of pool items).", argument=True)
    leak_check: str | None = arg(None, "Shadow set (JSONL of records with `question`, or pool items) that no pool item "
                                       "may pose.")
    report: str = arg("out/validation_report.json", "Validation report (checks).", log=False)
    diversity_report: str | None = arg(None, "Unset: diversity_report.json beside --report.", log=False)
    mix: str | None = arg(None, 'Expected task mix "hotpotqa:0.45,...". Unset: gates.yaml config_check.mix.')
    baseline_pool: str | None = arg(None, "pack_v1 pool for the 3-gram KL. Unset: built in memory from "
                                          f"{V1_PACK} (min(n, {KL_SAMPLE_SIZE}) pool items).")
    tokenizer: str | None = arg(None, "Local tokenizer directory for exact token counts (unset: approximation).")
    by_task: str | None = arg(None, "Tasks whose pool share and distinct-2 are logged one by one (metrics "
                                    "mix_share.<task>, distinct_2.<task>), comma-separated (unset: every task).")


def load_shadow(path: str | Path) -> list[tuple[str, str]]:
    """(id, question) of every shadow record (Task rows with `question`, or PoolItem rows)."""
    out = []
    for k, row in enumerate(iter_jsonl(path), 1):
        q = record_question(row)
        if not q:
            raise Rc1Error(f"{path}: record {k}: no 'question' (or pool item dialogue) to check leaks against")
        out.append((str(row.get("id") or row.get("source_id") or k), q))
    if not out:
        raise Rc1Error(f"{path}: the shadow set is empty (a leak check against nothing cannot pass)")
    return out


def count_lines(path: str | Path, stop: int | None = None) -> int:
    """Lines of a file (or `stop`, once that many are counted: a 3M-item pool is read no further)."""
    n = 0
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            n += block.count(b"\n")
            if stop is not None and n >= stop:
                return stop
    return n


# a pool item's JSON line may hold this many bytes per token the length gate allows (its dialogue, escaped, and its
# context): a longer line cannot pass the gate and is refused while streaming, before it is held whole
LINE_BYTES_PER_TOKEN = 256


def _scan(pool: Path, progress: bool = False, **kwargs):
    """scan_pool over the pool, its second half scanned in another forked process (what one pass gives)."""
    from rc1.core.io import line_ranges
    from rc1.quality.reader import iter_pool_items
    from rc1.quality.validate import merge_scans, scan_piece

    pieces = line_ranges(pool, 2)
    files = [tempfile.TemporaryFile(prefix="rc1-minhash-") for _ in pieces[1:]]
    try:
        rest = [Ahead(_scan_piece, pool, piece, sig_file=fh, **kwargs) for piece, fh in zip(pieces[1:], files)]
        with contextlib.ExitStack() as stack:
            for job in rest:
                stack.enter_context(cleaned_up(job))
            first = scan_piece(iter_pool_items(pool, pieces[0], _line_bytes_max(kwargs)), progress=progress, **kwargs)
            scan = merge_scans([first, *(job.result() for job in rest)], files)
    finally:
        for fh in files:
            fh.close()
    if scan is None:  # a blank line moved a piece's first seed: one pass over the whole pool
        scan = scan_piece(iter_pool_items(pool, None, _line_bytes_max(kwargs)), progress=progress, **kwargs)
        scan = merge_scans([scan], [])
    return scan


def _scan_piece(pool: Path, piece: tuple[int, int, int], **kwargs):
    from rc1.quality.reader import iter_pool_items
    from rc1.quality.validate import scan_piece

    return scan_piece(iter_pool_items(pool, piece, _line_bytes_max(kwargs)), start=piece[2], **kwargs)


def _line_bytes_max(kwargs) -> int:
    return kwargs["gate"].len_tokens_max * LINE_BYTES_PER_TOKEN


def _baseline_stats(baseline_pool: str | None, n_base: int, mix: dict[str, float], data_dir: str | None, seed: int):
    from rc1.quality.reader import iter_pool_items
    from rc1.quality.validate import baseline_stats

    pool_items = iter_pool_items(baseline_pool) if baseline_pool else baseline_pool_items(n_base, mix, data_dir, seed)
    return baseline_stats(pool_items, KL_SAMPLE_SIZE, SAMPLE_SIZE, seed)


@configured
def run(cfg: Config, progress: bool = True) -> dict:
    """Validate the pool; returns {passed, checks, report, diversity_report, leaks, n, run_id}. A threshold field
    left unset (None) is configs/gates.yaml validate_pool's. Raises CheckFailed when a check fails."""
    pool, leak_check, baseline_pool, data_dir, seed = cfg.pool, cfg.leak_check, cfg.baseline_pool, cfg.data_dir, cfg.seed
    tasks = None if cfg.by_task is None else parse_tasks(cfg.by_task)
    thresholds = {k: getattr(cfg, k) for k in THRESHOLDS}
    gates = load_thresholds(cfg.gates).for_mode(cfg.mode)
    gate = gates.validate_pool.model_copy(update={k: v for k, v in thresholds.items() if v is not None})
    try:   # re-validate the overrides
        gate = ValidatePoolThresholds.model_validate(gate.model_dump())
    except ValidationError as e:
        err = e.errors()[0]
        where = "--" + str(err["loc"][0]).replace("_", "-") if err["loc"] else "the validate_pool thresholds"
        raise Rc1Error(f"{where}: {err['msg'].removeprefix('Value error, ')}") from None
    mix_d = parse_mix(cfg.mix) if cfg.mix else dict(gates.config_check.mix)
    pool_p = readable_file(pool, "pool file")
    report_p = Path(cfg.report)
    div_p = Path(cfg.diversity_report) if cfg.diversity_report else report_p.with_name("diversity_report.json")
    leaks_p = report_p.with_name("leaks.jsonl")
    if len({report_p.name, div_p.name, leaks_p.name}) < 3:
        raise Rc1Error("--report and --diversity-report need different file names")
    writable_outputs(report_p, div_p, leaks_p)   # before anything runs: no output is left behind by a later one
    if baseline_pool and why_not_a_file(baseline_pool):
        raise Rc1Error(f"--baseline-pool {baseline_pool}: {why_not_a_file(baseline_pool)}")
    shadow = load_shadow(leak_check) if leak_check else None
    counter = make_token_counter(cfg.tokenizer)

    params = {**logged_params(cfg), "mix": mix_d, "tokenizer": cfg.tokenizer or "approx", "sample_size": SAMPLE_SIZE,
              "kl_sample_size": KL_SAMPLE_SIZE, **gate.model_dump()}
    inputs: dict[str, Any] = {"pool": pool_p}
    if cfg.tokenizer:   # a tokenizer's files, not its directory's name
        inputs["tokenizer"] = Path(cfg.tokenizer)
    if leak_check:
        inputs["shadow"] = Path(leak_check)
    if baseline_pool:
        inputs["baseline_pool"] = Path(baseline_pool)
    else:
        inputs["pack_v1"] = sha256_dir(V1_PACK) if V1_PACK.is_dir() else "missing"
        if data_dir:
            inputs["data_dir"] = Path(data_dir)
        else:   # the baseline is built from configs/data.yaml's sources: another source is another baseline
            from rc1.data.sources import sources_identity

            inputs["data_sources"] = sources_identity()
    outputs = {"report": report_p, "diversity_report": div_p, "leaks": leaks_p}

    # the pool scan and the KL baseline compute in two forked processes while this one imports mlflow and
    # opens the run (rc1.core.ahead.Ahead); results are the same as computing them here, in order
    n_base = count_lines(pool_p, stop=KL_SAMPLE_SIZE)
    # imported once here, before the forks: both children and this process use it (numpy: ~0.1 s; datasketch is
    # imported by the children that compute signatures)
    from rc1.quality.validate import evaluate_scan

    scan_job = Ahead(_scan, pool_p, gate=gate, shadow=shadow, token_counter=counter,
                     sample_k=max(SAMPLE_SIZE, KL_SAMPLE_SIZE), sample_seed=seed, progress=progress)
    base_job = Ahead(_baseline_stats, baseline_pool, n_base, mix_d, data_dir, seed)
    from rc1.tracking import stage_run

    with cleaned_up(scan_job), cleaned_up(base_job), \
            stage_run("validate_pool", params, inputs=inputs, outputs=outputs, reuse=cfg.reuse) as st:
        if st.reused:
            scan_job.cancel()
            base_job.cancel()
            saved = read_json(report_p)
            return {**saved, "report": str(report_p), "diversity_report": str(div_p), "leaks": str(leaks_p),
                    "run_id": st.run_id, "reused": True}
        result = evaluate_scan(scan_job.result(), gate=gate, mix=mix_d, shadow_given=shadow is not None,
                               shadow_questions=len(shadow or []), baseline=base_job.result(),
                               sample_seed=seed)
        checks = result.checks
        diversity = {"pool": str(pool_p), "baseline": baseline_pool or f"built in memory from {V1_PACK} "
                     f"({n_base} pool items, same sources and mix)", "shadow": leak_check, **result.diversity}
        write_json(div_p, diversity)
        write_jsonl(leaks_p, result.leaks)
        passed = all(c["pass"] for c in checks)
        rep = {"stage": "validate_pool", "pool": str(pool_p), "n": result.diversity["n"], "passed": passed,
               "checks": checks, "definitions": result.diversity["definitions"], "thresholds": gate.model_dump(),
               "mix": mix_d, "diversity_report": str(div_p), "leaks": str(leaks_p), "run_id": st.run_id}
        write_json(report_p, rep)

        st.log_file_input(pool_p, "pool")
        if leak_check:
            st.log_file_input(leak_check, "shadow")
        if baseline_pool:
            st.log_file_input(baseline_pool, "baseline_pool")
        else:
            st.log_source_input("baseline_pack_v1", f"rc1://build_pool/{V1_PACK.as_posix()}?n={n_base}",
                                str(inputs["pack_v1"]))
        st.log_config(gate, "gates.json")
        d = result.diversity
        st.log_metrics({
            **result.metrics(),
            "n": d["n"], "distinct_1": d["distinct_1"], "ttr": d["ttr"], "zipf_slope": d["zipf_slope"],
            "templates": d["templates"], "needs_clarification_rate": d["needs_clarification_rate"],
            "format_chars": d.get("format_chars", 0),
            "len_tokens_p50": d["len_tokens"]["p50"], "len_out_of_bounds_rate": d["len_tokens"]["out_of_bounds_rate"],
            "baseline_distinct_2": d["baseline"]["distinct_2"],
            **{f"mix_share.{t}": row["share"] for t, row in d["mix"].items() if tasks is None or t in tasks},
            **{f"distinct_2.{t}": v for t, v in d["distinct_2_by_task"].items() if tasks is None or t in tasks},
        })
        for p in (div_p, leaks_p, report_p):
            st.log_artifact(p)
        st.verdict(checks, what="validate_pool")
    return {**rep, "report": str(report_p), "reused": False}


def show(out: dict) -> None:
    click.echo(f"validate-pool: {len(out['checks'])} checks passed on {out['n']} pool items; report {out['report']}")
