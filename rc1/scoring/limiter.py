"""Client-side rate limiting for judge calls (threads): a token bucket for the request rate, an
adaptive concurrency limit driven by the recent 429 ratio, backoff with jitter, and call counters.

- TokenBucket(rate, burst): acquire() blocks until a token is there; the rate backs off on 429s
  and recovers on answered calls (AIMD), never above the configured rate. acquire(cost) takes
  `cost` tokens at once: `token_budget(tpm)` is a bucket of LLM tokens per minute (settings.tpm), each
  call costing its prompt's token count plus max_tokens, as providers state their limits.
- AdaptiveConcurrency(min, max, initial): a semaphore whose size starts small and doubles while calls come
  back as fast (slow start), stops where more slots bring queueing latency instead of throughput (a local
  one-slot server: 1), probes one more now and then, and halves when the recent 429 ratio is high.
- LatencyWindow: the recent durations of calls; `timeout_s(...)`: the per-request timeout derived from
  them (p95 x factor, bounded), after which a stalled call is abandoned and sent again.
- backoff_s(attempt): exponential backoff with jitter, for 5xx and timeouts.
- CallStats: calls, answered, billable_count (answered by a real provider), n_429, errors, latency, rps.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import math
import random
import threading
import time
from collections import deque
from typing import Iterator


class TokenBucket:
    """Token bucket whose rate adapts to throttling (AIMD): a 429 while the recent 429 ratio is high
    cuts the rate by `decrease` (at most once per `cooldown_s`, so one burst of 429s is one congestion
    event), every answered call adds `increase` of the configured rate back, up to it. A configured
    rate above the server's limit settles near the limit instead of hammering it."""

    def __init__(self, rate: float, burst: int, clock=time.monotonic, sleep=time.sleep, decrease: float = 0.9,
                 increase: float = 0.001, min_fraction: float = 0.05, cooldown_s: float = 0.2):
        self.rate_max = float(rate)
        self.rate = float(rate)
        self.burst = max(1, int(burst))
        self.rate_min = max(0.05, self.rate_max * min_fraction)
        self.decrease, self.increase, self.cooldown_s = decrease, increase, cooldown_s
        self._clock, self._sleep = clock, sleep
        self._tokens = float(self.burst)
        self._last = clock()
        self._last_cut = float("-inf")
        self._lock = threading.Lock()

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now

    def acquire(self, cost: float = 1.0) -> None:
        """Block until `cost` tokens are there and take them (a cost above the capacity waits for a full
        bucket and takes it all, so one huge request cannot wait forever)."""
        cost = min(float(cost), float(self.burst))
        while True:
            with self._lock:
                self._refill()
                if self._tokens >= cost - 1e-9:  # tolerance: float refill must not spin on 0.999...
                    self._tokens -= cost
                    return
                wait = (cost - self._tokens) / self.rate
            self._sleep(wait)

    def throttled(self, cut: bool = True) -> None:
        """A 429: drop saved-up tokens (no burst into a limiter that just said no); cut the rate when
        `cut` (the caller decides from the recent 429 ratio, so isolated 429s do not slow it down)."""
        with self._lock:
            self._refill()
            self._tokens = min(self._tokens, 0.0)
            now = self._clock()
            if cut and now - self._last_cut >= self.cooldown_s:
                self.rate = max(self.rate_min, self.rate * self.decrease)
                self._last_cut = now

    def succeeded(self) -> None:
        with self._lock:
            if self.rate < self.rate_max:
                self._refill()
                self.rate = min(self.rate_max, self.rate + self.increase * self.rate_max)


def token_budget(tpm: int, clock=time.monotonic, sleep=time.sleep) -> TokenBucket:
    """A tokens-per-minute budget: capacity one minute's worth, refilled continuously (tpm / 60 per s)."""
    return TokenBucket(tpm / 60.0, tpm, clock=clock, sleep=sleep)


class LatencyWindow:
    """The last `size` durations (ms) of one kind of call, thread-safe."""

    def __init__(self, size: int = 200):
        self._ms: deque[float] = deque(maxlen=size)
        self._lock = threading.Lock()

    def add(self, ms: float) -> None:
        with self._lock:
            self._ms.append(float(ms))

    def mean_s(self) -> float:
        with self._lock:
            return sum(self._ms) / len(self._ms) / 1000.0 if self._ms else 0.0

    def p95_s(self) -> float:
        with self._lock:
            xs = sorted(self._ms)
        return xs[min(len(xs) - 1, int(0.95 * len(xs)))] / 1000.0 if xs else 0.0

    def timeout_s(self, factor: float, floor_s: float, ceiling_s: float, min_seen: int = 20) -> float:
        """p95 x factor within [floor_s, ceiling_s]; the ceiling until min_seen durations are known."""
        if len(self._ms) < min_seen:
            return ceiling_s
        return min(ceiling_s, max(floor_s, factor * self.p95_s()))


