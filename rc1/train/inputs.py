"""What training reads besides its config: the pool and the fresh items for the non-pool share, each record
checked by the pool's validators (rc1.core.records) before anything heavy is loaded; a bad line names file and line."""

from __future__ import annotations

from pathlib import Path

from rc1.core.errors import Rc1Error
from rc1.core.io import iter_jsonl
from rc1.core.records import pool_item_problem, task_problem
from rc1.train.sampler import plain_pool_item


def load_pool(path: str | Path) -> list[dict]:
    """Pool items of a pool file (rc1_seed.jsonl / balanced.jsonl); a bad line names file and line (exit 2)."""
    pool_items = []
    for lineno, row in enumerate(iter_jsonl(path), 1):
        problem = pool_item_problem(row)
        if problem:
            raise Rc1Error(f"{path}: record {lineno}: {problem}")
        pool_items.append(row)
    if not pool_items:
        raise Rc1Error(f"{path}: no pool items")
    return pool_items


def load_fresh(path: str | Path | None) -> list[dict]:
    """Fresh items for the non-pool share: Task records (turned into plain prompts) or PoolItems, each checked
    by the pool's validators (rc1.core.records); a bad line names file and line (exit 2)."""
    if not path:
        return []
    out = []
    seen: dict[str, int] = {}
    for lineno, row in enumerate(iter_jsonl(path), 1):
        is_pool_item = isinstance(row, dict) and "dialogue" in row
        problem = pool_item_problem(row) if is_pool_item else task_problem(row)
        if problem:
            raise Rc1Error(f"{path}: record {lineno}: {'seed' if is_pool_item else 'task record'}: {problem}")
        if str(row["id"]) in seen:
            raise Rc1Error(f"{path}: record {lineno}: duplicate id {row['id']!r} (record {seen[str(row['id'])]})")
        seen[str(row["id"])] = lineno
        out.append(row if is_pool_item else plain_pool_item(row))
    return out
