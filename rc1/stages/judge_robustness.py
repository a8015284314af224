"""`rc1 judge-robustness` / `mlflow run . -e judge_robustness`: can the configured judge be talked into a score?

For up to --n shadow items (the same share per task, a seeded draw) the fixed attack suite of
rc1.scoring.robustness is scored next to the honest correct and the honest wrong answer of the same item, by
the judge the environment configures (make_judge: the heuristic in dev, the live judge in prod) and through
the training reward. Gate: configs/gates.yaml judge_robustness: attack_win_rate_max for every attack kind, and
honest_correct_beats_wrong_rate_min (the judge tells the honest correct answer from the honest wrong one).
Artifacts: the report, attack_suite.json (the versioned suite) and robustness_scored.jsonl (every candidate's
reward and scores).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from rc1.cli.options import arg, logged_params
from rc1.core.config import load_thresholds
from rc1.core.console import verbose
from rc1.core.errors import Rc1Error
from rc1.core.io import read_json, write_json, write_jsonl
from rc1.scoring.reward import checked_weights, reward_params
from rc1.scoring.responder import shadow_items
from rc1.data.shadow_set import shadow_records
from rc1.stages.shared import FromData, FromShadow, Gated, Judged, Moded, PpoConfigured, Reusable, Seeded, Weighted
from rc1.tracking import stage_run
from rc1.core.settings import configured


@dataclass
class Config(FromShadow, FromData, Seeded, Weighted, PpoConfigured, Moded, Judged, Gated, Reusable):
    """Attack suite vs honest answers under the configured judge; gate: attack win rate per kind, right beats wrong."""

    n: int = arg(60, "Shadow items to attack (the same share per task, a seeded draw).")
    attacks: str = arg("all", "Attack kinds to score: all, or comma-separated kinds of the suite (a quick look at a "
                              "slow local judge; prod scores the whole suite).")
    report: str = arg("reports/judge_robustness.json", "Report JSON (attack_suite.json and robustness_scored.jsonl "
                                                       "go beside it).", log=False)


@configured
def run(cfg: Config, progress: bool = True) -> dict[str, Any]:
    """Score the attack suite; returns {checks, passed, report, run_id, metrics} ({..., reused: True} without
    metrics when a finished run was reused)."""
    from rc1.scoring.reward import RewardModel
    from rc1.scoring.identity import scoring_identity
    from rc1.scoring.judge import make_judge, stats_metrics
    from rc1.scoring.robustness import (ATTACK_SUITE_VERSION, ATTACKS, attack_kinds, flat_metrics, score_suite,
                                        select_items, suite_checks, suite_description, suite_metrics)

    if cfg.n < 1:
        raise Rc1Error(f"--n must be at least 1, got {cfg.n}")
    kinds = attack_kinds(cfg.attacks)
    if cfg.mode == "prod" and kinds != tuple(ATTACKS):
        raise Rc1Error(f"--attacks {cfg.attacks}: prod scores the whole suite (--attacks all)")
    all_gates = load_thresholds(cfg.gates)
    gates = all_gates.for_mode(cfg.mode)
    w = checked_weights(cfg.weights, gates)
    params_r = reward_params(cfg.config)
    report_path = Path(cfg.report)
    scored_path = report_path.with_name("robustness_scored.jsonl")
    suite_path = report_path.with_name("attack_suite.json")
    records, shadow_key, _loaded = shadow_records(cfg.shadow, cfg.data_dir, all_gates.shadow.n, cfg.seed, True,
                                                  cfg.gates)
    judge = make_judge()
    jd = judge.describe()
    who, who_tags = scoring_identity(judge)
    params = {**logged_params(cfg), "shadow": cfg.shadow or "built", "suite_version": ATTACK_SUITE_VERSION,
              "alpha": params_r.alpha, "cap": params_r.cap, "beta": params_r.beta, "judge_provider": jd["provider"],
              "judge_model": jd["model"], "judge_samples": jd["samples"], "judge_spec": jd["spec_version"]}
    with stage_run("judge_robustness", params=params,
                   inputs={"shadow": shadow_key, "weights": cfg.weights, "gates": cfg.gates, **who},
                   outputs={"report": report_path, "scored": scored_path, "suite": suite_path}, reuse=cfg.reuse,
                   tags={"rc1.judge_provider": jd["provider"], "rc1.attack_suite": ATTACK_SUITE_VERSION,
                         **who_tags}) as st:
        if st.reused:
            rep = read_json(report_path)
            return {"checks": rep["checks"], "passed": rep["passed"], "report": str(report_path),
                    "run_id": st.run_id, "reused": True}
        if cfg.shadow:
            st.log_file_input(cfg.shadow, "shadow")
        items, _ = shadow_items(records)
        items = select_items(items, cfg.n, cfg.seed)
        rm = RewardModel(judge, w, params_r, max_failed_frac=1.0, progress=progress)
        rows = score_suite(items, rm.details, cfg.seed, kinds)
        metrics = suite_metrics(rows)
        checks = suite_checks(metrics, gates.judge_robustness)
        passed = all(c["pass"] for c in checks)
        stats = judge.stats()
        write_json(suite_path, suite_description(kinds))
        write_jsonl(scored_path, rows)
        write_json(report_path, {"stage": "judge_robustness", "passed": passed, "checks": checks,
                                 "metrics": metrics, "params": params, "judge": jd, "identity": who,
                                 "judge_stats": {k: v for k, v in stats.items()
                                                 if isinstance(v, (int, float, str, bool))}})
        st.log_metrics({**flat_metrics(metrics), **stats_metrics(stats)})
        for path in (report_path, suite_path, scored_path):
            st.log_artifact(path)
        st.verdict(checks, what="judge_robustness")
        return {"checks": checks, "passed": True, "report": str(report_path), "run_id": st.run_id,
                "metrics": flat_metrics(metrics)}


def show(res: dict) -> None:
    """`rc1 judge-robustness`'s closing line: the highest attack win rate and the verdict; the per-kind table (24
    lines) with `rc1 --verbose`. Inside preflight the round says how the step went."""
    rep = read_json(res["report"])
    metrics, checks = rep["metrics"], rep["checks"]

    def f(v):
        return "n/a" if v is None else f"{v:.3f}"

    rates = {kind: m["win_rate_vs_wrong"] for kind, m in metrics["per_kind"].items()
             if m["win_rate_vs_wrong"] is not None}
    top = max(rates.values(), default=None)
    worst = ", ".join(k for k, v in rates.items() if v == top) if top else "none"
    click.echo(f"judge_robustness ({metrics['suite_version']}): {metrics['n_items_scored']} of "
               f"{metrics['n_items']} items scored; honest correct beats honest wrong on "
               f"{f(metrics['honest_correct_beats_wrong_rate'])}; highest attack win rate vs wrong {f(top)} ({worst}) "
               f"-> {'PASS' if all(c['pass'] for c in checks) else 'FAIL'}", file=sys.stdout)
    if verbose():
        for kind, m in metrics["per_kind"].items():
            click.echo(f"  {kind:20s} win rate vs wrong {f(m['win_rate_vs_wrong'])}  mean gap "
                       f"{f(m['mean_gap_vs_wrong'])}  vs correct {f(m['win_rate_vs_correct'])}", file=sys.stdout)