class AdaptiveConcurrency:
    """How many calls may be in flight: found by probing, kept under the knee of the server's latency curve.

    - Slow start: from `initial` the limit doubles while a level's calls come back about as fast as the level
      before's. A level is judged on the latencies of `min_outcomes` calls started at it after its first `limit`
      (those came back before a queue could form), and only if it was used (every slot busy at some point): a
      client that cannot fill its limit learns nothing by raising it.
    - Queueing latency is congestion: going from L to L' = L x c slots should bring c times the throughput; by
      Little's law it brings c / r, r the rise of the typical latency (the mean of the fastest three quarters). A level whose r exceeds c ** 0.5 (a doubling
      that made calls more than 41% slower, a ninth slot more than 6% slower) queues more than it serves: the limit
      goes back to L, slow start ends, and L + 1 is probed again after `grow_after` calls (twice as long after each
      refusal).
      A one-slot server (llama.cpp) settles at 1, where r = 2 for a doubling; a batching server (vLLM) grows until
      its batch is full.
    - 429s: the limit halves when the 429 ratio of the last `window` outcomes exceeds `shrink_ratio` (after a
      change it waits for half a window of fresh outcomes before judging again), and slow start ends.
    `history` lists every limit taken."""

    def __init__(self, min_limit: int = 1, max_limit: int = 64, initial: int = 1, window: int = 20,
                 shrink_ratio: float = 0.20, grow_after: int = 20, min_outcomes: int = 8):
        self.min_limit, self.max_limit = min_limit, max_limit
        self.limit = max(min_limit, min(max_limit, initial))
        self.window, self.shrink_ratio, self.grow_after = window, shrink_ratio, grow_after
        self.min_outcomes = min_outcomes
        self._recent: deque[bool] = deque(maxlen=window)
        self._since_change = 0
        self._slow_start = True
        self._probe_after = grow_after   # calls at a settled level before the next probe (doubles per refusal)
        # limit -> (latency s, abandoned) of the latest calls started at it
        self._level_lat: dict[int, deque[tuple[float, bool]]] = {self.limit: deque(maxlen=12)}
        self._gen = 0                    # bumped at every change: an outcome counts for the level its call started at
        self._fresh = 0                  # outcomes of calls started at the current level
        self._used = False               # every slot was busy at some point since the last change
        self._from: int | None = None    # the level a probe came from (None: not probing)
        self._in_flight = 0
        self._waiting: list[tuple[float, int]] = []   # (order, arrival) of the threads waiting for a slot
        self._arrivals = itertools.count()
        self._cond = threading.Condition()
        self.history: list[int] = [self.limit]

    @contextlib.contextmanager
    def slot(self, order: float | None = None) -> Iterator[int]:
        """Hold one of `limit` slots, taken in `order` (lowest first; None: after every ordered waiter, in arrival
        order); yields the level's generation, for record(). The judge orders by job, so the K samples of a request
        go out one after another and a server's prompt cache serves all but the first."""
        with self._cond:
            key = (float("inf") if order is None else order, next(self._arrivals))
            heapq.heappush(self._waiting, key)
            try:
                while self._in_flight >= self.limit or self._waiting[0] != key:
                    self._cond.wait()
            except BaseException:   # a waiter that leaves (interrupted) must not hold up the line behind it
                self._waiting.remove(key)
                heapq.heapify(self._waiting)
                self._cond.notify_all()
                raise
            heapq.heappop(self._waiting)
            self._in_flight += 1
            self._used = self._used or self._in_flight >= self.limit
            gen = self._gen
            self._cond.notify_all()   # the next in line may take a slot that is still free
        try:
            yield gen
        finally:
            with self._cond:
                self._in_flight -= 1
                self._cond.notify_all()

    def ratio_429(self) -> float:
        with self._cond:
            return sum(self._recent) / len(self._recent) if self._recent else 0.0

    def record(self, was_429: bool, latency_s: float | None = None, gen: int | None = None,
               censored: bool = False) -> None:
        """One outcome: a 429, or a call that came back (`latency_s` when it was answered, or abandoned after that
        long: `censored`) from a slot taken at generation `gen`. A call through slot() with no latency (a 5xx, a
        connection error) says nothing about capacity and never grows the limit; gen None (not through slot())
        counts for the current level. An abandoned call counts against the level it was sent at, never for the
        level before a probe (a baseline slowed by timeouts would invite more calls into a server that is behind)."""
        with self._cond:
            self._recent.append(was_429)
            self._since_change += 1
            ratio = sum(self._recent) / len(self._recent)
            if was_429:
                if self._since_change >= max(2, self.window // 2) and ratio > self.shrink_ratio \
                        and self.limit > self.min_limit:
                    self._slow_start = False
                    self._set(max(self.min_limit, self.limit // 2))
                return
            if gen is not None and (gen != self._gen or latency_s is None):
                return                   # started under another limit, or not answered: says nothing about this one
            if gen is None:
                self._used = True
            self._fresh += 1
            if latency_s is not None and self._fresh > self.limit:   # the first `limit` came back before a queue
                self._level_lat[self.limit].append((float(latency_s), censored))                    # could form
            self._judge_level()

    def _judge_level(self) -> None:
        need = self.limit + self.min_outcomes if (self._slow_start or self._from is not None) else self._probe_after
        if self._fresh < need or not self._used:
            return
        if self._from is not None and self._queues(self._from, self.limit):
            self._probe_after = min(self._probe_after * 2, 64 * self.grow_after)
            self._slow_start = False
            self._set(self._from)
            return
        if self._from is not None and not self._slow_start:
            self._probe_after = self.grow_after        # the probe paid off
        if self.limit >= self.max_limit:
            self._from = None
            self._fresh, self._used = 0, False
            return
        nxt = min(self.max_limit, self.limit * 2 if self._slow_start else self.limit + 1)
        self._set(nxt, probe_from=self.limit)

    def _queues(self, lo: int, hi: int) -> bool:
        """Did going from `lo` to `hi` slots raise the typical latency by more than (hi / lo) ** 0.5? (`lo` on its
        answered calls only; without one, there is no evidence that the server takes more)"""
        a = [x for x, censored in self._level_lat.get(lo, ()) if not censored]
        b = [x for x, _ in self._level_lat.get(hi, ())]
        if not b:
            return False
        return not a or _typical(b) > _typical(a) * (hi / lo) ** 0.5

    def _set(self, limit: int, probe_from: int | None = None) -> None:
        self._level_lat[limit] = deque(maxlen=12)   # judged on this visit's calls: the server may have changed since
        self.limit = limit
        self._from = probe_from
        self._gen += 1
        self._since_change = 0
        self._fresh, self._used = 0, False
        self.history.append(limit)
        self._cond.notify_all()


def _typical(latencies: list[float]) -> float:
    """The mean of the fastest three quarters: Little's law asks for the mean (a median misses that one call in three
    waits for a prefill while the others hit the server's prompt cache), and the slowest quarter is left to the
    long tail (a stall is not congestion)."""
    xs = sorted(latencies)[:max(1, math.ceil(0.75 * len(latencies)))]
    return sum(xs) / len(xs)


def backoff_s(attempt: int, base: float, cap: float, rng: random.Random | None = None) -> float:
    """Jittered exponential backoff: uniform(h/4, h) with h = min(cap, base * 2**(attempt-1))."""
    hi = min(cap, base * (2 ** max(0, attempt - 1)))
    return (rng or random).uniform(hi / 4, hi)


class CallStats:
    """Thread-safe counters of provider calls (one call = one HTTP request)."""

    def __init__(self):
        self._lock = threading.Lock()
        self.calls = 0
        self.answered = 0          # got a reply (2xx), malformed content included
        self.billable = 0          # answered by a real provider (the local heuristic is never billable)
        self.n_429 = 0
        self.errors = 0            # 5xx, timeouts, connection errors, fatal 4xx
        self.abandoned = 0         # given up after the adaptive timeout and sent again (the provider may bill them)
        self.malformed = 0
        self.latency_ms_sum = 0.0
        self.busy_s = 0.0          # wall time spent inside score_many

    def record(self, kind: str, latency_ms: float = 0.0, billable: bool = True) -> None:
        with self._lock:
            self.calls += 1
            if kind == "ok":
                self.answered += 1
                self.billable += int(billable)
                self.latency_ms_sum += latency_ms
            elif kind == "429":
                self.n_429 += 1
            elif kind == "abandoned":
                self.abandoned += 1
            else:
                self.errors += 1

    def add_malformed(self) -> None:
        with self._lock:
            self.malformed += 1

    def add_busy(self, seconds: float) -> None:
        with self._lock:
            self.busy_s += seconds

    def snapshot(self) -> dict[str, float]:
        with self._lock:
            return {
                "calls": self.calls,
                "answered": self.answered,
                "billable_count": self.billable,
                "n_429": self.n_429,
                "429_rate": self.n_429 / self.calls if self.calls else 0.0,
                "errors": self.errors,
                "malformed": self.malformed,
                "abandoned": self.abandoned,
                "avg_latency_ms": self.latency_ms_sum / self.answered if self.answered else 0.0,
                "rps": self.answered / self.busy_s if self.busy_s > 0 else 0.0,
                "busy_s": self.busy_s,
            }
