"""The seed pool: Tasks x a template pack -> Seeds (rc1.core.records.Seed), streamed and deterministic.

build_pool(tasks, pack, spec) yields exactly n seeds, n = spec.n or (spec.n None, "auto") the largest pool the data
supports at the mix, each source item posed at most spec.max_poses_per_item times (plan_pool; an explicit n the
data cannot supply is an Rc1Error naming the task that runs short and the largest n):
- task counts: largest-remainder rounding of n x mix; seeds of the tasks are interleaved so any prefix of
  the stream keeps the mix;
- within a task the (non-excluded) source items are visited in a seeded order and share the task's count
  as evenly as possible (an item gets floor or ceil of count / items);
- exactly round(n x clarify_rate) seeds need clarification, shared over tasks by largest remainder and
  spread evenly over the items where a needed fact can be removed (rc1.data.clarify);
- difficulty is posed: each seed takes a template of one difficulty (rc1.data.templates), so a task's seeds are
  easy (open-book: the gold supporting sentences, facts or worked steps in the user turn), medium (the evidence
  only through the `wiki`/`calc` tools) or hard (closed-book: the passages or facts among distractors, no tools,
  or a needed fact left out) in the shares of spec.target (largest remainder); clarification seeds are medium
  or hard, never easy (open-book evidence would give the hidden fact away). The pose is the seed's `pose`;
  the difficulty stage measures the seeds, it does not read it;
- the seeds of one item differ genuinely: each takes a different (template, role, style) combination
  (and, for clarification, a different hidden fact where the item has several), then draws its wording
  variants, the evidence shown, distractor passages and their order;
- tool-use templates may open with a worked exchange whose tool result is the real output of rc1.tools.

Exclusion (the shadow set): spec.exclude holds Task ids ("task:source id") and normalized question texts
(rc1.core.text.guard_normalize: the words of the TR39 skeleton); an item is left out when its id or normalized
question is there, or when its question would count as a leak of one of those questions (rc1.quality.leak: a shared
leak_ngram-gram and containment >= leak_sim).
"""

from __future__ import annotations

import json
import math
import random
import re
from dataclasses import dataclass, field
from typing import Iterator, Mapping, Sequence

from rc1.data.clarify import Removal, removals
from rc1.core.config import TASKS, check_mix
from rc1.core.errors import Rc1Error
from rc1.core.records import Seed, Task
from rc1.data.templates import DIFFICULTIES, Role, Style, Template, TemplatePack
from rc1.core.text import guard_normalize
from rc1.data.tools import TOOLS, WikiIndex, calc

TASK_TOOLS = {"hotpotqa": ("wiki",), "strategyqa": ("wiki",), "gsm8k": ("calc",)}
TOOL_SIGNATURES = {"wiki": "wiki(query)", "calc": "calc(expression)"}
EXTRA_PASSAGES = (0, 2)
# The hard pose buries its evidence as HotpotQA's distractor setting does (8 distractor paragraphs to 2 gold): a HotpotQA
# clarification seed's notes take 5-8 sentences of the item's distractor paragraphs, a StrategyQA hard seed 6-8 facts of
# other items (of items the pool does not use, where there are enough), none an earlier seed of the item showed.
# Distractors are real text, so they lift distinct-2 but dilute kl_3gram_vs_v1 (which falls as v2's user turns
# outgrow pack_v1's bare questions); in NOTE_SOURCE_RATE of the hard seeds each note line says where the user got it
# (the pack's note_sources), the v2 wording that keeps the KL up. Measured by benchmarks/bench_posing.py (README
# "Where the gates stand"): before the sources and the fresh distractors, the bundled sample's KL was .1557 and a
# 300-seed scale stage's .1348 (.2195 and .1623 now; six sources lift it more than twelve, at the same distinct-2)
NOTE_DISTRACTORS = (5, 8)
FACT_DISTRACTORS = (6, 8)
NOTE_SOURCE_RATE = 0.55
LEAK_MARGIN = 0.1        # items this close to the leak rule are not used at all (see _ShadowGuard)
LEAK_REDRAWS = 25  # distractor passages drawn from other items, per 'paragraphs' seed
DEFAULT_TARGET = {"easy": 0.25, "medium": 0.45, "hard": 0.30}   # the difficulty stage's default target
DEFAULT_TARGET_TEXT = ",".join(f"{d}:{share:.2f}" for d, share in DEFAULT_TARGET.items())   # as --target spells it


