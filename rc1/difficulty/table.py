"""The metrics of a whole pool as columns (numpy), built in one streaming pass."""

from __future__ import annotations

import sys
from array import array
from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np
from tqdm import tqdm

from rc1.core.console import no_bar
from rc1.difficulty.metrics import METRICS, pool_item_metrics
from rc1.core.records import PoolItem
from rc1.core.text import count_tokens

_BLOCK = 65536


@dataclass
class MetricTable:
    ids: list[str] = field(default_factory=list)
    tasks: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=object))
    columns: dict[str, np.ndarray] = field(default_factory=dict)
    flags: list[list[str]] = field(default_factory=list)
    # a block of rows as Python lists: indexing a list is much faster than a numpy scalar + .item() per value, and
    # the writers read rows in order; a block, not whole columns (30M Python numbers at 3M pool items)
    _block: tuple[int, dict] | None = field(default=None, init=False, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.ids)

    def row(self, i: int) -> dict:
        start, lists = self._block or (0, None)
        if lists is None or not 0 <= i - start < _BLOCK:
            start = i - i % _BLOCK
            lists = {name: self.columns[name][start:start + _BLOCK].tolist() for name in METRICS}
            self._block = (start, lists)
        out = {name: col[i - start] for name, col in lists.items()}
        out["needs_clarification"] = bool(out["needs_clarification"])
        out["ambiguity_flags"] = self.flags[i]
        return out


def concat_tables(tables: list[MetricTable]) -> MetricTable:
    """The tables of consecutive pieces of a pool, as one table (what one pass over the whole pool gives)."""
    if len(tables) == 1:
        return tables[0]
    return MetricTable(
        ids=[i for t in tables for i in t.ids],
        tasks=np.concatenate([t.tasks for t in tables]),
        columns={k: np.concatenate([t.columns[k] for t in tables]) for k in tables[0].columns},
        flags=[f for t in tables for f in t.flags],
    )


def build_table(pool_items: Iterable[PoolItem], counter: Callable[[str], int] = count_tokens,
                progress: bool = False) -> MetricTable:
    """Memory per seed stays small at millions of seeds: metric values go to typed arrays (8 bytes each),
    task names and flag lists are shared objects, only the id is a string of its own."""
    ids: list[str] = []
    tasks: list[str] = []
    flags: list[list[str]] = []
    shared: dict = {}
    floats = {"connector_density", "clue_overlap"}
    cols = {m: array("d" if m in floats else "q") for m in METRICS}
    appends = [(name, cols[name].append) for name in METRICS]
    for pool_item in tqdm(pool_items, desc="difficulty", unit=" seeds", disable=no_bar(progress), file=sys.stderr,
                          mininterval=2):
        m = pool_item_metrics(pool_item, counter)
        ids.append(str(pool_item["id"]))
        task = str(pool_item["task"])
        tasks.append(shared.setdefault(task, task))
        fl = m["ambiguity_flags"]
        flags.append(shared.setdefault(tuple(fl), fl))
        for name, append in appends:
            append(m[name])
    return MetricTable(
        ids=ids,
        tasks=np.array(tasks, dtype=object),
        columns={k: np.frombuffer(v, dtype=np.float64 if k in floats else np.int64).copy() if len(v)
                 else np.zeros(0, dtype=np.float64 if k in floats else np.int64) for k, v in cols.items()},
        flags=flags,
    )
