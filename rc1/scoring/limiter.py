"""Client-side rate limiting for judge calls (threads): a token bucket for the request rate, an
adaptive concurrency limit driven by the recent 429 ratio, backoff with jitter, and call counters.

- TokenBucket(rate, burst): acquire() blocks until a token is there; the rate backs off on 429s
  and recovers on answered calls (AIMD), never above the configured rate. acquire(cost) takes
  `cost` tokens at once: `token_budget(tpm)` is a bucket of LLM tokens per minute (SCORER_TPM), each
  call costing its prompt's token count plus max_tokens, as providers state their limits.
- AdaptiveConcurrency(min, max, initial): a semaphore whose size halves when the 429 ratio of the
  last `window` outcomes exceeds `shrink_ratio`, and grows by one after `grow_after` clean outcomes.
  After a change it waits for half a window of fresh outcomes before judging again. `size_for(rate,
  occupancy_s)` raises it (and its ceiling, up to `cap`, the provider's concurrent-request limit) to what
  Little's law asks for the target rate when calls hold their slots longer (a long tail), unless 429s
  are coming in.
- LatencyWindow: the recent durations of calls; `timeout_s(...)`: the per-request timeout derived from
  them (p95 x factor, bounded), after which a stalled call is abandoned and sent again.
- backoff_s(attempt): exponential backoff with jitter, for 5xx and timeouts.
- CallStats: calls, answered, billable_count (answered by a real provider), n_429, errors, latency, rps.
"""

from __future__ import annotations

import contextlib
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
    def __init__(self, min_limit: int = 2, max_limit: int = 8, initial: int = 4, window: int = 20,
                 shrink_ratio: float = 0.20, grow_after: int = 20, cap: int | None = None):
        self.min_limit, self.max_limit = min_limit, max_limit
        self.configured_max = max_limit
        self.cap = max(max_limit, cap or max_limit)
        self.limit = max(min_limit, min(max_limit, initial))
        self.window, self.shrink_ratio, self.grow_after = window, shrink_ratio, grow_after
        self._recent: deque[bool] = deque(maxlen=window)
        self._since_change = 0
        self._clean = 0
        self._in_flight = 0
        self._cond = threading.Condition()
        self.history: list[int] = [self.limit]

    @contextlib.contextmanager
    def slot(self) -> Iterator[None]:
        with self._cond:
            while self._in_flight >= self.limit:
                self._cond.wait()
            self._in_flight += 1
        try:
            yield
        finally:
            with self._cond:
                self._in_flight -= 1
                self._cond.notify()   # one slot is free: one waiter (a limit change wakes them all)

    def ratio_429(self) -> float:
        with self._cond:
            return sum(self._recent) / len(self._recent) if self._recent else 0.0

    def record(self, was_429: bool) -> None:
        with self._cond:
            self._recent.append(was_429)
            self._since_change += 1
            self._clean = 0 if was_429 else self._clean + 1
            ratio = sum(self._recent) / len(self._recent)
            settled = self._since_change >= max(2, self.window // 2)
            if was_429 and settled and ratio > self.shrink_ratio and self.limit > self.min_limit:
                self._set(max(self.min_limit, self.limit // 2))
            elif self._clean >= self.grow_after and self.limit < self.max_limit:
                self._set(self.limit + 1)
                self._clean = 0

    def size_for(self, rate: float, occupancy_s: float, headroom: float = 1.5) -> None:
        """Little's law: `rate` calls/s each holding a slot `occupancy_s` need rate x occupancy slots (x headroom).
        Raises the ceiling (never past `cap`) and the limit to that; never while the recent 429 ratio is high."""
        need = math.ceil(rate * occupancy_s * headroom) + 1
        with self._cond:
            if self._recent and sum(self._recent) / len(self._recent) > self.shrink_ratio / 2:
                return
            self.max_limit = min(self.cap, max(self.configured_max, need))
            if self.limit < min(need, self.max_limit):
                self._set(min(need, self.max_limit))

    def _set(self, limit: int) -> None:
        self.limit = limit
        self._since_change = 0
        self.history.append(limit)
        self._cond.notify_all()


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
