"""Probe requests for probe_scorer / assert_not_simulated, and the two gates' checks (pure).

The probe items are real items with reference answers in the three task formats (the sample bundled with
rc1.data; a few items defined here when that package is absent); each probe request is one
candidate dialogue over one item (a correct, a wrong, a clarifying ... answer,
chosen by seed). A `nonce` adds a session line to the dialogue, so the prompts are new to the cache
(probe_scorer); a fixed nonce reproduces the same prompts (a cached re-run).
"""

from __future__ import annotations

import random
import re
from typing import Any

from rc1.scoring.base import JudgeRequest
from rc1.scoring.providers import HEURISTIC

PROBE_ITEMS: tuple[dict[str, Any], ...] = (
    {"id": "probe:hotpotqa:1", "task": "hotpotqa", "answer": "Lake Morrow",
     "question": "Which lake lies next to the town where the painter Ada Venn was born?",
     "context": [["Ada Venn", ["Ada Venn (1881-1950) was a landscape painter.", "She was born in Hollin."]],
                 ["Hollin", ["Hollin is a market town.", "Hollin lies on the shore of Lake Morrow."]],
                 ["Carran", ["Carran is a village near Lake Tessel."]]],
     "tool": ("wiki", {"query": "Hollin lake"}), "tool_out": "Hollin: Hollin lies on the shore of Lake Morrow.",
     "wrong": "Lake Tessel", "needs_clarification": False, "hidden_info": None},
    {"id": "probe:hotpotqa:2", "task": "hotpotqa", "answer": "Brightwater Bridge",
     "question": "Which is older, Brightwater Bridge or Kell Tower?",
     "context": [["Brightwater Bridge", ["Brightwater Bridge was completed in 1821."]],
                 ["Kell Tower", ["Kell Tower was built in 1904 as a water tower."]]],
     "tool": ("wiki", {"query": "Kell Tower built"}), "tool_out": "Kell Tower: Kell Tower was built in 1904.",
     "wrong": "Kell Tower", "needs_clarification": False, "hidden_info": None},
    {"id": "probe:hotpotqa:3", "task": "hotpotqa", "answer": "Orla Finch",
     "question": "Who directed the film that won the prize at the festival?",
     "context": [["Harbour Lights", ["Harbour Lights is a 1998 film directed by Orla Finch."]],
                 ["Tamsin Festival", ["In 1999 the Tamsin Festival prize went to Harbour Lights."]]],
     "tool": ("wiki", {"query": "Tamsin Festival 1999 prize"}),
     "tool_out": "Tamsin Festival: In 1999 the Tamsin Festival prize went to Harbour Lights.",
     "wrong": "Tamsin Reed", "needs_clarification": True, "hidden_info": "I mean the 1999 Tamsin Festival."},
    {"id": "probe:strategyqa:1", "task": "strategyqa", "answer": "no",
     "question": "Could a single adult elephant fit inside a standard phone booth?",
     "context": ["An adult elephant weighs several tonnes and stands about 3 m tall.",
                 "A phone booth is about 1 m wide and 2.3 m tall."],
     "tool": None, "tool_out": None, "wrong": "yes", "needs_clarification": False, "hidden_info": None},
    {"id": "probe:strategyqa:2", "task": "strategyqa", "answer": "yes",
     "question": "Would water boil faster at the top of a high mountain than at sea level?",
     "context": ["Air pressure falls with altitude.", "Lower pressure lowers the boiling point of water."],
     "tool": None, "tool_out": None, "wrong": "no", "needs_clarification": False, "hidden_info": None},
    {"id": "probe:strategyqa:3", "task": "strategyqa", "answer": "yes",
     "question": "Is that city's river longer than the Thames?",
     "context": ["The Danube is about 2850 km long.", "The Thames is about 346 km long."],
     "tool": None, "tool_out": None, "wrong": "no", "needs_clarification": True,
     "hidden_info": "The city is Vienna, on the Danube."},
    {"id": "probe:gsm8k:1", "task": "gsm8k", "answer": "42",
     "question": "Mia buys 3 packs of 12 stickers and gets 6 more from a friend. How many stickers does she have?",
     "context": [], "tool": ("calc", {"expression": "3*12+6"}), "tool_out": "42", "wrong": "36",
     "needs_clarification": False, "hidden_info": None},
    {"id": "probe:gsm8k:2", "task": "gsm8k", "answer": "15",
     "question": "A tank holds 60 litres and loses 3 litres an hour. After how many hours is it three quarters full?",
     "context": [], "tool": ("calc", {"expression": "60*0.25/3"}), "tool_out": "5.0", "wrong": "20",
     "needs_clarification": False, "hidden_info": None},
    {"id": "probe:gsm8k:3", "task": "gsm8k", "answer": "18",
     "question": "Tom saves the same amount every week. How much does he save in 3 weeks?",
     "context": [], "tool": ("calc", {"expression": "6*3"}), "tool_out": "18", "wrong": "9",
     "needs_clarification": True, "hidden_info": "He saves 6 dollars a week."},
)
KINDS = ("correct", "wrong", "needless_clarification", "verbose")
_CALC = re.compile(r"([\d.()+\-*/ ]*\d[\d.()+\-*/ ]*[+\-*/][\d.()+\-*/ ]*\d)\s*=\s*(-?[\d.]+)")