CLARIFY_RATE = 0.30     # share of seeds (build-pool) and of plain shadow items (shadow-run) made clarification items
MAX_TURNS = 6           # non-system turns a seed's dialogue may have at most
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
    max_tool_calls: int = 8     # a seed expecting more tool calls offers no tools (difficulty gate tool_hops_max)
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


# ---------------------------------------------------------------- per-item material
_EXPR = re.compile(r"((?:\(?\$?-?\d[\d,]*(?:\.\d+)?\)?\s*[-+*/x×÷]\s*)+\(?\$?-?\d[\d,]*(?:\.\d+)?\)?)\s*=\s*\$?\s*(-?\d[\d,]*(?:\.\d+)?)")


def calc_steps(decomposition: Sequence[str]) -> list[tuple[str, str]]:
    """(expression, result) pairs written in solution steps ('48/2 = 24'), kept only when calc agrees."""
    out = []
    for line in decomposition:
        for m in _EXPR.finditer(line):
            expr = re.sub(r"\s*([-+*/])\s*", r" \1 ", m.group(1).replace("$", "").replace(",", "")
                          .replace("×", "*").replace("÷", "/").replace("x", "*")).strip()
            got = calc(expr)
            want = m.group(2).replace(",", "")
            try:
                if not got.startswith("error") and math.isclose(float(got), float(want), rel_tol=1e-6, abs_tol=1e-6):
                    out.append((expr, got))
            except ValueError:
                continue
    return out


class _Item:
    """What the seeds of one source item share (computed once per item)."""

    def __init__(self, task: Task, others: Sequence[Task], found: list[Removal] | None = None, max_calls: int = 8,
                 spare: Sequence[Task] = ()):
        self.task = task
        self.max_calls = max_calls
        self.kind = task["task"]
        self.removals: list[Removal] = found if found is not None else removals(task)
        ctx = task.get("context") or []
        if self.kind == "strategyqa":
            ctx = [[f"Fact {i + 1}", [f]] for i, f in enumerate(task.get("facts") or [])]
        self.context = [list(p) for p in ctx]
        self._index: WikiIndex | None = None
        paras = {t: s for t, s in self.context}
        self.gold_titles = [t for t in dict.fromkeys(t for t, _ in task.get("supporting_facts") or []) if t in paras]
        self.support: list[str] = []
        if self.kind == "hotpotqa":
            self.support = [paras[t][i].strip() for t, i in task.get("supporting_facts") or []
                            if t in paras and 0 <= i < len(paras[t])]
        elif self.kind == "strategyqa":
            self.support = list(task.get("facts") or [])
        else:
            steps = list(task.get("decomposition") or [])
            # the worked solution up to its last result: the last step without what follows its last '='
            last = steps[-1].rpartition("=")[0].strip() if steps and "=" in steps[-1] else ""
            self.support = steps[:-1] + ([last] if last else [])
        self.calcs = calc_steps(task.get("decomposition") or []) if self.kind == "gsm8k" else []
        self.queries = self._queries()
        self.others = others    # the task's items, and those the pool does not use: other items' facts come from there
        self.spare = spare
        self.shown: set[str] = set()   # distractors an earlier seed of this item showed: the next ones differ

    def distractors(self, rng: random.Random, pool: Sequence[str], k: int) -> list[str]:
        """k of `pool`, those no earlier seed of this item showed first (then any)."""
        fresh = [x for x in pool if x not in self.shown]
        out = rng.sample(fresh, min(k, len(fresh)))
        out += rng.sample([x for x in pool if x in self.shown], min(k - len(out), len(pool) - len(fresh)))
        self.shown.update(out)
        return out

    def other_facts(self, rng: random.Random, k: int) -> list[str]:
        """k facts of other items (one fact each) for one seed, of unused items when there are enough."""
        out = []
        spare = [o for o in self.spare if o["id"] != self.task["id"] and o.get("facts")]
        others = spare if len(spare) >= 2 * k else self.others
        for o in rng.sample(others, k=min(k + 2, len(others))):
            if o["id"] != self.task["id"] and o.get("facts") and len(out) < k:
                out.append(rng.choice(o["facts"]))
        return out

    def _queries(self) -> list[str]:
        if self.kind == "hotpotqa":
            return list(self.gold_titles)
        if self.kind == "strategyqa":
            steps = [d for d in self.task.get("decomposition") or [] if "#" not in d]
            return steps[:3] or [self.task["question"]]
        return []

    @property
    def index(self) -> WikiIndex:
        if self._index is None:
            self._index = WikiIndex(self.context)
        return self._index

    def applicable(self, t: Template) -> bool:
        if t.clarify:
            # GSM8K's evidence ('paragraphs'): a worked step that does not use the hidden number (Renderer.evidence)
            return t.mode == "plain" or self.kind in ("hotpotqa", "strategyqa") or bool(self.support)
        if t.mode == "support":
            return bool(self.support)
        if t.mode == "paragraphs":
            return (self.kind == "hotpotqa" and bool(self.gold_titles)) or \
                   (self.kind == "strategyqa" and bool(self.support))
        if t.mode == "worked":
            return 0 < len(self.calcs) <= self.max_calls + 1 if self.kind == "gsm8k" else bool(self.context)
        return True

    def expected_calls(self, tools: Sequence[str]) -> list[dict]:
        if self.kind == "gsm8k":
            return [{"name": "calc", "arguments": {"expression": e}} for e, _ in self.calcs] if "calc" in tools else []
        return [{"name": "wiki", "arguments": {"query": q}} for q in self.queries] if "wiki" in tools else []


