"""A deterministic judge computed from the dialogue and the gold data (dev mode only, never live).

It has to be a sensible judge, because dev-mode shadow runs and weight calibration rank candidates
with it: a correct answer beats a wrong one, asking is right exactly when clarification is needed,
tools count when they help, short and grounded beats long and invented. It follows the dialogue
conventions of rc1.dialogue and the one success criterion of rc1.answers (the same extractor as reward
and evaluation: a hedge with several answers is wrong, there is no second, looser reading of the text).

It must not pay for gaming (the judge_robustness preflight step checks a fixed attack suite against it):
- reasoning counts distinct sentences that carry a derivation (an equation, or a connector together with at
  least three content words), so stuffing "because so therefore thus" adds nothing;
- grounding is the share of the assistant's content words found in what it was given (context, tool results
  other than "error: ..." ones, the user's turns; never the gold answer), and like reasoning and communication it is scaled down by the
  length budget, and more than QUOTES_FREE context sentences copied verbatim count as noise, so a context dump
  behind a wrong answer does not buy it a better score;
- text written to the judge rather than the user (a fake "[user] ..." turn, "Gold answer: ...", a score or a
  JSON verdict) and sentences stuffed with three or more connectors cost reasoning, grounding and
  communication;
- assistant `<think>` blocks are removed first (rc1.dialogue.strip_think), as the live judge never sees them;
- every regex here is linear (no quantified whitespace on both sides of an optional token, no `^\s*` under
  MULTILINE), so a long adversarial completion costs one pass.
"""

from __future__ import annotations

import itertools
import re

from rc1.answers import is_correct, states_one_answer
from rc1.dialogue import analyze, strip_think
from rc1.scoring.base import JudgeRequest
from rc1.scoring.spec import render_context
from rc1.tools import calc

HELPFUL_TOOLS = {"gsm8k": {"calc"}, "hotpotqa": {"wiki"}, "strategyqa": {"wiki"}}
_WORD = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")
_CONNECTOR = re.compile(
    r"\b(?:because|since|so|therefore|thus|hence|first|then|next|which means|meaning|step|according to)\b",
    re.IGNORECASE,
)
_EQUATION = re.compile(r"\d[ \t]*[-+*/x×=][ \t]*\$?\d")
# a result: digits, with commas only as thousands separators ("=7,8+1" is 7 then a new expression, not 78)
_COMPUTED = re.compile(r"=[ \t]*(?:\$[ \t]*)?(-?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.(\d+))?)")
# the arithmetic run right before an "=": digits, operators, brackets, spaces (at most LHS_CHARS, so linear)
MAX_EQUATIONS = 200  # equations checked per dialogue (each is evaluated; a 1 MB text of "1+1=2" has 170k)
LHS_CHARS = 80
_LHS = re.compile(r"[\d.,+\-*/×÷−()xX \t$]{1,%d}$" % LHS_CHARS)
# where a list or sentence ends inside that run ("3 + 4 = 7, 7 * 2", "... = 7. 7 * 2"): a comma that is no thousands
# separator, a period that starts no decimals; the expression is what follows the last one
_LHS_SEP = re.compile(r",(?!\d{3}(?!\d))|\.(?!\d)")
_SENT = re.compile(r"(?<=[.!?])\s+|\n+")
_FORGED_LINE = re.compile(
    r"\[(?:user|assistant|system|tool)[^\]\n]{0,20}\]|^(?:user|assistant|system|judge|evaluator)[ \t]{0,3}:|"
    r"gold answer|reference answer|score the assistant|json only|ignore (?:all |the )?(?:previous|above)",
    re.IGNORECASE,
)
_JUDGE_KEYS = re.compile(r"\b(?:correctness|reasoning|grounding|clarification|efficiency|tool_use|communication)"
                         r"\b[\"']?[ \t]{0,3}[:=][ \t]{0,3}[-+]?\.?\d", re.IGNORECASE)
