"""The easy family of the builtin generators: official schemas, answers that check out, evidence restated."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from rc1.data.builtin import EASY_SHARE, builtin_tasks, generate_raw
from rc1.data.builtin_easy import generate_easy_gsm8k, generate_easy_hotpotqa, generate_easy_strategyqa
from rc1.data.formats import gsm8k_calculations, gsm8k_final_answer, normalize_gsm8k, normalize_hotpotqa, \
    normalize_strategyqa
from rc1.text import ngrams, words
from rc1.tools import calc


def _jaccard3(a: str, b: str) -> float:
    x, y = set(ngrams(words(a), 3)), set(ngrams(words(b), 3))
    return len(x & y) / len(x | y) if x and y else 0.0


def test_hotpotqa_easy_items_point_at_a_sentence_with_the_answer():
    items = generate_easy_hotpotqa(300, 7)
    assert len({r["_id"] for r in items}) == 300
    overlaps = []
    for r in items:
        normalize_hotpotqa(r)  # official schema
        assert r["type"] == "bridge" and r["level"] == "easy"
        paras = dict((t, s) for t, s in r["context"])
        assert len(paras) == len(r["context"]) >= 2
        [(title, idx)] = r["supporting_facts"]
        sentence = paras[title][idx]
        assert r["answer"] in sentence
        assert r["answer"] not in r["question"]
        # the subject the question names has its own paragraph: the lookup has one right answer
        assert sum(title in t for t in paras) == 1
        overlaps.append(_jaccard3(r["question"], sentence))
    overlaps.sort()
    assert overlaps[len(overlaps) // 2] >= 0.5


def test_strategyqa_easy_items_are_consistent_yes_no_questions():
    items = generate_easy_strategyqa(300, 7)
    answers = {r["answer"] for r in items}
    assert answers == {True, False}
    yes_overlap, no_overlap = [], []
    for r in items:
        task = normalize_strategyqa(r)
        assert task["answer"] in ("yes", "no")
        assert r["question"].endswith("?") and r["question"][0].isupper()
        [fact] = r["facts"]
        step1, step2 = r["decomposition"]
        assert step1.endswith("?") and "#1" in step2
        asked = step2.removeprefix("Is #1 ").removeprefix("at least ").rstrip("?")
        # the question asks exactly the fact when the answer is yes, and with the asked detail changed when no
        stem = r["question"][0].lower() + r["question"][1:]
        if r["answer"]:
            assert asked in fact
        else:
            assert not re.search(rf"\b{re.escape(asked)}\b", fact)
        assert asked in stem
        assert r["term"] in fact and r["term"] in r["question"]  # one subject, named in both
        (yes_overlap if r["answer"] else no_overlap).append(_jaccard3(r["question"], fact))
    # the fact restates the question's words (a lookup, not an inference)
    assert sorted(yes_overlap)[len(yes_overlap) // 2] >= 0.5
    assert sorted(no_overlap)[len(no_overlap) // 2] >= 0.3


def test_strategyqa_easy_questions_come_in_many_kinds_and_frames():
    items = generate_easy_strategyqa(500, 11)
    qs = [r["question"] for r in items]
    # fact domains, and question openings ('Is', 'Does', 'Did', 'Founded in 1902, was ...', 'Is it true that ...')
    assert len({r["description"].split()[-1] for r in items}) >= 25
    openings = Counter(words(q)[0] for q in qs)
    assert len(openings) >= 40 and openings.most_common(1)[0][1] <= 0.25 * len(qs)
    assert len({tuple(words(q)[:2]) for q in qs}) >= 150
    # the wording itself varies: the generator this replaced scored 0.39 here
    bigrams = [g for q in qs for g in ngrams(words(q), 2)]
    assert len(set(bigrams)) / len(bigrams) >= 0.55


def test_gsm8k_easy_solutions_recompute():
    items = generate_easy_gsm8k(300, 7)
    for i, r in enumerate(items):
        normalize_gsm8k(r, i)
        calcs = gsm8k_calculations(r["answer"])
        assert 1 <= len(calcs) <= 2
        for expr, value in calcs:
            assert float(calc(expr)) == float(value), (expr, value)
        assert float(calcs[-1][1]) == float(gsm8k_final_answer(r["answer"]))
        assert float(gsm8k_final_answer(r["answer"])) >= 0
        first = r["answer"].splitlines()[0]
        assert r["question"].split(". ")[0] in first  # the givens are restated before computing


def _distinct2(texts: list[str]) -> float:
    bigrams = [g for t in texts for g in ngrams(words(t), 2)]
    return len(set(bigrams)) / len(bigrams)


def test_hotpotqa_easy_wording_does_not_collapse_to_a_few_frames():
    # floors measured on this generator (questions .62, fact sentences .67); 64 kinds of 2-4 frames scored .53 / .60,
    # one frame per kind .43 / .48
    items = generate_easy_hotpotqa(500, 11)
    sentences = []
    for r in items:
        [(title, idx)] = r["supporting_facts"]
        sentences.append(dict((t, s) for t, s in r["context"])[title][idx])
        assert r["question"].endswith("?") and sentences[-1].endswith(".")
        assert not re.search(r"[«»|\[\]{}\x00]", r["question"] + sentences[-1])  # no grammar left unresolved
    assert _distinct2([r["question"] for r in items]) >= 0.60
    assert _distinct2(sentences) >= 0.65


def test_gsm8k_easy_problems_span_several_kinds_and_wordings():
    # floor measured on this generator (.48); the collection-only generator scored .455 with 'how many' in 80%
    items = generate_easy_gsm8k(500, 11)
    qs = [r["question"] for r in items]
    assert _distinct2(qs) >= 0.47
    assert sum("how many" in q.lower() for q in qs) / len(qs) <= 0.7
    ops = {op for r in items for expr, _ in gsm8k_calculations(r["answer"]) for op in "+-*/" if op in expr}
    assert ops == set("+-*/")
    assert sum("$" in q for q in qs) >= 50  # money problems, not only counts of things


def test_builtin_mixes_a_deterministic_easy_share_with_unique_ids():
    for task in ("hotpotqa", "strategyqa", "gsm8k"):
        a = generate_raw(task, 100, 3)
        assert a == generate_raw(task, 100, 3)
        tasks = builtin_tasks(task, 100, 3)
        assert len({t["id"] for t in tasks}) == 100
    hp = generate_raw("hotpotqa", 100, 3)
    n_easy = sum(r.get("level") == "easy" and r["_id"].startswith("easy-") for r in hp)
    assert n_easy == round(EASY_SHARE * 100)
    # spread through the list, not bunched at one end
    first_half = sum(r["_id"].startswith("easy-") for r in hp[:50])
    assert abs(first_half - n_easy / 2) <= 1


@pytest.mark.parametrize("gen", [generate_easy_hotpotqa, generate_easy_strategyqa, generate_easy_gsm8k])
def test_easy_questions_are_varied(gen):
    items = gen(500, 11)
    qs = [r["question"] for r in items]
    assert len(set(qs)) == len(qs)
    bigrams = [g for q in qs for g in ngrams(words(q), 2)]
    assert len(set(bigrams)) / len(bigrams) >= 0.3