# ---------------------------------------------------------------- rendering


_NUMBERS = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _number(text: str) -> str:
    """'$1,200' -> '1200', '3.50' -> '3.5': a number as the solution steps may write it."""
    digits = "".join(ch for ch in text if ch.isdigit() or ch == ".").strip(".")
    return digits.rstrip("0").rstrip(".") if "." in digits else digits


def _tidy(text: str) -> str:
    if "\n" not in text:
        return " ".join(text.split())
    lines = [" ".join(line.split()) for line in text.split("\n")]
    out: list[str] = []
    for line in lines:
        if not line and (not out or not out[-1]):
            continue
        out.append(line)
    return "\n".join(out).strip()


def _first_sentence(text: str) -> str:
    m = re.match(r"(.+?[.!?])(\s|$)", text.strip())
    return (m.group(1) if m else text.strip())[:400]


def _notes(rng: random.Random, lines: Sequence[str], sources: Sequence[str]) -> str:
    """A hard pose's notes as bullet lines; in NOTE_SOURCE_RATE of the seeds every line (support and distractor
    alike) says where the user got it (the pack's note_sources)."""
    if sources and rng.random() < NOTE_SOURCE_RATE:
        return "\n".join(f"- {rng.choice(sources)}: {x}" for x in lines)
    return "\n".join(f"- {x}" for x in lines)


