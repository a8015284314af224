"""`rc1 probe-scorer --n 8 --judge-provider P --live` / `mlflow run . -e probe_scorer`.

Scores n probe requests (fresh prompts, through the cache) with the configured judge and records
latency, billable_count, rps, 429_rate and cache_hit_rate as metrics. Gate (configs/gates.yaml
probe_scorer): a live provider answered (billable >= billable_min, latency > latency_ms_min), nothing
failed and nothing was substituted. The heuristic judge always fails it: it is not live and never
billable; with --live (or in prod) it is refused outright, and the refusal is the recorded verdict.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass

import click

from rc1.cli.options import arg, logged_params
from rc1.core.config import load_thresholds
from rc1.core.errors import Rc1Error
from rc1.scoring.judge import make_judge, scorer_tags, stats_metrics
from rc1.scoring.probe import probe_checks, probe_requests
from rc1.scoring.providers import provider_name
from rc1.core.settings import configured, judge_endpoint
from rc1.scoring.spec import JUDGE_SPEC_VERSION
from rc1.stages.shared import Gated, Judged, Moded
from rc1.tracking import stage_run


@dataclass
class Config(Judged, Moded, Gated):
    """Probe the judge provider: real billable calls with latency, or the gate fails."""

    n: int = arg(8, "Probe requests to score (K samples each).")
    live: bool = arg(False, "Require a live provider (the heuristic judge is refused).")
    seed: int | None = arg(None, "Fix the probe prompts (a re-run is then answered from the cache and fails the gate: "
                                 "what a scoring run that scored nothing looks like); unset: fresh prompts.")


@configured
def run(cfg: Config, progress: bool = True) -> dict:
    """Score the probe requests; returns {checks, stats, run_id}."""
    if cfg.n < 1:
        raise Rc1Error(f"--n {cfg.n}: need at least 1 probe request")
    provider, model, seed = cfg.judge_provider, cfg.judge_model, cfg.seed
    if (configured_name := judge_endpoint(provider=provider).provider) is not None:
        provider_name(configured_name)   # a name that is no provider is bad input, refused before any run
    gates = load_thresholds(cfg.gates).probe_scorer
    params = {**logged_params(cfg), "provider": provider or "env", "model": model or "env", "run_mode": cfg.mode,
              "spec_version": JUDGE_SPEC_VERSION, "seed": "fresh" if seed is None else seed}
    with stage_run("probe_scorer", params=params, reuse=False) as st:  # a probe is never reused
        st.log_config(gates, "gates.json")
        refused, stats, rows = None, {"provider": judge_endpoint(provider=provider).provider or "unset"}, []
        try:
            judge = make_judge(provider, model, live=True if cfg.live else None, gates_path=cfg.gates)
        except Rc1Error as e:
            refused = str(e)
            st.set_tags({"scorer.refused": refused[:500]})
        else:
            st.set_tags(scorer_tags(judge))
            requests = probe_requests(cfg.n, seed=seed or 0, nonce=uuid.uuid4().hex if seed is None else f"seed-{seed}")
            results = judge.score_many(requests, progress=progress)
            stats = judge.stats()
            st.log_metrics({**stats_metrics(stats), "latency_ms": stats["avg_latency_ms"]})
            rows = [{"item_id": r.request.item_id, "candidate_id": r.request.candidate_id, "scores": r.scores,
                     "variance": r.variance, "failed": r.failed, "unstable": r.unstable, "error": r.error,
                     "latency_ms": r.latency_ms} for r in results]
        st.log_json({"stats": stats, "refused": refused, "results": rows}, "probe_results.json")
        checks = probe_checks(stats, provider, gates.billable_min, gates.latency_ms_min, refused)
        st.verdict(checks, what="probe_scorer")
    return {"checks": checks, "stats": stats, "run_id": st.run_id}


def show(res: dict) -> None:
    s = res["stats"]
    click.echo(json.dumps({k: s.get(k) for k in ("provider", "model", "billable_count", "avg_latency_ms", "rps",
                                                  "429_rate", "cache_hit_rate", "failed")}))
    click.echo("probe_scorer passed")
