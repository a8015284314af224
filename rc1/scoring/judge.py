"""The K-sample judge: cache -> rate limiter -> provider -> strict parser, median per dimension.

    judge = make_judge()                       # the stage's judge endpoint and mode (rc1.core.settings)
    results = judge.score_many(requests)       # one JudgeResult per request, in order
    judge.stats()                              # calls, billable_count, cache_hit_rate, rps, 429_rate, ...

Every request gets K samples (distinct sample index, so distinct cache keys). A sample that cannot
be obtained (bounded retries on 429/5xx/timeouts, then bounded re-asks on malformed replies) makes
the request failed: failed=True, scores=None. Nothing is ever filled in with 0, 1 or another judge.
A request whose variance exceeds the bound on any dimension is unstable: with policy `downweight`
it gets weight `unstable_weight`; with `rescore` it gets K more samples and the median over all of
them (still unstable after that: down-weighted too). Unstable requests become unstable_rows.
"""

from __future__ import annotations

import logging
import random
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from queue import Empty, SimpleQueue
from typing import Any

from tqdm import tqdm

from rc1.core.config import DIMENSIONS, GATES_PATH
from rc1.core.console import no_bar
from rc1.core.errors import Rc1Error
from rc1.core.io import write_jsonl
from rc1.core.proc import deferred_signals, stop_requested
from rc1.core.redaction import scrub
from rc1.core.text import count_tokens
from rc1.scoring.base import JudgeRequest, JudgeResult
from rc1.scoring.cache import JudgeCache, prompt_digest
from rc1.scoring.identity import judge_identity
from rc1.scoring.limiter import AdaptiveConcurrency, CallStats, LatencyWindow, TokenBucket, backoff_s, token_budget
from rc1.scoring.providers import HEURISTIC, Fatal, Provider, RateLimited, TimedOut, Transient, make_provider
from rc1.core.settings import JUDGE_VARS, judge_endpoint, live_mode, run_mode
from rc1.scoring.judge_settings import JudgeSettings, resolve_unstable_variance
from rc1.scoring.spec import (JUDGE_SPEC_VERSION, MINIMUM_SCORES, MalformedReply, candidate_objects, judge_shaped,
                              parse_reply)

log = logging.getLogger("rc1.scoring")

CACHE_MODES = ("readwrite", "refresh", "off")  # refresh: never read, always write (fresh samples)
_CIRCUIT_STATUSES = (401, 403, 404)            # configuration errors: stop calling at once
STOP_POLL_S = 0.2   # the longest a Ctrl-C or SIGTERM waits while the judge's calls run


class JudgeUnavailable(Rc1Error):
    """The judge endpoint gave no usable reply (down, refusing us, dripping or stalling every call): the judge phase
    ends, one line naming the endpoint and its last failure. `results`: the batch's results, every one failed."""

    def __init__(self, message: str, results: list | None = None):
        super().__init__(message)
        self.results = list(results or [])


class SampleFailed(Exception):
    def __init__(self, message: str, unreadable: bool = False):
        super().__init__(message)
        self.unreadable = unreadable   # the judge answered every try, never with a verdict


