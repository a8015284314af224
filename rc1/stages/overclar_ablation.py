"""`rc1 overclar-ablation` / `mlflow run . -e overclar_ablation`: best-of-K with and without the
over-clarification penalty on scored candidates (--scored, else the newest shadow_run's).
Gate: configs/gates.yaml overclar_ablation."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from rc1.cli.options import arg, logged_params
from rc1.core.config import load_thresholds, load_weights
from rc1.core.errors import Rc1Error
from rc1.core.io import read_json, read_jsonl, write_json
from rc1.scoring.overclar import ablation, ablation_checks
from rc1.scoring.reward import DEFAULT_ALPHA, DEFAULT_CAP, reward_params
from rc1.scoring.scored_candidates import resolve_scored, scored_tags
from rc1.stages.shared import FromScored, Gated, Judged, Moded, PpoConfigured, Reusable, RewardOverrides, Weighted
from rc1.tracking import stage_run
from rc1.core.settings import configured


@dataclass
class Config(FromScored, Weighted, PpoConfigured, RewardOverrides, Moded, Judged, Gated, Reusable):
    """Best-of-K selection with and without the penalty: over-clarification rate, avg turns, success."""

    # the ablation's own penalty, not the ppo config's (the config gives beta)
    alpha: float = arg(DEFAULT_ALPHA, "Penalty per needless clarifying question.")
    cap: int = arg(DEFAULT_CAP, "Questions counted at most.")
    report: str = arg("reports/overclar_ablation.json", "Report JSON.", log=False)
    subset_k: int = arg(0, "0: best of all K candidates per item; k: best of k, averaged over every k-subset.")
    # the seeds' runbook line says `--ablation`: both arms are what this stage is, so it is accepted, never needed
    ablation: bool = arg(True, hidden=True)

    def __post_init__(self) -> None:
        if not self.ablation:
            raise Rc1Error("--no-ablation: overclar-ablation is the ablation (best-of-K with and without the penalty, "
                           "always both): leave the flag out")
        getattr(super(), "__post_init__", lambda: None)()


@configured
def run(cfg: Config) -> dict[str, Any]:
    """The ablation; returns {checks, passed, report, run_id} (reused: True when a finished run was reused)."""
    gates = load_thresholds(cfg.gates).for_mode(cfg.mode)
    w = load_weights(cfg.weights)
    params_r = reward_params(cfg.config, alpha=cfg.alpha, cap=cfg.cap, beta=cfg.beta)
    scored_path, scored_source = resolve_scored(cfg.scored)
    rows = read_jsonl(scored_path)
    report_path = Path(cfg.report)
    if cfg.subset_k < 0:
        raise Rc1Error("--subset-k must be 0 (best of all candidates) or a positive size")
    params = {**logged_params(cfg), "alpha": params_r.alpha, "cap": params_r.cap, "beta": params_r.beta,
              "scored_source": scored_source}

    with stage_run("overclar_ablation", params=params,
                   inputs={"scored": scored_path, "weights": cfg.weights, "gates": cfg.gates},
                   outputs={"report": report_path}, reuse=cfg.reuse, tags=scored_tags(rows)) as st:
        if st.reused:
            rep = read_json(report_path)
            return {"checks": rep["checks"], "passed": rep["passed"], "report": str(report_path),
                    "run_id": st.run_id, "reused": True}
        st.log_file_input(scored_path, "scored_candidates")
        st.log_config(gates.overclar_ablation, "gates_overclar_ablation.json")
        rep = ablation(rows, w, params_r, cfg.subset_k or None)
        checks = ablation_checks(rep, gates.overclar_ablation)
        passed = all(c["pass"] for c in checks)
        rep.update({"stage": "overclar_ablation", "passed": passed, "checks": checks, "weights": w.as_dict(),
                    "scored": str(scored_path), "scored_source": scored_source})
        write_json(report_path, rep)
        st.log_artifact(report_path)
        metrics = {f"{arm}.{k}": v for arm in ("with_penalty", "without_penalty")
                   for k, v in rep[arm].items() if isinstance(v, (int, float))}
        metrics.update({f"delta.{k}": v for k, v in rep["delta"].items() if v is not None})
        st.log_metrics(metrics)
        _echo(rep, passed)
        st.verdict(checks, what="overclar_ablation")
        return {"checks": checks, "passed": True, "report": str(report_path), "run_id": st.run_id}


def _echo(rep: dict, passed: bool) -> None:
    def f(v, pct=False):
        return "n/a" if v is None else (f"{100 * v:.1f}%" if pct else f"{v:.4g}")

    a, b, d = rep["without_penalty"], rep["with_penalty"], rep["delta"]
    click.echo(f"overclar_ablation (alpha={rep['params']['alpha']}, cap={rep['params']['cap']}): over-clarification "
               f"{f(a['overclar_rate'], True)} -> {f(b['overclar_rate'], True)} "
               f"(-{f(d['overclar_rate_reduction_pct'])}%), avg turns {f(a['avg_turns'])} -> {f(b['avg_turns'])}, "
               f"success {f(a['success'], True)} -> {f(b['success'], True)} -> {'PASS' if passed else 'FAIL'}")