class _Renderer:
    def __init__(self, pack: TemplatePack, spec: PoolSpec, passages: Sequence[tuple[str, str]] = ()):
        self.pack = pack
        self.spec = spec
        self.passages = passages  # (title, text) of other items' paragraphs: extra distractors

    def system(self, rng: random.Random, task: str, role: Role, style: Style, tools: Sequence[str]) -> str:
        p = self.pack
        parts = [rng.choice(p.intro), rng.choice(role.system), rng.choice(style.system)]
        if tools and p.tools_lines:
            parts.append(rng.choice(p.tools_lines).format(tools=", ".join(TOOL_SIGNATURES[t] for t in tools)))
        if p.clarify_lines:
            parts.append(rng.choice(p.clarify_lines))
        parts.append(rng.choice(p.answer_lines[task]))
        return " ".join(x.strip() for x in parts if x.strip())

    def evidence(self, rng: random.Random, item: _Item, mode: str, removal: Removal | None = None) -> str:
        """support: the supporting sentences / facts / earlier solution steps; paragraphs: gold passages
        (StrategyQA: facts) among distractors; for a clarification seed only those that do not name the hidden
        fact."""
        if mode == "support":
            lines = list(item.support)
            if item.kind == "strategyqa":
                rng.shuffle(lines)
            return "\n".join(f"- {s}" for s in lines)
        hidden = removal.text.strip('"“” ').lower() if removal is not None else None
        if hidden and item.kind == "gsm8k":
            hidden = _number(hidden)

        def ok(text: str) -> bool:
            if not hidden:
                return True
            if item.kind == "gsm8k":
                return hidden not in {_number(x) for x in _NUMBERS.findall(text)}
            return hidden not in text.lower()

        def masked(text: str) -> str:  # the hidden name left out of the notes as it is out of the question
            return re.sub(re.escape(hidden), rng.choice(self.pack.vague_names), text, flags=re.I) if hidden else text

        if item.kind == "gsm8k":  # a clarification seed's start: one worked step that does not use the hidden number
            return "\n".join(f"- {s}" for s in [x for x in item.support if ok(x)][:1])
        if item.kind == "hotpotqa" and hidden is not None:
            # notes, not passages: the supporting sentences (the hidden name left out) among sentences of the item's
            # distractor paragraphs that do not name it (a whole passage around each would bury them); any sentence,
            # not only the formulaic first ones ('... is an American ...')
            paras = {t: s for t, s in item.context}
            own = [s.strip() for t, sents in paras.items() if t not in item.gold_titles for s in sents
                   if s.strip() and ok(f"{t} {s}")]
            lines = [masked(x) for x in item.support]
            lines += item.distractors(rng, own, rng.randint(*NOTE_DISTRACTORS))
            rng.shuffle(lines)
            return _notes(rng, lines, self.pack.note_sources)
        if item.kind == "hotpotqa":
            paras = {t: s for t, s in item.context}
            own = [t for t in paras if t not in item.gold_titles]
            shown = [(t, "".join(paras[t]).strip()) for t in item.gold_titles]
            shown += [(t, "".join(paras[t]).strip()) for t in rng.sample(own, rng.randint(0, min(2, len(own))))]
            shown = [(t, x) for t, x in shown if ok(f"{t} {x}")]
            if self.passages:
                for _ in range(rng.randint(*EXTRA_PASSAGES)):
                    title, text = self.passages[rng.randrange(len(self.passages))]
                    if title in paras or any(title == t for t, _ in shown) or not ok(f"{title} {text}"):
                        continue
                    shown.append((title, text))
            rng.shuffle(shown)
            return "\n".join(f"{t}: {text}" for t, text in shown)
        lines = [masked(f) for f in item.support]
        lines += [f for f in item.other_facts(rng, rng.randint(*FACT_DISTRACTORS)) if ok(f)]
        rng.shuffle(lines)
        return _notes(rng, lines, self.pack.note_sources)

    def worked(self, rng: random.Random, item: _Item, t: Template, opener: str) -> tuple[list[dict], str | None]:
        """The earlier exchange (user asks, assistant calls a tool, real result, assistant reply) and the
        tool call it already made (left out of the expected calls)."""
        if item.kind == "gsm8k":
            expr, _ = item.calcs[0]
            name, args, lookup = "calc", {"expression": expr}, expr
            result = calc(expr)
            short = result
        else:
            pool = list(item.queries) if item.kind == "strategyqa" else list(item.gold_titles[:1])
            distractors = [p[0] for p in item.context if p[0] not in item.gold_titles]
            if item.kind == "hotpotqa" and distractors and (not pool or rng.random() < 0.5):
                pool = [rng.choice(distractors)]
            lookup = rng.choice(pool) if pool else item.context[0][0]
            name, args = "wiki", {"query": lookup}
            result = item.index.search(lookup)
            top = item.index.rank(lookup)[0]
            short = _first_sentence("".join(item.context[top][1]))
        turns = [
            {"role": "user", "content": _tidy(rng.choice(t.worked_user).format(opener=opener, lookup=lookup))},
            {"role": "assistant", "content": "", "tool_calls": [{"name": name, "arguments": args}]},
            {"role": "tool", "name": name, "content": result},
            {"role": "assistant", "content": _tidy(rng.choice(t.worked_reply).format(result=short))},
        ]
        return turns, lookup

    def seed(self, rng: random.Random, seed_id: str, item: _Item, t: Template, role: Role, style: Style,
             removal: Removal | None) -> Seed:
        task = item.task
        kind = item.kind
        tools = [x for x in t.tools if x in self.spec.tools and x in TASK_TOOLS[kind]]
        expected = item.expected_calls(tools)
        if len(expected) > self.spec.max_tool_calls + (t.mode == "worked") or (not expected and t.mode != "worked"):
            tools, expected = [], []   # too many hops for the gate, or none that the item's evidence supports
        question = task["question"]
        hidden = None
        if removal is not None:
            question = removal.apply(question, rng.choice(self.pack.vague_names))
            hidden = _tidy(rng.choice(t.hidden_reply).format(fact=removal.fact))
        opener, closer = rng.choice(role.openers), rng.choice(style.closers)
        dialogue: list[dict] = [{"role": "system", "content": self.system(rng, kind, role, style, tools)}]
        done = None
        if t.mode == "worked":
            turns, done = self.worked(rng, item, t, opener)
            dialogue += turns
            opener = ""
        evidence = self.evidence(rng, item, t.mode, removal) if t.mode in ("support", "paragraphs") else ""
        user = rng.choice(t.user).format(opener=opener, question=question, closer=closer, evidence=evidence,
                                         header=rng.choice(self.pack.evidence_headers))
        dialogue.append({"role": "user", "content": _tidy(user)})
        if done is not None:
            for i, c in enumerate(expected):
                if done in c["arguments"].values():
                    del expected[i]
                    break
        return {
            "id": seed_id, "task": kind, "source_id": task["id"], "source_question": task["question"],
            "template_id": t.id, "pose": t.difficulty, "role": role.id,
            "style": style.id, "dialogue": dialogue, "needs_clarification": removal is not None,
            "hidden_info": hidden, "tools": tools, "expected_tool_calls": expected, "answer": task["answer"],
            "context": item.context,
            "supporting_facts": task.get("supporting_facts") or [], "facts": task.get("facts") or [],
            "decomposition": task.get("decomposition") or [],
        }


