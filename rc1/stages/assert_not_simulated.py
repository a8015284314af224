"""`rc1 assert-not-simulated --cache_hit_lt 0.90` / `mlflow run . -e assert_not_simulated`.

Passes only when scoring is real: --mode prod, simulate=false in the ppo config, a live provider
(never the heuristic), billable calls >= 1, latency > 0 and a cache hit rate under the bar.

Where the counters come from:
- default: the latest --n (100) scoring records, as seed 000 defines the check: the judge cache's scoring log (one
  record per judge sample a scoring stage looked up: served from the cache, or a billable provider reply with its
  latency), else, where that log is empty, the newest scoring runs' counters in the tracking store. It scores nothing
  itself (a check that calls the judge would always find a live judge): after a run answered from the cache, the
  latest records are cache hits and it fails.
- --run-id R (repeatable): the counters scoring runs logged with rc1.scoring.judge.stats_metrics
  (billable_count, avg_latency_ms, cache_hit_rate, ..., optionally prefixed `scorer.`) and their provider
  (tag scorer.provider / rc1.judge_provider, or param judge_provider), summed over the runs: billable calls
  and cache hits/misses add up (cache_hit_rate = hits / (hits + misses)), latency is the billable-weighted
  mean. A run that was reused from an earlier one scored nothing itself: it counts as fully cached (its
  lookups are hits, zero billable calls). Preflight passes the round's own scoring runs (probe_scorer, and
  in round 2 the shadow run), so the bar measures what the round really scored.
The stage is never reused from an earlier run (a reused verdict would itself be a simulation).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import click

from rc1.cli.options import arg, logged_params, unset
from rc1.core.config import load_thresholds
from rc1.core.ppo_config import load_ppo_config
from rc1.core.errors import Rc1Error
from rc1.scoring.judge import stats_metrics
from rc1.scoring.probe import anti_simulation_checks, records_stats
from rc1.scoring.providers import HEURISTIC, PROVIDERS
from rc1.scoring.spec import JUDGE_SPEC_VERSION
from rc1.stages.shared import Gated, Moded
from rc1.tracking import stage_run
from rc1.core.settings import configured


@dataclass
class Config(Moded, Gated):
    """Refuse simulated scoring: prod mode, simulate=false, live billable calls, cache hit rate under the bar."""

    cache_hit_lt: float | None = arg(None, "Pass only below this cache hit rate (unset: gates.yaml anti_simulation "
                                           "for --round).")
    run_id: tuple[str, ...] = arg((), "Judge the counters of this scoring run instead (repeat: the runs' counters "
                                      "summed).")
    n: int = arg(100, "Without --run-id: judge the latest N scoring records (judge cache, else tracking store).")
    round: str = arg("1", "Preflight round whose bar applies when --cache-hit-lt is not given.", choices=("1", "2"))
    config: str = arg("configs/ppo_scale.yaml", "PPO config whose `simulate` must be false.")


_COUNTERS = ("billable_count", "avg_latency_ms", "cache_hit_rate", "cache_hits", "cache_misses", "calls",
             "429_rate", "rps", "failed", "requests")


def counters_of_run(run_id: str) -> dict:
    """The judge counters a scoring run logged (scorer.<name> metrics, or unprefixed ones)."""
    from rc1.tracking.queries import get_run

    try:
        run = get_run(run_id)
    except Exception as e:  # MlflowException: unknown id, unreachable server
        raise Rc1Error(f"--run-id {run_id}: {type(e).__name__}: {str(e).splitlines()[0][:200]}") from None
    m, tags, params = run.data.metrics, run.data.tags, run.data.params
    stats = {k: m.get(f"scorer.{k}", m.get(k)) for k in _COUNTERS}
    if stats["avg_latency_ms"] is None:
        stats["avg_latency_ms"] = m.get("latency_ms")
    if stats["billable_count"] is None or stats["cache_hit_rate"] is None:
        raise Rc1Error(f"--run-id {run_id}: the run logged no judge counters "
                       "(scorer.billable_count, scorer.cache_hit_rate); was it a scoring run?")
    stats = {k: v for k, v in stats.items() if v is not None}
    if tags.get("rc1.reused_from"):  # answered from an earlier run: nothing was scored now
        looked = (stats.get("cache_hits") or 0) + (stats.get("cache_misses") or 0) or stats.get("requests") or 0
        stats.update({"billable_count": 0, "cache_hits": looked, "cache_misses": 0, "cache_hit_rate": 1.0,
                      "reused_from": tags["rc1.reused_from"]})
    stats["provider"] = (tags.get("scorer.provider") or tags.get("rc1.judge_provider") or params.get("judge_provider")
                         or params.get("provider"))
    if "scorer.live" in tags:
        stats["live"] = tags["scorer.live"].lower() == "true"
    else:  # runs that name their provider only: every provider but the heuristic is an HTTP endpoint
        stats["live"] = stats["provider"] in PROVIDERS and stats["provider"] != HEURISTIC
    return stats


def counters_of_runs(run_ids: list[str]) -> dict:
    """The judge counters of several scoring runs, summed (see the module doc)."""
    per = [counters_of_run(r) for r in run_ids]
    if len(per) == 1:
        return per[0]
    hits = sum(s.get("cache_hits") or 0 for s in per)
    misses = sum(s.get("cache_misses") or 0 for s in per)
    billable = sum(s.get("billable_count") or 0 for s in per)
    latency = (sum((s.get("avg_latency_ms") or 0) * (s.get("billable_count") or 0) for s in per) / billable
               if billable else 0.0)
    providers = sorted({str(s.get("provider")) for s in per})
    return {"billable_count": billable, "cache_hits": hits, "cache_misses": misses,
            "cache_hit_rate": hits / (hits + misses) if hits + misses else
            sum(s["cache_hit_rate"] for s in per) / len(per),
            "avg_latency_ms": latency, "requests": sum(s.get("requests") or 0 for s in per),
            "failed": sum(s.get("failed") or 0 for s in per), "provider": ",".join(providers),
            "live": all(s.get("live") for s in per), "runs": {r: s for r, s in zip(run_ids, per)}}


def latest_scoring(n: int) -> tuple[dict, str]:
    """(counters, where they come from) of the latest n scoring records (see the module doc)."""
    from rc1.scoring.cache import CACHE_FILE, JudgeCache, default_cache_dir
    from rc1.tracking.queries import _search

    path = default_cache_dir() / CACHE_FILE
    if path.is_file():
        cache = JudgeCache(path)
        try:
            rows = cache.recent_scoring(n)
        finally:
            cache.close()
        if rows:
            return records_stats(rows), f"judge cache {path}: latest {len(rows)} scoring records"
    runs = _search("metrics.billable_count >= 0 AND tags.`rc1.stage` != 'assert_not_simulated'", max_results=50)
    ids, looked = [], 0
    for run in runs:   # newest first, until they hold n lookups
        ids.append(run.info.run_id)
        m = run.data.metrics
        looked += int((m.get("cache_hits") or 0) + (m.get("cache_misses") or 0))
        if looked >= n:
            break
    if not ids:
        return records_stats([]), "no scoring records in the judge cache or the tracking store"
    return counters_of_runs(ids), f"tracking store: scoring runs {','.join(ids)}"


@configured
def run(cfg: Config) -> dict:
    """Judge the scoring counters; returns {checks, stats, run_id}. `run_id` may also be one id (a str)."""
    round_no = int(cfg.round)
    gates = load_thresholds(cfg.gates)
    cache_hit_lt = cfg.cache_hit_lt
    if cache_hit_lt is None:
        cache_hit_lt = (gates.anti_simulation.cache_hit_lt_round1 if round_no == 1
                        else gates.anti_simulation.cache_hit_lt_round2)
    if not 0 < cache_hit_lt <= 1:
        raise Rc1Error(f"--cache-hit-lt {cache_hit_lt}: expected a fraction in (0, 1]")
    if cfg.n < 1:
        raise Rc1Error(f"--n {cfg.n}: need at least 1 scoring record")
    mode = cfg.mode
    simulate = load_ppo_config(cfg.config).simulate
    run_ids = [r for r in ([cfg.run_id] if isinstance(cfg.run_id, str) else cfg.run_id) if unset(r)]
    params = {**logged_params(cfg), "cache_hit_lt": cache_hit_lt, "run_id": ",".join(run_ids), "round": round_no,
              "run_mode": mode, "spec_version": JUDGE_SPEC_VERSION}
    with stage_run("assert_not_simulated", params=params, reuse=False) as st:
        st.log_config(gates.anti_simulation, "gates.json")
        st.set_tags({"rc1.simulate": str(simulate).lower()})
        if run_ids:
            stats = counters_of_runs(run_ids)
            source = f"scoring runs {','.join(run_ids)}"
            st.set_tags({"scorer.source_run": ",".join(run_ids)})
        else:
            stats, source = latest_scoring(cfg.n)
        st.set_tags({"scorer.provider": str(stats.get("provider"))[:500], "scorer.source": source[:500]})
        st.log_metrics({**stats_metrics(stats), "latency_ms": stats.get("avg_latency_ms", 0.0)})
        st.log_json({"stats": stats, "source": source, "source_runs": run_ids}, "anti_simulation.json")
        g = gates.probe_scorer
        checks = anti_simulation_checks(stats, cache_hit_lt, mode, simulate, g.billable_min, g.latency_ms_min)
        st.verdict(checks, what="assert_not_simulated")
    return {"checks": checks, "stats": stats, "run_id": st.run_id}


def show(res: dict) -> None:
    s = res["stats"]
    click.echo(json.dumps({k: s.get(k) for k in ("provider", "billable_count", "avg_latency_ms", "cache_hit_rate",
                                                  "calls")}))
    click.echo("assert_not_simulated passed")
