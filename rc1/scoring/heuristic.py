"""A deterministic judge computed from the dialogue and the gold data (dev mode only, never live).

It has to be a sensible judge, because dev-mode shadow runs and weight calibration rank candidates
with it: a correct answer beats a wrong one, asking is right exactly when clarification is needed,
tools count when they help, short and grounded beats long and invented. It follows the dialogue
conventions of rc1.dialogue and the success criterion of rc1.answers.
"""

from __future__ import annotations

import re

from rc1.answers import f1, is_correct
from rc1.dialogue import analyze
from rc1.scoring.base import JudgeRequest
from rc1.scoring.spec import render_context

HELPFUL_TOOLS = {"gsm8k": {"calc"}, "hotpotqa": {"wiki"}, "strategyqa": {"wiki"}}
_WORD = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")
_STEP = re.compile(
    r"(=|\d\s*[-+*/x×]\s*\d|\bbecause\b|\bsince\b|\bso\b|\btherefore\b|\bthus\b|\bhence\b|\bfirst\b|"
    r"\bthen\b|\bnext\b|\bwhich means\b|\bmeaning\b|^\s*\d+[.)]|\bstep\b)",
    re.IGNORECASE | re.MULTILINE,
)
_COMPUTED = re.compile(r"=\s*\$?\s*(-?\d+(?:\.\d+)?)")
_SENT = re.compile(r"(?<=[.!?])\s+|\n+")
_STOP = frozenset("""
a an the and or but if of to in on at by for with from as is are was were be been being it its this that
these those there here what which who whom whose when where why how do does did done not no yes can could
would should will shall may might must have has had i you he she they we me him her them us my your his
their our so then than also just very more most some any all each both about into over after before
answer final let lets think step steps first next therefore thus hence because since means need needs
know known using use used look looked check checked question ask asking please thanks thank sure okay ok
""".split())


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _content(text: str) -> set[str]:
    return {w for w in _words(text) if (len(w) >= 3 or w[0].isdigit()) and w not in _STOP}


def _clip(x: float) -> float:
    return round(min(1.0, max(0.0, x)), 4)


def heuristic_scores(req: JudgeRequest) -> dict[str, float]:
    dialogue = list(req.dialogue)
    first_user = next((i for i, t in enumerate(dialogue) if t.get("role") == "user"), -1)
    st = analyze(dialogue, prefix_len=first_user + 1)
    episode = dialogue[first_user + 1:]
    asst_text = "\n".join((t.get("content") or "") for t in episode if t.get("role") == "assistant")
    tool_text = "\n".join((t.get("content") or "") for t in episode if t.get("role") == "tool")
    user_text = "\n".join((t.get("content") or "") for t in dialogue if t.get("role") == "user")
    called = [c.get("name") for t in episode if t.get("role") == "assistant" for c in (t.get("tool_calls") or [])]
    helpful = HELPFUL_TOOLS.get(req.task, set())
    tools_help = req.task in ("gsm8k", "hotpotqa") or bool(req.context)

    # correctness: the shared success criterion, partial F1 credit for HotpotQA spans
    if not st.answered or not st.final_answer:
        correctness = 0.0
    elif is_correct(req.task, st.final_answer, req.gold_answer):
        correctness = 1.0
    elif is_correct(req.task, st.final_text, req.gold_answer):
        correctness = 0.8  # right, but not stated as a clear final answer
    elif req.task == "hotpotqa":
        correctness = 0.7 * f1(st.final_answer, req.gold_answer)
    else:
        correctness = 0.0

    # clarification: ask exactly when needed (once is best); each needless question halves it again
    c = st.clarifications
    if req.needs_clarification:
        clarification = 0.0 if c == 0 else max(0.5, 1.0 - 0.2 * (c - 1))
    else:
        clarification = 1.0 / (1 + c)

    # tool use: a relevant tool when tools help, none when they do not, not too many either way
    n_calls = len(called)
    if tools_help:
        if helpful & set(called):
            tool_use = 1.0 - 0.1 * max(0, n_calls - 4)
        elif n_calls:
            tool_use = 0.5
        else:
            tool_use = 0.4 if correctness >= 1.0 else 0.2
    else:
        tool_use = 1.0 if n_calls == 0 else max(0.4, 0.85 - 0.15 * (n_calls - 1))

    # efficiency: turns beyond the ideal episode, length beyond a budget, repetition
    ideal = 1 + (2 if req.needs_clarification else 0) + (2 if tools_help else 0)
    extra = max(0, st.turns - ideal)
    asst_words = len(asst_text.split())
    sents = [x.strip().lower() for x in _SENT.split(asst_text) if x.strip()]
    unique = len(set(sents)) / len(sents) if sents else 1.0
    length_factor = 1.0 / (1.0 + max(0, asst_words - 120) / 120)
    efficiency = (1.0 / (1.0 + 0.25 * extra)) * length_factor * (0.5 + 0.5 * unique)
    if not st.answered:
        efficiency *= 0.5

    # grounding: share of the assistant's content words found in what it was given or told
    support = _content(" ".join([render_context(req.context, 1 << 20), tool_text, user_text, req.question,
                                  req.hidden_info or "", req.gold_answer]))
    support |= set(_COMPUTED.findall(asst_text.lower()))  # results of visible arithmetic are derived, not invented
    said = _content(asst_text)
    grounding = (len(said & support) / len(said)) / 0.8 if said else 0.3
    if not st.answered:
        grounding *= 0.6

    # reasoning: visible steps (explanations, equations, tool hops), discounted when the answer is wrong
    steps = len(_STEP.findall(asst_text)) + min(2, n_calls) * 0.5
    reasoning = 0.15 + 0.85 * min(1.0, steps / 3)
    if correctness < 0.5:
        reasoning *= 0.6
    if not st.answered:
        reasoning *= 0.5

    # communication: an explicit final answer, a readable length, no repetition
    final_words = len(st.final_text.split())
    if not st.answered:
        communication = 0.1
    else:
        marked = bool(re.search(r"(?:^|\n)\s*(?:final answer|answer)\s*[:：]|####", st.final_text, re.IGNORECASE))
        length_ok = 1.0 if 1 <= final_words <= 120 else max(0.0, 1 - (final_words - 120) / 400)
        communication = 0.2 + 0.35 * marked + 0.3 * length_ok + 0.15 * unique

    return {
        "correctness": _clip(correctness),
        "reasoning": _clip(reasoning),
        "grounding": _clip(grounding),
        "clarification": _clip(clarification),
        "efficiency": _clip(efficiency),
        "tool_use": _clip(tool_use),
        "communication": _clip(communication),
    }
