"""Retry-After parsing, the token bucket and the adaptive concurrency limit."""

import email.utils
import random
import threading
import time

import pytest

from rc1.core.errors import Rc1Error

from rc1.scoring.limiter import AdaptiveConcurrency, LatencyWindow, TokenBucket, backoff_s
from rc1.scoring.providers import parse_retry_after


def test_retry_after_forms():
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after": "0.5"}) == 0.5
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    now = 1_700_000_000.0
    date = email.utils.formatdate(now + 7, usegmt=True)
    assert abs(parse_retry_after({"retry-after": date}, now=now) - 7.0) < 1e-6
    assert parse_retry_after({"retry-after": email.utils.formatdate(now - 30, usegmt=True)}, now=now) == 0.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None and parse_retry_after(None) is None


class FakeClock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t

    def sleep(self, s):
        self.t += s


def test_token_bucket_allows_burst_then_rate():
    clk = FakeClock()
    b = TokenBucket(rate=10, burst=3, clock=clk, sleep=clk.sleep)
    for _ in range(3):
        b.acquire()
    assert clk.t == 0.0
    for _ in range(10):
        b.acquire()
    assert abs(clk.t - 1.0) < 1e-9  # 10 more tokens at 10/s


def test_token_bucket_backs_off_on_throttling_and_recovers():
    clk = FakeClock()
    b = TokenBucket(rate=50, burst=1, clock=clk, sleep=clk.sleep, decrease=0.9, increase=0.01, cooldown_s=0.2)
    b.throttled(cut=True)
    b.throttled(cut=True)          # same congestion event (within the cooldown): one cut
    assert abs(b.rate - 45) < 1e-9
    b.throttled(cut=False)         # an isolated 429 does not slow the client down
    assert abs(b.rate - 45) < 1e-9
    for _ in range(200):
        b.succeeded()
    assert b.rate == 50            # never above the configured rate


def test_concurrency_shrinks_on_429s_and_grows_when_clean():
    c = AdaptiveConcurrency(min_limit=2, max_limit=8, initial=8, window=10, shrink_ratio=0.2, grow_after=5)
    for _ in range(40):
        c.record(True)
    assert c.limit == 2 and min(c.history) == 2
    for _ in range(200):
        c.record(False)
    assert c.limit == 8
    assert all(2 <= x <= 8 for x in c.history)


