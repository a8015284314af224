"""benchmarks/bench_learning.py's curve summary: the printed fifths cover every step, the last ends the run."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_learning", REPO / "benchmarks" / "bench_learning.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_last_fifth_ends_with_the_last_step():
    blocks = _bench().blocks
    curve = [0.0] * 60 + [1.0, 1.0]   # 62 steps: the last two rose
    fifths = blocks(curve)
    assert len(fifths) == 5 and fifths[-1] > 0
    assert sum(f * n for f, n in zip(fifths, (12, 13, 12, 13, 12))) == pytest.approx(sum(curve))
    assert blocks([0.5, 1.0]) == [0.5, 1.0]