# ---------------------------------------------------------------- the pool
class _ShadowGuard:
    """The shadow set as the pool must avoid it. An item is dropped when its id or normalized question is a
    shadow one, or when its question comes within LEAK_MARGIN of the leak rule (a shared leak_ngram-gram
    and containment >= leak_sim - LEAK_MARGIN: templated questions that differ only in names sit there).
    Each seed is then checked with the validator's exact rule on its question (user turns + hidden_info)
    and redrawn if it would count as a leak."""

    def __init__(self, spec: PoolSpec):
        self.ids = {e for e in spec.exclude if ":" in e}
        self.questions = {e for e in spec.exclude if ":" not in e}
        self.strict = self.loose = None
        if self.questions:
            from rc1.quality.leak import ShadowIndex  # the validator's own leak rule, so build and check agree

            ngram, sim = spec.leak_ngram, spec.leak_sim
            if ngram is None or sim is None:
                from rc1.core.config import load_gates

                rule = load_gates().validate_pool
                ngram, sim = ngram or rule.leak_ngram, rule.leak_sim if sim is None else sim
            qs = [(str(i), q) for i, q in enumerate(sorted(self.questions))]
            self.strict = ShadowIndex(qs, ngram=ngram, sim=sim, ids=self.ids)
            self.loose = ShadowIndex(qs, ngram=ngram, sim=max(0.0, sim - LEAK_MARGIN))

    def keep(self, task: Task) -> bool:
        if task["id"] in self.ids:
            return False
        norm = guard_normalize(task["question"])
        return norm not in self.questions and not (self.loose is not None and self.loose.match(task["id"], norm.split()))

    def leaks(self, seed: Seed) -> bool:
        if self.strict is None:
            return False
        return bool(self.strict.seed_leaks(seed))