def test_concurrency_slots_are_never_exceeded():
    c = AdaptiveConcurrency(min_limit=2, max_limit=3, initial=3)
    in_flight, peak, lock = [0], [0], threading.Lock()

    def work():
        with c.slot():
            with lock:
                in_flight[0] += 1
                peak[0] = max(peak[0], in_flight[0])
            time.sleep(0.01)
            with lock:
                in_flight[0] -= 1

    threads = [threading.Thread(target=work) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert peak[0] == 3


def _drive(c: AdaptiveConcurrency, latency_at, calls: int, rng: random.Random) -> list[int]:
    """Feed `calls` outcomes whose latency is latency_at(limit) with +-30% noise (prompts of different sizes)."""
    for _ in range(calls):
        c.record(False, latency_at(c.limit) * rng.uniform(0.7, 1.3))
    return c.history


def test_slow_start_stays_at_one_slot_for_a_one_slot_server_and_fills_a_batching_one():
    rng = random.Random(0)
    one_slot = _drive(AdaptiveConcurrency(), lambda n: 3.0 * n, 400, rng)   # every call waits for those before it
    assert max(one_slot) == 2 and one_slot[-1] == 1
    assert one_slot.count(2) <= 6                   # probes of a second slot get rarer (20, 40, 80, ... calls apart)
    # 16 sequences in one batch (vLLM's max_num_seqs), each a little slower in a fuller batch; queueing beyond
    batching = _drive(AdaptiveConcurrency(), lambda n: 1.0 * (1 + 0.02 * min(n, 16)) * max(1.0, n / 16), 600, rng)
    assert 16 <= batching[-1] <= 20 and max(batching) <= 32


def test_slow_start_stops_at_the_provider_cap_and_under_429s():
    from rc1.scoring.judge_settings import JudgeSettings

    c = AdaptiveConcurrency(max_limit=12)
    _drive(c, lambda n: 0.05, 200, random.Random(1))    # nothing queues: doubles up to the cap
    assert c.limit == 12 and c.history[:5] == [1, 2, 4, 8, 12]
    for _ in range(20):
        c.record(True)                                  # throttled: halved, and slow start is over
    assert c.limit < 12
    _drive(c, lambda n: 0.05, 10, random.Random(2))
    assert c.limit < 12                                 # grows again one slot at a time, not by doubling


def test_adaptive_timeout_is_p95_times_factor_within_bounds():
    w = LatencyWindow()
    assert w.timeout_s(3.0, 1.0, 60.0) == 60.0  # too few replies seen: the configured timeout
    for i in range(100):
        w.add(400.0 + i)                        # p95 ~0.495 s
    assert w.timeout_s(3.0, 1.0, 60.0) == pytest.approx(3 * 0.495)
    assert w.timeout_s(3.0, 2.0, 60.0) == 2.0 and w.timeout_s(3.0, 1.0, 1.2) == 1.2
    for _ in range(100):
        w.add(20_000.0)                         # a tail longer than 5%: the timeout follows (not below the p95)
    assert w.timeout_s(3.0, 1.0, 600.0) == 60.0


def test_backoff_grows_and_is_capped():
    rng = random.Random(0)
    assert all(0.125 <= backoff_s(1, 0.5, 10, rng) <= 0.5 for _ in range(50))
    assert all(2.5 <= backoff_s(8, 0.5, 10, rng) <= 10 for _ in range(50))


def test_token_budget_paces_by_tokens_per_minute():
    from rc1.scoring.limiter import token_budget

    clk = FakeClock()
    b = token_budget(6000, clock=clk, sleep=clk.sleep)   # 100 tokens/s, one minute's worth up front
    b.acquire(4000)
    b.acquire(2000)
    assert clk.t == 0.0
    b.acquire(1000)                                       # empty: waits for 1000 tokens at 100/s
    assert abs(clk.t - 10.0) < 1e-6
    b.acquire(50_000)                                     # above the capacity: waits for a full minute, never forever
    assert abs(clk.t - 70.0) < 1e-6


def test_scorer_tpm_budgets_prompt_tokens_plus_max_tokens(fake_judge_server, scorer_env, monkeypatch):
    from rc1.scoring.base import JudgeRequest
    from rc1.scoring.judge import make_judge
    from rc1.core.text import count_tokens

    srv = fake_judge_server()
    monkeypatch.setenv("SCORER_TPM", "1000000")
    judge = make_judge("openai-compatible", "m", base_url=srv.url, api_key="k", cache=False)
    req = JudgeRequest(item_id="i", candidate_id="c", task="gsm8k", question="What is 2 + 2?", gold_answer="4",
                       needs_clarification=False, dialogue=({"role": "assistant", "content": "Answer: 4"},))
    cost = judge._token_cost(req)
    msgs = judge._p.request_body(req)["messages"]
    assert cost == sum(count_tokens(m["content"]) + 4 for m in msgs) + judge.settings.max_tokens
    t0 = time.monotonic()
    judge.score_many([req], progress=False)                # K=3 calls
    elapsed = time.monotonic() - t0
    left = judge.token_budget._tokens
    assert 1_000_000 - 3 * cost - 1 <= left <= 1_000_000 - 3 * cost + elapsed * 1_000_000 / 60 + 1
    monkeypatch.setenv("SCORER_TPM", "inf")
    with pytest.raises(Rc1Error, match="SCORER_TPM"):
        make_judge("openai-compatible", "m", base_url=srv.url, api_key="k", cache=False)


def test_the_providers_concurrency_limit_bounds_slow_start(monkeypatch):
    from rc1.scoring.judge_settings import JudgeSettings

    monkeypatch.setenv("SCORER_MAX_CONCURRENCY", "3")
    s = JudgeSettings.from_env()
    assert (s.concurrency_cap, s.max_concurrency, s.initial_concurrency, s.min_concurrency) == (3, 3, 1, 1)
    c = AdaptiveConcurrency(s.min_concurrency, s.max_concurrency, s.initial_concurrency)
    _drive(c, lambda n: 0.05, 100, random.Random(0))     # nothing queues: slow start would go on; the provider allows 3
    assert c.limit == 3
    monkeypatch.setenv("SCORER_MAX_CONCURRENCY", "0")
    with pytest.raises(Exception, match="SCORER_MAX_CONCURRENCY"):
        JudgeSettings.from_env()


def test_only_answered_calls_of_the_current_limit_move_it():
    c = AdaptiveConcurrency()
    with c.slot() as gen:
        for _ in range(50):
            c.record(False, None, gen)            # 5xx and connection errors: no evidence of capacity
    assert c.history == [1]
    with c.slot() as gen:
        for _ in range(9):
            c.record(False, 0.1, gen)             # answered: slow start takes the second slot
        assert c.limit == 2
        for _ in range(50):
            c.record(False, 9.0, gen)             # calls started under the old limit say nothing about the new one
    assert c.history == [1, 2]


def test_calls_abandoned_at_a_limit_never_make_the_next_one_look_fast():
    """A one-slot server behind its timeouts at one call (issue 32: a 135M judge on a busy machine): the abandoned
    calls (censored latencies) count against the level they were sent at, never as its baseline."""
    c = AdaptiveConcurrency()
    for latency, abandoned in [(3.0, False)] + [(60.0, True)] * 8:
        c.record(False, latency, censored=abandoned)
    assert c.limit == 2                              # slow start's first step
    for _ in range(10):
        c.record(False, 5.0)                         # answered at 2, faster than the timeouts at 1: no evidence
    assert c.history == [1, 2, 1]
    for _ in range(40):
        c.record(False, 4.0)                         # answered at 1 now (the next probe waits twice as long)
    for _ in range(2):
        c.record(False, 8.0)
    for latency, abandoned in [(8.0, False)] + [(60.0, True)] * 7:
        c.record(False, latency, censored=abandoned)  # the probe of 2 times out: refused
    assert c.history == [1, 2, 1, 2, 1]


def test_slots_are_taken_in_job_order_not_arrival_order():
    """The judge's K samples of a request go out one after another (a server's prompt cache serves all but the first),
    however its threads happen to arrive at the limiter."""
    c = AdaptiveConcurrency(max_limit=1)
    served, lock = [], threading.Lock()

    def job(order):
        with c.slot(order):
            with lock:
                served.append(order)

    with c.slot(-1):                       # the one slot is busy while the jobs arrive, last job first
        threads = [threading.Thread(target=job, args=(k,)) for k in reversed(range(8))]
        for t in threads:
            t.start()
            time.sleep(0.01)
    for t in threads:
        t.join()
    assert served == list(range(8))
