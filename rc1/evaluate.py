"""RC1 evaluation: the policy (registered LoRA adapter on its base) against the base model, multi-turn, with the
training environment (wiki, calc, ask_user answered with hidden_info), on the shadow set and a held-out split.

Per model: success by task x difficulty, success on needs-clarification items, over-clarification rate (share
of items that did not need a question where the model asked one), average episode turns. Deltas are policy minus
base, in percentage points for rates. success = rc1.shadow_run.success_of: the task-correct answer and, when the
item needs clarification, at least one clarifying question.

The RC1 verdict (configs/gates.yaml `evaluate`), over all evaluated items:
- hard_success_gain_pp        HotpotQA + StrategyQA hard bucket success, policy - base  >= hard_success_gain_pp_min
- clarify_success_gain_pp     needs-clarification success, policy - base               >= clarify_success_gain_pp_min
- overclar_reduction_pct      100 * (base - policy) / base over-clarification rate      >= overclar_reduction_pct_min
                              (base rate 0: nothing to reduce; passes only if the policy's rate is 0 too)
- avg_turns_increase          policy - base average turns                               <= avg_turns_increase_max
A metric with no items (e.g. no hard HotpotQA/StrategyQA item) fails its check: no evidence is not a pass.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from rc1.config import EvaluateGate
from rc1.dialogue import analyze
from rc1.shadow_run import success_of
from rc1.train.env import Rc1Env, dispatch_tool, seed_prompt, to_rc1_dialogue

HARD_TASKS = ("hotpotqa", "strategyqa")


# ---------------------------------------------------------------- rollouts
class ChatPolicy:
    """Greedy multi-turn episodes of one transformers model with the training environment's tools."""

    def __init__(self, model, tokenizer, max_turns: int, max_new_tokens: int,
                 generate: Callable[[list[int], int], list[int]] | None = None):
        """`generate(prompt_ids, max_new_tokens) -> new ids` is the backend (default: the model's greedy
        `generate`; rc1.llamacpp.LlamaCppGenerator runs a GGUF export on llama.cpp instead)."""
        from trl.chat_template_utils import add_response_schema

        self.model, self.tok = model, tokenizer
        if getattr(tokenizer, "response_template", None) is None and getattr(tokenizer, "response_schema", None) is None:
            add_response_schema(tokenizer)
        self.max_turns, self.max_new_tokens = max_turns, max_new_tokens
        self.generate = generate or self.torch_generate

    def torch_generate(self, prompt_ids: list[int], max_new_tokens: int) -> list[int]:
        import torch

        inp = torch.tensor([prompt_ids], device=self.model.device)
        with torch.no_grad():
            out = self.model.generate(inp, attention_mask=torch.ones_like(inp), do_sample=False,
                                      max_new_tokens=max_new_tokens, pad_token_id=self.tok.pad_token_id)
        return out[0, len(prompt_ids):].tolist()

    def episode(self, seed: Mapping[str, Any]) -> list[dict]:
        """The seed's prefix followed by the episode, in rc1's dialogue convention."""
        from trl.chat_template_utils import parse_response

        env = Rc1Env(max_turns=self.max_turns)
        env.reset(seed_json=json.dumps(dict(seed)))
        tools = [env.wiki, env.calc, env.ask_user]
        messages = seed_prompt(dict(seed))
        completion: list[dict] = []
        for _ in range(self.max_turns):
            prompt_ids = self.tok.apply_chat_template(messages, tools=tools, add_generation_prompt=True,
                                                      tokenize=True, return_dict=False)
            ids = self.generate(list(prompt_ids), self.max_new_tokens)
            msg = parse_response(self.tok, ids, prefix=prompt_ids, tools=tools)
            msg = {"role": "assistant", "content": msg.get("content") or "",
                   **({"tool_calls": msg["tool_calls"]} if msg.get("tool_calls") else {})}
            messages.append(msg)
            completion.append(msg)
            if not msg.get("tool_calls"):
                break
            for call in msg["tool_calls"]:
                fn = call.get("function", call)
                result = dispatch_tool(env, str(fn.get("name")), fn.get("arguments") or {})
                tool_msg = {"role": "tool", "name": str(fn.get("name")), "content": result}
                messages.append(tool_msg)
                completion.append(tool_msg)
        return list(seed.get("dialogue") or []) + to_rc1_dialogue([], completion)


# ---------------------------------------------------------------- per-item rows and summaries
def item_row(item: Mapping[str, Any], dialogue: Sequence[Mapping[str, Any]], split: str,
             difficulty: str | None) -> dict:
    stats = analyze(list(dialogue), len(item.get("dialogue") or []))
    needs = bool(item.get("needs_clarification", False))
    return {
        "id": str(item["id"]), "split": split, "task": item["task"], "difficulty": difficulty or "unknown",
        "needs_clarification": needs, "clarifications": stats.clarifications, "tool_calls": stats.tool_calls,
        "turns": stats.turns, "final_answer": stats.final_answer,
        "success": success_of(item["task"], item.get("answer"), needs, stats.clarifications, stats.final_answer),
        "overclarified": (not needs) and stats.clarifications > 0,
    }


def run_items(policy: Callable[[Mapping[str, Any]], list[dict]], items: Sequence[tuple[str, Mapping, str | None]],
              progress: bool = True) -> list[dict]:
    from tqdm import tqdm

    rows = []
    for split, item, diff in tqdm(items, desc="evaluate", disable=not progress, leave=False):
        dialogue = policy(item)
        rows.append({**item_row(item, dialogue, split, diff), "dialogue": dialogue})
    return rows


