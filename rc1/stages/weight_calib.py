"""`rc1 weight-calib` / `mlflow run . -e weight_calib`: calibrate the reward weights on scored candidates.

Input: --scored PATH, else the scored_candidates.jsonl of the newest finished shadow_run, else a fresh
shadow run. Output: calibration_report_<ts>.json (always) and the weights file (--out, default
configs/weights.json), written only when the gate (configs/gates.yaml weight_calib) and the weights
constraints pass; on a failed gate the proposed weights are in the report and the run's
weights_proposed.json artifact, and the weights file is left as it was.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from rc1.scoring.calibrate import calibrate, calibration_checks, design_matrix
from rc1.cli.options import arg, logged_params
from rc1.core.config import DIMENSIONS, load_thresholds, load_weights
from rc1.core.errors import Rc1Error
from rc1.core.io import read_json, read_jsonl, write_json
from rc1.scoring.reward import weights_check
from rc1.scoring.scored_candidates import resolve_scored, scored_tags
from rc1.stages.shared import FromScored, Gated, Judged, Moded, Reusable, Weighted
from rc1.tracking import stage_run
from rc1.core.settings import configured


@dataclass
class Config(FromScored, Weighted, Moded, Judged, Gated, Reusable):
    """NNLS + L2 prior, CV and bootstrap; writes weights.json (projected onto the capped simplex) and a report.

    --weights is the current weights (the prior), and where the calibrated ones go unless --out names another file."""

    cv: int = arg(5, "Cross-validation folds.")
    boot: int = arg(200, "Bootstrap resamples.")
    l2: float = arg(0.1, "L2 prior strength toward the current weights.")
    seed: int = arg(42, "Calibration seed (CV folds, bootstrap resamples).")
    out: str | None = arg(None, "Where to write the calibrated weights (unset: --weights).")
    report: str | None = arg(None, "Report path (unset: reports/calibration_report_<ts>.json).", log=False)

    def __post_init__(self) -> None:
        if self.cv < 2 or self.boot < 1 or not 0 <= self.l2 < float("inf"):
            raise Rc1Error(f"--cv {self.cv}, --boot {self.boot}, --l2 {self.l2}: want at least 2 folds, at least one "
                           f"resample and a finite L2 strength >= 0")
        super().__post_init__()   # the shared fields' checks (the mode resolved, the judge URL)


@configured
def run(cfg: Config, progress: bool = True) -> dict[str, Any]:
    """Calibrate; returns {checks, passed, report, weights, run_id} (reused: True when a finished run was reused)."""
    gates = load_thresholds(cfg.gates).for_mode(cfg.mode)
    w0 = load_weights(cfg.weights)
    out_path = Path(cfg.out or cfg.weights)
    ts = _dt.datetime.now().strftime("%Y%m%dT%H%M%S")
    report_path = Path(cfg.report or f"reports/calibration_report_{ts}.json")
    scored_path, scored_source = resolve_scored(cfg.scored)
    rows = read_jsonl(scored_path)
    cap = gates.weights.max_each
    params = {**logged_params(cfg), "cap": cap, "out": str(out_path), "scored_source": scored_source}

    with stage_run("weight_calib", params=params,
                   inputs={"scored": scored_path, "weights": cfg.weights, "gates": cfg.gates},
                   outputs={"report": report_path, "weights": out_path}, reuse=cfg.reuse, tags=scored_tags(rows)) as st:
        if st.reused:
            rep = read_json(report_path)
            return {"checks": rep["checks"], "passed": rep["passed"], "report": str(report_path),
                    "weights": str(out_path), "run_id": st.run_id, "reused": True}
        st.log_file_input(scored_path, "scored_candidates")
        st.log_config(gates.weight_calib, "gates_weight_calib.json")
        X, y, s, groups, skipped = design_matrix(rows, str(scored_path))
        w0_vec = [w0.as_dict()[d] for d in DIMENSIONS]
        rep = calibrate(X, y, w0_vec, cv=cfg.cv, boot=cfg.boot, l2=cfg.l2, seed=cfg.seed, cap=cap, sample_weight=s,
                        groups=groups, progress=progress)
        checks = calibration_checks(rep, gates.weight_calib) + weights_check(rep["weights"], gates)
        passed = all(c["pass"] for c in checks)
        rep.update({"stage": "weight_calib", "passed": passed, "checks": checks, "skipped_failed_rows": skipped,
                    "scored": str(scored_path), "scored_source": scored_source,
                    "weights_written": str(out_path) if passed else None})
        write_json(report_path, rep)
        st.log_artifact(report_path)
        st.log_json(rep["weights"], "weights_proposed.json")
        imp, summ = rep["improvement"], rep["summary"]
        st.log_metrics({
            "n": rep["n"], "n_items": rep["n_items"], "skipped_failed_rows": skipped, "success_rate": rep["success_rate"],
            "rank_corr_median_old": summ["old"]["rank_corr_median"], "rank_corr_median_new": summ["new"]["rank_corr_median"],
            "mae_median_old": summ["old"]["mae_median"], "mae_median_new": summ["new"]["mae_median"],
            "rank_corr_median_improve_pct": imp["rank_corr_median_improve_pct"],
            "mae_improve_pct": imp["mae_improve_pct"],
            **{f"weight.{d}": v for d, v in rep["weights"].items()},
            **{f"weight_ci_low.{d}": v["ci_low"] for d, v in rep["bootstrap"]["weights"].items()},
            **{f"weight_ci_high.{d}": v["ci_high"] for d, v in rep["bootstrap"]["weights"].items()},
        })
        if passed:
            write_json(out_path, rep["weights"])
            st.log_artifact(out_path)
        _echo(rep, passed, out_path)
        st.verdict(checks, what="weight_calib")
        return {"checks": checks, "passed": True, "report": str(report_path), "weights": str(out_path),
                "run_id": st.run_id}


def _echo(rep: dict, passed: bool, out: Path) -> None:
    def f(v):
        return "n/a" if v is None else f"{v:.4g}"

    imp, s = rep["improvement"], rep["summary"]
    click.echo(f"weight_calib: n={rep['n']}, rank-corr median old {f(s['old']['rank_corr_median'])} -> new "
               f"{f(s['new']['rank_corr_median'])} ({f(imp['rank_corr_median_improve_pct'])}%), MAE median old "
               f"{f(s['old']['mae_median'])} -> new {f(s['new']['mae_median'])} ({f(imp['mae_improve_pct'])}% lower); "
               + ", ".join(f"{d}={v:.3f}" for d, v in rep["weights"].items())
               + (f" -> PASS, written to {out}" if passed else " -> FAIL, weights not written"))