class ScoringJudge:
    def __init__(self, provider: Provider, settings: JudgeSettings | None = None, cache: JudgeCache | None = None,
                 cache_mode: str = "readwrite", unstable_variance: float = 0.08, seed: int = 0,
                 log: JudgeCache | None = None):
        """log: where the scoring records go (default: the cache); the heuristic, never cached, still leaves them,
        so a heuristic run is among the latest records assert-not-simulated judges."""
        if cache_mode not in CACHE_MODES:
            raise Rc1Error(f"cache mode {cache_mode!r}: expected one of {CACHE_MODES}")
        self._p = provider
        self.provider, self.model, self.live = provider.name, provider.model, bool(provider.live)
        self.settings = settings or JudgeSettings()
        self.cache = cache
        self.log = log if log is not None else cache
        self.cache_mode = cache_mode if cache is not None else "off"
        self.unstable_variance = unstable_variance
        s = self.settings
        self.bucket = TokenBucket(s.rate, s.burst, decrease=s.rate_decrease, increase=s.rate_increase,
                                  cooldown_s=s.throttle_cooldown_s)
        self.token_budget = token_budget(s.tpm) if s.tpm else None   # settings.tpm
        self.concurrency = AdaptiveConcurrency(s.min_concurrency, s.max_concurrency, s.initial_concurrency,
                                               s.window, s.shrink_429_ratio, s.grow_after)
        self.latency = LatencyWindow()     # answered calls: the per-request timeout (p95 x factor)
        self.calls = CallStats()
        self.unstable_rows: list[dict[str, Any]] = []
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._circuit: str | None = None  # set once the provider refused us or looks down: fail fast
        self._stopped = False             # the stage was stopped: no further call
        self._consecutive_errors = 0
        self._usable_at: float | None = None   # monotonic time of the last usable reply (or of the first call)
        self._last_failure = ""
        self._n = {"requests": 0, "failed": 0, "unstable": 0, "cache_hits": 0, "cache_misses": 0,
                   "judge_shaped_minimum": 0}

    # ------------------------------------------------------------ public
    def describe(self) -> dict[str, Any]:
        """Loggable description (never the API key)."""
        return {**self._p.describe(), "samples": self.settings.samples, "cache_mode": self.cache_mode,
                "unstable_variance": self.unstable_variance, "unstable_policy": self.settings.unstable_policy}

    def endpoint(self) -> dict[str, str]:
        """Who answers: provider, base URL without credentials, model."""
        return self._p.endpoint()

    def identity(self) -> dict[str, Any]:
        """The full judge identity a scoring stage's reuse key holds (rc1.scoring.identity)."""
        return judge_identity(self)

    def score_many(self, requests: list[JudgeRequest], progress: bool = True, fresh: bool = False) -> list[JudgeResult]:
        """Score every request, in order; one result per request. fresh=True skips cache reads."""
        t0 = time.perf_counter()
        requests = list(requests)
        k = self.settings.samples
        try:
            samples, errors, latency, unread = self._collect(requests, range(k), fresh, progress, "judge")
            results = [self._aggregate(r, samples[i], errors[i], latency[i], unread[i]) for i, r in enumerate(requests)]
            if self.settings.unstable_policy == "rescore":
                again = [i for i, res in enumerate(results) if res.unstable]
                if again:
                    extra, _, lat2, _ = self._collect([requests[i] for i in again], range(k, 2 * k), fresh, progress,
                                                   "rescore")
                    for j, i in enumerate(again):
                        first = results[i]
                        merged = self._aggregate(requests[i], samples[i] + extra[j], errors[i], latency[i] + lat2[j])
                        self._note_unstable(first, merged, rescored=True)
                        results[i] = merged
            else:
                for res in results:
                    if res.unstable:
                        self._note_unstable(res, res, rescored=False)
            for res in results:
                self._book(res)
            if self._circuit and results and all(r.failed for r in results):   # the endpoint, not the requests
                raise JudgeUnavailable(f"judge {self.provider} at {self.endpoint().get('base_url') or '-'}: "
                                       f"{self._circuit}", results)
            return results
        finally:
            self.calls.add_busy(time.perf_counter() - t0)

    def stats(self) -> dict[str, Any]:
        with self._lock:
            n = dict(self._n)
        looked = n["cache_hits"] + n["cache_misses"]
        return {
            **self.calls.snapshot(), **n,
            "cache_hit_rate": n["cache_hits"] / looked if looked else 0.0,
            "concurrency": self.concurrency.limit, "rate_limit_rps": self.bucket.rate,
            "concurrency_min_seen": min(self.concurrency.history),
            "concurrency_max_seen": max(self.concurrency.history),
            "timeout_s_adaptive": self.latency.timeout_s(self.settings.timeout_p95_factor, self.settings.timeout_min_s,
                                                         self.settings.timeout_s),
            "provider": self.provider, "model": self.model, "live": self.live, "spec_version": JUDGE_SPEC_VERSION,
            "response_format": getattr(self._p, "response_format_in_use", "none"),   # after any step down
        }

    def write_unstable(self, path: str | Path) -> int:
        """unstable_samples.jsonl (atomic); returns the row count."""
        return write_jsonl(path, self.unstable_rows)

    # ------------------------------------------------------------ sampling
    def _collect(self, requests, indices, fresh, progress, what):
        """Sample indices for every request: cached where allowed, the rest from the provider."""
        indices = list(indices)
        samples = [[None] * len(indices) for _ in requests]
        errors: list[list[str]] = [[] for _ in requests]
        unread = [0] * len(requests)      # samples that failed as unreadable replies (SampleFailed.unreadable)
        latency = [[] for _ in requests]  # ms of every provider reply obtained for the request
        jobs = []
        records: list[tuple[bool, bool, float]] = []   # per sample: (from the cache, billable reply, latency ms)
        for i, req in enumerate(requests):
            digest = self.cache_key(req) if self.cache is not None else req.digest()
            for j, idx in enumerate(indices):
                hit = self._cache_get(digest, idx) if (self.cache_mode == "readwrite" and not fresh) else None
                if hit is not None:
                    samples[i][j] = hit
                    records.append((True, False, 0.0))
                else:
                    jobs.append((i, j, idx, digest))
        try:
            self._call_jobs(requests, jobs, samples, errors, latency, records, progress, what, unread)
        finally:   # the scoring records assert-not-simulated judges (rc1.scoring.cache scoring_log)
            if self.log is not None and records:
                self.log.log_scoring(self.endpoint(), self.live, records)
        return samples, errors, latency, unread

    def _call_jobs(self, requests, jobs, samples, errors, latency, records, progress, what, unread) -> None:
        if not jobs:
            return
        self._stopped = False
        bar = tqdm(total=len(jobs), desc=f"{what} ({self.provider})", unit="call", file=sys.stderr,
                   disable=no_bar(progress), leave=False)
        # threads for the largest limit slow start may reach; the concurrency limit decides how many call at once
        workers = min(len(jobs), self.settings.max_concurrency) if self.live else 1
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="judge") as pool:
            try:
                # the executor's and the futures' locks are taken under deferred_signals: a stop raised while this
                # thread held one (submit's idle semaphore) left it held, and the judge threads, then the executor's
                # exit, waited on it forever (a SIGTERM'd preflight that never ended)
                finished: SimpleQueue = SimpleQueue()
                futures = {}
                with deferred_signals():
                    for order, (i, j, idx, digest) in enumerate(jobs):
                        fut = pool.submit(self._sample, requests[i], digest, idx, order)
                        futures[fut] = (i, j)
                        fut.add_done_callback(finished.put)
                left = len(futures)
                while left:
                    with deferred_signals():   # a stop waits at most STOP_POLL_S, then lands here, between waits
                        try:
                            fut = finished.get(timeout=STOP_POLL_S)
                        except Empty:
                            continue
                        self._take(fut, futures[fut], samples, errors, latency, records, unread)
                        bar.update(1)
                    left -= 1
            except BaseException:   # a stopped stage (Ctrl-C, SIGTERM): the calls in flight end, no queued one starts
                self._stopped = True    # nor one whose thread waits for a slot
                pool.shutdown(wait=False, cancel_futures=True)   # calls in flight end at their deadline, unwaited
                raise
        bar.close()

    def _take(self, fut, at, samples, errors, latency, records, unread) -> None:
        """One finished call's sample (or its failure) into the batch's lists."""
        i, j = at
        try:
            scores, ms = fut.result()
            samples[i][j] = scores
            latency[i].append(ms)
            records.append((False, self.live, ms))
        except SampleFailed as e:   # may quote a reply: an echoed key is masked here
            errors[i].append(self._redact(str(e)))
            unread[i] += e.unreadable
            records.append((False, False, 0.0))
        except Exception as e:  # an unexpected error fails this sample, never the whole batch
            log.warning("judge sample failed unexpectedly: %s", type(e).__name__)
            errors[i].append(self._redact(f"{type(e).__name__}: {e}"))
            records.append((False, False, 0.0))

    def _redact(self, text: str) -> str:
        redact = getattr(self._p, "_redact", None)
        return redact(text) if redact else scrub(text)

    def cache_key(self, req: JudgeRequest) -> str:
        """The prompt digest of `req` as this judge would send it (rendered messages, sampling, endpoint)."""
        return prompt_digest(JUDGE_SPEC_VERSION, self._p.endpoint(), self._p.request_body(req))

    def _cache_get(self, digest: str, idx: int):
        hit = self.cache.get(JUDGE_SPEC_VERSION, self.provider, self.model, digest, idx)
        with self._lock:
            self._n["cache_hits" if hit is not None else "cache_misses"] += 1
        return hit

    def _sample(self, req: JudgeRequest, digest: str, idx: int, order: int = 0) -> tuple[dict[str, float], float]:
        tries = 1 + self.settings.malformed_retries
        last = ""
        quoted = candidate_objects(req)   # the candidate's own verdict-like objects: a reply quoting them is quoting
        for _ in range(tries):
            reply = self._call(req, idx, order)
            ms = reply.latency_ms
            try:
                if reply.refused:   # answered, but refused unread (rc1.scoring.bounded_http): a malformed reply
                    raise MalformedReply(reply.refused)
                scores = parse_reply(reply.text, quoted)
            except MalformedReply as e:
                self.calls.add_malformed()
                # redacted as a whole, then cut (a key cut at the excerpt's end would not be masked)
                last = self._redact(f"{e}: {e.reply!r}" if e.reply else str(e))[:200]
                with self._lock:
                    self._last_failure = last
                continue
            with self._lock:
                self._usable_at = time.monotonic()
            if self.cache is not None and self.cache_mode != "off":
                self.cache.put(JUDGE_SPEC_VERSION, self.provider, self.model, digest, idx, scores)
            return scores, ms
        if judge_shaped(req):  # quoted judge-shaped text must not shelter the candidate (rc1.scoring.spec)
            with self._lock:
                self._n["judge_shaped_minimum"] += 1
            return dict(MINIMUM_SCORES), ms
        raise SampleFailed(self._redact(f"malformed reply after {tries} tries: {last}"), unreadable=True)

    def _call(self, req: JudgeRequest, idx: int, order: int = 0):
        """One reply for sample `idx` of `req`; `order`: the job's place, in which calls take their slots."""
        s = self.settings
        if not self.live:  # the local heuristic: no HTTP, nothing to limit, never billable
            reply = self._p.complete(req, idx)
            self.calls.record("ok", reply.latency_ms, billable=False)
            return reply
        err: Exception | None = None
        cost = self._token_cost(req) if self.token_budget else 0
        stalls = 0   # calls of this sample abandoned so far: each retry waits twice as long
        for attempt in range(1, s.max_attempts + 1):
            self._budget_left(err)
            if self._circuit:
                raise SampleFailed(self._circuit)
            if self._stopped or stop_requested() is not None:   # the stage is being stopped: no further call
                raise SampleFailed("stopped: no further calls")
            with self.concurrency.slot(order) as level:
                left = self._budget_left(err)   # after the wait for a slot: the calls before may have used it up
                if self._circuit or self._stopped:   # decided while this thread waited for its slot
                    raise SampleFailed(self._circuit or "stopped: no further calls")
                if self.token_budget:
                    self.token_budget.acquire(cost)
                self.bucket.acquire()
                # a retry waits twice as long, past the timeout setting too (at most 8x): a local server slower than
                # the ceiling is still computing the abandoned call, and answers its retry from its prompt cache (a
                # server that had begun answering, a reply dripping in, never earns the longer wait)
                timeout = min(self.latency.timeout_s(s.timeout_p95_factor, s.timeout_min_s, s.timeout_s)
                              * 2 ** min(stalls, 3), max(left, 0.5))   # never past the endpoint's budget
                try:
                    reply = self._p.complete(req, idx, timeout=timeout)
                except RateLimited as e:
                    self.calls.record("429")
                    self.concurrency.record(True)
                    self.bucket.throttled(cut=self.concurrency.ratio_429() > s.rate_cut_429_ratio)
                    err, wait = e, e.retry_after
                except Transient as e:
                    # a stall past the adaptive timeout is the tail, not an overloaded server: sent again at once
                    # (counted as abandoned: the provider may bill it); 5xx and connection errors back off
                    stalled = isinstance(e, TimedOut)
                    self.calls.record("abandoned" if stalled else "error")
                    if stalled:   # a censored latency: when the provider slows down as a whole, p95 and the timeout follow
                        stalls += 0 if e.answering else 1
                        self.latency.add(timeout * 1000.0)
                    self.concurrency.record(False, timeout if stalled else None, level, censored=stalled)
                    err, wait = e, 0.0 if stalled else e.retry_after
                    self._budget_left(e)   # a budget used up opens the circuit before the next thread's call
                    with self._lock:
                        self._consecutive_errors += 1
                        if self._consecutive_errors >= s.circuit_after and not self._circuit:
                            self._circuit = (f"provider unreachable: {self._consecutive_errors} calls in a row "
                                             f"failed (last: {e}); no further calls")
                except Fatal as e:
                    self.calls.record("error")
                    if e.status in _CIRCUIT_STATUSES:
                        self._circuit = f"{e} (provider refused; no further calls)"
                    raise SampleFailed(str(e)) from None
                else:
                    with self._lock:
                        self._consecutive_errors = 0
                    self.calls.record("ok", reply.latency_ms)
                    self.concurrency.record(False, reply.latency_ms / 1000.0, level)
                    self.bucket.succeeded()
                    self.latency.add(reply.latency_ms)
                    return reply
            if attempt == s.max_attempts:
                break
            if wait is None:
                with self._lock:
                    wait = backoff_s(attempt, s.backoff_base_s, s.backoff_max_s, self._rng)
            elif wait > s.max_retry_after_s:
                raise SampleFailed(f"{err} (Retry-After {wait:.0f}s exceeds {s.max_retry_after_s:g}s)")
            else:
                with self._lock:
                    wait += self._rng.uniform(0, 0.1 * wait + 0.01)  # never earlier than asked
            time.sleep(min(wait, max(0.0, self._budget_left(err))))
        raise SampleFailed(f"{err} (gave up after {s.max_attempts} attempts)")

    def _budget_left(self, err: Exception | None) -> float:
        """Seconds left before the endpoint counts as down (settings.dead_after_s with no usable reply); at 0 the
        circuit opens, naming the last failure."""
        now = time.monotonic()
        with self._lock:
            if err is not None:
                self._last_failure = str(err)
            if self._usable_at is None:
                self._usable_at = now
            left = self.settings.dead_after_s - (now - self._usable_at)
            if left <= 0 and not self._circuit:
                self._circuit = (f"no usable reply in {self.settings.dead_after_s:.0f} s (last failure: "
                                 f"{self._redact(self._last_failure or 'none yet')[:300]}); no further calls")
        return left

    def _token_cost(self, req: JudgeRequest) -> int:
        """What one call counts against the tpm budget: the prompt's tokens (rc1.core.text.count_tokens over the
        rendered messages) plus max_tokens, the most the reply may use."""
        messages = self._p.request_body(req).get("messages") or []
        return sum(count_tokens(m.get("content") or "") + 4 for m in messages) + self.settings.max_tokens

    # ------------------------------------------------------------ results
    def _aggregate(self, req: JudgeRequest, samples: list, errors: list[str], latencies: list[float],
                   unread: int = 0) -> JudgeResult:
        got = [x for x in samples if x is not None]
        k = self.settings.samples
        cached = not errors and not latencies and len(got) == len(samples)
        latency_ms = sum(latencies) / len(latencies) if latencies else 0.0  # mean per provider reply
        if len(got) < k:
            why = errors[0] if errors else "missing samples"
            return JudgeResult(req, None, samples=got, failed=True, latency_ms=latency_ms,
                               error=f"{k - len(got)} of {k} judge samples failed: {why}",
                               unreadable=unread == k - len(got))
        scores = {d: float(statistics.median(x[d] for x in got)) for d in DIMENSIONS}
        variance = {d: float(statistics.pvariance([x[d] for x in got])) for d in DIMENSIONS}
        unstable = any(v > self.unstable_variance for v in variance.values())
        return JudgeResult(req, scores, variance=variance, samples=got, unstable=unstable, cached=cached,
                           latency_ms=latency_ms, weight=self.settings.unstable_weight if unstable else 1.0,
                           error=errors[0] if errors else None)

    def _note_unstable(self, first: JudgeResult, final: JudgeResult, rescored: bool) -> None:
        r = first.request
        self.unstable_rows.append({
            "item_id": r.item_id, "candidate_id": r.candidate_id, "task": r.task, "digest": r.digest(),
            "provider": self.provider, "model": self.model, "spec_version": JUDGE_SPEC_VERSION,
            "variance": first.variance, "samples": first.samples, "bound": self.unstable_variance,
            "policy": self.settings.unstable_policy, "rescored": rescored,
            "still_unstable": final.unstable, "final_scores": final.scores, "final_variance": final.variance,
            "weight": final.weight,
        })

    def _book(self, res: JudgeResult) -> None:
        with self._lock:
            self._n["requests"] += 1
            self._n["failed"] += int(res.failed)
            self._n["unstable"] += int(res.unstable)
        if self.cache is None or self.cache_mode == "off":
            return
        if res.failed:
            self.cache.record_bad(JUDGE_SPEC_VERSION, self.provider, self.model, res.request, "failed", res.error or "")
        elif res.unstable:
            detail = ", ".join(f"{d}={v:.3f}" for d, v in res.variance.items() if v > self.unstable_variance)
            self.cache.record_bad(JUDGE_SPEC_VERSION, self.provider, self.model, res.request, "unstable", detail)
        else:
            self.cache.clear_bad(JUDGE_SPEC_VERSION, res.request.digest())


