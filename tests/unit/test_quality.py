"""The pool checks on tiny hand-made inputs with known answers (rc1.quality)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from rc1.core.config import load_thresholds
from rc1.quality.dedup import DuplicateFinder
from rc1.quality.diversity import Reservoir, distinct_n, kl_divergence, ngram_counts, type_token_ratio, zipf_slope
from rc1.core.leak import ShadowIndex
from rc1.quality.mix import mix_deviation
from rc1.quality.validate import validate_pool
from rc1.core.records import POOL_ITEM_KEYS, pool_item_problem
from rc1.core.text import words

GATE = load_thresholds(__import__("pathlib").Path(__file__).parents[2] / "configs" / "gates.yaml").for_mode("dev").validate_pool
MIX = {"hotpotqa": 0.45, "strategyqa": 0.30, "gsm8k": 0.25}
ROLES = ("student", "analyst", "teacher", "journalist")
STYLES = ("concise", "socratic", "detailed")
_VOCAB = [f"{a}{b}{c}" for a in "bcdfgklmnprstvz" for b in "aeiou" for c in ("ra", "lo", "ne", "ki", "tu", "sa")]


def random_text(rng: random.Random, n_words: int) -> str:
    return " ".join(rng.choice(_VOCAB) for _ in range(n_words)).capitalize() + "?"


def make_seed(i: int, task: str = "hotpotqa", question: str | None = None, *, role: str | None = None,
              style: str | None = None, system: str | None = None, wrapper: str = "Please help me with this:",
              **extra) -> dict:
    """A PoolItem with exactly the keys of rc1.core.records.POOL_ITEM_KEYS (plus `extra`)."""
    rng = random.Random(i)
    role = role or ROLES[i % len(ROLES)]
    style = style or STYLES[i % len(STYLES)]
    question = question if question is not None else random_text(rng, 18)
    system = system if system is not None else (
        f"You are a {role} assistant who answers in a {style} way. " + random_text(rng, 45))
    pool_item = {
        "id": f"seed-{i}", "task": task, "source_id": f"{task}:{i}", "template_id": f"{task}.t{i % 6}",
        "role": role, "style": style,
        "dialogue": [{"role": "system", "content": system}, {"role": "user", "content": f"{wrapper} {question}"}],
        "needs_clarification": False, "hidden_info": None, "tools": ["wiki", "calc"],
        "expected_tool_calls": [], "answer": "x", "context": [],
    }
    pool_item.update(extra)
    assert pool_item_problem(pool_item) is None and set(POOL_ITEM_KEYS) <= set(pool_item)
    return pool_item


def make_pool(n: int, mix: dict[str, float] = MIX, start: int = 0, wrapper: str = "Please help me with this:") -> list[dict]:
    tasks = [t for t, share in mix.items() for _ in range(round(share * n))]
    return [make_seed(start + i, task, wrapper=wrapper) for i, task in enumerate(tasks)]


# ---------------------------------------------------------------- diversity
def test_distinct_n_and_ttr_known_values():
    toks = ["a", "b", "a", "b"]
    assert distinct_n([toks], 1) == pytest.approx(2 / 4)
    assert distinct_n([toks], 2) == pytest.approx(2 / 3)       # (a b) (b a) (a b)
    assert distinct_n([toks, ["c", "d"]], 2) == pytest.approx(3 / 4)
    assert distinct_n([[]], 2) == 0.0
    assert type_token_ratio([toks, ["c", "c"]]) == pytest.approx((0.5 + 0.5) / 2)


def test_kl_is_zero_for_identical_pools_and_positive_and_asymmetric_otherwise():
    p = ngram_counts([words("the cat sat on the mat today"), words("a dog ran in the park")], 3)
    q = ngram_counts([words("the cat sat on the mat today"), words("birds sing in the early morning sun")], 3)
    assert kl_divergence(p, p) == pytest.approx(0.0, abs=1e-12)
    assert kl_divergence(p, q) > 0.0
    big = Counter({("x", "y", "z"): 50, ("a", "b", "c"): 1})
    small = Counter({("a", "b", "c"): 1})
    assert kl_divergence(big, small) != pytest.approx(kl_divergence(small, big))


def test_kl_equals_scipy_entropy_over_the_smoothed_union():
    import random

    from scipy.stats import entropy

    rng = random.Random(7)
    for _ in range(20):
        p = Counter({(f"w{rng.randrange(60)}", "x", "y"): rng.randrange(1, 9) for _ in range(rng.randrange(0, 40))})
        q = Counter({(f"w{rng.randrange(60)}", "x", "y"): rng.randrange(1, 9) for _ in range(rng.randrange(0, 40))})
        vocab = sorted(p.keys() | q.keys())
        want = entropy([p[k] + 0.5 for k in vocab], [q[k] + 0.5 for k in vocab]) if vocab else 0.0
        assert kl_divergence(p, q, alpha=0.5) == pytest.approx(want, rel=1e-12, abs=1e-15), (p, q)


def test_zipf_slope_of_a_zipf_distribution_is_minus_one():
    counts = Counter({f"w{r}": int(round(10000 / r)) for r in range(1, 200)})
    assert zipf_slope(counts) == pytest.approx(-1.0, abs=0.02)
    assert zipf_slope(Counter({"only": 3})) is None


def test_reservoir_is_deterministic_and_bounded():
    a, b = Reservoir(10, seed=7), Reservoir(10, seed=7)
    for i in range(1000):
        a.offer(i)
        b.offer(i)
    assert a.items == b.items and len(a.items) == 10 and a.seen == 1000
    assert len(set(a.subsample(4, 1))) == 4 and set(a.subsample(4, 1)) <= set(a.items)


# ---------------------------------------------------------------- duplicates
def test_exact_and_near_duplicates_are_found_and_distinct_texts_are_not():
    rng = random.Random(0)
    base = words(random_text(rng, 80))
    near = list(base)
    near[40] = "changedword"                       # one word of 80: Jaccard of 3-shingles about 0.93
    other = words(random_text(rng, 80))
    f = DuplicateFinder(threshold=0.85)
    for key, text in (("a", base), ("b", other), ("c", list(base)), ("d", near)):
        f.add(key, [text])
    assert f.verdicts() == [(False, False), (False, False), (True, True), (False, True)]  # c exact, d near copy
    assert f.exact_dups == 1 and f.near_dups == 2
    assert f.near_rate == pytest.approx(2 / 4)
    assert {e["id"]: e["duplicate_of"] for e in f.examples} == {"c": "a", "d": "a"}


def test_numbers_keep_math_problems_apart():
    f = DuplicateFinder(threshold=0.85)
    a = words("Ann buys 3 boxes of 12 pencils and gives away 5 pencils. How many pencils are left?")
    b = words("Ann buys 7 boxes of 14 pencils and gives away 9 pencils. How many pencils are left?")
    f.add("a", [a])
    f.add("b", [b])
    assert f.verdicts() == [(False, False), (False, False)]


def test_batched_signatures_equal_datasketch_update_batch_and_turns_are_shingled_apart():
    """The bulk path (one numpy pass over many texts) gives MinHash.update_batch's values text by text;
    shingles never span two turns; a turn shorter than 3 words is one shingle."""
    from datasketch import MinHash

    from rc1.quality.dedup import shingle_array, shingle_hashes, signatures

    rng = random.Random(3)
    texts = [[words(random_text(rng, rng.randint(0, 60))) for _ in range(rng.randint(1, 3))] for _ in range(300)]
    texts += [[[]], [["two", "words"]], [[], ["a", "b", "c"]]]
    m = MinHash(num_perm=64, seed=1, hashfunc=lambda x: x, scheme="affine32")
    arrays = [shingle_array(turns) for turns in texts]
    for turns, arr in zip(texts, arrays):
        assert sorted(arr.tolist()) == sorted(h for t in turns for h in shingle_hashes(t))
    for arr, sig in zip(arrays, signatures(arrays, m)):
        one = m.copy()
        one.update_batch(arr.tolist())
        assert sig.tolist() == one.hashvalues.tolist()


def test_duplicate_verdicts_equal_a_sequential_minhash_lsh():
    """finish() decides all texts at once; the verdicts are those of querying a datasketch MinHashLSH
    before inserting each non-exact text (the sequential definition), on texts with planted copies."""
    from datasketch import MinHash, MinHashLSH

    from rc1.quality.dedup import shingle_hashes

    rng = random.Random(5)
    base = [[words(random_text(rng, rng.randint(20, 80)))] for _ in range(150)]
    texts = []
    for k in range(400):
        turns = [list(t) for t in rng.choice(base)] if k >= 150 else base[k]
        if k >= 150 and rng.random() < 0.7:
            for _ in range(rng.choice([1, 2, 4, 12])):
                turns[0][rng.randrange(len(turns[0]))] = f"w{rng.randrange(9)}"
        texts.append(turns)
    f = DuplicateFinder(threshold=0.85, batch=64)
    for k, turns in enumerate(texts):
        f.add(str(k), turns)
    got = f.verdicts()

    lsh = MinHashLSH(threshold=0.85, num_perm=64, weights=(0.1, 0.9))
    seen, sigs, want = set(), {}, []
    for k, turns in enumerate(texts):
        m = MinHash(num_perm=64, seed=1, hashfunc=lambda x: x, scheme="affine32")
        m.update_batch([h for t in turns for h in shingle_hashes(t)])
        key = " ".join(w for t in turns for w in t)
        exact = key in seen
        seen.add(key)
        near = exact or any((sigs[c] == m.hashvalues).mean() >= 0.85 for c in lsh.query(m))
        if not exact:
            lsh.insert(k, m)
            sigs[k] = m.hashvalues
        want.append((exact, near))
    assert got == want
    assert sum(e for e, _ in got) > 20 and sum(n and not e for e, n in got) > 20


def test_a_stream_cut_in_pieces_gives_the_sample_and_verdicts_of_one_pass():
    """validate-pool scans the pool's halves in two processes: a Reservoir started at a piece's first item and
    merged, and a DuplicateFinder extended by a later piece's texts (signatures in a file of their own), give
    what one pass gives, cuts before, inside and after the reservoir's fill included."""
    import tempfile

    for k, n, cuts in ((10, 1000, [3, 500]), (50, 300, [50]), (50, 120, [20, 49, 51, 90]), (10, 5, [2])):
        whole = Reservoir(k, 7)
        for i in range(n):
            whole.offer(i)
        bounds = [0, *cuts, n]
        merged = None
        for lo, hi in zip(bounds, bounds[1:]):
            part = Reservoir(k, 7, start=lo)
            for i in range(lo, hi):
                part.offer(i)
            if merged is None:
                merged = part
            else:
                merged.merge(part)
        assert merged.items == whole.items and merged.seen == whole.seen
    with pytest.raises(ValueError, match="starts at item 4"):
        Reservoir(10, 7).merge(Reservoir(10, 7, start=4))

    rng = random.Random(8)
    base = [[words(random_text(rng, rng.randint(20, 60)))] for _ in range(60)]
    texts = [base[k] if k < 60 else [list(t) for t in rng.choice(base)] for k in range(200)]
    for turns in texts[60::3]:
        turns[0][0] = "changed"
    one = DuplicateFinder(threshold=0.85, batch=16)
    for k, turns in enumerate(texts):
        one.add(str(k), turns)
    first = DuplicateFinder(threshold=0.85, batch=16)
    for k, turns in enumerate(texts[:90]):
        first.add(str(k), turns)
    with tempfile.TemporaryFile() as fh:
        later = DuplicateFinder(threshold=0.85, batch=16, sig_file=fh)
        for k, turns in enumerate(texts[90:], 90):
            later.add(str(k), turns)
        first.extend(later.detach(), fh)
    assert first.verdicts() == one.verdicts() and first.summary() == one.summary()
    assert one.exact_dups > 10 and one.near_dups > one.exact_dups


