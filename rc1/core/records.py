"""The two record shapes every stage passes around (DESIGN.md, 'Data').

Task: one normalized dataset item.
    {id, task, question, answer, context, supporting_facts, facts, decomposition}
    - id: "<task>:<source id>" (HotpotQA _id, StrategyQA qid, GSM8K line number)
    - answer: str (HotpotQA span, "yes"/"no" for StrategyQA, the number after '####' for GSM8K)
    - context: list of [title, [sentences]] (HotpotQA; [] otherwise)
    - supporting_facts: list of [title, sent_idx] (HotpotQA; [] otherwise)
    - facts, decomposition: list[str] (StrategyQA; GSM8K: decomposition = the solution steps)

PoolItem: one line of rc1_seed.jsonl (the pool).
    {id, task, source_id, template_id, role, style, dialogue: [{role, content, name?}],
     needs_clarification, hidden_info, tools, expected_tool_calls, answer, context}
    - source_question (optional): the source item's question as the dataset has it (the held-out split is
      keyed by it: rc1.train.sampler.source_key)
    - dialogue roles: system | user | assistant | tool; the last turn is the user's (the policy answers)
    - hidden_info: what the user reveals if asked (None unless needs_clarification)
    - expected_tool_calls: [{name: wiki|calc, arguments: {...}}]
"""

from __future__ import annotations

import math
from itertools import repeat
from typing import Any, Iterable, Mapping, TypedDict

from rc1.core.config import TASKS

POOL_ITEM_KEYS = ("id", "task", "source_id", "template_id", "role", "style", "dialogue", "needs_clarification",
             "hidden_info", "tools", "expected_tool_calls", "answer", "context")
DIALOGUE_ROLES = ("system", "user", "assistant", "tool")
DIFFICULTIES = ("easy", "medium", "hard")


class Task(TypedDict):
    id: str
    task: str
    question: str
    answer: str
    context: list
    supporting_facts: list
    facts: list[str]
    decomposition: list[str]


class Turn(TypedDict, total=False):
    role: str
    content: str
    name: str


class PoolItem(TypedDict):
    id: str
    task: str
    source_id: str
    template_id: str
    role: str
    style: str
    dialogue: list[Turn]
    needs_clarification: bool
    hidden_info: str | None
    tools: list[str]
    expected_tool_calls: list[dict[str, Any]]
    answer: str
    context: list


def make_task(task: str, source_id: str, question: str, answer: str, *, context=None, supporting_facts=None,
              facts=None, decomposition=None) -> Task:
    return Task(id=f"{task}:{source_id}", task=task, question=question, answer=str(answer),
                context=context or [], supporting_facts=supporting_facts or [], facts=facts or [],
                decomposition=decomposition or [])


def context_problem(context: Any) -> str | None:
    """Why `context` is not a list of [title, [sentences]] (or [title, text]) paragraphs, or None."""
    if context is None:
        return None
    if not isinstance(context, list):
        return "context must be a list of [title, [sentences]]"
    for i, para in enumerate(context):
        if not (isinstance(para, list) and len(para) == 2 and isinstance(para[0], str)):
            return f"context[{i}] must be [title, [sentences]]"
        body = para[1]
        if not (isinstance(body, str) or (isinstance(body, list) and all(map(isinstance, body, repeat(str))))):
            return f"context[{i}] sentences must be strings"
    return None


def _text_problem(row: dict, keys: tuple[str, ...]) -> str | None:
    for k in keys:
        if not isinstance(row.get(k), str) or not row[k].strip():
            return f"{k} must be a non-empty string"
    if row.get("task") not in TASKS:
        return f"task {row.get('task')!r} is not one of {', '.join(TASKS)}"
    return None


def task_problem(row: Any) -> str | None:
    """Why `row` is not a valid Task (id, task, question, answer, optional context), or None."""
    if not isinstance(row, dict):
        return "not a JSON object"
    missing = [k for k in ("id", "task", "question", "answer") if k not in row]
    if missing:
        return f"missing key(s) {missing}"
    if isinstance(row["answer"], float) and not math.isfinite(row["answer"]):
        return f"answer {row['answer']} is not a finite number"
    if isinstance(row["answer"], (int, float)) and not isinstance(row["answer"], bool):
        row = {**row, "answer": str(row["answer"])}
    return _text_problem(row, ("id", "question", "answer")) or context_problem(row.get("context"))


def pool_item_problem(row: Any) -> str | None:
    """Why `row` is not a valid PoolItem, or None when it is (used by every reader of rc1_seed.jsonl: preflight's
    validators, `rc1 train`, the gate)."""
    if not isinstance(row, dict):
        return "not a JSON object"
    missing = [k for k in POOL_ITEM_KEYS if k not in row]
    if missing:
        return f"missing key(s) {missing}"
    if not isinstance(row["dialogue"], list) or not row["dialogue"]:
        return "dialogue must be a non-empty list"
    for i, turn in enumerate(row["dialogue"]):
        if not isinstance(turn, dict) or turn.get("role") not in DIALOGUE_ROLES or not isinstance(turn.get("content"), str):
            return f"dialogue[{i}] must be {{role: {'|'.join(DIALOGUE_ROLES)}, content: str}}"
    if not isinstance(row["needs_clarification"], bool):
        return "needs_clarification must be true or false"
    problem = _text_problem(row, ("id", "answer")) or context_problem(row["context"])
    if problem:
        return problem
    if row["hidden_info"] is not None and not isinstance(row["hidden_info"], str):
        return "hidden_info must be a string or null"
    if not isinstance(row["tools"], list) or not all(isinstance(t, str) for t in row["tools"]):
        return "tools must be a list of names"
    calls = row["expected_tool_calls"]
    if not isinstance(calls, list) or not all(isinstance(c, dict) and isinstance(c.get("name"), str) for c in calls):
        return "expected_tool_calls must be a list of {name, arguments}"
    return None


def pool_item_difficulty(pool_item: Mapping[str, Any], *, fallback: str | None) -> str | None:
    """A pool item's difficulty bucket: `difficulty` (balanced.jsonl; a mapping's `bucket`) or `bucket`; `fallback` when
    it has none of DIFFICULTIES (the caller says what an unbucketed pool item counts as)."""
    d = pool_item.get("difficulty", pool_item.get("bucket"))
    if isinstance(d, Mapping):
        d = d.get("bucket")
    return d if d in DIFFICULTIES else fallback


def turns_text(pool_item: PoolItem, roles: Iterable[str]) -> str:
    roles = tuple(roles)
    return "\n".join(t["content"] for t in pool_item["dialogue"] if t.get("role") in roles)


def user_text(pool_item: PoolItem) -> str:
    """The user turns: what distinct-n, TTR, 3-gram KL and Zipf are measured on."""
    return turns_text(pool_item, ("user",))


def posed_question(pool_item: PoolItem) -> str:
    """The question a pool item poses: its user turns plus `hidden_info` (a clarify template moves a
    needed fact there, and a leaked question must still be recognised without it)."""
    hidden = pool_item.get("hidden_info") or ""
    return user_text(pool_item) + ("\n" + hidden if hidden else "")


def record_question(row: dict) -> str:
    """The question of a shadow record: a Task's `question`, or a PoolItem's question."""
    if isinstance(row.get("question"), str):
        return row["question"]
    if isinstance(row.get("dialogue"), list):
        return posed_question(row)  # type: ignore[arg-type]
    return ""
