"""The pool: Tasks x a template pack -> PoolItems (rc1.core.records.PoolItem), streamed and deterministic.

build_pool(tasks, pack, spec) yields exactly n pool items, n = spec.n or (spec.n None, "auto") the largest pool the data
supports at the mix, each source item posed at most spec.max_poses_per_item times (plan_pool; an explicit n the
data cannot supply is an Rc1Error naming the task that runs short and the largest n):
- task counts: largest-remainder rounding of n x mix; pool items of the tasks are interleaved so any prefix of
  the stream keeps the mix;
- within a task the (non-excluded) source items are visited in a seeded order and share the task's count
  as evenly as possible (an item gets floor or ceil of count / items);
- exactly round(n x clarify_rate) pool items need clarification, shared over tasks by largest remainder and
  spread evenly over the items where a needed fact can be removed (rc1.data.clarify);
- difficulty is posed: each pool item takes a template of one difficulty (rc1.data.templates), so a task's items are
  easy (open-book: the gold supporting sentences, facts or worked steps in the user turn), medium (the evidence
  only through the `wiki`/`calc` tools) or hard (closed-book: the passages or facts among distractors, no tools,
  or a needed fact left out) in the shares of spec.target (largest remainder); clarification pool items are medium
  or hard, never easy (open-book evidence would give the hidden fact away). The pose is the seed's `pose`;
  the difficulty stage measures the pool items, it does not read it;
- the pool items of one item differ genuinely: each takes a different (template, role, style) combination
  (and, for clarification, a different hidden fact where the item has several), then draws its wording
  variants, the evidence shown, distractor passages and their order;
- tool-use templates may open with a worked exchange whose tool result is the real output of rc1.tools.

Exclusion (the shadow set): spec.exclude holds Task ids ("task:source id") and normalized question texts
(rc1.core.text.guard_normalize: the words of the TR39 skeleton); an item is left out when its id or normalized
question is there, or when its question would count as a leak of one of those questions (rc1.core.leak: a shared
leak_ngram-gram and containment >= leak_sim).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Iterator, Mapping, Sequence

from rc1.data.clarify import Removal, removals
from rc1.core.errors import Rc1Error
from rc1.core.records import PoolItem, Task
from rc1.data.plan import PoolPlan, PoolSpec, ShadowGuard, plan_pool, pose_counts
from rc1.data.render import ItemMaterial, Renderer
from rc1.data.templates import DIFFICULTIES, Template, TemplatePack

LEAK_REDRAWS = 25  # distractor passages drawn from other items, per 'paragraphs' pool item


@dataclass
class PoolStats:
    """Filled while build_pool runs (pass one in to read it afterwards)."""
    counts: dict[str, int] = field(default_factory=dict)
    clarify: dict[str, int] = field(default_factory=dict)
    items: dict[str, int] = field(default_factory=dict)
    excluded: dict[str, int] = field(default_factory=dict)
    items_used: dict[str, int] = field(default_factory=dict)
    tool_seeds: int = 0
    worked_seeds: int = 0
    leak_redraws: int = 0
    poses: dict[str, dict[str, int]] = field(default_factory=dict)   # task -> pose -> pool items

    def as_dict(self) -> dict:
        return {"counts": self.counts, "clarify": self.clarify, "items": self.items, "excluded": self.excluded,
                "items_used": self.items_used, "tool_seeds": self.tool_seeds, "worked_seeds": self.worked_seeds,
                "leak_redraws": self.leak_redraws, "poses": self.poses}

    def count(self, pool_item: PoolItem, worked: bool) -> None:
        self.tool_seeds += bool(pool_item["tools"])
        self.worked_seeds += worked
        per = self.poses.setdefault(pool_item["task"], {d: 0 for d in DIFFICULTIES})
        per[pool_item["pose"]] += 1


def _passages(items: Sequence[Task]) -> list[tuple[str, str]]:
    """Every distinct paragraph of the items' contexts, as (title, text)."""
    out: dict[str, str] = {}
    for t in items:
        for title, sents in t.get("context") or []:
            out.setdefault(title, "".join(sents).strip())
    return [(t, x) for t, x in out.items() if x]


def has_support(task: Task) -> bool:
    """Whether the item has the evidence an easy (open-book) pose shows (ItemMaterial.support is not empty)."""
    if task["task"] == "hotpotqa":
        paras = {t: s for t, s in task.get("context") or []}
        return any(t in paras and 0 <= i < len(paras[t]) for t, i in task.get("supporting_facts") or [])
    if task["task"] == "strategyqa":
        return bool(task.get("facts"))
    steps = task.get("decomposition") or []
    return len(steps) > 1 or bool(steps and "=" in steps[-1])


