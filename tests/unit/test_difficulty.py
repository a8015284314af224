"""Difficulty metrics, buckets and resampling on hand-made seeds (rc1.difficulty)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rc1.core.config import DifficultyThresholds
from rc1.difficulty.bucket import BUCKETS, assign_buckets, bucket_sizes, resample
from rc1.difficulty.metrics import clue_overlap, entities, pool_item_metrics, support_text
from rc1.difficulty.distribution import difficulty_checks
from rc1.difficulty.table import build_table
from rc1.core.records import pool_item_problem
from rc1.core.text import words

GATE = DifficultyThresholds(hard_min=0.30, easy_max=0.30, len_tokens_max=3500, turns_max=8, tool_hops_max=8,
                      clue_overlap_hard_median_max=0.20, clue_overlap_easy_median_min=0.40)
TARGET = {"easy": 0.25, "medium": 0.45, "hard": 0.30}


def pool_item(i, task="hotpotqa", question="What is it?", *, calls=(), context=(), system="You are helpful.", **extra):
    s = {"id": f"{task}-{i}", "task": task, "source_id": str(i), "template_id": "t", "role": "student",
         "style": "concise", "dialogue": [{"role": "system", "content": system}, {"role": "user", "content": question}],
         "needs_clarification": False, "hidden_info": None, "tools": ["wiki", "calc"],
         "expected_tool_calls": list(calls), "answer": "a", "context": [list(c) for c in context]}
    s.update(extra)
    assert pool_item_problem(s) is None
    return s


EASY_Q = "Where was Ada Lovelace born in the year {i}"
HARD_Q = ("Which rival of the composer who wrote it was born before he moved to Vienna, and was his teacher {i} "
          "older than them, although they never met because she left?")


def graded_pool(n_per_kind: int, tasks=("hotpotqa", "strategyqa", "gsm8k")) -> list[dict]:
    """Three kinds of seeds per task: easy (the evidence restates the question and adds a sentence, no tools),
    medium, and hard (long, many connectors/pronouns/entities, three tool hops, evidence that shares one clause
    with the question)."""
    out = []
    for task in tasks:
        for i in range(n_per_kind):
            q = EASY_Q.format(i=i)
            out.append(pool_item(f"e{i}", task, q, context=[["Ada", [q + ". She was the daughter of Lord Byron."]]]))
            mq = f"Which river flows through the city where Ada Lovelace lived in {i} and what is its length?"
            out.append(pool_item(f"m{i}", task, mq, calls=[{"name": "wiki", "arguments": {"query": "Ada"}}],
                            context=[["Ada", ["Ada Lovelace lived in London.", f"The Thames is {i} km long."]]]))
            hq = HARD_Q.format(i=i)
            out.append(pool_item(f"h{i}", task, hq, needs_clarification=True, hidden_info="the composer is Mozart",
                            calls=[{"name": "wiki", "arguments": {"query": "Mozart"}},
                                   {"name": "wiki", "arguments": {"query": "Salieri"}},
                                   {"name": "calc", "arguments": {"expression": "1791 - 1756"}}],
                            context=[["Mozart", ["Wolfgang Amadeus Mozart was a prolific composer.",
                                                 "He moved to Vienna, and was his teacher."]]]))
    return out


# ---------------------------------------------------------------- metrics
def test_seed_metrics_known_values():
    s = pool_item(1, question="Which city did the director of Titanic and Avatar grow up in, and was it before he "
                         "moved to New York?",
             calls=[{"name": "wiki", "arguments": {"query": "James Cameron"}},
                    {"name": "calc", "arguments": {"expression": "(3+4)*2 - -1"}}],
             context=[["James Cameron", ["James Cameron grew up in Kapuskasing.", "He moved to New York in 1971."]],
                      ["Other", ["A distractor sentence."]]])
    m = pool_item_metrics(s)
    assert m["turns"] == 1 and m["tool_hops"] == 2
    assert m["entities"] == 3                      # Titanic, Avatar, New York ("Which" is a function word)
    assert m["ops_numeric"] == 3                   # + * - in the calc call; the second minus is a sign
    assert m["coref_pronouns"] == 2                # it, he
    assert m["connector_density"] == pytest.approx(100 * 4 / 21, abs=1e-3)   # and, and, before, which
    assert m["ambiguity"] == 0 and m["needs_clarification"] is False
    assert support_text(s) == "James Cameron grew up in Kapuskasing. He moved to New York in 1971."


def test_clue_overlap_is_a_3gram_jaccard():
    assert clue_overlap(words("a b c d"), "a b c d") == 1.0
    assert clue_overlap(words("a b c d"), "b c d e") == pytest.approx(1 / 3)   # {abc,bcd} vs {bcd,cde}
    assert clue_overlap(words("a b c d"), "x y z") == 0.0
    assert clue_overlap(words("a b"), "a b c") == 0.0                          # no 3-gram in the question


def test_support_prefers_supporting_facts_then_named_paragraphs_then_facts():
    ctx = [["A", ["a0.", "a1."]], ["B", ["b0."]]]
    assert support_text(pool_item(1, context=ctx, supporting_facts=[["A", 1], ["B", 0]])) == "a1. b0."
    assert support_text(pool_item(2, context=ctx, calls=[{"name": "wiki", "arguments": {"query": "B"}}])) == "b0."
    assert support_text(pool_item(3, facts=["f1", "f2"])) == "f1 f2"
    assert support_text(pool_item(4, context=ctx)) == "a0. a1. b0."


def test_entities_and_ambiguity_flags():
    assert entities("What is 2 plus 3 for Anna Maria of Spain and The Beatles? Is it 5?") == 5
    s = pool_item(1, question="It was sold by some dealer. Was it red or blue? Who bought it?", hidden_info="red",
             needs_clarification=True)
    m = pool_item_metrics(s)
    assert set(m["ambiguity_flags"]) == {"hidden_info", "vague_quantity", "dangling_reference",
                                         "multiple_questions", "alternative_question"}
    assert m["ambiguity"] == 5


# ---------------------------------------------------------------- buckets and resampling
def test_buckets_are_per_task_tertiles_of_the_score():
    pool = graded_pool(10)
    table = build_table(pool)
    score, bucket = assign_buckets(table.columns, table.tasks, table.ids)
    for task in ("hotpotqa", "strategyqa", "gsm8k"):
        rows = [i for i, s in enumerate(pool) if s["task"] == task]
        got = {pool[i]["source_id"][0]: set() for i in rows}
        for i in rows:
            got[pool[i]["source_id"][0]].add(BUCKETS[bucket[i]])
        assert got == {"e": {"easy"}, "m": {"medium"}, "h": {"hard"}}
    assert np.all((score > 0) & (score <= 1))


def test_bucket_sizes_round_toward_hard():
    k = bucket_sizes(222, TARGET)
    assert sum(k.values()) == 222 and k["hard"] / 222 >= 0.30 and k["easy"] / 222 <= 0.25
    assert bucket_sizes(100, TARGET) == {"easy": 25, "medium": 45, "hard": 30}


def test_resample_hits_the_target_without_replacement_and_is_seeded():
    tasks = np.array(["gsm8k"] * 300, dtype=object)
    bucket = np.repeat(np.arange(3, dtype=np.int8), 100)
    idx, summary = resample(bucket, tasks, TARGET, ["gsm8k"], seed=1)
    assert summary["gsm8k"]["size"] == 222 and summary["gsm8k"]["with_replacement"] == {}
    counts = np.bincount(bucket[idx], minlength=3)
    assert counts.tolist() == [55, 100, 67] and len(set(idx.tolist())) == len(idx)
    again, _ = resample(bucket, tasks, TARGET, ["gsm8k"], seed=1)
    other, _ = resample(bucket, tasks, TARGET, ["gsm8k"], seed=2)
    assert np.array_equal(idx, again) and not np.array_equal(idx, other)


def test_resample_uses_replacement_only_when_asked_for_more_than_a_bucket_has():
    tasks = np.array(["gsm8k"] * 300 + ["hotpotqa"] * 5, dtype=object)
    bucket = np.concatenate([np.repeat(np.arange(3, dtype=np.int8), 100), np.zeros(5, dtype=np.int8)])
    idx, summary = resample(bucket, tasks, TARGET, ["gsm8k"], seed=1, sizes={"gsm8k": 300})
    assert summary["gsm8k"]["with_replacement"] == {"medium": 35}
    assert np.bincount(bucket[idx[idx < 300]], minlength=3).tolist() == [75, 135, 90]
    assert summary["hotpotqa"] == {"balanced": False, "size": 5}        # not in by_task: passes through
    assert (idx >= 300).sum() == 5


def test_checks_pass_on_a_graded_pool_and_fail_when_evidence_never_matches():
    pool = graded_pool(10)
    table = build_table(pool)
    _, bucket = assign_buckets(table.columns, table.tasks, table.ids)
    idx, _ = resample(bucket, table.tasks, TARGET, ["hotpotqa", "strategyqa", "gsm8k"], seed=3)
    checks = difficulty_checks(table, bucket, idx, ["hotpotqa", "strategyqa", "gsm8k"], GATE)
    assert all(c["pass"] for c in checks), [c for c in checks if not c["pass"]]
    assert {c["name"] for c in checks} >= {"hard_share.gsm8k", "easy_share.hotpotqa", "len_tokens_max", "turns_max",
                                           "tool_hops_max", "clue_overlap_median.hard", "clue_overlap_median.easy"}
    table.columns["clue_overlap"][:] = 0.0
    failing = {c["name"] for c in difficulty_checks(table, bucket, idx, ["gsm8k"], GATE) if not c["pass"]}
    assert failing == {"clue_overlap_median.easy"}


def test_numpy_rankdata_and_zipf_slope_equal_scipy_bit_for_bit():
    """bucket.rankdata and diversity.zipf_slope skip importing scipy.stats; their values are scipy's."""
    from collections import Counter

    from scipy import stats

    from rc1.difficulty.bucket import rankdata
    from rc1.quality.diversity import zipf_slope

    rng = np.random.default_rng(0)
    for vals in (rng.integers(0, 5, 1000), rng.random(500).round(2), np.array([3.0]), np.zeros(7)):
        assert rankdata(vals).tolist() == stats.rankdata(vals, method="average").tolist()
    counts = Counter({f"w{i}": int(c) for i, c in enumerate(rng.zipf(1.5, 3000))})
    freqs = np.sort(np.fromiter(counts.values(), dtype=np.float64))[::-1]
    ranks = np.arange(1, len(freqs) + 1, dtype=np.float64)
    assert zipf_slope(counts) == float(stats.linregress(np.log(ranks), np.log(freqs)).slope)