# ---------------------------------------------------------------- leaks
SHADOW = [
    ("hotpotqa:s1", "Which magazine was started first, Arthur's Magazine or First for Women?"),
    ("strategyqa:s2", "Would a pear sink in water if it were dropped into a bathtub full of water?"),
    ("gsm8k:s3", "Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. "
                 "How many clips did Natalia sell altogether in April and May?"),
]


def test_verbatim_and_lightly_reworded_shadow_questions_leak():
    idx = ShadowIndex(SHADOW, ngram=5, sim=0.85)
    verbatim = "Hi! As a student I wonder: " + SHADOW[0][1]
    reworded = "would a pear sink in water if it was dropped into a bathtub full of water"   # were -> was, no '?'
    case_and_punctuation = SHADOW[2][1].upper().replace(",", "").replace("?", " ?")
    assert [l.shadow_id for l in idx.match("p1", words(verbatim), verbatim)] == ["hotpotqa:s1"]
    hit = idx.match("p2", words(reworded), reworded)
    assert [l.shadow_id for l in hit] == ["strategyqa:s2"] and 0.85 <= hit[0].similarity < 1.0
    assert idx.match("p3", words(case_and_punctuation))[0].similarity == 1.0


def test_a_clarify_seed_that_hides_a_name_of_a_shadow_question_leaks():
    idx = ShadowIndex([("hotpotqa:x", "What notable radio personality was born in North Bend, Oregon?")])
    user = "What notable radio personality was born in the one whose name I forgot, Oregon? Just tell me."
    assert idx.match("c1", words(user)) == []                                # 7 of 9 words
    hit = idx.match("c1", words(user), extra=words("Oh, North Bend."))       # the user reveals the rest
    assert [l.shadow_id for l in hit] == ["hotpotqa:x"] and hit[0].similarity >= 0.85


