"""Per-task mix of a pool against the requested mix."""

from __future__ import annotations

from collections import Counter


def mix_deviation(counts: Counter | dict[str, int], expected: dict[str, float]) -> dict[str, dict]:
    """{task: {count, share, expected, dev_pp}} for every task in either; dev_pp = |share - expected| x 100."""
    total = sum(counts.values())
    out = {}
    for task in sorted(set(expected) | set(counts)):
        share = counts.get(task, 0) / total if total else 0.0
        want = expected.get(task, 0.0)
        out[task] = {"count": int(counts.get(task, 0)), "share": share, "expected": want,
                     "dev_pp": abs(share - want) * 100.0}
    return out
