"""`rc1 probe-scorer --n 8 --provider P --live` / `mlflow run . -e probe_scorer`.

Scores n probe requests (fresh prompts, through the cache) with the configured judge and records
latency, billable_count, rps, 429_rate and cache_hit_rate as metrics. Gate (configs/gates.yaml
probe_scorer): a live provider answered (billable >= billable_min, latency > latency_ms_min), nothing
failed and nothing was substituted. The heuristic judge always fails it: it is not live and never
billable; with --live (or in prod) it is refused outright, and the refusal is the recorded verdict.
"""

from __future__ import annotations

import json
import os
import uuid

import click

from entrypoints._common import INT, gates_option
from rc1.config import load_gates
from rc1.errors import Rc1Error
from rc1.scoring.judge import make_judge, scorer_tags, stats_metrics
from rc1.scoring.probe import probe_checks, probe_requests
from rc1.scoring.settings import run_mode
from rc1.scoring.spec import JUDGE_SPEC_VERSION
from rc1.tracking import stage_run


def _unset(value: str | None) -> str | None:
    """MLproject passes 'env' (or '') for 'not given: use the environment'."""
    return None if value in (None, "", "env", "auto", "none", "None") else value


def run_probe_scorer(n: int = 8, provider: str | None = None, live: bool = False, model: str | None = None,
                     gates_path: str = "configs/gates.yaml", progress: bool = True, seed: int | None = None) -> dict:
    """seed: None (default) poses fresh prompts; an integer the same prompts every time (a re-run is then answered
    from the cache and fails the gate: what a scoring run that scored nothing looks like)."""
    if n < 1:
        raise Rc1Error(f"--n {n}: need at least 1 probe request")
    mode = run_mode()
    gates = load_gates(gates_path).probe_scorer
    params = {"n": n, "provider": provider or "env", "model": model or "env", "live": live, "run_mode": mode,
              "spec_version": JUDGE_SPEC_VERSION, "seed": "fresh" if seed is None else seed}
    with stage_run("probe_scorer", params=params, reuse=False) as st:  # a probe is never reused
        st.log_config(gates, "gates.json")
        refused, stats, rows = None, {"provider": provider or os.environ.get("SCORER_PROVIDER") or "unset"}, []
        try:
            judge = make_judge(provider, model, live=True if live else None, gates_path=gates_path)
        except Rc1Error as e:
            refused = str(e)
            st.set_tags({"scorer.refused": refused[:500]})
        else:
            st.set_tags(scorer_tags(judge))
            requests = probe_requests(n, seed=seed or 0, nonce=uuid.uuid4().hex if seed is None else f"seed-{seed}")
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


@click.command("probe-scorer")
@click.option("--n", default=8, show_default=True, type=INT, help="probe requests to score (K samples each)")
@click.option("--provider", default=None, help="judge provider (default or 'env': $SCORER_PROVIDER)")
@click.option("--model", default=None, help="judge model (default: $SCORER_MODEL or the provider's default)")
@click.option("--live/--no-live", default=False, show_default=True,
              help="require a live provider (the heuristic judge is refused)")
@click.option("--seed", default=None, type=INT, help="fix the probe prompts (a re-run is then cached); default: fresh")
@gates_option
def command(n, provider, model, live, seed, gates_path):
    """Probe the judge provider: real billable calls with latency, or the gate fails."""
    out = run_probe_scorer(n=n, provider=_unset(provider), live=live, model=_unset(model), gates_path=gates_path,
                           seed=seed)
    s = out["stats"]
    click.echo(json.dumps({k: s.get(k) for k in ("provider", "model", "billable_count", "avg_latency_ms", "rps",
                                                  "429_rate", "cache_hit_rate", "failed")}))
    click.echo("probe_scorer passed")