def _excluded(tasks: list[Task], guard: _ShadowGuard) -> tuple[list[Task], int]:
    keep = [t for t in tasks if guard.keep(t)]
    return keep, len(tasks) - len(keep)


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
    poses: dict[str, dict[str, int]] = field(default_factory=dict)   # task -> pose -> seeds

    def as_dict(self) -> dict:
        return {"counts": self.counts, "clarify": self.clarify, "items": self.items, "excluded": self.excluded,
                "items_used": self.items_used, "tool_seeds": self.tool_seeds, "worked_seeds": self.worked_seeds,
                "leak_redraws": self.leak_redraws, "poses": self.poses}

    def count(self, seed: Seed, worked: bool) -> None:
        self.tool_seeds += bool(seed["tools"])
        self.worked_seeds += worked
        per = self.poses.setdefault(seed["task"], {d: 0 for d in DIFFICULTIES})
        per[seed["pose"]] += 1


def _passages(items: Sequence[Task]) -> list[tuple[str, str]]:
    """Every distinct paragraph of the items' contexts, as (title, text)."""
    out: dict[str, str] = {}
    for t in items:
        for title, sents in t.get("context") or []:
            out.setdefault(title, "".join(sents).strip())
    return [(t, x) for t, x in out.items() if x]


def pose_counts(count: int, n_clarify: int, target: Mapping[str, float]) -> tuple[dict[str, int], dict[str, int]]:
    """(plain seeds, clarification seeds) per pose of a task's `count` seeds: the target's shares by largest
    remainder; a needed clarification is a hard pose, so the clarification seeds fill hard first, then medium
    (never easy; when there are more of them than medium and hard seeds, easy gives way)."""
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


def has_support(task: Task) -> bool:
    """Whether the item has the evidence an easy (open-book) pose shows (_Item.support is not empty)."""
    if task["task"] == "hotpotqa":
        paras = {t: s for t, s in task.get("context") or []}
        return any(t in paras and 0 <= i < len(paras[t]) for t, i in task.get("supporting_facts") or [])
    if task["task"] == "strategyqa":
        return bool(task.get("facts"))
    steps = task.get("decomposition") or []
    return len(steps) > 1 or bool(steps and "=" in steps[-1])


def _poses(counts: Mapping[str, int]) -> list[str]:
    """The pose of each seed in order, the poses interleaved in their shares (stride scheduling)."""
    order = [d for d in DIFFICULTIES if counts.get(d, 0) > 0]
    if not order:
        return []
    sched = _schedule(order, counts)
    return [next(sched) for _ in range(sum(counts[d] for d in order))]


def _templates(pack: TemplatePack, task: str, clarify: bool, spec: PoolSpec, item: "_Item") -> dict[str, list[Template]]:
    """The item's applicable templates per pose; a pose with none takes medium's (then any) so that every seed
    has one (its `pose` is then the template's own)."""
    every = [t for t in pack.for_task(task, clarify, spec.max_turns) if item.applicable(t)] or \
        pack.for_task(task, clarify, spec.max_turns)[:1]
    by = {d: [t for t in every if t.difficulty == d] for d in DIFFICULTIES}
    return {d: by[d] or by["medium"] or every for d in DIFFICULTIES}


