"""A deterministic judge computed from the dialogue and the gold data (dev mode only, never live).

It has to be a sensible judge, because dev-mode shadow runs and weight calibration rank candidates
with it: a correct answer beats a wrong one, asking is right exactly when clarification is needed,
tools count when they help, short and grounded beats long and invented. It follows the dialogue
conventions of rc1.scoring.dialogue and the one success criterion of rc1.scoring.answers (the same extractor as reward
and evaluation: a hedge with several answers is wrong, there is no second, looser reading of the text).

It must not pay for gaming (the judge_robustness preflight step checks a fixed attack suite against it):
- reasoning counts distinct sentences that carry a derivation (an equation, or a connector together with at
  least three content words), so stuffing "because so therefore thus" adds nothing;
- grounding is the share of the assistant's content words found in what it was given (context, tool results
  other than "error: ..." ones, the user's turns; never the gold answer), and like reasoning and communication it is scaled down by the
  length budget, and more than QUOTES_FREE context sentences copied verbatim count as noise, so a context dump
  behind a wrong answer does not buy it a better score;
- arithmetic grounds only what it derives, and only behind an answer it reaches ("Answer: 48 = 53" grounds nothing);
  a false equation with a whole left side ("So 48 = 53", "6 * 8 = 53") is no derivation and costs like forged text;
- an answer alone is grounded only by what its own tool calls returned, at most half; a reply that states no
  answer (":", "Thought process:", "Solution": the master keys of One Token to Fool LLM-as-a-Judge) is unanswered;
- text written to the judge rather than the user (a fake "[user] ..." turn, "Gold answer: ...", a score or a
  JSON verdict) and sentences stuffed with three or more connectors cost reasoning, grounding and
  communication;
- assistant `<think>` blocks are removed first (rc1.scoring.dialogue.strip_think), as the live judge never sees them;
- every regex here is linear (no quantified whitespace on both sides of an optional token, no `^\s*` under
  MULTILINE), so a long adversarial completion costs one pass.
"""

from __future__ import annotations

import itertools
import re

from rc1.scoring.answers import extract_yes_no, is_correct, states_one_answer, the_number
from rc1.scoring.dialogue import analyze, strip_think
from rc1.scoring.base import JudgeRequest
from rc1.scoring.spec import render_context
from rc1.data.tools import calc

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
_PLAIN_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_ALGEBRA = re.compile(r"\*[ \t]*(?:[-+*/)]|$)")   # "11x+15", "2x": an x that is a variable, not a times sign
_LAST_WORD = re.compile(r"[A-Za-z]+$")
_ARITH_WORDS = frozenset("of times plus minus by over x power squared cubed root percent sqrt per and".split())
# "= 3 + 1", "= 5A": the right side is an expression or a term, not a result
_RHS_GOES_ON = re.compile(r"[A-Za-z(]|[ \t]*(?:[-+*/×÷x][ \t]*[$(]?[ \t]*\d|\(|\.?\d)")
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


def _equations(text: str) -> tuple[set[str], set[float], int]:
    """(the number words the equations of `text` derive, those results, how many of its equations are false).
    "6 * 8 = 48" derives 48; "6 * 8 = 53" and a bare "48 = 53" derive nothing (an equation only grounds its result
    when its left side evaluates to it) and are false when their left side is whole ("Answer: 48 = 53", "So 48 = 53";
    not "20% of 50 = 10", "2^3 = 8", "177 cucumbers * 2 = 354", where what is written before belongs to it);
    "4 = 3 + 1" (an expression on the right) is neither."""
    out: set[str] = set()
    results: set[float] = set()
    false = 0
    for m in itertools.islice(_COMPUTED.finditer(text), MAX_EQUATIONS):
        lhs = _LHS.search(text, max(0, m.start() - LHS_CHARS), m.start())
        run = lhs.group(0) if lhs else ""
        raw = run[max((s.end() for s in _LHS_SEP.finditer(run)), default=0):]
        run = raw.lstrip(" \t*/×÷xX+")
        expr = run.replace(",", "").replace("$", "").replace("x", "*").replace("X", "*").strip()
        computed = any(op in expr for op in "+-*/×÷−")
        if (not computed and not _PLAIN_NUMBER.fullmatch(expr)) or _RHS_GOES_ON.match(text, m.end()) \
                or _ALGEBRA.search(expr):
            continue
        result = float(m.group(1).replace(",", ""))
        # a result written with d decimals may be rounded to them ("10 / 3 = 3.33"); a whole number must be exact
        tol = 0.5 * 10.0 ** -len(m.group(2)) if m.group(2) else 1e-9 * max(1.0, abs(result))
        try:
            value = float(calc(expr) if computed else expr)
        except ValueError:  # calc's "error: ..." text ("11x+15": algebra, not arithmetic): neither true nor false
            continue
        ok = abs(value - result) <= tol
        if ok and computed:
            out |= set(_words(m.group(1)))
            results.add(result)
        elif not ok and run[:1] not in ("-", "−") \
                and _whole_left(text, m.start() - len(raw) - 1, bool(raw[:len(raw) - len(run)].strip(" \t"))):
            false += 1
    return out, results, false


def _whole_left(text: str, end: int, operator_first: bool) -> bool:
    """Whether an equation's left side, which starts after text[end], is all of it: nothing before it on its line
    but a label ("Answer:") or a word that is not arithmetic ("So", "total"; not "of", "times", "x", "squared"). A
    side that opens with an operator ("* 3" in "20 minutes/day * 3") continues what is before it, unless a label is."""
    head = text[max(0, end - 40):end + 1].rstrip(" \t")
    prev = head[-1:]
    if not prev or prev == "\n" or prev == ":":
        return True
    word = None if operator_first else _LAST_WORD.search(head)
    return bool(word) and word.group(0).lower() not in _ARITH_WORDS


def _states_something(task: str, span: str) -> bool:
    if task == "gsm8k":
        return the_number(span) is not None
    if task == "strategyqa":
        return extract_yes_no(span) is not None
    return any(ch.isalnum() for ch in span)


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
        elif (_EQUATION.search(sent) and (len(seen) >= 3 or not _equations(sent)[2])) \
                or (connectors and len(_content(sent)) >= 3):
            seen.add(key)   # a sentence with a false equation ("48 = 53") derives nothing (past 3, steps are saturated)
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
    # an answer states something: a number for GSM8K, a verdict for StrategyQA, a word for HotpotQA (not ":", "Solution"
    # or "Thought process:", the master keys of One Token to Fool LLM-as-a-Judge)
    answered = st.answered and bool(st.final_text.strip()) and _states_something(req.task, st.final_answer)

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
    derived, results, false_equations = _equations(asst_text)
    forged = _forged(asst_text) + stuffed + pasted + false_equations   # arithmetic that does not hold is noise too
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
    # results of visible, correct arithmetic are derived, not invented: credited when that arithmetic supports the
    # stated answer (a numeric final answer is among its results), not behind an answer it does not reach
    final_number = the_number(st.final_answer) if answered else None
    if final_number is None or final_number in results:
        support |= derived
    said = _content(asst_text)
    claims = said - _content(req.question)  # restating the question is not evidence of anything
    if claims and not said - _content(st.final_answer):
        # a bare answer shows nothing it rests on (the answer is no evidence for itself): only what its own tool calls
        # returned supports it, and at most half ("Answer: <a title from the context>" alone is not grounded)
        grounding = 0.5 * len(claims & _content(tool_text)) / len(claims)
    elif claims:
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
