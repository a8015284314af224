"""`rc1 shadow-run` / `mlflow run . -e shadow_run`: old 7-dim score vs new reward on the same candidates.

The shadow set comes from --shadow (a materialized shadow_eval_*.jsonl) or is built like
materialize-shadow does (--data-dir, --n, --seed, --stratify). The responder makes K candidates per item,
the judge (make_judge: the --judge-* fields and --mode decide, rc1.core.settings) scores each once, and the
report compares the rankings (rc1.scoring.comparison has the definitions). Gate: configs/gates.yaml shadow_run.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from rc1.cli.options import arg, logged_params
from rc1.core.config import load_thresholds
from rc1.core.errors import Rc1Error
from rc1.core.io import read_json, write_json, write_jsonl
from rc1.core.redaction import safe_url
from rc1.scoring.reward import checked_weights, reward_params
from rc1.scoring.responder import shadow_items
from rc1.data.shadow_set import shadow_records
from rc1.stages.shared import (Clarifying, Judged, Moded, FromData, FromShadow, Gated, PpoConfigured, Responding, Reusable, RewardOverrides,
                               Seeded, Weighted)
from rc1.tracking import stage_run
from rc1.core.settings import configured


@dataclass
class Config(Clarifying, FromShadow, FromData, Seeded, Responding, Weighted, PpoConfigured, RewardOverrides, Moded, Judged,
             Gated, Reusable):
    """Old 7-dim score vs new reward on the same candidates; gate: they agree, and the new one tracks success."""

    k: int = arg(6, "Candidates per item.")
    n: int | None = arg(None, "Shadow items when the set is built, not --shadow (unset: gates.yaml shadow.n).")
    stratify: bool = arg(True, "Stratify the built set by task.")
    tag: str | None = arg(None, "Run tag (preflight round 2 uses pre_run_check): rc1.tag=T and T=true.")
    report: str = arg("reports/shadow_run.json", "Report JSON.", log=False)
    scored_out: str | None = arg(None, "Scored candidates JSONL (unset: scored_candidates.jsonl beside the report).", log=False)


@configured
def run(cfg: Config, progress: bool = True) -> dict[str, Any]:
    """Score the shadow set's candidates old and new; returns {checks, passed, report, scored, run_id, metrics}
    ({..., reused: True} without metrics when a finished run was reused)."""
    from rc1.scoring.responder import all_candidates, make_responder
    from rc1.scoring.identity import responder_identity, scoring_identity
    from rc1.scoring.judge import make_judge, stats_metrics
    from rc1.data.clarify import clarify_items
    from rc1.scoring.comparison import flat_metrics, score_candidates, shadow_checks, shadow_metrics

    data_dir, shadow, seed, tag, responder, k = cfg.data_dir, cfg.shadow, cfg.seed, cfg.tag, cfg.responder, cfg.k
    weights, clarify_rate = cfg.weights, cfg.clarify_rate
    all_gates = load_thresholds(cfg.gates)
    gates = all_gates.for_mode(cfg.mode)
    shadow_size = all_gates.shadow.n if cfg.n is None else cfg.n
    w = checked_weights(weights, gates)
    params_r = reward_params(cfg.config, cfg.alpha, cfg.cap, cfg.beta)
    report_path = Path(cfg.report)
    scored_path = Path(cfg.scored_out) if cfg.scored_out else report_path.with_name("scored_candidates.jsonl")
    if not 0.0 <= clarify_rate <= 1.0:
        raise Rc1Error(f"--clarify-rate must be within [0, 1], got {clarify_rate}")
    records, shadow_key, loaded = shadow_records(shadow, data_dir, shadow_size, seed, cfg.stratify, cfg.gates)
    judge = make_judge()
    jd = judge.describe()
    who, who_tags = scoring_identity(judge, responder_identity(responder, k=k, seed=seed, model=cfg.responder_model,
                                                              base_url=cfg.responder_base_url))
    params = {**logged_params(cfg), "n": len(records), "n_requested": shadow_size, "tag": tag or "",
              "shadow": shadow or "built", "responder_model": cfg.responder_model or "",
              "responder_base_url": safe_url(cfg.responder_base_url or ""),
              "alpha": params_r.alpha, "cap": params_r.cap, "beta": params_r.beta,
              "judge_provider": jd["provider"], "judge_model": jd["model"], "judge_samples": jd["samples"],
              "judge_spec": jd["spec_version"]}
    from rc1.data.sources import source_tags

    tags = {"rc1.responder": responder, "rc1.judge_provider": jd["provider"], **who_tags, **source_tags(loaded)}
    if tag:
        tags.update({"rc1.tag": tag, tag: "true"})

    with stage_run("shadow_run", params=params,
                   inputs={"shadow": shadow_key, "weights": weights, "gates": cfg.gates, **who},
                   outputs={"report": report_path, "scored": scored_path}, reuse=cfg.reuse, tags=tags) as st:
        if st.reused:
            rep = read_json(report_path)
            return {"checks": rep["checks"], "passed": rep["passed"], "report": str(report_path),
                    "scored": str(scored_path), "run_id": st.run_id, "reused": True}
        records, n_clarify = clarify_items(records, clarify_rate, seed)
        items, diff_source = shadow_items(records)
        if shadow:
            st.log_file_input(shadow, "shadow")
        st.log_sources(loaded)
        st.log_config(gates.shadow_run, "gates_shadow_run.json")
        resp = make_responder(responder, k=k, seed=seed, model=cfg.responder_model, base_url=cfg.responder_base_url)
        candidates = all_candidates(resp, items, progress=progress)
        by_id = {it.id: it.as_pool_item() for it in items}
        rows = score_candidates(by_id, candidates, judge, w, params_r, progress=progress)
        for r in rows:
            r.update({"responder": responder, "judge_provider": jd["provider"]})
        metrics = shadow_metrics(rows)
        checks = shadow_checks(metrics, gates.shadow_run)
        passed = all(c["pass"] for c in checks)
        stats = judge.stats()
        write_jsonl(scored_path, rows)
        write_json(report_path, {
            "stage": "shadow_run", "passed": passed, "checks": checks, "metrics": metrics,
            "params": params, "weights": w.as_dict(), "difficulty_source": diff_source,
            "clarification_items": sum(it.needs_clarification for it in items),
            "clarification_items_derived": n_clarify,
            "responder": resp.describe(), "judge": jd, "identity": who,
            "judge_stats": {k_: v for k_, v in stats.items() if isinstance(v, (int, float, str, bool))},
            "definitions": {
                "spearman/kendall_tau": "old vs new over all scored candidates (global)",
                "topK_overlap": "global over all candidates: expected |topK(old) ∩ topK(new)| / K under random "
                                "tie-breaking",
                "corr_to_success": "Spearman of score vs success (0/1); success = task-correct final answer and, "
                                   "when the item needs clarification, at least one clarifying question",
                "corr_improve_pct": "100 * (corr_new - corr_old) / corr_old when corr_old > 0, else undefined "
                                    "(the check fails): no improvement is measured from a score that does not "
                                    "track success",
            },
        })
        st.log_metrics({**flat_metrics(metrics), **stats_metrics(stats)})
        st.log_artifact(report_path)
        st.log_artifact(scored_path)
        if judge.unstable_rows:
            unstable = report_path.with_name("unstable_samples.jsonl")
            judge.write_unstable(unstable)
            st.log_artifact(unstable)
        st.verdict(checks, what="shadow_run")
        return {"checks": checks, "passed": True, "report": str(report_path), "scored": str(scored_path),
                "run_id": st.run_id, "metrics": flat_metrics(metrics)}


def show(res: dict) -> None:
    """`rc1 shadow-run`'s closing line (a failing one ends in the CLI's table of failing checks instead; inside
    preflight the round says how the step went, waived checks named, never as a FAIL)."""
    rep = read_json(res["report"])
    _echo_summary(rep["metrics"], rep["checks"])


def _echo_summary(metrics: dict, checks: list[dict]) -> None:
    def f(v):
        return "n/a" if v is None else f"{v:.4g}"

    click.echo(f"shadow_run: {metrics['n_scored']} scored candidates ({metrics['n_failed']} failed) over "
               f"{metrics['n_items']} items; spearman {f(metrics['spearman'])}, kendall {f(metrics['kendall_tau'])}, "
               f"top10% {f(metrics['top10pct_overlap'])} (top10 {f(metrics['top10_overlap'])}, top20 "
               f"{f(metrics['top20_overlap'])}, top20% {f(metrics['top20pct_overlap'])}), within-item argmax "
               f"agreement {f(metrics['argmax_agreement_within_item'])}, corr_to_success old "
               f"{f(metrics['corr_to_success_old'])} / new {f(metrics['corr_to_success_new'])} "
               f"({f(metrics['corr_improve_pct'])}%) -> {'PASS' if all(c['pass'] for c in checks) else 'FAIL'}",
               file=sys.stdout)