def _item_from_task(t: dict) -> dict[str, Any] | None:
    """A probe item from a Task record (rc1.data), or None when it lacks what a probe needs."""
    task, answer = t["task"], str(t["answer"])
    item = {"id": f"probe:{t['id']}", "task": task, "answer": answer, "question": t["question"],
            "needs_clarification": False, "hidden_info": None, "tool": None, "tool_out": None}
    if task == "hotpotqa":
        paras = {title: sents for title, sents in t["context"]}
        support = [paras[title][i].strip() for title, i in t["supporting_facts"]
                   if title in paras and i < len(paras[title])]
        others = [title for title in paras if title.lower() not in answer.lower()]
        if not support or not others:
            return None
        item.update(context=t["context"], tool=("wiki", {"query": t["question"]}), tool_out=" ".join(support),
                    wrong=others[0], reasoning=" ".join(support))
    elif task == "strategyqa":
        if not t["facts"]:
            return None
        item.update(context=list(t["facts"]), wrong="no" if answer.lower() == "yes" else "yes",
                    reasoning=" ".join(t["facts"]))
    else:
        calcs = [m for step in t["decomposition"] for m in _CALC.findall(step)]
        if not calcs:
            return None
        expr, result = calcs[-1]
        wrong = str(int(float(answer)) + 7) if answer.replace(".", "", 1).lstrip("-").isdigit() else "0"
        item.update(context=[], tool=("calc", {"expression": expr.strip()}), tool_out=result, wrong=wrong,
                    reasoning=" ".join(t["decomposition"]))
    return item


