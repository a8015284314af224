"""The one answer extractor and the one success criterion (reward, heuristic judge, shadow run, evaluate).

    fa = final_answer(text)          # FinalAnswer(span, marked, hedged) of an assistant's final turn
    is_correct(task, fa.span, gold)  # EM/F1 for HotpotQA, yes/no for StrategyQA, the number for GSM8K

Extraction (task-free and linear in the text: a few C-level regex passes whose every quantifier is bounded by
one line, and Python loops only over distinct values, stopping at the second):
- a marker line is one that starts (after spaces, `*`, `#`, `>` and `-`) with "Answer" or "Final answer"
  followed by a colon (markdown bold allowed: "**Answer:** X"), or that contains "####" (GSM8K style);
  "Final answer" alone on its line marks the lines after it;
- the answer span is everything after the last marker, to the end of the turn (lines after the answer line
  are part of the answer: the answer must be the last thing said); without a marker it is the content of
  the last `\\boxed{...}`, else the last non-empty line. Markers are looked for in the last TAIL_CHARS of the
  turn, and a span longer than MAX_ANSWER_CHARS is no answer: the work is bounded whatever the input;
- the text is hedged, and the span is not an answer, when its statements of the answer disagree -- marker lines,
  every `\\boxed{}` and every "the answer is X" in the tail ("Answer: 36 ... Answer: 42", "Answer: 53\\n
  \\boxed{48}", "The answer is 53.\\n\\boxed{48}", "Answer: \\boxed{53} \\boxed{48}") -- or when it opens with a
  yes/no verdict that the answer contradicts ("No. ... Answer: yes").
Correctness of a span (is_correct): GSM8K wants exactly one distinct number (after the last "=" when there is
one): "36\\n42" and "36 or 42" are wrong whichever is gold; StrategyQA wants one verdict, wherever the span says
it ("yes or no", "yes/no" and "Yes, though arguably no" are wrong); HotpotQA is EM (against the gold's own form
first: "Simon and Garfunkel" matches itself) or F1 >= 0.8,
and a span offering alternatives ("X or Y", "X / Y", "X, Y", "X (Y)", "X and Y", "X vs Y", "X & Y", "X = Y") is wrong
when a part of it alone would be right and something else is said beside it ("Victor Kelmore, Wynbury" is not
"Victor Kelmore", whatever F1 says of the whole).
"""

from __future__ import annotations

import re
import string
from collections import Counter, deque
from dataclasses import dataclass
from typing import Any

_PUNCT = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(?:a|an|the)\b")
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
_BARE_NUMBER = re.compile(r"[ \t*$\u00a3\u20ac]*-?\d[\d,]*(?:\.\d+)?[ \t*]*[.!]?[ \t]*")
# what joins alternatives in a HotpotQA span: "X or Y", "X / Y", "X; Y", "X, Y", "X (Y)", "X and Y", "X vs Y", "X & Y",
# "X = Y"
_ALTERNATIVES = re.compile(r"\s(?:or|and/or|and|vs\.?|versus)\s|[/;,&()\[\]=]", re.IGNORECASE)
MAX_ALTERNATIVE_CUTS = 12  # separators of a span looked at (a span is at most MAX_ANSWER_CHARS)
_OPENING_VERDICT = re.compile(r"[ \t*]*(yes|no|true|false)[ \t*]*(?:[.,!;:\n]|$)", re.IGNORECASE)
_VERDICT_WORD = re.compile(r"\b(?:yes|true|no|false)\b")
_VERDICTS = {"yes": "yes", "true": "yes", "no": "no", "false": "no"}
TAIL_CHARS = 8192         # markers are looked for in the last 8 KB of a turn (the answer is the last thing said)
MAX_ANSWER_CHARS = 1000   # a longer span is not an answer
# a marker line: "Answer: X" / "**Final answer:** X" / "- answer: X" (group 1 = X), "Final answer" alone on its
# line (group 1 = ""), or "#### X" anywhere (group 2 = X). Linear: every quantifier is bounded by its line.
_BOX = re.compile(r"\\boxed\{([^}\n]{0,%d})\}" % MAX_ANSWER_CHARS)
# "the answer is X" / "final answer is X" in prose: a stated answer too (X to the end of its sentence)
_PHRASE = re.compile(r"\banswer is[ \t:*]{0,8}([^\n]{1,200})", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?;](?:\s|$)")
PHRASE_WORDS = 8
_MARK = re.compile(r"^[ \t*#>\-]*(?:final answer|answer)[ \t*]*(?:[:\uff1a][ \t*]*([^\n]*)|(?=\n|$))"
                   r"|####[ \t]*([^\n]*)", re.IGNORECASE | re.MULTILINE)


