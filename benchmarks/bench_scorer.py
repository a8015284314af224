"""Judge client throughput against the fake OpenAI-compatible server (fixed rate limit + injected faults).

    python benchmarks/bench_scorer.py [--limit 50] [--seconds 8] [--p429 0.02] [--client-rate R]
    python benchmarks/bench_scorer.py --limit 30 --seconds 30 --p429 0 --p500 0.03 --pmalformed 0.03 \
        --pstall 0.01 --stall-s 20          # the long tail of issue 20

Prints, for the steady state (after a warm-up second, before the tail), the answered requests per
second as % of the server's limit and the 429 rate (rate-limit and injected 429s over all requests), and
end to end (every sample answered / wall time, the tail included).
Bars: issue 3: >= 90% of the limit with 429_rate <= 5%; issue 20 (1% 20-s stalls, 3% 5xx, 3% malformed,
30 req/s): >= 27 answered/s, nothing lost.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from fake_openai_server import FakeJudgeServer  # noqa: E402

from rc1.scoring.base import JudgeRequest  # noqa: E402
from rc1.scoring.judge import ScoringJudge  # noqa: E402
from rc1.scoring.providers import make_provider  # noqa: E402
from rc1.scoring.judge_settings import JudgeSettings  # noqa: E402


def requests_for(n: int) -> list[JudgeRequest]:
    return [JudgeRequest(item_id=f"b{i}", candidate_id="c", task="gsm8k", question=f"What is {i} + {i}?",
                         gold_answer=str(2 * i), needs_clarification=False,
                         dialogue=({"role": "user", "content": f"What is {i} + {i}?"},
                                   {"role": "assistant", "content": f"{i} + {i} = {2 * i}\nAnswer: {2 * i}"}))
            for i in range(n)]


def steady(events: list[tuple[float, str]], warmup: float, tail: float) -> dict:
    if not events:
        return {"window_s": 0.0, "ok_per_s": 0.0, "429_rate": 0.0, "requests": 0}
    t0, t1 = events[0][0] + warmup, events[-1][0] - tail
    win = [k for t, k in events if t0 <= t <= t1]
    span = max(1e-9, t1 - t0)
    n429 = sum(k in ("429", "429_limit") for k in win)
    return {"window_s": round(span, 2), "requests": len(win), "ok_per_s": sum(k == "ok" for k in win) / span,
            "429_rate": n429 / len(win) if win else 0.0, "limit_429": sum(k == "429_limit" for k in win),
            "injected_429": sum(k == "429" for k in win)}


def run(limit: float, seconds: float, p429: float, client_rate: float | None, burst: int, concurrency: int,
        server_delay: float, overrides: dict | None = None, faults: dict | None = None) -> dict:
    n = int(limit * seconds)
    limits = {"max_concurrency": concurrency, "initial_concurrency": min(concurrency, 4)} if concurrency else {}
    settings = JudgeSettings(**{"samples": 1, "rate": client_rate or limit, "burst": burst, **limits,
                                "timeout_s": 5.0, "max_attempts": 8, **(overrides or {})})
    with FakeJudgeServer(rate_limit=limit, p_429=p429, retry_after="1", delay_s=server_delay, seed=1,
                         max_lifetime_s=seconds * 4 + 60, **(faults or {})) as srv:
        judge = ScoringJudge(make_provider("openai-compatible", model="fake", base_url=srv.url, api_key="sk-bench",
                                           settings=settings), settings, cache=None)
        t = time.perf_counter()
        results = judge.score_many(requests_for(n), progress=False)
        wall = time.perf_counter() - t
        st = steady(list(srv.events), warmup=1.0, tail=1.5)
        stats = judge.stats()
    return {
        "server_limit_rps": limit, "client_rate": settings.rate, "requests": n, "wall_s": round(wall, 2),
        "failed": sum(r.failed for r in results), "lost": n - len(results),
        "answered_per_s_end_to_end": round(sum(not r.failed for r in results) / wall, 2),
        "server": srv.stats(), "abandoned": stats.get("abandoned"), "malformed": stats["malformed"],
        "errors": stats["errors"], "concurrency_max_seen": stats.get("concurrency_max_seen"),
        "timeout_s_adaptive": round(stats.get("timeout_s_adaptive", 0.0), 3),
        "steady_ok_rps": round(st["ok_per_s"], 2), "throughput_pct_of_limit": round(100 * st["ok_per_s"] / limit, 1),
        "steady_429_rate": round(st["429_rate"], 4), "steady_window_s": st["window_s"],
        "steady_limit_429": st["limit_429"], "steady_injected_429": st["injected_429"],
        "overall_429_rate": round(stats["429_rate"], 4), "avg_latency_ms": round(stats["avg_latency_ms"], 1), "concurrency_final": stats["concurrency"],
        "concurrency_min_seen": stats["concurrency_min_seen"], "client_rate_final": round(stats["rate_limit_rps"], 1),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=float, default=50.0, help="server rate limit, requests/s")
    ap.add_argument("--seconds", type=float, default=8.0, help="about how long to run")
    ap.add_argument("--p429", type=float, default=0.02, help="injected 429 probability (Retry-After: 1)")
    ap.add_argument("--client-rate", type=float, default=None, help="client token bucket rate (default: the limit)")
    ap.add_argument("--burst", type=int, default=1, help="client token bucket burst")
    ap.add_argument("--concurrency", type=int, default=None,
                    help="a hand-set concurrency band (max N, start min(N, 4)); default: the judge's own (slow start)")
    ap.add_argument("--server-delay", type=float, default=0.02, help="server latency per answered call, s")
    ap.add_argument("--p500", type=float, default=0.0, help="injected 5xx probability")
    ap.add_argument("--pmalformed", type=float, default=0.0, help="injected malformed-reply probability")
    ap.add_argument("--pstall", type=float, default=0.0, help="probability that a reply stalls --stall-s seconds")
    ap.add_argument("--stall-s", type=float, default=20.0)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a JudgeSettings field (limiter tuning), e.g. --set grow_after=10")
    a = ap.parse_args()
    overrides = dict(kv.split("=", 1) for kv in a.set)
    faults = {"p_500": a.p500, "p_malformed": a.pmalformed, "p_stall": a.pstall, "stall_s": a.stall_s}
    out = run(a.limit, a.seconds, a.p429, a.client_rate, a.burst, a.concurrency, a.server_delay, overrides, faults)
    ok = (out["throughput_pct_of_limit"] >= 90.0 and out["steady_429_rate"] <= 0.05 and out["lost"] == 0
          and out["failed"] == 0)
    print(json.dumps(out, indent=2))
    print(f"throughput {out['throughput_pct_of_limit']:.1f}% of the {a.limit:g} rps limit, "
          f"429_rate {100 * out['steady_429_rate']:.2f}% at steady state -> {'PASS' if ok else 'FAIL'} "
          f"(bar: >= 90% and <= 5%)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