def test_different_questions_do_not_leak():
    idx = ShadowIndex(SHADOW, ngram=5, sim=0.85)
    same_topic = "Which magazine was started first, Vogue or Harper's Bazaar, and who founded it?"
    shares_5gram_only = ("Natalia sold clips to 48 of her neighbours last summer; each clip cost 2 dollars. "
                         "What was her income over the whole summer season?")
    assert idx.match("q1", words(same_topic)) == []
    assert idx.match("q2", words(shares_5gram_only)) == []     # shared 5-gram but low containment


def test_evidence_passages_next_to_a_question_do_not_make_it_a_leak():
    idx = ShadowIndex(SHADOW, ngram=5, sim=0.85)
    rng = random.Random(1)
    passage = (f"{random_text(rng, 40)} Arthur's Magazine was started first in 1844 in Philadelphia. "
               f"{random_text(rng, 30)} First for Women is a magazine which was started in 1989, or so. "
               f"{random_text(rng, 40)}")
    other_question = "Who edited Arthur's Magazine?"
    text = f"Passages:\n{passage}\n\nQuestion: {other_question}"
    # the passage shares the 5-gram "arthur's magazine was started first" and holds every word of the
    # shadow question somewhere, but not where the shared phrase puts it
    assert set(words(SHADOW[0][1])) <= set(words(text))
    assert idx.match("e1", words(text)) == []
    planted = f"Passages:\n{passage}\n\nQuestion: {SHADOW[0][1]}"
    assert [l.shadow_id for l in idx.match("e2", words(planted))] == ["hotpotqa:s1"]


