"""Shared prompt prefixes for batched prefill: which prompts share a long token prefix, and a bounded store of the
keys/values of such prefixes.

Prompts that begin with the same system prompt and tool schemas (the shadow set's items all carry one system prompt)
share hundreds of tokens. Under causal attention a prefix's keys/values do not depend on what follows it, so they
are computed once and each prompt prefills only the rest on top of them. Matching is on token ids, never on text:
a prefix is reused only for prompts whose ids begin with exactly its ids.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Sequence


def common_length(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix of two id sequences."""
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def shared_prefixes(prompts: Sequence[Sequence[int]], minimum: int) -> list[tuple[int, list[int]]]:
    """Groups of prompts sharing at least `minimum` leading ids: (prefix length, prompt indices) per group of two or
    more prompts, each prefix shorter than every member (so each keeps at least one id of its own). Prompts in id
    order, a group is a run of neighbours whose common prefix is at least `minimum`; its prefix is the shortest of
    those neighbour prefixes, so it is common to all of the run."""
    order = sorted(range(len(prompts)), key=lambda i: prompts[i])
    groups: list[tuple[int, list[int]]] = []
    run, length = [order[0]] if order else [], 0
    for prev, cur in zip(order, order[1:]):
        n = min(common_length(prompts[prev], prompts[cur]), len(prompts[prev]) - 1, len(prompts[cur]) - 1)
        if n >= minimum:
            length = n if len(run) == 1 else min(length, n)
            run.append(cur)
            continue
        if len(run) > 1:
            groups.append((length, run))
        run = [cur]
    if len(run) > 1:
        groups.append((length, run))
    return groups


class PrefixStore:
    """Keys/values of prompt prefixes by their token ids, the `capacity` most recently used kept (so a backend holds at
    most `capacity` prefixes between calls, whatever it evaluates)."""

    def __init__(self, capacity: int):
        self.capacity = max(0, int(capacity))
        self._entries: OrderedDict[tuple[int, ...], Any] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def match(self, ids: Sequence[int]) -> tuple[tuple[int, ...], Any] | None:
        """The longest stored prefix that `ids` begins with and extends by at least one id, with its keys/values."""
        best = None
        for key in self._entries:
            if len(key) < len(ids) and (best is None or len(key) > len(best)) and tuple(ids[:len(key)]) == key:
                best = key
        if best is None:
            return None
        self._entries.move_to_end(best)
        return best, self._entries[best]

    def put(self, ids: Sequence[int], value: Any) -> None:
        key = tuple(ids)
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.capacity:
            self._entries.popitem(last=False)