def normalize_answer(s: str) -> str:
    """SQuAD/HotpotQA normalisation: lower, drop punctuation and articles, squeeze spaces."""
    return " ".join(_ARTICLES.sub(" ", str(s).lower().translate(_PUNCT)).split())


def exact_match(pred: str, gold: str) -> bool:
    return normalize_answer(pred) == normalize_answer(gold)


def f1(pred: str, gold: str) -> float:
    p, g = normalize_answer(pred).split(), normalize_answer(gold).split()
    if not p or not g:
        return float(p == g)
    common = Counter(p) & Counter(g)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision, recall = same / len(p), same / len(g)
    return 2 * precision * recall / (precision + recall)


# ---------------------------------------------------------------- numbers and verdicts (linear scanners)
def _float(token: str) -> float | None:
    try:
        return float(token.replace(",", ""))
    except ValueError:
        return None


def numbers(text: str) -> list[float]:
    """Every number in `text` in order ("1,200" -> 1200.0, "-3.5" -> -3.5)."""
    return [v for v in map(_float, _NUMBER.findall(str(text))) if v is not None]


def extract_number(text: str) -> float | None:
    """The last number in `text` (calculator results, gold strings); None when there is none."""
    found = numbers(text)
    return found[-1] if found else None


def _distinct_numbers(text: str, stop_at: int = 2) -> set[float]:
    """The distinct numbers of `text`, stopping once `stop_at` are found (C-level scan, then a short loop)."""
    out: set[float] = set()
    for token in set(_NUMBER.findall(text)):
        v = _float(token)
        if v is not None:
            out.add(v)
            if len(out) >= stop_at:
                break
    return out


def the_number(span: str) -> float | None:
    """The single number a GSM8K answer span states (after its last "="); None when it states none or several."""
    span = str(span)
    cut = span.rfind("=")
    found = _distinct_numbers(span[cut + 1:] if cut >= 0 else span)
    return found.pop() if len(found) == 1 else None


def _leading_verdict(words: list[str]) -> str | None:
    """The verdict among the first three words; None when none or both are there."""
    said = {_VERDICTS[w] for w in words[:3] if w in _VERDICTS}
    return said.pop() if len(said) == 1 else None


def extract_yes_no(text: str) -> str | None:
    """A leading verdict (first three words) wins, else the last one said; "yes or no" is no verdict."""
    text = str(text)
    words = normalize_answer(text[:200]).split()
    if any(w in _VERDICTS for w in words[:3]):
        return _leading_verdict(words)
    said = _VERDICT_WORD.findall(text.lower())
    return _VERDICTS[said[-1]] if said else None


def gold_yes_no(gold) -> str:
    if isinstance(gold, bool):
        return "yes" if gold else "no"
    return extract_yes_no(str(gold)) or normalize_answer(str(gold))


# ---------------------------------------------------------------- the extractor
@dataclass(frozen=True)
class FinalAnswer:
    span: str       # the answer as stated ("" when there is none or it is hedged)
    marked: bool    # stated after an "Answer:" / "Final answer:" / "####" marker
    hedged: bool    # the text states more than one distinct final answer


