"""The pool's spec and plan: what build_pool is asked for (PoolSpec), how many pool items each task, pose and
clarification gets, and which source items the shadow set leaves (plan_pool; rc1.data.pool has the rules)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from rc1.core.config import TASKS, check_mix
from rc1.core.errors import Rc1Error
from rc1.core.records import PoolItem, Task
from rc1.core.text import guard_normalize
from rc1.data.templates import DIFFICULTIES
from rc1.data.tools import TOOLS

LEAK_MARGIN = 0.1        # items this close to the leak rule are not used at all (see ShadowGuard)
DEFAULT_TARGET = {"easy": 0.25, "medium": 0.45, "hard": 0.30}   # the difficulty stage's default target
DEFAULT_TARGET_TEXT = ",".join(f"{d}:{share:.2f}" for d, share in DEFAULT_TARGET.items())   # as --target spells it
CLARIFY_RATE = 0.30     # share of pool items (build-pool) and of plain shadow items (shadow-run) made to clarify
MAX_TURNS = 6           # non-system turns a pool item's dialogue may have at most
DEFAULT_MAX_POSES = 3   # poses of one source item at most, chosen by measurement (README "Where the gates stand")


@dataclass(frozen=True)
class PoolSpec:
    n: int | None           # None: auto, the largest pool the data supports
    mix: Mapping[str, float]
    max_turns: int = MAX_TURNS
    clarify_rate: float = 0.0   # a bare pool (validate-pool's pack_v1 baseline); build-pool passes CLARIFY_RATE
    tools: tuple[str, ...] = ()
    seed: int = 0
    exclude: frozenset[str] = frozenset()   # shadow Task ids and normalized shadow questions
    leak_ngram: int | None = None   # the leak rule; None: configs/gates.yaml validate_pool's
    leak_sim: float | None = None
    max_tool_calls: int = 8     # a pool item expecting more tool calls offers no tools (difficulty gate tool_hops_max)
    target: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_TARGET))   # shares of the poses
    max_poses_per_item: int = DEFAULT_MAX_POSES

    def validate(self) -> None:
        if self.n is not None and self.n < 0:
            raise Rc1Error(f"--n must be >= 0 or auto, got {self.n}")
        if self.max_poses_per_item < 1:
            raise Rc1Error(f"max_poses_per_item must be >= 1, got {self.max_poses_per_item}")
        try:
            check_mix(dict(self.mix), what="--mix", known=TASKS, tol=1e-3)
        except ValueError as e:
            raise Rc1Error(str(e)) from None
        if not 0.0 <= self.clarify_rate <= 1.0:
            raise Rc1Error(f"--clarify-rate must be within [0, 1], got {self.clarify_rate}")
        if self.max_turns < 1:
            raise Rc1Error(f"--max-turns must be >= 1, got {self.max_turns}")
        unknown = [t for t in self.tools if t not in TOOLS]
        if unknown:
            raise Rc1Error(f"--tools: unknown tool {unknown[0]!r}; known: {', '.join(TOOLS)}")
        try:
            check_mix(dict(self.target), what="--target", known=DIFFICULTIES, tol=1e-3)
        except ValueError as e:
            raise Rc1Error(str(e)) from None


def largest_remainder(total: int, weights: Mapping[str, float]) -> dict[str, int]:
    """Integer shares of `total` proportional to `weights` that sum to `total` exactly (Hamilton)."""
    s = sum(weights.values())
    if total <= 0 or s <= 0:
        return {k: 0 for k in weights}
    quotas = {k: total * w / s for k, w in weights.items()}
    counts = {k: math.floor(q) for k, q in quotas.items()}
    rest = total - sum(counts.values())
    for k in sorted(quotas, key=lambda k: (-(quotas[k] - counts[k]), list(weights).index(k)))[:rest]:
        counts[k] += 1
    return counts


def parse_tools(text: str | Sequence[str] | None) -> tuple[str, ...]:
    """'wiki,calc' -> ('wiki', 'calc'); '' or 'none' -> ()."""
    if text is None:
        return ()
    items = text.split(",") if isinstance(text, str) else list(text)
    out = tuple(dict.fromkeys(t.strip() for t in items if t.strip() and t.strip().lower() != "none"))
    unknown = [t for t in out if t not in TOOLS]
    if unknown:
        raise Rc1Error(f"--tools: unknown tool {unknown[0]!r}; known: {', '.join(TOOLS)}")
    return out


class ShadowGuard:
    """The shadow set as the pool must avoid it. An item is dropped when its id or normalized question is a
    shadow one, or when its question comes within LEAK_MARGIN of the leak rule (a shared leak_ngram-gram
    and containment >= leak_sim - LEAK_MARGIN: templated questions that differ only in names sit there).
    Each pool item is then checked with the validator's exact rule on its question (user turns + hidden_info)
    and redrawn if it would count as a leak."""

    def __init__(self, spec: PoolSpec):
        self.ids = {e for e in spec.exclude if ":" in e}
        self.questions = {e for e in spec.exclude if ":" not in e}
        self.strict = self.loose = None
        if self.questions:
            from rc1.core.leak import ShadowIndex  # the validator's own leak rule, so build and check agree

            ngram, sim = spec.leak_ngram, spec.leak_sim
            if ngram is None or sim is None:
                from rc1.core.config import load_thresholds

                rule = load_thresholds().validate_pool
                ngram, sim = ngram or rule.leak_ngram, rule.leak_sim if sim is None else sim
            qs = [(str(i), q) for i, q in enumerate(sorted(self.questions))]
            self.strict = ShadowIndex(qs, ngram=ngram, sim=sim, ids=self.ids)
            self.loose = ShadowIndex(qs, ngram=ngram, sim=max(0.0, sim - LEAK_MARGIN))

    def keep(self, task: Task) -> bool:
        if task["id"] in self.ids:
            return False
        norm = guard_normalize(task["question"])
        return norm not in self.questions and not (self.loose is not None and self.loose.match(task["id"], norm.split()))

    def leaks(self, pool_item: PoolItem) -> bool:
        if self.strict is None:
            return False
        return bool(self.strict.pool_item_leaks(pool_item))


def _excluded(tasks: list[Task], guard: ShadowGuard) -> tuple[list[Task], int]:
    keep = [t for t in tasks if guard.keep(t)]
    return keep, len(tasks) - len(keep)


def pose_counts(count: int, n_clarify: int, target: Mapping[str, float]) -> tuple[dict[str, int], dict[str, int]]:
    """(plain, clarification) pool items per pose of a task's `count` pool items: the target's shares by largest
    remainder; a needed clarification is a hard pose, so the clarification pool items fill hard first, then medium
    (never easy; when there are more of them than medium and hard pool items, easy gives way)."""
    total = largest_remainder(count, {d: float(target.get(d, 0.0)) for d in DIFFICULTIES})
    hard = min(n_clarify, total["hard"])
    clar = {"easy": 0, "medium": n_clarify - hard, "hard": hard}
    plain = {d: max(0, total[d] - clar.get(d, 0)) for d in DIFFICULTIES}
    excess = sum(plain.values()) - (count - n_clarify)
    for d in DIFFICULTIES:
        cut = min(excess, plain[d])
        plain[d] -= cut
        excess -= cut
    return plain, {d: clar.get(d, 0) for d in DIFFICULTIES}


@dataclass
class PoolPlan:
    """What every piece of one pool's stream shares: task counts, the items left after the shadow exclusion,
    clarification counts (plan_pool)."""
    counts: dict[str, int]
    kept: dict[str, list[Task]]
    clar: dict[str, int]
    items: dict[str, int]
    excluded: dict[str, int]
    guard: ShadowGuard
    n: int = 0                  # the pool size: spec.n, or the largest the data supports (auto)
    largest: int = 0            # the largest n the data supports at the mix


def largest_n(limit: Mapping[str, int], mix: Mapping[str, float]) -> int:
    """The largest n whose largest-remainder task counts stay within `limit` (pool items per task at most)."""
    n = min(int(limit[t] / w) for t, w in mix.items())
    while n > 0 and any(c > limit[t] for t, c in largest_remainder(n, mix).items()):
        n -= 1
    return n


def plan_pool(tasks: Mapping[str, list[Task]], spec: PoolSpec) -> PoolPlan:
    """The plan of build_pool's stream (raises Rc1Error on an impossible spec, or an n the data cannot supply)."""
    spec.validate()
    mix = {t: w for t, w in spec.mix.items() if w > 0}
    kept: dict[str, list[Task]] = {}
    items: dict[str, int] = {}
    excluded: dict[str, int] = {}
    guard = ShadowGuard(spec)
    for task in mix:
        records = list(tasks.get(task) or [])
        kept[task], dropped = _excluded(records, guard)
        items[task], excluded[task] = len(records), dropped
        if not kept[task] and (spec.n is None or largest_remainder(spec.n, mix)[task]):
            raise Rc1Error(f"task {task!r}: no source items left"
                           + (f" after excluding {dropped} shadow item(s)" if dropped else ""))
    limit = {t: len(kept[t]) * spec.max_poses_per_item for t in mix}
    largest = largest_n(limit, mix) if mix else 0
    n = largest if spec.n is None else spec.n
    counts = largest_remainder(n, mix)
    short = [t for t in mix if counts[t] > limit[t]]
    if short:
        t = short[0]
        raise Rc1Error(f"--n {n}: task {t!r} runs short: {len(kept[t])} source items (after the shadow exclusion) "
                       f"x max_poses_per_item {spec.max_poses_per_item} = {limit[t]} pool items, the mix asks "
                       f"{counts[t]}; the largest n the data supports is {largest} (--n auto)")
    kept = {t: v for t, v in kept.items() if counts[t]}
    clar_total = round(n * spec.clarify_rate)
    clar = largest_remainder(clar_total, {t: counts[t] for t in kept})
    return PoolPlan(counts, kept, clar, items, excluded, guard, n, largest)
