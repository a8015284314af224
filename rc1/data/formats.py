"""Official record formats -> rc1.core.records.Task. One normalizer per dataset, shared by the file loaders,
the Hugging Face loader and the bundled sample, so every source produces the same records.

A record that does not fit its format raises BadRecord with a message naming the key
("missing key 'answer'", "key 'context': expected a list of [title, [sentences]]"); the caller adds
file and line/item.
"""

from __future__ import annotations

import re
from typing import Any

from rc1.core.records import Task, make_task


class BadRecord(ValueError):
    """A record that does not fit its official format (the message names the key)."""


_CALC_ANNOTATION = re.compile(r"<<[^<>]*>>")
_FINAL = re.compile(r"####\s*(.+?)\s*$", re.DOTALL)


def _require(raw: Any, key: str, types: type, what: str) -> Any:
    if not isinstance(raw, dict):
        raise BadRecord(f"expected a JSON object, got {type(raw).__name__}")
    if key not in raw:
        raise BadRecord(f"missing key {key!r}")
    value = raw[key]
    # bool is an int subclass; a flag must not pass as a number or vice versa
    if not isinstance(value, types) or (isinstance(value, bool) and types is not bool):
        raise BadRecord(f"key {key!r}: expected {what}, got {type(value).__name__}")
    return value


def _text(raw: dict, key: str) -> str:
    value = _require(raw, key, str, "a string")
    if not value.strip():
        raise BadRecord(f"key {key!r}: empty")
    return value


def _str_list(raw: dict, key: str) -> list[str]:
    value = _require(raw, key, list, "a list of strings")
    if not all(isinstance(v, str) for v in value):
        raise BadRecord(f"key {key!r}: expected a list of strings")
    return list(value)


# ---------------------------------------------------------------- HotpotQA
def normalize_hotpotqa(raw: Any) -> Task:
    """{_id, question, answer, supporting_facts: [[title, sent_idx]], context: [[title, [sentences]]], type, level}"""
    source_id = _text(raw, "_id")
    question = _text(raw, "question")
    answer = _require(raw, "answer", str, "a string")
    context = _require(raw, "context", list, "a list of [title, [sentences]]")
    for entry in context:
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                and isinstance(entry[1], list) and all(isinstance(s, str) for s in entry[1])):
            raise BadRecord("key 'context': expected a list of [title, [sentences]]")
    if not answer.strip():
        raise BadRecord("key 'answer': empty (an item with no gold answer cannot be scored)")
    if not any(any(s.strip() for s in sents) for _, sents in context):
        raise BadRecord("key 'context': no paragraph text (HotpotQA's questions are answered from their context)")
    facts = _require(raw, "supporting_facts", list, "a list of [title, sent_idx]")
    titles = {t for t, _ in context}
    for sf in facts:
        if not (isinstance(sf, list) and len(sf) == 2 and isinstance(sf[0], str)
                and isinstance(sf[1], int) and not isinstance(sf[1], bool)):
            raise BadRecord("key 'supporting_facts': expected a list of [title, sent_idx]")
    # the official dev set has a few facts pointing past a paragraph's end; keep those that resolve
    sents = {t: s for t, s in context}
    resolved = [[t, i] for t, i in facts if t in titles and 0 <= i < len(sents[t])]
    return make_task("hotpotqa", source_id, question.strip(), answer.strip(),
                     context=[[t, list(s)] for t, s in context], supporting_facts=resolved)


# ---------------------------------------------------------------- StrategyQA
def normalize_strategyqa(raw: Any) -> Task:
    """{qid, term, description, question, answer: bool, facts: [..], decomposition: [..]}"""
    source_id = _text(raw, "qid")
    question = _text(raw, "question")
    answer = _require(raw, "answer", bool, "true or false")
    facts = _str_list(raw, "facts")
    decomposition = _str_list(raw, "decomposition")
    return make_task("strategyqa", source_id, question.strip(), "yes" if answer else "no",
                     facts=[f.strip() for f in facts if f.strip()],
                     decomposition=[d.strip() for d in decomposition if d.strip()])


# ---------------------------------------------------------------- GSM8K
def gsm8k_final_answer(solution: str) -> str:
    """The number after '####' ('1,200' -> '1200')."""
    m = _FINAL.search(solution)
    if not m:
        raise BadRecord("key 'answer': no '#### <number>' at the end")
    value = m.group(1).strip().replace(",", "").replace("$", "")
    if not re.fullmatch(r"-?\d+(?:\.\d+)?", value):
        raise BadRecord(f"key 'answer': '#### {m.group(1).strip()}' is not a number")
    return value


def gsm8k_steps(solution: str) -> list[str]:
    """The solution lines before '####', without the <<expr=value>> calculator annotations."""
    body = solution.split("####")[0]
    return [_CALC_ANNOTATION.sub("", line).strip() for line in body.splitlines() if line.strip()]


def normalize_gsm8k(raw: Any, source_id: str | int) -> Task:
    """{question, answer: '<solution lines>\\n#### <number>'}; the id is the line number."""
    question = _text(raw, "question")
    solution = _text(raw, "answer")
    return make_task("gsm8k", str(source_id), question.strip(), gsm8k_final_answer(solution),
                     decomposition=gsm8k_steps(solution))
