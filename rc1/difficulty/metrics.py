"""Per-item difficulty metrics of a pool item (pure functions of its own fields). Each one is defined in
rc1.difficulty.distribution.DEFINITIONS, which the report repeats next to the values; clue_overlap is 0 when question or
support has no 3-gram."""

from __future__ import annotations

import functools
import re
from typing import Callable

from rc1.core.records import PoolItem
from rc1.core.text import count_tokens, dialogue_tokens, ngrams, words
from rc1.core.records import user_text

METRICS = ("len_tokens", "turns", "tool_hops", "entities", "ops_numeric", "connector_density", "coref_pronouns",
           "clue_overlap", "ambiguity", "needs_clarification")

_CAP = r"[A-Z][\w'\u2019.-]*"
_SPAN = re.compile(rf"{_CAP}(?:\s+(?:of|the|de|von|van|la|du|del|da)\s+{_CAP}|\s+{_CAP})*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_FUNCTION_CAPS = frozenset("""a an the what which who whom whose when where why how is are was were do does did
can could would will should shall may might must has have had in on at for from to of by with as if i hi hello
please yes no and but or so then also it this that these those there here he she they we you my our your
given suppose assume let find compute calculate answer question""".split())
_OPS = re.compile(r"\*\*|[-+*/×÷^%]")
_OP_WORDS = frozenset("""plus minus times twice half double triple thrice quarter third percent percentage
each per every total sum difference product ratio average remaining left more less fewer""".split())
_CONNECTORS = frozenset("""and but or because since so therefore thus hence then after before while when
although though however whereas if unless which who whom whose where also both either neither than same
until once meanwhile""".split())
_PRONOUNS = frozenset("he she it they him her his hers its their theirs them this these those".split())
_VAGUE = frozenset("some several few many certain various approximately roughly around about most".split())
_FIRST_WORD = re.compile(r"\W*([^\W\d_]+)")
_DANGLING_START = frozenset("it this that they he she these those its his her their".split())


def support_text(pool_item: PoolItem) -> str:
    """The evidence of a pool item, from what the pool item carries:
    - supporting sentences when the pool item has `supporting_facts` ([title, sentence index]) and a context;
    - else the context paragraphs the expected `wiki` calls name (by title), when any match;
    - else `facts` / `decomposition` / `solution` when present (StrategyQA, GSM8K);
    - else the whole context."""
    ctx = [p for p in pool_item.get("context") or [] if isinstance(p, (list, tuple)) and len(p) == 2]
    paras = {str(title): sents if isinstance(sents, list) else [str(sents)] for title, sents in ctx}
    sf = pool_item.get("supporting_facts") or []
    if sf and paras:
        out = [paras[t][i] for t, i in (f for f in sf if isinstance(f, (list, tuple)) and len(f) == 2)
               if t in paras and isinstance(i, int) and 0 <= i < len(paras[t])]
        if out:
            return " ".join(map(str, out))
    queries = [str((c.get("arguments") or {}).get("query", "")) for c in pool_item.get("expected_tool_calls") or []
               if isinstance(c, dict) and c.get("name") == "wiki"]
    named = [" ".join(map(str, paras[q])) for q in queries if q in paras]
    if named:
        return " ".join(named)
    for key in ("facts", "decomposition", "solution"):
        val = pool_item.get(key)
        if val:
            return " ".join(map(str, val)) if isinstance(val, list) else str(val)
    return " ".join(" ".join(map(str, s)) for s in paras.values())


def entities(question: str) -> int:
    spans = [s for s in _SPAN.findall(question) if s.split()[0].lower().strip(".") not in _FUNCTION_CAPS
             or len(s.split()) > 1]
    return len(spans) + len(_NUMBER.findall(question))


def ops_numeric(pool_item: PoolItem, q_words: list[str], question: str) -> int:
    ops = 0
    for c in pool_item.get("expected_tool_calls") or []:
        if isinstance(c, dict) and c.get("name") == "calc":
            expr = str((c.get("arguments") or {}).get("expression", "")).replace(" ", "")
            ops += len(_OPS.findall(re.sub(r"(?<![\d).])-", "", expr)))  # a minus after an operator is a sign
    ops += sum(1 for w in q_words if w in _OP_WORDS)
    ops += len(re.findall(r"(?<=[\d\s])[+*/×÷](?=[\s\d])", question))
    return ops


@functools.lru_cache(maxsize=2048)
def _trigrams(text: str) -> frozenset:
    # the same evidence recurs across a pool's pool items (one source item, several templates): tokenize it once
    return frozenset(ngrams(words(text), 3))


def clue_overlap(q_words: list[str], support: str) -> float:
    a = set(ngrams(q_words, 3))
    b = _trigrams(support)
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def ambiguity_flags(pool_item: PoolItem, q_words: list[str], question: str) -> list[str]:
    flags = []
    if pool_item.get("hidden_info"):
        flags.append("hidden_info")
    if any(w in _VAGUE for w in q_words) or "a few" in question.lower():
        flags.append("vague_quantity")
    last_user = next((t["content"] for t in reversed(pool_item["dialogue"]) if t.get("role") == "user"), "")
    first = _FIRST_WORD.match(last_user)
    if first and first.group(1).lower() in _DANGLING_START:
        flags.append("dangling_reference")
    if question.count("?") > 1:
        flags.append("multiple_questions")
    if re.search(r"\bor\b[^.?!]*\?", question):
        flags.append("alternative_question")
    return flags


def pool_item_metrics(pool_item: PoolItem, counter: Callable[[str], int] = count_tokens) -> dict:
    """Every metric of one seed (the keys of METRICS plus `ambiguity_flags`)."""
    question = user_text(pool_item)
    q_words = words(question)
    flags = ambiguity_flags(pool_item, q_words, question)
    return {
        "len_tokens": dialogue_tokens(pool_item["dialogue"], counter),
        "turns": sum(1 for t in pool_item["dialogue"] if t.get("role") != "system"),
        "tool_hops": len(pool_item.get("expected_tool_calls") or []),
        "entities": entities(question),
        "ops_numeric": ops_numeric(pool_item, q_words, question),
        "connector_density": round(100.0 * sum(1 for w in q_words if w in _CONNECTORS) / len(q_words), 4)
        if q_words else 0.0,
        "coref_pronouns": sum(1 for w in q_words if w in _PRONOUNS),
        "clue_overlap": round(clue_overlap(q_words, support_text(pool_item)), 4),
        "ambiguity_flags": flags,
        "ambiguity": len(flags),
        "needs_clarification": bool(pool_item["needs_clarification"]),
    }
