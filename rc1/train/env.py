"""The multi-turn rollout environment: one instance per rollout, reset with one seed.

TRL 1.16's GRPOTrainer(environment_factory=...) calls `reset(**row)` with the dataset row before each rollout and
exposes every public method as a tool; its loop continues a rollout only while the model calls tools. So a clarifying
question is the `ask_user` tool, answered with the seed's `hidden_info`, and the episode ends with the first assistant
turn that calls no tool (its final answer), or when `max_turns` assistant turns are used up.

rc1's dialogue convention (rc1.scoring.dialogue) records a clarifying question as an assistant turn answered by a user turn;
`to_rc1_dialogue` turns TRL's messages (ask_user tool calls) into that shape, so the judge, the reward's
over-clarification count, and evaluation all see one convention.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Callable

from rc1.core.text import valid_unicode
from rc1.data.tools import WikiIndex, calc as _calc

ASK_USER = "ask_user"
NOTHING_TO_ADD = "I have nothing to add; everything you need is in my question."
BUDGET_EXHAUSTED = "error: turn budget exhausted; give your final answer now."
EMPTY_QUESTION = "error: ask_user needs a question; nothing was asked."


def pool_item_prompt(pool_item: dict) -> list[dict]:
    """The pool item's dialogue prefix as chat messages (system/user/assistant) for the policy to continue."""
    msgs: list[dict] = []
    for turn in pool_item.get("dialogue") or []:
        role, content = turn.get("role"), turn.get("content") or ""
        if role in ("system", "user", "assistant"):
            msgs.append({"role": role, "content": content})
        elif role == "tool":  # a prefix tool result without its call: show it to the model as user-visible text
            msgs.append({"role": "user", "content": f"[{turn.get('name', 'tool')} result] {content}"})
    if not msgs or msgs[-1]["role"] != "user":
        msgs.append({"role": "user", "content": str(pool_item.get("question", ""))})
    return msgs


class Rc1Env:
    """Tools bound to one seed: wiki over its context, calc, and ask_user answered with its hidden_info."""

    def __init__(self, max_turns: int = 6):
        self.max_turns = max_turns
        self.pool_item: dict = {}
        self._index = WikiIndex([])
        self.calls: list[tuple[str, dict, str]] = []

    def reset(self, seed_json: str | None = None, **_: Any) -> None:
        self.pool_item = json.loads(seed_json) if seed_json else {}
        self._index = WikiIndex(self.pool_item.get("context") or [])
        self.calls = []

    def _budget_left(self) -> bool:
        # the first assistant turn is free; each tool round buys one more assistant turn
        return len(self.calls) < max(0, self.max_turns - 1)

    def _record(self, name: str, arguments: dict, result: str) -> str:
        self.calls.append((name, arguments, result))
        return result

    def wiki(self, query: str) -> str:
        """Search the encyclopedia paragraphs available for this question.

        Args:
            query: A few keywords naming the entity or fact to look up.

        Returns:
            The best matching paragraphs, one per line, each as "title: text".
        """
        if not self._budget_left():
            return BUDGET_EXHAUSTED
        return self._record("wiki", {"query": query}, self._index.search(query))

    def calc(self, expression: str) -> str:
        """Evaluate an arithmetic expression exactly as written.

        Args:
            expression: Numbers with + - * / // % ** and parentheses, for example "(48 / 2) + 48".

        Returns:
            The numeric result as text, or a message starting with "error:" when the expression is not allowed.
        """
        if not self._budget_left():
            return BUDGET_EXHAUSTED
        return self._record("calc", {"expression": expression}, _calc(expression))

    def ask_user(self, question: str) -> str:
        """Ask the user a clarifying question when the request lacks a fact you need.

        Args:
            question: The question for the user, for example "Which year do you mean?".

        Returns:
            The user's reply.
        """
        if not self._budget_left():
            return BUDGET_EXHAUSTED
        if not asked(question):   # not a clarification: no hidden info, counted as a failed tool call
            return self._record(ASK_USER, {"question": question}, EMPTY_QUESTION)
        hidden = self.pool_item.get("hidden_info")
        reply = str(hidden) if self.pool_item.get("needs_clarification") and hidden else NOTHING_TO_ADD
        return self._record(ASK_USER, {"question": question}, reply)

