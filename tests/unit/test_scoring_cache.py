"""The sqlite judge cache: keys, TTL, invalidation by spec version, counters, failed/unstable records."""

import threading
import time

from rc1.scoring.base import JudgeRequest
from rc1.scoring.cache import CACHE_FILE, DAY_S, JudgeCache, default_cache_dir

S = {"correctness": 1.0, "reasoning": 0.5, "grounding": 0.5, "clarification": 1.0, "efficiency": 0.7,
     "tool_use": 0.6, "communication": 0.9}
REQ = JudgeRequest(item_id="i", candidate_id="c", task="gsm8k", question="2+2?", gold_answer="4",
                   needs_clarification=False, dialogue=({"role": "user", "content": "2+2?"},
                                                        {"role": "assistant", "content": "Answer: 4"}),
                   context=(["T", ["s1", "s2"]], "fact"))


def test_location_follows_rc1_cache_dir(scorer_env):
    assert default_cache_dir() == scorer_env / "cache"
    assert JudgeCache().path == scorer_env / "cache" / CACHE_FILE


def test_key_is_spec_provider_model_digest_sample(tmp_path):
    c = JudgeCache(tmp_path / "c.sqlite")
    c.put("v1", "deepseek", "m", "d", 0, S)
    assert c.get("v1", "deepseek", "m", "d", 0) == S
    for other in (("v2", "deepseek", "m", "d", 0), ("v1", "openai", "m", "d", 0), ("v1", "deepseek", "m2", "d", 0),
                  ("v1", "deepseek", "m", "e", 0), ("v1", "deepseek", "m", "d", 1)):
        assert c.get(*other) is None
    assert c.stats() == {"cache_hits": 1, "cache_misses": 5, "cache_hit_rate": 1 / 6}
    c.close()                                                  # counters are added to the file's on write/close
    assert JudgeCache(tmp_path / "c.sqlite").totals()["lifetime_hits"] == 1  # counters persist in the file


def test_ttl_expires_entries(tmp_path):
    c = JudgeCache(tmp_path / "c.sqlite", ttl_days=14)
    now = time.time()
    c.put("v1", "p", "m", "d", 0, S, now=now - 15 * DAY_S)
    c.put("v1", "p", "m", "d", 1, S, now=now - 13 * DAY_S)
    assert c.get("v1", "p", "m", "d", 0, now=now) is None
    assert c.get("v1", "p", "m", "d", 1, now=now) == S
    assert c.totals(now=now)["expired"] == 1
    assert c.purge_expired(now=now) == 1
    assert c.totals(now=now)["entries"] == 1


def test_invalidate_drops_one_spec_version_only(tmp_path):
    c = JudgeCache(tmp_path / "c.sqlite")
    for spec in ("v1", "v2"):
        c.put(spec, "p", "m", "d", 0, S)
        c.record_bad(spec, "p", "m", REQ, "failed", "boom")
    assert c.invalidate("v1") == {"samples": 1, "bad": 1}
    assert c.get("v1", "p", "m", "d", 0) is None and c.get("v2", "p", "m", "d", 0) == S
    assert [r["spec"] for r in c.bad_items()] == ["v2"]


def test_bad_records_keep_the_whole_request(tmp_path):
    c = JudgeCache(tmp_path / "c.sqlite")
    c.record_bad("v1", "p", "m", REQ, "unstable", "correctness=0.2")
    (row,) = c.bad_items("v1")
    assert row["request"] == REQ and row["request"].digest() == REQ.digest() and row["kind"] == "unstable"
    assert c.totals()["bad"] == {"unstable": 1}
    c.clear_bad("v1", REQ.digest())
    assert not list(c.bad_items())


def test_thread_safe_under_concurrent_use(tmp_path):
    c = JudgeCache(tmp_path / "c.sqlite")
    errors = []

    def work(t):
        try:
            for i in range(60):
                c.put("v1", "p", "m", f"d{t}-{i}", 0, S)
                assert c.get("v1", "p", "m", f"d{t}-{i}", 0) == S
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    assert c.stats()["cache_hits"] == 8 * 60 and c.totals()["entries"] == 8 * 60