def probe_items(n: int) -> list[dict[str, Any]]:
    """n items, round-robin over the tasks: the real sample bundled with rc1 (rc1.data); a task without a usable
    item there takes the items above."""
    from rc1.data import bundled_tasks

    per_task = -(-n // 3) + 2
    pools = {task: [x for x in map(_item_from_task, bundled_tasks(task)[:per_task * 4]) if x][:per_task]
             for task in ("hotpotqa", "strategyqa", "gsm8k")}
    out: list[dict[str, Any]] = []
    for i in range(n):
        pool = pools[("hotpotqa", "strategyqa", "gsm8k")[i % 3]] or list(PROBE_ITEMS)
        out.append(pool[(i // 3) % len(pool)])
    return out


def _dialogue(item: dict, kind: str, nonce: str | None) -> tuple[dict, ...]:
    turns: list[dict] = []
    if nonce:
        turns.append({"role": "system", "content": f"Probe session {nonce}. You may use the tools wiki and calc."})
    turns.append({"role": "user", "content": item["question"]})
    if item["needs_clarification"] or kind == "needless_clarification":
        turns.append({"role": "assistant", "content": "Before I answer: could you tell me which one you mean?"})
        turns.append({"role": "user", "content": item["hidden_info"] or "Just answer the question as asked."})
    if item["tool"]:
        name, args = item["tool"]
        turns.append({"role": "assistant", "content": "", "tool_calls": [{"name": name, "arguments": args}]})
        turns.append({"role": "tool", "name": name, "content": item["tool_out"]})
    answer = item["wrong"] if kind == "wrong" else item["answer"]
    facts = item.get("reasoning") or " ".join(
        s for para in item["context"] for s in (para[1] if isinstance(para, list) else [para]))
    if kind == "verbose":
        text = (f"Let me think about this at length. {facts} " * 3 + f"So, all things considered,\nAnswer: {answer}")
    else:
        text = f"{facts} So the answer follows.\nAnswer: {answer}" if facts else f"Answer: {answer}"
    turns.append({"role": "assistant", "content": text.strip()})
    return tuple(turns)


def probe_requests(n: int, seed: int = 0, nonce: str | None = None) -> list[JudgeRequest]:
    """n probe requests over the built-in items; the candidate kind of each is drawn with `seed`."""
    rng = random.Random(seed)
    out = []
    for i, item in enumerate(probe_items(n)):
        kind = rng.choice(KINDS)
        out.append(JudgeRequest(
            item_id=item["id"], candidate_id=f"probe-{i}-{kind}", task=item["task"], question=item["question"],
            gold_answer=item["answer"], needs_clarification=item["needs_clarification"],
            dialogue=_dialogue(item, kind, nonce), hidden_info=item["hidden_info"],
            context=tuple(item["context"]),
        ))
    return out


def _check(name: str, value: Any, threshold: Any, ok: bool) -> dict[str, Any]:
    return {"name": name, "value": value, "threshold": threshold, "pass": bool(ok)}


def probe_checks(stats: dict[str, Any], requested: str | None, billable_min: int, latency_ms_min: float,
                 refused: str | None = None) -> list[dict[str, Any]]:
    """probe_scorer: a live provider answered (billable >= min, latency > min), nothing failed or substituted."""
    provider = stats.get("provider") or requested or "?"
    return [
        _check("provider_live", provider if not refused else f"refused: {refused}", "not heuristic, live endpoint",
               not refused and bool(stats.get("live")) and provider != HEURISTIC),
        _check("no_fallback", provider, requested or "the configured provider",
               not refused and (requested is None or provider == requested)),
        _check("billable_count", int(stats.get("billable_count", 0)), f">= {billable_min}",
               stats.get("billable_count", 0) >= billable_min),
        _check("latency_ms", float(stats.get("avg_latency_ms", 0.0)), f"> {latency_ms_min:g}",
               stats.get("avg_latency_ms", 0.0) > latency_ms_min),
        _check("failed", int(stats.get("failed", 0)), "== 0 (a live failure is a failure)",
               not refused and stats.get("failed", 0) == 0 and stats.get("requests", 0) > 0),
    ]


def anti_simulation_checks(stats: dict[str, Any], cache_hit_lt: float, run_mode: str, simulate: bool | None,
                           billable_min: int = 1, latency_ms_min: float = 0.0,
                           refused: str | None = None) -> list[dict[str, Any]]:
    """assert_not_simulated: real billable calls, latency, a cache hit rate under the bar, prod, simulate=false."""
    provider = stats.get("provider") or "?"
    hit = float(stats.get("cache_hit_rate", 0.0))
    return [
        _check("run_mode", run_mode, "prod", run_mode == "prod"),
        _check("simulate", simulate, False, simulate is False),
        _check("provider_live", provider if not refused else f"refused: {refused}", "not heuristic, live endpoint",
               not refused and bool(stats.get("live")) and provider != HEURISTIC),
        _check("billable_count", int(stats.get("billable_count", 0)), f">= {billable_min}",
               stats.get("billable_count", 0) >= billable_min),
        _check("latency_ms", float(stats.get("avg_latency_ms", 0.0)), f"> {latency_ms_min:g}",
               stats.get("avg_latency_ms", 0.0) > latency_ms_min),
        _check("cache_hit_rate", hit, f"< {cache_hit_lt:g}", not refused and hit < cache_hit_lt),
    ]


def records_stats(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The anti-simulation counters of scoring records (rc1.scoring.cache scoring_log rows): billable replies, their
    mean latency, the share served from the cache, the providers, and whether every record came from a live one."""
    n = len(records)
    hits = sum(1 for r in records if r["cached"])
    billable = [r for r in records if r["billable"]]
    providers = sorted({str(r["provider"]) for r in records})
    return {"records": n, "calls": n - hits, "billable_count": len(billable), "cache_hits": hits,
            "cache_misses": n - hits, "cache_hit_rate": hits / n if n else 0.0,
            "avg_latency_ms": sum(r["latency_ms"] for r in billable) / len(billable) if billable else 0.0,
            "provider": ",".join(providers) or "none", "model": ",".join(sorted({str(r["model"]) for r in records})),
            "live": bool(records) and all(r["live"] and r["provider"] != HEURISTIC for r in records)}