def make_judge(provider: str | None = None, model: str | None = None, *, live: bool | None = None,
               settings: JudgeSettings | None = None, cache: JudgeCache | bool | None = True,
               cache_mode: str = "readwrite", base_url: str | None = None, api_key: str | None = None,
               gates_path: str | Path | None = GATES_PATH) -> ScoringJudge:
    """The judge the stage's settings ask for (rc1.core.settings: its fields, else the environment defaults).

    provider: the stage's judge provider when None; unset means `heuristic` in dev/stub mode and is an error in
    live mode or prod mode, where the heuristic is refused as well (Rc1Error). live: the live switch
    when None (unset: live iff the mode is prod). cache: True = the default sqlite file (RC1_CACHE_DIR),
    a JudgeCache, or False/None for none (the heuristic is never cached). There is no fallback: a
    provider that fails gives failed results.
    """
    settings = settings or JudgeSettings.from_env()
    live = live_mode() if live is None else bool(live)
    mode = run_mode()
    name = (provider or judge_endpoint().provider or "").strip().lower()
    strict = live or mode == "prod"
    if not name:
        if strict:
            raise Rc1Error(f"no judge provider: set --judge-provider (or {JUDGE_VARS['provider']}); live mode and "
                           "prod mode have no default judge")
        name = HEURISTIC
    if name == HEURISTIC and strict:
        raise Rc1Error("the heuristic judge is a dev-mode stand-in and is refused in live mode and prod mode: "
                       f"set --judge-provider (or {JUDGE_VARS['provider']}) to a real endpoint")
    p = make_provider(name, model=model, base_url=base_url, api_key=api_key, settings=settings)
    cache_obj = JudgeCache(ttl_days=settings.cache_ttl_days) if cache is True else (cache or None)
    log = cache_obj
    if not p.live:  # the heuristic is cheaper than a cache lookup, and a cache would outlive its code changes
        cache_obj = None
    return ScoringJudge(p, settings, cache_obj, cache_mode if cache_obj else "off",
                        resolve_unstable_variance(settings, gates_path), log=log)


METRIC_KEYS = ("calls", "answered", "billable_count", "n_429", "429_rate", "errors", "malformed", "abandoned",
               "avg_latency_ms", "rps", "cache_hits", "cache_misses", "cache_hit_rate", "requests", "failed", "unstable",
               "concurrency", "concurrency_min_seen", "concurrency_max_seen", "timeout_s_adaptive", "rate_limit_rps",
               "judge_shaped_minimum")


def stats_metrics(stats: dict[str, Any], prefix: str = "") -> dict[str, float]:
    """The numeric counters of Judge.stats(), ready for StageRun.log_metrics."""
    return {f"{prefix}{k}": float(stats[k]) for k in METRIC_KEYS if k in stats}


def scorer_tags(judge: ScoringJudge) -> dict[str, Any]:
    """Tags naming the judge of a run (scorer.provider, scorer.model, scorer.live, ...; never the key)."""
    return {f"scorer.{k}": v for k, v in judge.describe().items()}
