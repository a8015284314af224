"""The KL reference of the diversity checks: a pack_v1 pool over the same task sources and mix."""

from __future__ import annotations

from pathlib import Path

from rc1.core.errors import Rc1Error

V1_PACK = Path("templates/pack_v1")


def baseline_pool_items(n: int, mix: dict[str, float], data_dir: str | None, seed: int):
    """A pack_v1 pool of n pool items over the same task sources and mix, built in memory (the KL reference).
    pack_v1 is the plain baseline: no tools, no clarification (PoolSpec's defaults)."""
    from rc1.data import load_tasks
    from rc1.data.plan import PoolSpec
    from rc1.data.pool import build_pool
    from rc1.data.templates import load_pack

    if not V1_PACK.is_dir():
        raise Rc1Error(f"{V1_PACK}: not found; pass --baseline-pool PATH (a pack_v1 pool)")
    tasks = {t: load_tasks(t, data_dir).records for t, share in mix.items() if share > 0}
    # a reference sample, not a training pool: an item may recur as often as n asks
    return build_pool(tasks, load_pack(V1_PACK), PoolSpec(n=n, mix=mix, seed=seed, max_poses_per_item=10**9))
