"""The judge prompt asks for the seven dimensions; the reply parser accepts only a complete, in-range object."""

import json

import pytest

from rc1.config import DIMENSIONS
from rc1.scoring.base import JudgeRequest
from rc1.scoring.spec import JUDGE_SPEC_VERSION, MalformedReply, build_messages, parse_reply

GOOD = {d: 0.5 for d in DIMENSIONS}


def _req(**kw):
    base = dict(item_id="i", candidate_id="c", task="hotpotqa", question="Which lake is next to Hollin?",
                gold_answer="Lake Morrow", needs_clarification=True, hidden_info="I mean the town of Hollin.",
                dialogue=({"role": "user", "content": "Which lake?"},
                          {"role": "assistant", "content": "", "tool_calls": [{"name": "wiki", "arguments": {"query": "Hollin"}}]},
                          {"role": "tool", "name": "wiki", "content": "Hollin lies on Lake Morrow."},
                          {"role": "assistant", "content": "Answer: Lake Morrow"}),
                context=(["Hollin", ["Hollin lies on the shore of Lake Morrow."]],))
    base.update(kw)
    return JudgeRequest(**base)


def test_prompt_carries_everything_the_judge_needs():
    system, user = build_messages(_req())
    assert system["role"] == "system" and user["role"] == "user"
    for d in DIMENSIONS:
        assert d in system["content"]
    text = user["content"]
    for part in ("Which lake is next to Hollin?", "Gold answer: Lake Morrow", "Clarification needed: yes",
                 "I mean the town of Hollin.", "Hollin lies on the shore of Lake Morrow.", "[tool:wiki]",
                 'wiki({"query": "Hollin"})', "[assistant] Answer: Lake Morrow"):
        assert part in text, part
    assert JUDGE_SPEC_VERSION


def test_context_excerpt_is_cut():
    long_ctx = (["T", ["word " * 2000]],)
    _, user = build_messages(_req(context=long_ctx), context_chars=300)
    assert len(user["content"]) < 1200


@pytest.mark.parametrize("text", [
    json.dumps(GOOD),
    "```json\n" + json.dumps(GOOD) + "\n```",
    "Here are my scores: " + json.dumps({**GOOD, "rationale": "fine"}) + " Thanks.",
    json.dumps({**GOOD, "correctness": 1, "tool_use": 0}),
])
def test_parser_accepts_a_complete_object(text):
    scores = parse_reply(text)
    assert set(scores) == set(DIMENSIONS)
    assert all(isinstance(v, float) and 0 <= v <= 1 for v in scores.values())


@pytest.mark.parametrize("text", [
    "", None, "The answer is good.", "{not json}",
    json.dumps({k: v for k, v in GOOD.items() if k != "grounding"}),
    json.dumps({**GOOD, "correctness": 1.2}),
    json.dumps({**GOOD, "correctness": -0.1}),
    json.dumps({**GOOD, "correctness": "0.8"}),
    json.dumps({**GOOD, "correctness": True}),
    json.dumps({**GOOD, "correctness": None}),
    '{"correctness": NaN, "reasoning": 0.5}',
    '{"verdict": "good", "notes": {"a": 1}}',
])
def test_parser_rejects_anything_else_as_malformed(text):
    with pytest.raises(MalformedReply):
        parse_reply(text)