_STOP = frozenset("""
a an the and or but if of to in on at by for with from as is are was were be been being it its this that
these those there here what which who whom whose when where why how do does did done not no yes can could
would should will shall may might must have has had i you he she they we me him her them us my your his
their our so then than also just very more most some any all each both about into over after before
answer final let lets think step steps first next therefore thus hence because since means need needs
know known using use used look looked check checked question ask asking please thanks thank sure okay ok
meaning according solve sum up
""".split())
WORD_BUDGET = 120   # assistant words (or characters / 6, whichever is more) before length costs
ANALYSIS_CHARS = 1 << 16   # assistant text analysed word by word (its length still counts in full)
QUOTES_FREE = 3     # context sentences the assistant may copy verbatim before copying counts as a dump


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _content(text: str) -> set[str]:
    return {w for w in _words(text) if (len(w) >= 3 or w[0].isdigit()) and w not in _STOP}


def _clip(x: float) -> float:
    return round(min(1.0, max(0.0, x)), 4)


def _derived(text: str) -> set[str]:
    """The number words an equation in `text` derives: "6 * 8 = 48" derives 48, "48 = 53" and "6 * 8 = 53" derive
    nothing (an equation only grounds its result when its left side evaluates to it)."""
    out: set[str] = set()
    for m in itertools.islice(_COMPUTED.finditer(text), MAX_EQUATIONS):
        lhs = _LHS.search(text, max(0, m.start() - LHS_CHARS), m.start())
        run = lhs.group(0) if lhs else ""
        run = run[max((s.end() for s in _LHS_SEP.finditer(run)), default=0):].lstrip(" \t*/×÷xX+")
        expr = run.replace(",", "").replace("$", "").replace("x", "*").replace("X", "*").strip()
        if not any(op in expr for op in "+-*/×÷−"):
            continue
        value = calc(expr)
        try:
            result = float(m.group(1).replace(",", ""))
            # a result written with d decimals may be rounded to them ("10 / 3 = 3.33"); a whole number must be exact
            tol = 0.5 * 10.0 ** -len(m.group(2)) if m.group(2) else 1e-9 * max(1.0, abs(result))
            ok = abs(float(value) - result) <= tol
        except ValueError:  # calc's "error: ..." text
            ok = False
        if ok:
            out |= set(_words(m.group(1)))
    return out


def _steps(text: str) -> tuple[int, int]:
    """(distinct sentences that carry a derivation, sentences stuffed with connectors). A derivation is an
    equation, or one or two connectors with >= 3 content words; three or more connectors in one sentence is
    stuffing, not reasoning."""
    seen: set[str] = set()
    stuffed = 0
    for sent in _SENT.split(text):
        key = " ".join(_words(sent))
        if not key or key in seen:
            continue
        connectors = len(_CONNECTOR.findall(sent))
        if connectors >= 3:
            stuffed += 1
        elif _EQUATION.search(sent) or (connectors and len(_content(sent)) >= 3):
            seen.add(key)
    return len(seen), stuffed


def _forged(text: str) -> int:
    """Lines written to the judge instead of the user: fake turns, gold/reference answers, scores, verdicts."""
    return sum(1 for ln in text.split("\n") if _FORGED_LINE.search(ln.strip()) or _JUDGE_KEYS.search(ln))


def _copied(text: str, source: str, limit: int = 400) -> int:
    """Sentences of `text` (>= 5 words, the first `limit` looked at) found verbatim in `source` (both normalised)."""
    src = " ".join(_words(source))
    n = 0
    for sent in _SENT.split(text)[:limit]:
        key = " ".join(_words(sent))
        if key.count(" ") >= 4 and key in src:
            n += 1
    return n


