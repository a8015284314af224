"""The easy family of the builtin generators: official schemas, answers that check out, evidence restated."""

from __future__ import annotations

import re

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
    for r in items:
        task = normalize_strategyqa(r)
        assert task["answer"] in ("yes", "no")
        [fact] = r["facts"]
        step2 = r["decomposition"][-1]
        asked = step2.removeprefix("Is #1 ").removeprefix("at least ").rstrip("?")
        # the question asks exactly the fact when the answer is yes, and with the asked detail changed when no
        stem = r["question"][0].lower() + r["question"][1:]
        if r["answer"]:
            assert asked in fact
        else:
            assert not re.search(rf"\b{re.escape(asked)}\b", fact)
        assert asked in stem
        assert _jaccard3(r["question"], fact) >= (0.5 if r["answer"] else 0.2)


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
