"""Leak check: does a pool seed pose a shadow (held-out evaluation) question?

A seed leaks a shadow question when both hold:
1. they share at least one word `ngram`-gram (normalized words, numbers kept), and
2. similarity >= `sim`, where similarity is the containment of the shadow question in the part of
   the seed that lines up with it: the shared n-gram fixes where the shadow question would sit in the
   seed's user turns; the share of the shadow question's distinct words found in that stretch (widened
   by max(3, 20% of its length) words each side, so insertions are tolerated) or in the seed's
   hidden_info (a clarify template swaps a needed name for "the one I forgot") is the similarity.
   Containment, not Jaccard, because templates wrap the question in their own
   words; aligned, because some templates paste evidence passages next to the question, and a long
   passage would otherwise "contain" most words of an unrelated question.
   A verbatim copy scores 1.0; one or two words changed stay above 0.85; a different question that
   shares a phrase does not.
The shadow n-grams are kept in a dict, so each seed costs one lookup per n-gram (no pairwise scan).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Sequence

from rc1.text import ngrams, words


@dataclass(frozen=True)
class Leak:
    seed_id: str
    shadow_id: str
    similarity: float
    shared_ngram: str
    seed_question: str
    shadow_question: str

    def as_dict(self) -> dict:
        return self.__dict__.copy()


class ShadowIndex:
    def __init__(self, questions: Sequence[tuple[str, str]], ngram: int = 5, sim: float = 0.85):
        """`questions`: (shadow id, question text) pairs."""
        self.ngram, self.sim = ngram, sim
        self._ids: list[str] = []
        self._text: list[str] = []
        self._words: list[frozenset[str]] = []
        self._len: list[int] = []
        self._index: dict[tuple[str, ...], list[tuple[int, int]]] = defaultdict(list)
        for sid, q in questions:
            toks = words(q)
            k = len(self._ids)
            self._ids.append(sid)
            self._text.append(q)
            self._words.append(frozenset(toks))
            self._len.append(len(toks))
            first: dict[tuple[str, ...], int] = {}
            for pos, g in enumerate(ngrams(toks, ngram)):
                first.setdefault(g, pos)
            for g, pos in first.items():
                self._index[g].append((k, pos))

    def __len__(self) -> int:
        return len(self._ids)

    def similarity(self, k: int, tokens: Sequence[str], start: int, extra: frozenset[str] = frozenset()) -> float:
        """Containment of shadow question k in tokens[start - slack : start + len + slack] (plus `extra`)."""
        n = self._len[k]
        slack = max(3, n // 5)
        window = set(tokens[max(0, start - slack): max(0, start + n + slack)]) | extra
        sw = self._words[k]
        return len(sw & window) / len(sw) if sw else 0.0

    def match(self, seed_id: str, tokens: Sequence[str], question: str | Callable[[], str] = "",
              extra: Sequence[str] = ()) -> list[Leak]:
        """The shadow questions a seed question (its normalized words `tokens`) leaks; usually none.
        `extra`: words that belong to the question wherever they sit (a seed's hidden_info: a clarify
        template replaces a name by "the one I forgot" and the user supplies it when asked).
        `question` (text, or a function giving it) is only used to describe a leak."""
        index = self._index
        starts: dict[int, dict[int, tuple[str, ...]]] = {}
        for pos, g in enumerate(ngrams(tokens, self.ngram)):
            for k, q_pos in index.get(g, ()):
                starts.setdefault(k, {}).setdefault(pos - q_pos, g)
        out = []
        extra_set = frozenset(extra)
        for k, aligned in starts.items():
            best, gram = max((self.similarity(k, tokens, s, extra_set), g) for s, g in aligned.items())
            if best >= self.sim:
                text = question() if callable(question) else question
                out.append(Leak(seed_id, self._ids[k], round(best, 4), " ".join(gram), text, self._text[k]))
        return out