def _clean(span: str) -> str:
    return span.strip().strip("*").strip().rstrip(".").strip()


def _boxed(text: str) -> str | None:
    start = text.rfind("\\boxed{")
    if start < 0:
        return None
    end = text.find("}", start)
    return text[start + 7:end].strip() if end > start else None


def _stated_key(answer: str) -> str:
    """What two statements must share to state the same answer: the number (after the last "=") when there is
    one, else the words."""
    number = the_number(answer)
    return f"#{number}" if number is not None else normalize_answer(answer)


def _agree(a: str, b: str) -> bool:
    """Whether a prose statement ("the answer is X because ...") agrees with a stated key: the same number, or
    one's words inside the other's."""
    if a == b:
        return True
    if a.startswith("#") or b.startswith("#"):
        return False
    return bool(a and b) and (f" {a} " in f" {b} " or f" {b} " in f" {a} ")


def _phrase_key(said: str) -> str:
    """The answer a prose "the answer is X." states ("" when it is not a statement of an answer): X is its
    sentence, at most PHRASE_WORDS words, and the sentence ends its line or is followed by a box or a marker
    ("The answer is not obvious, but ..." states nothing)."""
    if "\\boxed{" in said:
        return ""   # its box is a statement already
    end = _SENTENCE_END.search(said)
    answer, rest = (said[:end.start()], said[end.end():].strip()) if end else (said, "")
    if rest and not rest.startswith("\\boxed{") and not _MARK.match(rest):
        return ""
    answer = _clean(answer)
    if not answer or len(answer.split()) > PHRASE_WORDS:
        return ""
    return _stated_key(answer)


def _hedged_statements(text: str) -> bool:
    """Statements of the final answer that disagree: marker lines ("Answer: X", "#### X"; a marker line with a box
    states what is boxed, and a number written beside the box), every \\boxed{} and every "the answer is X" of `text` (bare markers state nothing)."""
    keys: set[str] = set()
    for a, b in set(_MARK.findall(text)):
        stated = (a or b).strip()
        if "\\boxed{" in stated:   # its boxes are statements; a number beside them is one too
            stated = _BOX.sub(" ", stated)
            stated = stated if _distinct_numbers(stated) else ""
        if stated:
            keys.add(_stated_key(_clean(stated)))
            if len(keys) > 1:
                return True
    for boxed in set(_BOX.findall(text)):
        if boxed.strip():
            keys.add(_stated_key(boxed.strip()))
            if len(keys) > 1:
                return True
    phrases = set()
    for said in set(_PHRASE.findall(text)):
        key = _phrase_key(said)
        if key:
            phrases.add(key)
        if len(phrases) > 4:
            break
    for p in phrases:
        if any(not _agree(p, k) for k in keys):
            return True
        keys = keys or {p}
    return False


def final_answer(text: str) -> FinalAnswer:
    """The final answer of an assistant turn (see the module docstring for the rules)."""
    if not text:
        return FinalAnswer("", False, False)
    text = str(text)
    tail = text[-TAIL_CHARS:]
    if len(text) > TAIL_CHARS:  # start the window at a line start, so "^" means what it says
        cut = tail.find("\n")
        tail = tail[cut + 1:] if cut >= 0 else ""
    last = deque(_MARK.finditer(tail), maxlen=1)
    if last:
        m = last[0]
        group = 1 if m.group(1) is not None else 2 if m.group(2) is not None else 0
        span = tail[m.start(group) if group else m.end():]
        boxed = _boxed(span)
        span = span if boxed is None else boxed
        marked = True
    else:
        boxed = _boxed(text)
        if boxed is None:
            stripped = text.rstrip()
            boxed = stripped[stripped.rfind("\n") + 1:]
        span = boxed
        marked = "\\boxed{" in text
    hedged = _hedged_statements(tail)
    if len(span) > 4 * MAX_ANSWER_CHARS:  # cheap bound before any per-character work
        return FinalAnswer("", marked, False)
    span = _clean(span)
    if len(span) > MAX_ANSWER_CHARS:
        return FinalAnswer("", marked, False)
    hedged = hedged or _contradicting_opening(text, span)
    return FinalAnswer("" if hedged else span, marked, hedged)


