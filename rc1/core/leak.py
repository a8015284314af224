"""Leak check: does a pool item pose a shadow (held-out evaluation) question?

A pool item leaks a shadow question when both hold:
1. they share at least one word `ngram`-gram (normalized words of the TR39 skeleton, rc1.core.text.guard_words:
   format characters, accents and look-alike letters folded, numbers kept), and
2. similarity >= `sim`, where similarity is the containment of the shadow question in the part of
   the pool item that lines up with it: the shared n-gram fixes where the shadow question would sit in the
   pool item's user turns; the share of the shadow question's distinct words found in that stretch (widened
   by max(3, 20% of its length) words each side, so insertions are tolerated) or in the seed's
   hidden_info (a clarify template swaps a needed name for "the one I forgot") is the similarity.
   Containment, not Jaccard, because templates wrap the question in their own
   words; aligned, because some templates paste evidence passages next to the question, and a long
   passage would otherwise "contain" most words of an unrelated question.
   A verbatim copy scores 1.0; one or two words changed stay above 0.85; a different question that
   shares a phrase does not.
A shadow question shorter than `ngram` words has no n-gram; it is compared whole: it leaks when its
normalized words occur contiguously in the seed's user turns (containment; a normalized exact match is the
case where they are all of it). So "Is Cholera alive?" pasted into a template is found, in any case or
punctuation.
A pool item also leaks a shadow item when its source_id is the shadow item's id (the same source question,
however it is worded).
The shadow n-grams are kept in a dict, so each pool item costs one lookup per n-gram (no pairwise scan).
`pool_item_leaks` is the one rule: validate_pool counts it into leak_count and the pool builder excludes by it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from rc1.core.text import guard_words, ngrams


@dataclass(frozen=True)
class Leak:
    seed_id: str
    shadow_id: str
    similarity: float
    shared_ngram: str
    seed_question: str
    shadow_question: str
    kind: str = "text"          # text (shared n-gram + containment) | short (whole question) | source_id


class ShadowIndex:
    def __init__(self, questions: Sequence[tuple[str, str]], ngram: int = 5, sim: float = 0.85,
                 ids: Iterable[str] | None = None):
        """`questions`: (shadow id, question text) pairs. `ids`: the shadow source ids a pool item's source_id must
        not be (default: the questions' ids)."""
        self.ngram, self.sim = ngram, sim
        self._short: dict[int, dict[tuple[str, ...], list[int]]] = defaultdict(lambda: defaultdict(list))
        self._short_words: dict[int, list[frozenset[str]]] = defaultdict(list)
        self._ids: list[str] = []
        self._text: list[str] = []
        self._words: list[frozenset[str]] = []
        self._len: list[int] = []
        self._index: dict[tuple[str, ...], list[tuple[int, int]]] = defaultdict(list)
        for sid, q in questions:
            toks = guard_words(q)
            k = len(self._ids)
            self._ids.append(sid)
            self._text.append(q)
            self._words.append(frozenset(toks))
            self._len.append(len(toks))
            if 0 < len(toks) < ngram:
                self._short[len(toks)][tuple(toks)].append(k)
                self._short_words[len(toks)].append(frozenset(toks))
            first: dict[tuple[str, ...], int] = {}
            for pos, g in enumerate(ngrams(toks, ngram)):
                first.setdefault(g, pos)
            for g, pos in first.items():
                self._index[g].append((k, pos))

        self.source_ids = frozenset(str(i) for i in (ids if ids is not None else self._ids))
        self._by_id = {sid: k for k, sid in enumerate(self._ids)}

    def __len__(self) -> int:
        return len(self._ids)

    def __bool__(self) -> bool:
        return bool(self._ids or self.source_ids)

    def similarity(self, k: int, tokens: Sequence[str], start: int, extra: frozenset[str] = frozenset()) -> float:
        """Containment of shadow question k in tokens[start - slack : start + len + slack] (plus `extra`)."""
        n = self._len[k]
        slack = max(3, n // 5)
        window = set(tokens[max(0, start - slack): max(0, start + n + slack)]) | extra
        sw = self._words[k]
        return len(sw & window) / len(sw) if sw else 0.0

    def match(self, seed_id: str, tokens: Sequence[str], question: str | Callable[[], str] = "",
              extra: Sequence[str] = ()) -> list[Leak]:
        """The shadow questions a pool item question (its normalized words `tokens`) leaks; usually none.
        `extra`: words that belong to the question wherever they sit (a pool item's hidden_info: a clarify
        template replaces a name by "the one I forgot" and the user supplies it when asked).
        `question` (text, or a function giving it) is only used to describe a leak."""
        index = self._index
        starts: dict[int, dict[int, tuple[str, ...]]] = {}
        pool_item_grams = ngrams(tokens, self.ngram)
        if not index.keys().isdisjoint(pool_item_grams):  # usually disjoint: one C-level pass, no Python loop
            for pos, g in enumerate(pool_item_grams):
                for k, q_pos in index.get(g, ()):
                    starts.setdefault(k, {}).setdefault(pos - q_pos, g)
        out = []
        present = set(tokens) if self._short else set()
        for n, grams in self._short.items():  # questions shorter than the n-gram: compared whole
            if not any(ws <= present for ws in self._short_words[n]):  # some question's words all occur
                continue
            short_grams = ngrams(tokens, n) if len(tokens) >= n else ()
            for g in short_grams:
                for k in grams.get(g, ()):
                    if k not in starts and all(leak.shadow_id != self._ids[k] for leak in out):
                        text = question() if callable(question) else question
                        out.append(Leak(seed_id, self._ids[k], 1.0, " ".join(g), text, self._text[k], "short"))
        extra_set = frozenset(extra)
        for k, aligned in starts.items():
            best, gram = max((self.similarity(k, tokens, s, extra_set), g) for s, g in aligned.items())
            if best >= self.sim:
                text = question() if callable(question) else question
                out.append(Leak(seed_id, self._ids[k], round(best, 4), " ".join(gram), text, self._text[k]))
        return out

    def pool_item_leaks(self, pool_item: Mapping[str, Any], user_words: Sequence[str] | None = None) -> list[Leak]:
        """Every shadow item a pool item leaks: by source id, and by the question rule on its user turns (plus
        hidden_info). `user_words`: the seed's user-turn words when the caller has them already."""
        from rc1.core.records import posed_question, user_text

        if user_words is None:
            user_words = guard_words(user_text(pool_item))  # type: ignore[arg-type]
        hidden = pool_item.get("hidden_info")
        text = lambda: posed_question(pool_item)  # type: ignore[arg-type]  # noqa: E731
        out = self.match(str(pool_item["id"]), user_words, text, guard_words(hidden) if hidden else ())
        src = str(pool_item.get("source_id", ""))
        if src in self.source_ids and all(leak.shadow_id != src for leak in out):
            k = self._by_id.get(src)
            out.append(Leak(str(pool_item["id"]), src, 1.0, "", text(), self._text[k] if k is not None else "",
                            "source_id"))
        return out
