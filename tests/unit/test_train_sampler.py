"""Which prompts training sees: difficulty mix, seed-pool ratio schedule, replay cap, determinism."""

import pytest

from draw_shares import share_summary
from rc1.train.sampler import ReplayHistory, Sampler, SamplerSpec, is_heldout, plain_pool_item, pool_ratio, split_heldout

SCHEDULE = [(0, 0.50), (20000, 0.35), (40000, 0.20)]
DIFF = {"easy": 0.2, "medium": 0.4, "hard": 0.4}


def pool(n=90):
    return [{"id": f"s{i}", "task": "gsm8k", "difficulty": ("easy", "medium", "hard")[i % 3]} for i in range(n)]


def fresh(n=30):
    return [{"id": f"f{i}", "task": "gsm8k"} for i in range(n)]


def spec(batch=10, **kw):
    return SamplerSpec(batch_size=batch, difficulty=DIFF, schedule=SCHEDULE, replay_cap=0.30, **kw)


def test_schedule_is_piecewise_constant():
    assert [pool_ratio(s, SCHEDULE) for s in (0, 19999, 20000, 39999, 40000, 60000)] == [.5, .5, .35, .35, .2, .2]


@pytest.mark.parametrize("step, ratio", [(0, 0.50), (20000, 0.35), (40000, 0.20)])
def test_pool_share_follows_the_schedule_on_average(step, ratio):
    s = Sampler(pool(), spec(batch=8), seed=1, fresh=fresh())
    draws = [d for k in range(400) for d in s.plan(step + k)]
    shares = share_summary(draws)
    assert shares["share.pool"] == pytest.approx(ratio, abs=0.02)
    assert shares["share.fresh"] == pytest.approx(1 - ratio, abs=0.02)   # no history: no replay


def test_difficulty_buckets_are_drawn_20_40_40():
    s = Sampler(pool(), spec(batch=10), seed=3, fresh=fresh())
    shares = share_summary(d for k in range(600) for d in s.plan(k))
    assert shares["pool_bucket.easy"] == pytest.approx(0.2, abs=0.03)
    assert shares["pool_bucket.medium"] == pytest.approx(0.4, abs=0.03)
    assert shares["pool_bucket.hard"] == pytest.approx(0.4, abs=0.03)


def history_with_low_performers(n=90, step=0):
    h = ReplayHistory()
    for i in range(n):
        h.add(step, f"s{i}", 0.0 if i < 40 else 1.0)     # s0..s39 perform badly
    return h


def test_replay_takes_low_performers_and_never_exceeds_the_cap():
    s = Sampler(pool(), spec(batch=10), seed=5, fresh=fresh())
    h = history_with_low_performers()
    for step in range(40000, 40050):                       # pool share .2: 8 slots are non-pool, cap is 3
        draws = s.plan(step, h)
        replay = [d for d in draws if d.kind == "replay"]
        assert len(replay) == 3
        assert all(int(d.pool_item["id"][1:]) < 40 for d in replay)
        assert len(draws) == 10


def test_replay_only_sees_rewards_older_than_the_lag():
    s = Sampler(pool(), spec(batch=10, lag=2), seed=5, fresh=fresh())
    h = ReplayHistory()
    h.add(9, "s1", 0.0)
    h.add(9, "s2", 1.0)
    before = s.plan(10, h)
    assert not [d for d in before if d.kind == "replay"]    # step 9's rewards are too new for step 10
    h.add(10, "s3", 0.5)                                     # more recent rewards change nothing
    assert s.plan(10, h) == before
    assert [d.pool_item["id"] for d in s.plan(11, h) if d.kind == "replay"] == ["s1"]


def test_plans_are_deterministic_per_seed_and_history_round_trips():
    h = history_with_low_performers()
    a = Sampler(pool(), spec(), seed=7, fresh=fresh())
    b = Sampler(pool(), spec(), seed=7, fresh=fresh())
    c = Sampler(pool(), spec(), seed=8, fresh=fresh())
    ids = lambda smp, hist: [[d.pool_item["id"] for d in smp.plan(k, hist)] for k in range(5, 25)]
    assert ids(a, h) == ids(b, ReplayHistory.from_json(h.to_json()))
    assert ids(a, h) != ids(c, h)


def test_without_fresh_items_the_pool_fills_the_share():
    s = Sampler(pool(), spec(batch=10), seed=1)
    shares = share_summary(d for k in range(100) for d in s.plan(k))
    assert shares["share.fresh"] == 0 and shares["share.pool"] + shares["share.pool_fill"] == pytest.approx(1.0)


def test_heldout_split_is_stable_and_disjoint():
    p = [{"id": f"x{i}"} for i in range(2000)]
    train, held = split_heldout(p, 0.05)
    assert len(train) + len(held) == 2000 and not {s["id"] for s in train} & {s["id"] for s in held}
    assert len(held) == pytest.approx(100, abs=30)
    assert [s["id"] for s in held] == [s["id"] for s in split_heldout(list(reversed(p)), 0.05)[1][::-1]]
    assert not any(is_heldout(s["id"], 0.0) for s in p)


def test_plain_seed_is_a_single_question_prompt():
    s = plain_pool_item({"id": "gsm8k:7", "task": "gsm8k", "question": "What is 2+2?", "answer": "4", "context": []})
    assert s["id"] == "fresh:gsm8k:7" and s["dialogue"][-1] == {"role": "user", "content": "What is 2+2?"}
    assert s["needs_clarification"] is False and s["answer"] == "4"


def test_one_seed_difficulty_each_caller_saying_its_fallback():
    """rc1.core.records.pool_item_difficulty is the one reader of a seed's bucket: training counts an unbucketed seed as
    UNBUCKETED (medium), the judge request and the shadow set leave it unknown (None)."""
    from rc1.core.records import pool_item_difficulty
    from rc1.scoring.reward import judge_request
    from rc1.train.sampler import UNBUCKETED

    assert pool_item_difficulty({"difficulty": {"bucket": "hard"}}, fallback=None) == "hard"
    assert pool_item_difficulty({"bucket": "easy"}, fallback=UNBUCKETED) == "easy"
    assert pool_item_difficulty({"difficulty": "impossible"}, fallback=None) is None
    assert pool_item_difficulty({}, fallback=UNBUCKETED) == "medium"
    pool_item = {"id": "s1", "task": "gsm8k", "dialogue": [{"role": "user", "content": "2+2?"}], "answer": "4"}
    assert judge_request(pool_item, pool_item["dialogue"]).difficulty is None
    unbucketed = [{k: v for k, v in s.items() if k != "difficulty"} for s in pool(6)]
    assert {d: len(ix) for d, ix in Sampler(unbucketed, spec(), seed=1).buckets.items()} == \
        {"easy": 0, "medium": 6, "hard": 0}