def test_a_pool_measured_in_pieces_gives_the_table_of_one_pass(tmp_path):
    """difficulty measures the second half of the pool in another process: rc1.core.io.line_ranges cuts the file at
    line starts, every line lands in exactly one piece, and the concatenated tables equal one pass's."""
    from rc1.difficulty.table import concat_tables
    from rc1.core.errors import Rc1Error
    from rc1.core.io import iter_jsonl_lines, line_ranges
    from rc1.quality.reader import iter_pool_items

    pool = tmp_path / "pool.jsonl"
    pool_items = graded_pool(7)
    pool.write_text("".join(json.dumps(s) + "\n" + ("\n" if i == 5 else "") for i, s in enumerate(pool_items)))
    whole = build_table(iter_pool_items(pool))
    for parts in (1, 2, 3, 7, 50):
        pieces = line_ranges(pool, parts)
        assert [x for p in pieces for x in iter_jsonl_lines(pool, p)] == list(iter_jsonl_lines(pool))
        table = concat_tables([build_table(iter_pool_items(pool, p)) for p in pieces])
        assert table.ids == whole.ids and table.flags == whole.flags and table.tasks.tolist() == whole.tasks.tolist()
        assert all(np.array_equal(table.columns[k], whole.columns[k]) for k in whole.columns)
    lines = pool.read_text().splitlines(keepends=True)
    lines[-2] = "{not json\n"
    pool.write_text("".join(lines))
    last = line_ranges(pool, 2)[-1]
    with pytest.raises(Rc1Error, match=f"line {len(lines) - 1}: invalid JSON"):
        list(iter_jsonl_lines(pool, last))


def test_table_rows_read_in_blocks_equal_the_column_values():
    """MetricTable.row reads a block of rows as Python lists (the writers go in order): the same values and types as
    the numpy columns' .item(), across block edges and out of order."""
    import random

    from rc1.difficulty.metrics import METRICS
    from rc1.difficulty.table import _BLOCK, MetricTable

    n = 2 * _BLOCK + 7
    cols = {m: (np.arange(n) * 7 % 1001).astype(np.int64) for m in METRICS}
    cols["clue_overlap"] = np.linspace(0.0, 1.0, n)
    table = MetricTable(ids=[str(i) for i in range(n)], tasks=np.array(["gsm8k"] * n, dtype=object), columns=cols,
                        flags=[["hidden_info"]] * n)
    for i in [0, _BLOCK - 1, _BLOCK, n - 1, 3, *random.Random(1).sample(range(n), 300)]:
        row = table.row(i)
        for m in METRICS:
            want = cols[m][i].item()
            want = bool(want) if m == "needs_clarification" else want
            assert row[m] == want and type(row[m]) is type(want)
        assert row["ambiguity_flags"] == ["hidden_info"]