# ---------------------------------------------------------------- mix
def test_mix_deviation_in_percentage_points():
    dev = mix_deviation(Counter({"hotpotqa": 50, "strategyqa": 30, "gsm8k": 20}), MIX)
    assert dev["hotpotqa"]["dev_pp"] == pytest.approx(5.0)
    assert dev["gsm8k"]["dev_pp"] == pytest.approx(5.0)
    assert dev["strategyqa"]["dev_pp"] == pytest.approx(0.0)
    assert mix_deviation(Counter({"other": 1}), {"gsm8k": 1.0})["other"]["dev_pp"] == pytest.approx(100.0)


# ---------------------------------------------------------------- the whole check list
def _by_name(checks):
    return {c["name"]: c for c in checks}


def test_validate_pool_passes_a_clean_diverse_pool_and_names_every_check():
    pool = make_pool(200)
    base = make_pool(200, start=10_000, wrapper="Answer the following question as well as you can please:")
    res = validate_pool(iter(pool), gate=GATE, mix=MIX, shadow=SHADOW, baseline=base)
    checks = _by_name(res.checks)
    assert set(checks) == {"pool_size", "distinct_2", "kl_3gram_vs_v1", "roles", "styles", "dup_rate", "near_dup_rate",
                           "len_tokens_min", "len_tokens_max", "leak_count", "mix_dev_pp.hotpotqa",
                           "mix_dev_pp.strategyqa", "mix_dev_pp.gsm8k"}
    assert all(set(c) == {"name", "value", "threshold", "pass"} for c in res.checks)
    assert res.passed, [c for c in res.checks if not c["pass"]]
    assert checks["leak_count"]["value"] == 0 and res.leaks == []
    assert res.diversity["sample"]["size"] == 200 and "distinct_n" in res.diversity["definitions"]
    budget = res.diversity["distinct_2_budget"]   # 200 short seeds hold fewer words than the budget: all of them
    assert budget["words_budget"] == GATE.distinct_2_words and budget["seeds"] == 200 == budget["drawn_from"]
    assert set(res.diversity["distinct_2_by_task"]) == set(MIX)   # each task's part of the same sample


def test_distinct_2_is_measured_on_a_word_budget_drawn_at_random():
    from rc1.quality.diversity import distinct_n
    from rc1.quality.validate import budget_indices

    def word_budget(texts, words, seed):
        return [texts[i] for i in budget_indices([len(t) for t in texts], words, seed)]

    texts = [[f"w{i}", f"x{i}", "the", "same", "words"] for i in range(1000)]
    got = word_budget(texts, 500, seed=7)
    assert sum(map(len, got)) == 500 and len(got) == 100                  # stops once the budget is reached
    assert got == word_budget(texts, 500, seed=7) != word_budget(texts, 500, seed=8)   # seeded, uniform
    assert got != texts[:100] and len({t[0] for t in got}) == 100          # drawn, not the first ones
    assert word_budget(texts[:10], 10**6, seed=7) and len(word_budget(texts[:10], 10**6, seed=7)) == 10
    # distinct-2 falls as the text grows: the budget, not the number of seeds, fixes how much text is measured
    assert distinct_n(word_budget(texts, 500, 7), 2) > distinct_n(word_budget(texts, 5000, 7), 2)


