"""Task-correctness of an answer: EM/F1 for HotpotQA, yes/no for StrategyQA, the number for GSM8K."""

from __future__ import annotations

import re
import string
from collections import Counter

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def normalize_answer(s: str) -> str:
    """SQuAD/HotpotQA normalisation: lower, drop punctuation and articles, squeeze spaces."""
    s = str(s).lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


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


def extract_yes_no(text: str) -> str | None:
    words = normalize_answer(text).split()
    for w in words[:3] + words[::-1]:  # a leading verdict wins, else the last one said
        if w in ("yes", "true"):
            return "yes"
        if w in ("no", "false"):
            return "no"
    return None


def extract_number(text: str) -> float | None:
    found = _NUMBER.findall(str(text))
    if not found:
        return None
    try:
        return float(found[-1].replace(",", ""))
    except ValueError:
        return None


def gold_yes_no(gold) -> str:
    if isinstance(gold, bool):
        return "yes" if gold else "no"
    return extract_yes_no(str(gold)) or normalize_answer(str(gold))


def is_correct(task: str, pred: str, gold, f1_threshold: float = 0.8) -> bool:
    """The success criterion every stage uses (shadow run, evaluation, heuristic judge)."""
    if not pred:
        return False
    if task == "gsm8k":
        p, g = extract_number(pred), extract_number(str(gold))
        return p is not None and g is not None and abs(p - g) < 1e-6
    if task == "strategyqa":
        return extract_yes_no(pred) == gold_yes_no(gold)
    return exact_match(pred, str(gold)) or f1(pred, str(gold)) >= f1_threshold