def _task_stream(task: str, items: list[Task], count: int, n_clarify: int, pack: TemplatePack, spec: PoolSpec,
                 stats: PoolStats, guard: _ShadowGuard, skip: int = 0) -> Iterator[Seed]:
    """The task's seeds in order; `skip`: from its skip-th seed on (the earlier seeds of that seed's item are
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
    render = _Renderer(pack, spec, _passages(items) if task == "hotpotqa" else ())
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
        if not has_support(item_task):   # no evidence to open the book on: its easy seeds go to a later item
            owed += plain.count("easy")
            plain = ["medium" if d == "easy" else d for d in plain]
        else:
            while owed and "medium" in plain:
                plain[plain.index("medium")] = "easy"
                owed -= 1
        mine = plain + clar_poses[q - c:q]
        if j + k <= skip:  # every seed of this item comes before the first one wanted
            j += k
            continue
        rng = random.Random(f"{spec.seed}|{item_task['id']}")
        item = _Item(item_task, items, cache.get(item_task["id"]), spec.max_tool_calls, order[len(used):])
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
                seed = render.seed(rng, f"{task}-{j:06d}", item, by_pose[d][t_i], roles[r_i], styles[s_i], hidden[h_i])
                if guard.leaks(seed):
                    seed = _redraw(rng, render, guard, st, f"{task}-{j:06d}", item, by_pose[d], hidden, pack)
                j += 1
                st.count(seed, by_pose[d][t_i].mode == "worked")
                if st is stats:
                    yield seed


def _redraw(rng: random.Random, render: "_Renderer", guard: _ShadowGuard, stats: PoolStats, seed_id: str,
            item: _Item, templates: list[Template], hidden: list, pack: TemplatePack) -> Seed:
    """Another rendering of the same item that the leak rule does not flag (wording, evidence, role, style)."""
    for _ in range(LEAK_REDRAWS):
        stats.leak_redraws += 1
        seed = render.seed(rng, seed_id, item, rng.choice(templates), rng.choice(pack.roles), rng.choice(pack.styles),
                           rng.choice(hidden))
        if not guard.leaks(seed):
            return seed
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


@dataclass
class PoolPlan:
    """What every piece of one pool's stream shares: task counts, the items left after the shadow exclusion,
    clarification counts (plan_pool)."""
    counts: dict[str, int]
    kept: dict[str, list[Task]]
    clar: dict[str, int]
    items: dict[str, int]
    excluded: dict[str, int]
    guard: _ShadowGuard
    n: int = 0                  # the pool size: spec.n, or the largest the data supports (auto)
    largest: int = 0            # the largest n the data supports at the mix


def largest_n(limit: Mapping[str, int], mix: Mapping[str, float]) -> int:
    """The largest n whose largest-remainder task counts stay within `limit` (seeds per task at most)."""
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
    guard = _ShadowGuard(spec)
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
                       f"x max_poses_per_item {spec.max_poses_per_item} = {limit[t]} seeds, the mix asks "
                       f"{counts[t]}; the largest n the data supports is {largest} (--n auto)")
    kept = {t: v for t, v in kept.items() if counts[t]}
    clar_total = round(n * spec.clarify_rate)
    clar = largest_remainder(clar_total, {t: counts[t] for t in kept})
    return PoolPlan(counts, kept, clar, items, excluded, guard, n, largest)


def build_pool(tasks: Mapping[str, list[Task]], pack: TemplatePack, spec: PoolSpec,
               stats: PoolStats | None = None, start: int = 0, stop: int | None = None,
               plan: PoolPlan | None = None) -> Iterator[Seed]:
    """Yield plan.n seeds (see the module docstring). Raises Rc1Error on an impossible spec.
    `start`, `stop`: only the seeds at those positions of the stream, the same seeds (a piece of the pool built
    apart: its stats count its own seeds, `counts` included, from the counts at `start`). `plan`: plan_pool's,
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


def seed_lines(seeds: Iterator[Seed]) -> Iterator[str]:
    """JSON lines of seeds. The seeds of one item share their (large) context list: it is encoded once
    per item and spliced in, which is most of the encoding time of a HotpotQA-heavy pool."""
    cache: dict[int, tuple[list, str]] = {}
    for seed in seeds:
        ctx = seed["context"]
        hit = cache.get(id(ctx))
        if hit is None or hit[0] is not ctx:
            if len(cache) > 64:
                cache.clear()
            hit = cache[id(ctx)] = (ctx, json.dumps(ctx, ensure_ascii=False))
        rest = {k: v for k, v in seed.items() if k != "context"}
        yield json.dumps(rest, ensure_ascii=False)[:-1] + ', "context": ' + hit[1] + "}\n"