def asked(question: Any) -> bool:
    """An ask_user call is a clarifying question only when it asks something (a non-blank string)."""
    return isinstance(question, str) and bool(question.strip())


def dispatch_tool(env: Rc1Env, name: str, arguments: dict) -> str:
    """Run a parsed tool call on `env` (evaluation's own rollout loop; TRL calls the methods directly).
    Not a method: every public method of the environment is offered to the model as a tool."""
    fn: Callable[..., str] | None = {"wiki": env.wiki, "calc": env.calc, ASK_USER: env.ask_user}.get(name)
    if fn is None:
        return f"error: unknown tool; available: wiki, calc, {ASK_USER}"   # never echo the policy's text
    try:
        return fn(**(arguments or {}))
    except TypeError:
        return f"error: bad arguments for {name}"


def env_factory(max_turns: int) -> Callable[[], Rc1Env]:
    return functools.partial(Rc1Env, max_turns=max_turns)


def _call_name_args(call: dict) -> tuple[str, dict]:
    fn = call.get("function", call)
    args = fn.get("arguments") or {}
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            args = {"raw": args}
    return str(fn.get("name", "")), args if isinstance(args, dict) else {"raw": args}


def to_rc1_dialogue(prompt: list[dict], completion: list[dict]) -> list[dict]:
    """TRL's prompt + completion messages -> one rc1 dialogue (rc1.dialogue's convention). An assistant message's
    reasoning (TRL's parsed `reasoning_content`) is kept as `reasoning` on the first turn made of it: recorded with the
    dialogue, never shown to the judge (rc1.scoring.spec.dialogue_data reads role, content and tool calls only).

    An assistant message's ask_user calls become "assistant asks / user answers" turns; its other calls stay a
    tool-calling assistant turn followed by their tool results. Results follow their calls in order. Lone surrogates
    become U+FFFD (rc1.core.text.valid_unicode).
    """
    out = [{"role": m["role"], "content": m.get("content") or ""} for m in prompt]
    i = 0
    while i < len(completion):
        msg = completion[i]
        i += 1
        if msg.get("role") != "assistant":
            out.append({"role": msg.get("role", "user"), "content": str(msg.get("content") or "")})
            continue
        calls = [_call_name_args(c) for c in msg.get("tool_calls") or []]
        results = []
        while i < len(completion) and completion[i].get("role") == "tool" and len(results) < len(calls):
            results.append(str(completion[i].get("content") or ""))
            i += 1
        results += ["error: no result"] * (len(calls) - len(results))
        content = msg.get("content") or ""
        reasoning = msg.get("reasoning_content")
        thought = {"reasoning": reasoning} if isinstance(reasoning, str) and reasoning else {}
        is_ask = [c[0] == ASK_USER and asked(c[1].get("question")) for c in calls]
        tool_pairs = [(c, r) for c, r, ask in zip(calls, results, is_ask) if not ask]
        asks = [(c, r) for c, r, ask in zip(calls, results, is_ask) if ask]
        if not calls:
            out.append({"role": "assistant", "content": content, **thought})
            continue
        if tool_pairs:
            out.append({"role": "assistant", "content": content, **thought,
                        "tool_calls": [{"name": n, "arguments": a} for (n, a), _ in tool_pairs]})
            out.extend({"role": "tool", "name": n, "content": r} for (n, _), r in tool_pairs)
            content, thought = "", {}
        for (_, args), reply in asks:
            question = args["question"].strip()
            out.append({"role": "assistant", "content": question, **thought})
            out.append({"role": "user", "content": reply})
            content, thought = "", {}
    return valid_unicode(out)   # a tool call's JSON may carry a lone surrogate ("\ud800"): no file or judge takes one