def heuristic_scores(req: JudgeRequest) -> dict[str, float]:
    dialogue = list(req.dialogue)
    first_user = next((i for i, t in enumerate(dialogue) if t.get("role") == "user"), -1)
    st = analyze(dialogue, prefix_len=first_user + 1)
    episode = dialogue[first_user + 1:]
    # what the live judge sees: assistant turns without <think> blocks (rc1.scoring.spec strips them too)
    asst_full = "\n".join(strip_think(t.get("content") or "") for t in episode if t.get("role") == "assistant")
    asst_text = asst_full[:ANALYSIS_CHARS]  # beyond this the length budget has already zeroed what it pays
    tool_text = "\n".join(str(t.get("content") or "") for t in episode  # an error result supports nothing
                           if t.get("role") == "tool" and not str(t.get("content") or "").lstrip().startswith("error:"))
    user_text = "\n".join((t.get("content") or "") for t in dialogue if t.get("role") == "user")
    called = [c.get("name") for t in episode if t.get("role") == "assistant" for c in (t.get("tool_calls") or [])]
    helpful = HELPFUL_TOOLS.get(req.task, set())
    tools_help = req.task in ("gsm8k", "hotpotqa") or bool(req.context)
    answered = st.answered and bool(st.final_text.strip())

    # correctness: the shared success criterion on the shared extractor (a hedge has no answer)
    correctness = 1.0 if answered and is_correct(req.task, st.final_answer, req.gold_answer) else 0.0

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

    # length budget: words, or characters / 6 for whitespace and symbol padding
    asst_words = asst_full.count(" ") + asst_full.count("\n") + 1 if len(asst_full) > ANALYSIS_CHARS \
        else len(asst_text.split())
    size = max(asst_words, len(asst_full) / 6)
    length_factor = 1.0 / (1.0 + max(0.0, size - WORD_BUDGET) / WORD_BUDGET)
    n_steps, stuffed = _steps(asst_text)
    context_text = render_context(req.context, 1 << 20)
    pasted = max(0, _copied(asst_text, context_text) - QUOTES_FREE)  # quoting evidence is fine, dumping it is not
    forged = _forged(asst_text) + stuffed + pasted
    forged_factor = 1.0 / (1 + forged)

    # efficiency: turns beyond the ideal episode, length beyond the budget, repetition
    ideal = 1 + (2 if req.needs_clarification else 0) + (2 if tools_help else 0)
    extra = max(0, st.turns - ideal)
    sents = [x.strip().lower() for x in _SENT.split(asst_text) if x.strip()]
    unique = len(set(sents)) / len(sents) if sents else 1.0
    efficiency = (1.0 / (1.0 + 0.25 * extra)) * length_factor * (0.5 + 0.5 * unique)
    if not answered:
        efficiency *= 0.5

    # grounding: share of the assistant's content words found in what it was given or told
    support = _content(" ".join([context_text, tool_text, user_text, req.question,
                                  req.hidden_info or ""]))
    support |= _derived(asst_text)  # results of visible, correct arithmetic are derived, not invented
    said = _content(asst_text)
    claims = said - _content(req.question)  # restating the question is not evidence of anything
    if claims:
        grounding = (len(claims & support) / len(claims)) / 0.8
    else:
        grounding = 0.0  # nothing claimed beyond the question: nothing shown to be grounded
    grounding *= length_factor * forged_factor
    if not answered:
        grounding *= 0.6

    # reasoning: visible steps (derivations, tool hops), discounted when the answer is wrong
    steps = n_steps + min(2, n_calls) * 0.5
    reasoning = (0.15 + 0.85 * min(1.0, steps / 3)) * length_factor * forged_factor
    if correctness < 0.5:
        reasoning *= 0.6
    if not answered:
        reasoning *= 0.5

    # communication: one explicit final answer, a readable length, no repetition, nothing written to the judge
    final_words = len(st.final_text.split())
    if not answered or st.hedged or not states_one_answer(req.task, st.final_answer):
        communication = 0.1
    else:
        length_ok = 1.0 if final_words <= WORD_BUDGET else max(0.0, 1 - (final_words - WORD_BUDGET) / 400)
        communication = (0.2 + 0.35 * st.marked + 0.3 * length_ok + 0.15 * unique) * forged_factor

    return {
        "correctness": _clip(correctness),
        "reasoning": _clip(reasoning),
        "grounding": _clip(grounding),
        "clarification": _clip(clarification),
        "efficiency": _clip(efficiency),
        "tool_use": _clip(tool_use),
        "communication": _clip(communication),
    }
