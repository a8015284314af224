"""The judge prompt and the strict parser of its reply.

One call asks for all seven dimensions (rc1.config.DIMENSIONS) as a single JSON object of numbers in
[0, 1]. JUDGE_SPEC_VERSION is part of every cache key: change it whenever the prompt or the parser
changes meaning, and `rc1 scorecache invalidate --spec <old>` drops the old entries.
"""

from __future__ import annotations

import json
import math
import re

from rc1.config import DIMENSIONS
from rc1.scoring.base import JudgeRequest

JUDGE_SPEC_VERSION = "judge-v1"

RUBRIC = {
    "correctness": "the final answer matches the gold answer (1 = same answer, 0 = wrong or missing)",
    "reasoning": "the visible steps are valid and lead to the answer (0 = none or invalid)",
    "grounding": "claims are supported by the context, tool results or what the user said (0 = invented)",
    "clarification": "asks a clarifying question exactly when information is missing: asking when needed "
                     "and not asking when not needed both score 1; a needless or a missing question scores low",
    "efficiency": "reaches the answer without needless turns, tool calls or length",
    "tool_use": "uses wiki/calc when they help and not when they do not; calls are well-formed",
    "communication": "clear, concise, well-organised, states the final answer explicitly",
}

SYSTEM_PROMPT = (
    "You are a strict, consistent evaluator of an AI assistant's dialogue. You see the task, the gold "
    "answer and the whole dialogue, and you score the ASSISTANT's turns on seven dimensions, each a number "
    "between 0 and 1 (0 = worst, 1 = best):\n"
    + "\n".join(f"- {d}: {RUBRIC[d]}" for d in DIMENSIONS)
    + "\n\nReply with ONE JSON object and nothing else, with exactly these keys and numeric values, e.g.\n"
    + json.dumps({d: 0.5 for d in DIMENSIONS})
)

_FENCE_RE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


class MalformedReply(ValueError):
    """The judge's reply is not one JSON object with the seven dimensions as numbers in [0, 1]."""


def render_context(context, limit: int) -> str:
    """HotpotQA paragraphs ([title, [sentences]]) or plain strings, cut at `limit` characters."""
    parts: list[str] = []
    for item in context or ():
        if isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[1], (list, tuple)):
            parts.append(f"{item[0]}: {' '.join(str(s).strip() for s in item[1])}")
        else:
            parts.append(str(item))
    text = "\n".join(parts)
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def render_dialogue(dialogue) -> str:
    lines = []
    for turn in dialogue:
        role = turn.get("role", "?")
        if role == "tool":
            role = f"tool:{turn.get('name', '?')}"
        content = (turn.get("content") or "").strip()
        calls = turn.get("tool_calls") or []
        if calls:
            rendered = "; ".join(f"{c.get('name')}({json.dumps(c.get('arguments'), ensure_ascii=False)})" for c in calls)
            content = f"{content}\n[calls {rendered}]".strip()
        lines.append(f"[{role}] {content}")
    return "\n".join(lines)


def build_messages(req: JudgeRequest, context_chars: int = 4000) -> list[dict[str, str]]:
    """System + user message for one judge call."""
    clar = "yes: a needed fact was withheld from the question" if req.needs_clarification else \
        "no: the question contains everything needed"
    parts = [
        f"Task type: {req.task}",
        f"Question: {req.question}",
        f"Gold answer: {req.gold_answer}",
        f"Clarification needed: {clar}",
    ]
    if req.hidden_info:
        parts.append(f"Withheld information (what the user reveals if asked): {req.hidden_info}")
    ctx = render_context(req.context, context_chars)
    if ctx:
        parts.append(f"Context excerpt:\n{ctx}")
    parts.append(f"Dialogue:\n{render_dialogue(req.dialogue)}")
    parts.append("Score the assistant now. JSON only.")
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n\n".join(parts)}]


def _candidates(text: str):
    """JSON objects found in `text`: the whole text, fenced blocks, then every '{' that decodes."""
    yield text.strip()
    for block in _FENCE_RE.findall(text):
        yield block.strip()
    decoder = json.JSONDecoder()
    for i, ch in enumerate(text):
        if ch == "{":
            try:
                obj, _ = decoder.raw_decode(text[i:])
            except json.JSONDecodeError:
                continue
            yield obj


def parse_reply(text: str | None) -> dict[str, float]:
    """The seven scores from a judge reply; anything else is a MalformedReply (never a default score)."""
    if not text or not text.strip():
        raise MalformedReply("empty reply")
    obj = None
    for cand in _candidates(text):
        if isinstance(cand, str):
            try:
                cand = json.loads(cand)
            except json.JSONDecodeError:
                continue
        if isinstance(cand, dict) and any(d in cand for d in DIMENSIONS):
            obj = cand
            break
    if obj is None:
        raise MalformedReply(f"no JSON object with judge scores in reply: {text[:80]!r}")
    missing = [d for d in DIMENSIONS if d not in obj]
    if missing:
        raise MalformedReply(f"reply lacks {missing}")
    scores: dict[str, float] = {}
    for d in DIMENSIONS:
        v = obj[d]
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise MalformedReply(f"{d} is not a number: {v!r}")
        v = float(v)
        if not math.isfinite(v) or not 0.0 <= v <= 1.0:
            raise MalformedReply(f"{d} = {v} is outside [0, 1]")
        scores[d] = v
    return scores