def _poses(counts: Mapping[str, int]) -> list[str]:
    """The pose of each pool item in order, the poses interleaved in their shares (stride scheduling)."""
    order = [d for d in DIFFICULTIES if counts.get(d, 0) > 0]
    if not order:
        return []
    sched = _schedule(order, counts)
    return [next(sched) for _ in range(sum(counts[d] for d in order))]


def _templates(pack: TemplatePack, task: str, clarify: bool, spec: PoolSpec, item: "ItemMaterial") -> dict[str, list[Template]]:
    """The item's applicable templates per pose; a pose with none takes medium's (then any) so that every pool item
    has one (its `pose` is then the template's own)."""
    every = [t for t in pack.for_task(task, clarify, spec.max_turns) if item.applicable(t)] or \
        pack.for_task(task, clarify, spec.max_turns)[:1]
    by = {d: [t for t in every if t.difficulty == d] for d in DIFFICULTIES}
    return {d: by[d] or by["medium"] or every for d in DIFFICULTIES}


def _task_stream(task: str, items: list[Task], count: int, n_clarify: int, pack: TemplatePack, spec: PoolSpec,
                 stats: PoolStats, guard: ShadowGuard, skip: int = 0) -> Iterator[PoolItem]:
    """The task's pool items in order; `skip`: from its skip-th one on (the earlier pool items of that one's item are
    drawn and dropped, so that its generator draws as in the whole stream; they count in no stats)."""
    order = list(items)
    random.Random(f"{spec.seed}|order|{task}").shuffle(order)
    used = order[: min(count, len(order))]
    per = [count // len(used) + (1 if i < count % len(used) else 0) for i in range(len(used))] if used else []
    if count and not pack.for_task(task, clarify=False, max_turns=spec.max_turns):
        raise Rc1Error(f"{pack.directory}: no template for task {task!r} within max_turns={spec.max_turns}")
    if n_clarify and not pack.for_task(task, clarify=True, max_turns=spec.max_turns):
        raise Rc1Error(f"{pack.directory}: no clarification template for task {task!r} (clarify_rate > 0)")
    cache: dict[str, list[Removal]] = {}
    if n_clarify:
        cache = {t["id"]: removals(t) for t in used}
    clar_ok = [bool(cache.get(t["id"])) for t in used]
    k_clar = sum(k for k, ok in zip(per, clar_ok) if ok)
    n_clarify = min(n_clarify, k_clar)
    stats.clarify[task] = n_clarify
    stats.items_used[task] = len(used)
    plain_n, clar_n = pose_counts(count, n_clarify, spec.target)
    plain_poses, clar_poses = _poses(plain_n), _poses(clar_n)
    render = Renderer(pack, spec, _passages(items) if task == "hotpotqa" else ())
    roles, styles = pack.roles, pack.styles
    j = p = q = owed = 0
    cum = 0
    dropped = PoolStats()
    for item_task, k, ok in zip(used, per, clar_ok):
        c = 0
        if ok and k_clar:
            c = (n_clarify * (cum + k)) // k_clar - (n_clarify * cum) // k_clar
            cum += k
        plain = plain_poses[p:p + k - c]
        p, q = p + k - c, q + c
        if not has_support(item_task):   # no evidence to open the book on: its easy pool items go to a later item
            owed += plain.count("easy")
            plain = ["medium" if d == "easy" else d for d in plain]
        else:
            while owed and "medium" in plain:
                plain[plain.index("medium")] = "easy"
                owed -= 1
        mine = plain + clar_poses[q - c:q]
        if j + k <= skip:  # every pool item of this item comes before the first one wanted
            j += k
            continue
        rng = random.Random(f"{spec.seed}|{item_task['id']}")
        item = ItemMaterial(item_task, items, cache.get(item_task["id"]), spec.max_tool_calls, order[len(used):])
        for clarify, poses in ((False, mine[:k - c]), (True, mine[k - c:])):
            if not poses:
                continue
            by_pose = _templates(pack, task, clarify, spec, item)
            hidden = item.removals if clarify else [None]
            slots = {d: iter(_combos(rng, len(by_pose[d]), len(roles), len(styles), len(hidden), poses.count(d)))
                     for d in DIFFICULTIES}
            for d in poses:
                t_i, r_i, s_i, h_i = next(slots[d])
                st = stats if j >= skip else dropped
                pool_item = render.pool_item(rng, f"{task}-{j:06d}", item, by_pose[d][t_i], roles[r_i], styles[s_i],
                                             hidden[h_i])
                if guard.leaks(pool_item):
                    pool_item = _redraw(rng, render, guard, st, f"{task}-{j:06d}", item, by_pose[d], hidden, pack)
                j += 1
                st.count(pool_item, by_pose[d][t_i].mode == "worked")
                if st is stats:
                    yield pool_item


def _redraw(rng: random.Random, render: "Renderer", guard: ShadowGuard, stats: PoolStats, pool_item_id: str,
            item: ItemMaterial, templates: list[Template], hidden: list, pack: TemplatePack) -> PoolItem:
    """Another rendering of the same item that the leak rule does not flag (wording, evidence, role, style)."""
    for _ in range(LEAK_REDRAWS):
        stats.leak_redraws += 1
        pool_item = render.pool_item(rng, pool_item_id, item, rng.choice(templates), rng.choice(pack.roles),
                                     rng.choice(pack.styles), rng.choice(hidden))
        if not guard.leaks(pool_item):
            return pool_item
    raise Rc1Error(f"{item.task['id']}: every rendering of this item matches a shadow question by the leak rule; "
                   f"the shadow set and the pool sources overlap (check --shadow and the data sources)")


def _combos(rng: random.Random, a: int, b: int, c: int, d: int, k: int) -> list[tuple[int, int, int, int]]:
    """k combinations of (template, role, style, hidden fact) indices, all different while k allows."""
    total = a * b * c * d
    if k <= 0 or total <= 0:
        return []
    picks = rng.sample(range(total), k) if k <= total else \
        rng.sample(range(total), total) + [rng.randrange(total) for _ in range(k - total)]
    out = []
    for x in picks:
        x, h = divmod(x, d)
        x, s = divmod(x, c)
        t, r = divmod(x, b)
        out.append((t, r, s, h))
    return out


def build_pool(tasks: Mapping[str, list[Task]], pack: TemplatePack, spec: PoolSpec,
               stats: PoolStats | None = None, start: int = 0, stop: int | None = None,
               plan: PoolPlan | None = None) -> Iterator[PoolItem]:
    """Yield plan.n pool items (see the module docstring). Raises Rc1Error on an impossible spec.
    `start`, `stop`: only the seeds at those positions of the stream, the same seeds (a piece of the pool built
    apart: its stats count its own pool items, `counts` included, from the counts at `start`). `plan`: plan_pool's,
    when the caller made it already (pieces built in several processes share one)."""
    plan = plan if plan is not None else plan_pool(tasks, spec)
    stats = stats if stats is not None else PoolStats()
    stats.items.update(plan.items)
    stats.excluded.update(plan.excluded)
    counts, kept = plan.counts, plan.kept
    order = [t for t in spec.mix if t in kept]
    schedule = _schedule(order, counts)
    before = {t: 0 for t in order}
    n = plan.n
    for _ in range(min(start, n)):
        before[next(schedule)] += 1
    streams = {task: _task_stream(task, kept[task], counts[task], plan.clar[task], pack, spec, stats, plan.guard,
                                  before[task])
               for task in kept}
    stats.counts = dict(before)
    for _ in range(max(0, min(n, n if stop is None else stop) - start)):
        task = next(schedule)
        stats.counts[task] += 1
        yield next(streams[task])


def _schedule(order: list[str], counts: Mapping[str, int]) -> Iterator[str]:
    """The task of each position of the stream: next comes the task furthest behind its share (stride
    scheduling)."""
    done = {t: 0 for t in order}
    while True:
        task = min(order, key=lambda t: ((done[t] + 1) / counts[t], order.index(t)))
        done[task] += 1
        yield task


def pool_item_lines(pool_items: Iterator[PoolItem]) -> Iterator[str]:
    """JSON lines of pool items. The pool items of one item share their (large) context list: it is encoded once
    per item and spliced in, which is most of the encoding time of a HotpotQA-heavy pool."""
    cache: dict[int, tuple[list, str]] = {}
    for pool_item in pool_items:
        ctx = pool_item["context"]
        hit = cache.get(id(ctx))
        if hit is None or hit[0] is not ctx:
            if len(cache) > 64:
                cache.clear()
            hit = cache[id(ctx)] = (ctx, json.dumps(ctx, ensure_ascii=False))
        rest = {k: v for k, v in pool_item.items() if k != "context"}
        yield json.dumps(rest, ensure_ascii=False)[:-1] + ', "context": ' + hit[1] + "}\n"