def test_baseline_stats_computed_apart_give_the_same_report_and_must_match_the_pool_sampling():
    """validate-pool computes the baseline's stats in another process (baseline_stats): the report is the one the seeds
    themselves give; stats sampled with another seed or size than the pool's are refused, not silently compared."""
    from rc1.quality.validate import baseline_stats, evaluate_scan, scan_pool

    pool = make_pool(200)
    base = make_pool(200, start=10_000, wrapper="Answer the following question as well as you can please:")
    scan = scan_pool(iter(pool), gate=GATE, shadow=SHADOW, sample_k=60, sample_seed=5)
    kw = dict(gate=GATE, mix=MIX, shadow_given=True, shadow_questions=len(SHADOW), sample_size=40, kl_sample_size=60,
              sample_seed=5)
    direct = evaluate_scan(scan, baseline=base, **kw)
    apart = evaluate_scan(scan, baseline=baseline_stats(base, 60, 40, 5), **kw)
    assert apart.diversity == direct.diversity and apart.checks == direct.checks
    for other in ((60, 40, 6), (50, 40, 5), (60, 30, 5)):
        with pytest.raises(ValueError, match="sample_seed"):
            evaluate_scan(scan, baseline=baseline_stats(base, *other), **kw)


def test_validate_pool_fails_on_planted_leaks_duplicates_and_a_skewed_mix():
    pool = make_pool(100, mix={"hotpotqa": 1.0})
    pool.append(make_seed(5000, question=SHADOW[0][1]))
    pool.append(make_seed(5001, question=SHADOW[1][1].replace("were", "was")))
    pool.append(dict(pool[0], id="copy-of-0"))
    res = validate_pool(iter(pool), gate=GATE, mix=MIX, shadow=SHADOW, baseline=make_pool(50, start=9000))
    checks = _by_name(res.checks)
    assert checks["leak_count"]["value"] == 2 and not checks["leak_count"]["pass"]
    assert {l["seed_id"] for l in res.leaks} == {"seed-5000", "seed-5001"}
    assert checks["dup_rate"]["value"] == pytest.approx(1 / 103)
    assert not checks["mix_dev_pp.hotpotqa"]["pass"] and not checks["mix_dev_pp.gsm8k"]["pass"]
    # identical pool and baseline: KL 0, so the 'differs from v1' check fails
    same = validate_pool(iter(pool), gate=GATE, mix=MIX, shadow=[], baseline=pool)
    assert _by_name(same.checks)["kl_3gram_vs_v1"]["value"] == pytest.approx(0.0, abs=1e-12)


def test_token_length_bounds():
    short = [make_seed(i, system="Hi.", question="Why?") for i in range(5)]
    res = validate_pool(iter(short), gate=GATE, mix={"hotpotqa": 1.0}, shadow=[], baseline=short)
    checks = _by_name(res.checks)
    assert not checks["len_tokens_min"]["pass"] and checks["len_tokens_max"]["pass"]
    assert res.diversity["len_tokens"]["out_of_bounds_rate"] == 1.0


def test_without_a_shadow_set_the_leak_check_cannot_pass():
    pool = make_pool(20)
    res = validate_pool(iter(pool), gate=GATE, mix=MIX, shadow=None, baseline=pool)
    leak = _by_name(res.checks)["leak_count"]
    assert leak["value"] is None and leak["pass"] is False


def test_reservoir_subsample_is_uniform_over_the_stream():
    """The diversity sample is a k-subset of a reservoir drawn with the same seed: its indices must not repeat
    the reservoir's replacement draws (they did, and a 6000-seed pool's 'sample' was mostly its last 1000)."""
    from rc1.quality.diversity import Reservoir

    r: Reservoir = Reservoir(5000, 20250820)
    for i in range(6000):
        r.offer(i)
    sample = r.subsample(1000, 20250820)
    assert abs(sum(sample) / len(sample) - 2999.5) < 150          # mean position of a uniform sample
    assert sum(x >= 5000 for x in sample) < 260                   # ~1000 x 1000/6000 = 167 expected
