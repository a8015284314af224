"""Reading rc1_seed.jsonl: one Seed per line; a malformed line is an Rc1Error naming file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from rc1.errors import Rc1Error
from rc1.records import Seed, seed_problem


def iter_seed_lines(path: str | Path) -> Iterator[tuple[str, Seed]]:
    """(raw line without its newline, parsed seed) pairs, streamed; the raw line lets a writer copy
    a seed without encoding it again."""
    path = Path(path)
    if path.is_dir():
        raise Rc1Error(f"{path}: is a directory, expected a JSONL file")
    try:
        fh = open(path, encoding="utf-8")
    except FileNotFoundError:
        raise Rc1Error(f"{path}: file not found") from None
    with fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise Rc1Error(f"{path}: line {lineno}: invalid JSON ({e.msg})") from None
            problem = seed_problem(row)
            if problem:
                raise Rc1Error(f"{path}: line {lineno}: not a seed: {problem}")
            yield line.rstrip("\r\n"), row


def iter_seeds(path: str | Path) -> Iterator[Seed]:
    for _, seed in iter_seed_lines(path):
        yield seed