def _contradicting_opening(text: str, span: str) -> bool:
    """The turn opens with a bare verdict or a bare number that its final answer contradicts ("No. ... Answer:
    yes", "27. ... Answer: 28"): two answers, one of them sure to match."""
    span_words = normalize_answer(span[:200]).split()
    if span_words and span_words[0] in _VERDICTS:
        opening = _OPENING_VERDICT.match(text[:40])  # "No. ...", "Yes, ..." (not "No doubt", "Is it true")
        return bool(opening) and _VERDICTS[opening.group(1).lower()] != _VERDICTS[span_words[0]]
    first = text.lstrip()[:200].split("\n", 1)[0]
    if _BARE_NUMBER.fullmatch(first):
        said, final = the_number(first), the_number(span)
        return said is not None and final is not None and said != final
    return False


def extract_answer(text: str) -> str:
    """The answer span of `text` ("" when none or hedged): '... Answer: Paris' -> 'Paris', '#### 72' -> '72'."""
    return final_answer(text).span


def states_one_answer(task: str, span: str) -> bool:
    """Whether an answer span commits to one answer: one line, and for GSM8K at most one number (after the last
    "="), for StrategyQA not both verdicts anywhere. A span that fails this is wrong whatever the gold says."""
    if len(span) > MAX_ANSWER_CHARS or "\n" in span.strip():
        return False
    if task == "gsm8k":
        return the_number(span) is not None or not numbers(span)
    if task == "strategyqa":   # one verdict, wherever said: "Yes, though arguably no" and "yes/no" assert both
        return len({_VERDICTS[w] for w in _VERDICT_WORD.findall(span.lower())}) <= 1
    return True


def is_correct(task: str, pred: str, gold, f1_threshold: float = 0.8) -> bool:
    """The success criterion every stage uses, on an answer span (shadow run, evaluation, heuristic judge)."""
    if not pred or not states_one_answer(task, pred):
        return False
    if task == "gsm8k":
        p, g = the_number(pred), extract_number(str(gold))
        return p is not None and g is not None and abs(p - g) < 1e-6
    if task == "strategyqa":
        return extract_yes_no(pred) == gold_yes_no(gold)
    gold = str(gold)
    if exact_match(pred, gold):
        return True
    if _part_alone_right(pred, gold, f1_threshold):
        return False  # "X, <gold>" / "<gold> (X)": offering alternatives is a hedge, whatever F1 says of the whole
    return f1(pred, gold) >= f1_threshold


def _part_alone_right(pred: str, gold: str, f1_threshold: float) -> bool:
    """A run of the span's separator-joined parts (not all of it) is right alone while the rest says something:
    the span offers the right answer among others. Runs keep the gold's own separators ("Tom and Jerry, Spike")."""
    cuts = [(m.start(), m.end()) for m in _ALTERNATIVES.finditer(pred)][:MAX_ALTERNATIVE_CUTS]
    if not cuts:
        return False
    starts = [0] + [e for _, e in cuts]
    ends = [s for s, _ in cuts] + [len(pred)]
    for i, a in enumerate(starts):
        for b in ends[i:]:
            part, rest = pred[a:b], pred[:a] + " " + pred[b:]
            if not normalize_answer(rest) or not normalize_answer(part):
                continue
            if exact_match(part, gold) or f1(part, gold) >= f1_threshold:
                return True
    return False


def success_of(task: str, gold: Any, needs_clarification: bool, clarifications: int, final_answer: str) -> bool:
    return is_correct(task, final_answer, gold) and (not needs_clarification or clarifications >= 1)