def _rate(rows: Sequence[Mapping], key: str) -> float | None:
    return sum(bool(r[key]) for r in rows) / len(rows) if rows else None


def summarize(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    by_cell: dict[str, list] = defaultdict(list)
    for r in rows:
        by_cell[f"{r['task']}.{r['difficulty']}"].append(r)
    hard = [r for r in rows if r["task"] in HARD_TASKS and r["difficulty"] == "hard"]
    clar = [r for r in rows if r["needs_clarification"]]
    plain = [r for r in rows if not r["needs_clarification"]]
    return {
        "n": len(rows),
        "success": _rate(rows, "success"),
        "success_by_task_difficulty": {k: _rate(v, "success") for k, v in sorted(by_cell.items())},
        "n_by_task_difficulty": {k: len(v) for k, v in sorted(by_cell.items())},
        "hard_success": _rate(hard, "success"), "n_hard": len(hard),
        "clarify_success": _rate(clar, "success"), "n_clarify": len(clar),
        "overclar_rate": _rate(plain, "overclarified"), "n_no_clarify": len(plain),
        "avg_turns": sum(r["turns"] for r in rows) / len(rows) if rows else None,
    }


def _pp(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else 100.0 * (a - b)


def deltas(policy: Mapping[str, Any], base: Mapping[str, Any]) -> dict[str, Any]:
    cells = sorted(set(policy["success_by_task_difficulty"]) | set(base["success_by_task_difficulty"]))
    return {
        "success_pp": _pp(policy["success"], base["success"]),
        "success_by_task_difficulty_pp": {c: _pp(policy["success_by_task_difficulty"].get(c),
                                                  base["success_by_task_difficulty"].get(c)) for c in cells},
        "hard_success_gain_pp": _pp(policy["hard_success"], base["hard_success"]),
        "clarify_success_gain_pp": _pp(policy["clarify_success"], base["clarify_success"]),
        "overclar_rate_pp": _pp(policy["overclar_rate"], base["overclar_rate"]),
        "overclar_reduction_pct": overclar_reduction_pct(policy["overclar_rate"], base["overclar_rate"]),
        "avg_turns_increase": None if policy["avg_turns"] is None or base["avg_turns"] is None
        else policy["avg_turns"] - base["avg_turns"],
    }


def overclar_reduction_pct(policy_rate: float | None, base_rate: float | None) -> float | None:
    if policy_rate is None or base_rate is None:
        return None
    if base_rate == 0:
        return 0.0 if policy_rate == 0 else None   # from 0 to more: no finite reduction, the check fails
    return 100.0 * (base_rate - policy_rate) / base_rate


def rc1_checks(d: Mapping[str, Any], gate: EvaluateGate, base_overclar_rate: float | None = None) -> list[dict]:
    def check(name, value, op, threshold, ok_if_none=False):
        if value is None:
            return {"name": name, "value": None, "threshold": f"{op} {threshold:g}", "pass": ok_if_none}
        ok = value >= threshold if op == ">=" else value <= threshold
        return {"name": name, "value": value, "threshold": f"{op} {threshold:g}", "pass": bool(ok)}

    red = d["overclar_reduction_pct"]
    red_check = check("overclar_reduction_pct", red, ">=", gate.overclar_reduction_pct_min)
    if base_overclar_rate == 0 and red is not None:   # nothing to reduce: pass iff the policy did not start
        red_check["pass"] = red == 0.0
        red_check["threshold"] += " (base rate 0: policy rate must stay 0)"
    return [
        check("hard_success_gain_pp", d["hard_success_gain_pp"], ">=", gate.hard_success_gain_pp_min),
        check("clarify_success_gain_pp", d["clarify_success_gain_pp"], ">=", gate.clarify_success_gain_pp_min),
        red_check,
        check("avg_turns_increase", d["avg_turns_increase"], "<=", gate.avg_turns_increase_max),
    ]


@dataclass
class EvalReport:
    policy: dict
    base: dict
    deltas: dict
    checks: list[dict]
    by_split: dict

    @property
    def passed(self) -> bool:
        return all(c["pass"] for c in self.checks)

    def to_json(self) -> dict:
        return {"passed": self.passed, "policy": self.policy, "base": self.base, "deltas": self.deltas,
                "checks": self.checks, "by_split": self.by_split}


def build_report(policy_rows: Sequence[Mapping], base_rows: Sequence[Mapping], gate: EvaluateGate) -> EvalReport:
    p, b = summarize(policy_rows), summarize(base_rows)
    d = deltas(p, b)
    by_split = {}
    for split in sorted({r["split"] for r in policy_rows}):
        ps = summarize([r for r in policy_rows if r["split"] == split])
        bs = summarize([r for r in base_rows if r["split"] == split])
        by_split[split] = {"policy": ps, "base": bs, "deltas": deltas(ps, bs)}
    return EvalReport(p, b, d, rc1_checks(d, gate, b["overclar_rate"]), by_split)


def flat_metrics(report: EvalReport) -> dict[str, float]:
    out: dict[str, float] = {}
    for who, s in (("policy", report.policy), ("base", report.base)):
        for k in ("success", "hard_success", "clarify_success", "overclar_rate", "avg_turns", "n"):
            if s.get(k) is not None:
                out[f"{who}.{k}"] = float(s[k])
        for cell, v in s["success_by_task_difficulty"].items():
            if v is not None:
                out[f"{who}.success.{cell}"] = float(v)
    for k, v in report.deltas.items():
        if isinstance(v, (int, float)) and v == v and abs(v) != float("inf"):
            out[f"delta.{k}"] = float(v)
    return out
