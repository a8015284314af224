"""Which prompts each training step sees (pure, deterministic for a seed).

Each step draws `batch_size` prompts from three sources:
- pool:   the difficulty-balanced pool (balanced.jsonl), buckets drawn {easy .2, medium .4, hard .4}; the share
          follows the pool ratio schedule (0.50 from episode 0, 0.35 from 20k, 0.20 from 40k; as optimizer steps
          here: rc1.train.units);
- replay: low performers, i.e. pool items (from any source) whose mean group reward so far is in the bottom
          `low_quantile` of the pool items seen; at most `replay_cap` (30%) of every batch, and never more than the
          non-pool share;
- fresh:  the rest of the non-pool share: task items that are not in the pool, turned into plain single-turn
          prompts (`plain_pool_item`), so the policy also sees questions without the templates' roles and styles.
          Without fresh items the share is filled from the pool (counted as `pool_fill`).

Determinism: step s draws with a generator seeded by (seed, s), and replay at step s only looks at rewards of
steps <= s - lag (they are complete by then, however far ahead the data loader fetches within the lag), so
an uninterrupted run and a resumed run (history restored from the checkpoint) draw the same prompts.
Shares are rounded per step by systematic rounding (floor(share * n + u), u from the step's generator), so
they hold on average even for small batches; the replay cap holds for every batch.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from rc1.core.records import DIFFICULTIES, pool_item_difficulty
from rc1.core.text import guard_normalize

UNBUCKETED = "medium"   # what a pool item without a difficulty bucket is drawn (and logged) as
PLAIN_SYSTEM = ("You are a helpful assistant. Use the tools when they help, ask the user when a needed fact is "
                "missing, and end with 'Answer: <answer>'.")


def pool_ratio(step: int, schedule: Sequence[tuple[int, float]]) -> float:
    """The pool share in force at `step`: the ratio of the last schedule entry whose step is <= `step`."""
    ordered = sorted(schedule)
    return float(next((r for at, r in reversed(ordered) if step >= at), ordered[0][1]))


def is_heldout(key: str, frac: float) -> bool:
    """Whether a split key (see source_key) is held out: a fixed hash of the key, the same in every run."""
    if frac <= 0:
        return False
    h = int.from_bytes(hashlib.sha256(f"rc1-heldout:{key}".encode()).digest()[:8], "big")
    return h / 2**64 < frac


def source_key(pool_item: Mapping[str, Any]) -> str:
    """What the held-out split is keyed by: the source item, never the pool item. A pool poses each source question
    many times (templates, roles, difficulty); keyed by pool item id, most held-out ones would share their question
    with trained ones. The key is the normalized source question (pool item field `source_question`), so two source
    ids with the same text stay together too; pools without it fall back to the source id."""
    q = pool_item.get("source_question")
    if isinstance(q, str) and q.strip():
        return "q:" + guard_normalize(q)
    return "id:" + str(pool_item.get("source_id") or pool_item["id"])


def split_heldout(pool: Sequence[Mapping[str, Any]], frac: float) -> tuple[list, list]:
    """(training seeds, held-out seeds) of a pool, split by source item (source_key): no source question is
    in both. evaluate's held-out split and the training sampler's share both come from here."""
    train, held = [], []
    for s in pool:
        (held if is_heldout(source_key(s), frac) else train).append(s)
    return train, held


def drop_heldout(items: Sequence[Mapping[str, Any]], heldout: Sequence[Mapping[str, Any]]) -> list:
    """`items` (fresh prompts for the sampler) without those whose source item, by id or by normalized question,
    is in the held-out split: a held-out question must not be trained on through another door."""
    ids = {str(h.get("source_id")) for h in heldout if h.get("source_id")}
    texts = {guard_normalize(h["source_question"]) for h in heldout if h.get("source_question")}
    return [s for s in items if str(s.get("source_id")) not in ids
            and not (s.get("source_question") and guard_normalize(s["source_question"]) in texts)]


def plain_pool_item(task: Mapping[str, Any]) -> dict:
    """A task record (rc1.core.records.Task) as a plain prompt: system + the question, tools on, no clarification."""
    return {
        "id": f"fresh:{task['id']}", "task": task["task"], "source_id": str(task["id"]),
        "source_question": task["question"], "template_id": "plain",
        "role": "plain", "style": "plain",
        "dialogue": [{"role": "system", "content": PLAIN_SYSTEM}, {"role": "user", "content": task["question"]}],
        "needs_clarification": False, "hidden_info": None, "tools": ["wiki", "calc"], "expected_tool_calls": [],
        "answer": str(task["answer"]), "context": task.get("context") or [],
    }


@dataclass(frozen=True)
class SamplerSpec:
    batch_size: int
    difficulty: Mapping[str, float]
    schedule: Sequence[tuple[int, float]]
    replay_cap: float
    low_quantile: float = 0.25
    lag: int = 2

    @classmethod
    def from_config(cls, ppo, **over: Any) -> "SamplerSpec":
        """The config's sampling; its pool schedule (sampling.seed_pool_schedule, in episodes) as optimizer steps
        (rc1.train.units)."""
        from rc1.train import units

        s = ppo.sampling
        return cls(batch_size=ppo.ppo.batch_size, difficulty=dict(s.difficulty),
                   schedule=list(units.schedule(ppo).pool_schedule), replay_cap=s.replay_cap, **over)


@dataclass
class ReplayHistory:
    """Group-mean rewards per seed id, by step (what the low-performer replay looks at). JSON round-trips."""

    rewards: dict[str, list[tuple[int, float]]] = field(default_factory=dict)
    keep: int = 8

    def add(self, step: int, seed_id: str, reward: float | None) -> None:
        if reward is None or not math.isfinite(reward):
            return
        entries = self.rewards.setdefault(seed_id, [])
        entries.append((int(step), float(reward)))
        if len(entries) > self.keep:
            del entries[0]

    def low_performers(self, upto_step: int, quantile: float) -> list[str]:
        """Pool item ids whose mean reward over steps <= upto_step is at or below the `quantile` of those means."""
        means = {}
        for sid, entries in self.rewards.items():
            vals = [r for s, r in entries if s <= upto_step]
            if vals:
                means[sid] = sum(vals) / len(vals)
        if len(means) < 2:
            return []
        cut = float(np.quantile(np.array(list(means.values())), quantile))
        return sorted(sid for sid, m in means.items() if m <= cut)

    def to_json(self) -> dict:
        return {"keep": self.keep, "rewards": {k: [list(e) for e in v] for k, v in self.rewards.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ReplayHistory":
        return cls({k: [(int(s), float(r)) for s, r in v] for k, v in data.get("rewards", {}).items()},
                   keep=int(data.get("keep", 8)))


@dataclass(frozen=True)
class Draw:
    kind: str          # pool | pool_fill | fresh | replay
    pool_item: Mapping[str, Any]


class Sampler:
    def __init__(self, pool: Sequence[Mapping[str, Any]], spec: SamplerSpec, seed: int,
                 fresh: Sequence[Mapping[str, Any]] = ()):
        if not pool:
            raise ValueError("the pool is empty")
        self.spec = spec
        self.seed = int(seed)
        self.pool = list(pool)
        self.fresh = list(fresh)
        self.by_id = {str(s["id"]): s for s in [*self.pool, *self.fresh]}
        self.buckets = {d: [i for i, s in enumerate(self.pool) if pool_item_difficulty(s, fallback=UNBUCKETED) == d]
                        for d in DIFFICULTIES}

    def counts(self, step: int, n_replay_candidates: int, rng: np.random.Generator) -> dict[str, int]:
        n = self.spec.batch_size
        n_pool = min(n, int(math.floor(pool_ratio(step, self.spec.schedule) * n + rng.random())))
        rest = n - n_pool
        n_replay = min(rest, int(math.floor(self.spec.replay_cap * n + 1e-9)), n_replay_candidates)
        n_fresh = rest - n_replay
        fill = 0 if self.fresh else n_fresh
        return {"pool": n_pool, "pool_fill": fill, "fresh": n_fresh - fill, "replay": n_replay}

    def _pool_item(self, rng: np.random.Generator) -> Mapping[str, Any]:
        names = [d for d in DIFFICULTIES if self.buckets[d]]
        w = np.array([self.spec.difficulty.get(d, 0.0) for d in names], dtype=float)
        w = w / w.sum() if w.sum() > 0 else np.full(len(names), 1 / len(names))
        bucket = self.buckets[names[int(rng.choice(len(names), p=w))]]
        return self.pool[bucket[int(rng.integers(len(bucket)))]]

    def plan(self, step: int, history: ReplayHistory | None = None) -> list[Draw]:
        """The `batch_size` prompts of `step`, in order."""
        rng = np.random.default_rng([self.seed, int(step)])
        candidates = []
        if history is not None and step - self.spec.lag >= 0:
            candidates = [sid for sid in history.low_performers(step - self.spec.lag, self.spec.low_quantile)
                          if sid in self.by_id]
        c = self.counts(step, len(candidates), rng)
        draws = [Draw("pool", self._pool_item(rng)) for _ in range(c["pool"])]
        draws += [Draw("pool_fill", self._pool_item(rng)) for _ in range(c["pool_fill"])]
        draws += [Draw("fresh", self.fresh[int(rng.integers(len(self.fresh)))]) for _ in range(c["fresh"])]
        if c["replay"]:
            picks = rng.choice(len(candidates), size=c["replay"], replace=False)
            draws += [Draw("replay", self.by_id[candidates[int(i)]]) for i in sorted(picks)]
        return draws


