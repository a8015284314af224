"""The shadow evaluation set: n Task records held out from the pool, stratified by task, deterministic.

select_shadow picks from already loaded records (pure); load_and_select loads the sources first.
Per task the count is the largest-remainder share of n under the mix (stratify) or whatever a seeded
draw from all records gives (no stratify). Within a task the records are drawn with a seeded RNG over
the records sorted by id, so the choice does not depend on file order.

A stratified set takes at most MAX_TASK_SHARE of a task's records (shadow_counts): the pool is built from what the
set leaves, and a task whose mix share of n is most of its records (245 x 0.45 = 110 of 120 HotpotQA items) would
leave the pool almost nothing of that task.
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any, Mapping

from rc1.core.config import DataConfig, GATES_PATH, TASK_MIX, TASKS, load_thresholds
from rc1.data import LoadedTasks, default_data_config, load_tasks
from rc1.core.errors import Rc1Error
from rc1.data.plan import largest_remainder
from rc1.core.records import Task


def default_mix(gates_path: str | Path = GATES_PATH) -> dict[str, float]:
    """The configured task mix (gates.yaml config_check.mix), else the DESIGN.md mix."""
    try:
        return dict(load_thresholds(gates_path).config_check.mix)
    except Rc1Error:
        if Path(gates_path).exists():
            raise
        return dict(TASK_MIX)


MAX_TASK_SHARE = 1 / 3   # of a task's records, at most, in the stratified shadow set


def task_cap(records: int, share: float = MAX_TASK_SHARE) -> int:
    """Records of a task the set may take: share of them, rounded up (a task of 2 records gives 1)."""
    return math.ceil(records * share - 1e-9)


def shadow_counts(n: int, mix: Mapping[str, float], available: Mapping[str, int],
                  max_share: float = MAX_TASK_SHARE) -> dict[str, int]:
    """Records per task: the largest-remainder share of n under the mix, each task capped at max_share of its
    records, a capped task's excess shared over the tasks below their caps by their mix weights."""
    weights = {t: w for t, w in mix.items() if w > 0}
    cap = {t: task_cap(available.get(t, 0), max_share) for t in weights}
    if sum(cap.values()) < n:
        caps = ", ".join(f"{t} {available.get(t, 0)} records ({cap[t]} at most)" for t in weights)
        raise Rc1Error(f"shadow set: needs {n} records, at most {max_share:.0%} of each task's: {caps}; "
                       f"together {sum(cap.values())} (give a smaller shadow.n or more data)")
    counts = {t: 0 for t in weights}
    open_ = dict(weights)
    left = n
    while left > 0:
        share = largest_remainder(left, open_)
        for t, k in share.items():
            counts[t] += k
        left = sum(max(0, counts[t] - cap[t]) for t in weights)
        counts = {t: min(k, cap[t]) for t, k in counts.items()}
        open_ = {t: w for t, w in open_.items() if counts[t] < cap[t]}
    return counts


def capped_note(n: int, mix: Mapping[str, float], available: Mapping[str, int]) -> str | None:
    """One line naming the tasks whose cap changed the stratified counts (None when none did)."""
    plain = largest_remainder(n, {t: w for t, w in mix.items() if w > 0})
    counts = shadow_counts(n, mix, available)
    capped = [t for t in plain if counts[t] < plain[t]]
    if not capped:
        return None
    return (f"the shadow set takes at most {MAX_TASK_SHARE:.0%} of a task's records: "
            + ", ".join(f"{t} {counts[t]} of {available.get(t, 0)} (the mix asks {plain[t]})" for t in capped)
            + "; the rest from " + ", ".join(f"{t} {counts[t]} (mix {plain[t]})" for t in counts if t not in capped))


def select_shadow(records: Mapping[str, list[Task]], n: int, seed: int, stratify: bool = True,
                  mix: Mapping[str, float] | None = None) -> list[Task]:
    """n records: per task by the mix (stratify) or uniformly over all of them; ordered by task, then draw."""
    if n <= 0:
        raise Rc1Error(f"shadow set: --n must be positive, got {n}")
    mix = dict(mix or TASK_MIX)
    tasks = [t for t in mix if mix[t] > 0]
    pools = {t: sorted(records.get(t) or [], key=lambda r: r["id"]) for t in tasks}
    if stratify:
        counts = shadow_counts(n, mix, {t: len(p) for t, p in pools.items()})
        out: list[Task] = []
        for t in tasks:
            rng = random.Random(f"{seed}|shadow|{t}")
            out += [pools[t][i] for i in rng.sample(range(len(pools[t])), counts[t])]
        return out
    everything = [r for t in tasks for r in pools[t]]
    if n > len(everything):
        raise Rc1Error(f"shadow set: needs {n} records, the sources have {len(everything)}")
    rng = random.Random(f"{seed}|shadow")
    picked = [everything[i] for i in rng.sample(range(len(everything)), n)]
    return sorted(picked, key=lambda r: tasks.index(r["task"]))


def load_and_select(data_dir: str | Path | None, n: int, seed: int, stratify: bool,
                    mix: Mapping[str, float] | None = None, data_cfg: DataConfig | None = None,
                    on_bad_record: str | None = None) -> tuple[list[Task], dict[str, LoadedTasks]]:
    mix = dict(mix or TASK_MIX)
    unknown = [t for t in mix if t not in TASKS]
    if unknown:
        raise Rc1Error(f"shadow set: unknown task {unknown[0]!r} in the mix; known: {', '.join(TASKS)}")
    loaded = {t: load_tasks(t, data_dir, data_cfg, on_bad_record) for t in mix if mix[t] > 0}
    rows = select_shadow({t: lt.records for t, lt in loaded.items()}, n, seed, stratify, mix)
    return rows, loaded


def shadow_records(shadow: str | None, data_dir: str | None, n: int, seed: int, stratify: bool,
                   gates_path: str = "configs/gates.yaml") -> tuple[list[dict], Any, dict]:
    """(records, what identifies them for a reuse key, loaded sources by task when the set was built): the
    materialized set `shadow`, else one built as materialize-shadow builds it (the configured task mix)."""
    if shadow:
        from rc1.core.io import read_jsonl

        rows = read_jsonl(shadow)
        for i, r in enumerate(rows, 1):
            missing = [k for k in ("id", "task", "answer") if k not in r]
            if missing or not (r.get("question") or r.get("dialogue")):
                raise Rc1Error(f"{shadow}: line {i}: a shadow item needs id, task, answer and question or dialogue")
        return rows, shadow, {}
    mix = default_mix(gates_path)
    rows, loaded = load_and_select(data_dir, n, seed, stratify, mix, default_data_config())
    key = {"n": n, "seed": seed, "stratify": stratify, "mix": mix,
           "sources": {t: lt.digest for t, lt in loaded.items()}}
    return rows, key, loaded
