"""Reading rc1_seed.jsonl: one PoolItem per line; a malformed line is an Rc1Error naming file and line."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from rc1.core.errors import Rc1Error
from rc1.core.io import iter_jsonl_lines
from rc1.core.records import PoolItem, pool_item_problem


def iter_pool_items(path: str | Path, piece: tuple[int, int, int] | None = None,
               max_line_bytes: int | None = None) -> Iterator[PoolItem]:
    """The pool items, streamed. `piece`: only that piece of the file (rc1.core.io.line_ranges); a line longer than
    `max_line_bytes` is refused unread (rc1.core.io.iter_jsonl_lines)."""
    for lineno, _, row in iter_jsonl_lines(path, piece, max_line_bytes):
        problem = pool_item_problem(row)
        if problem:
            raise Rc1Error(f"{path}: line {lineno}: not a seed: {problem}")
        yield row
