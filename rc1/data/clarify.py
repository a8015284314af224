"""Clarification pool items: remove one fact the question needs and keep it for the user to reveal.

- GSM8K: a number the solution uses (and that occurs once) becomes "some" / "a certain amount" / ...
- HotpotQA: an entity the question names (a supporting title, a quoted name, a capitalized span) becomes
  a vague reference ("X", "that one", ...)
- StrategyQA: the key term (a quoted or capitalized span, else the longest content word), likewise

`removals(task)` lists the candidate spans of an item once; `apply` rewrites the question for one of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from rc1.core.records import Task

_NUMBER = re.compile(r"(?<![\w.,-])(\$)?(\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(\s*%|\s+percent)?(?![\w-]|\.\d|,\d)")
_USED_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?")
_QUOTED = re.compile(r"\"([^\"]{2,80})\"|“([^”]{2,80})”")
_CAPSPAN = re.compile(r"(?<![\w'])([A-Z][\w'.&-]*(?:\s+(?:of|the|de|and|von|van|la|du)\s+[A-Z][\w'.&-]*|\s+[A-Z][\w'.&-]*)*)")
_QWORDS = frozenset("""what which who whom whose when where why how is are was were do does did can could would will
should shall may might has have had in on at for from to of by with as if the a an and but or yes no true
false i it this that these those there here name between""".split())
_STOP = frozenset("""about above after again against along also although always among another because been
before being below beside besides between beyond both cannot could doing during either enough every
having itself might often other others people person rather really should since still their there these
those though through under until usually whether which while within without would years""".split())


@dataclass(frozen=True)
class Removal:
    start: int
    end: int
    kind: str          # number | money | percent | name | term
    text: str          # the removed span as written
    fact: str          # what the user reveals when asked

    def apply(self, question: str, vague: str) -> str:
        replacement = {"money": "a certain amount", "percent": "a certain percentage"}.get(self.kind, vague)
        if self.kind == "number":
            replacement = _number_replacement(question[self.end:])
        out = question[: self.start] + replacement + question[self.end:]
        return out[:1].upper() + out[1:] if self.start == 0 else out


def _number_replacement(after: str) -> str:
    nxt = after.lstrip().split(" ", 1)[0].lower().strip(".,;:?!")
    if nxt == "of":
        return "some"
    if nxt in ("times", "more", "less", "fewer", "as", "percent"):
        return "several"
    if nxt and nxt[0].isalpha():
        return "some"
    return "a certain number"


def _fact_context(question: str, start: int, end: int) -> str:
    """The removed number with the words around it, so the reveal reads naturally ('48 of her friends')."""
    tail = re.match(r"(\s+[\w'-]+){0,3}", question[end:])
    return (question[start:end] + (tail.group(0) if tail else "")).strip().rstrip(".,;:?!")


def number_removals(task: Task) -> list[Removal]:
    q = task["question"]
    used = set(_USED_NUMBER.findall(" ".join(task.get("decomposition") or []).replace(",", "")))
    found = list(_NUMBER.finditer(q))
    values = [m.group(2).replace(",", "") for m in found]
    out = []
    for m, value in zip(found, values):
        if values.count(value) > 1 or value in ("0", "1"):
            continue  # a number that occurs twice would still be in the question
        if used and value not in used:
            continue  # not needed by the solution
        kind = "money" if m.group(1) else "percent" if m.group(3) else "number"
        start, end = m.start(), m.end()
        out.append(Removal(start, end, kind, q[start:end], _fact_context(q, start, end)))
    return out


def _spans(q: str) -> list[tuple[int, int]]:
    spans = []
    for m in _QUOTED.finditer(q):
        spans.append((m.start(), m.end()))
    for m in _CAPSPAN.finditer(q):
        s, e = m.start(1), m.end(1)
        text = m.group(1)
        first = text.split()[0].lower().strip(".,")
        if first in _QWORDS:
            rest = text.split(None, 1)
            if len(rest) < 2:
                continue
            s += len(text) - len(rest[1])
            text = rest[1]
        if len(text) < 3 or any(a <= s < b for a, b in spans):
            continue
        spans.append((s, e))
    return spans


def entity_removals(task: Task) -> list[Removal]:
    """Supporting titles named in the question first, then other quoted/capitalized spans."""
    q = task["question"]
    out: list[Removal] = []
    taken: list[tuple[int, int]] = []
    titles = list(dict.fromkeys(t for t, _ in task.get("supporting_facts") or []))
    for title in sorted(titles, key=len, reverse=True):
        i = q.find(title)
        if i >= 0 and len(title) >= 3 and not any(a < i + len(title) and i < b for a, b in taken):
            taken.append((i, i + len(title)))
    for s, e in _spans(q):
        if not any(a < e and s < b for a, b in taken):
            taken.append((s, e))
    for s, e in sorted(taken):
        text = q[s:e]
        if text.strip('"“”').strip().lower() == task["answer"].strip().lower():
            continue  # hiding the answer itself would make the reveal answer the question
        out.append(Removal(s, e, "name", text, text.strip('"“”')))
    return out


def term_removals(task: Task) -> list[Removal]:
    q = task["question"]
    spans = _spans(q)
    if not spans:
        best = None
        for m in re.finditer(r"[A-Za-z][a-z'-]{5,}", q):
            w = m.group(0).lower()
            if w in _STOP or w in _QWORDS:
                continue
            if best is None or len(m.group(0)) > best[1] - best[0]:
                best = (m.start(), m.end())
        spans = [best] if best else []
    return [Removal(s, e, "term", q[s:e], q[s:e].strip('"“”')) for s, e in spans]


def removals(task: Task) -> list[Removal]:
    if task["task"] == "gsm8k":
        return number_removals(task)
    if task["task"] == "hotpotqa":
        return entity_removals(task)
    return term_removals(task)


VAGUE = ("the one I mentioned", "a certain one", "that one")


def clarify_items(records: Sequence[Mapping[str, Any]], rate: float, seed: int) -> tuple[list[dict], int]:
    """Make a `rate` share of plain Task records (per task) clarification items, deterministically.

    A record that already says whether it needs clarification (a pool item, or a shadow set made with
    clarification) is kept as it is. For the others, rc1.data.clarify finds the facts the question needs;
    items that have one are shuffled with the seed, and the first round(rate x task items) of them get
    that fact removed from the question and kept as hidden_info (what the user reveals when asked).
    Returns (records, number converted)."""
    import random

    out = [dict(r) for r in records]
    plain = [i for i, r in enumerate(out) if "needs_clarification" not in r and not r.get("dialogue")]
    converted = 0
    for task in sorted({out[i]["task"] for i in plain}):
        idx = [i for i in plain if out[i]["task"] == task]
        options = {i: removals(out[i]) for i in idx}
        able = [i for i in idx if options[i]]
        rng = random.Random(f"{seed}:clarify:{task}")
        rng.shuffle(able)
        for i in able[: min(len(able), round(rate * len(idx)))]:
            removal = rng.choice(options[i])
            out[i]["question"] = removal.apply(out[i]["question"], rng.choice(VAGUE))
            out[i]["hidden_info"] = f"Sorry, I left that out: {removal.fact}."
            out[i]["needs_clarification"] = True
            converted += 1
    return out, converted
