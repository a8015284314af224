"""What a candidate dialogue did: clarifying questions, tool calls, turns and its final answer.

Convention (shared by the responder, the judge, the training environment and evaluation):
- a dialogue is a list of turns {role: system|user|assistant|tool, content, name?, tool_calls?}
- the seed's dialogue is the prefix; everything after it is the assistant's episode
- an assistant tool call is an assistant turn with `tool_calls: [{name, arguments}]`, answered by
  {role: tool, name, content}
- a clarifying question is an assistant turn (without tool calls) that the environment answers
  with a user turn (hidden_info): structurally, assistant -> user inside the episode
- the final answer is the last assistant turn; within it "Answer: X" (or "#### X") marks X
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ANSWER_RE = re.compile(r"(?:^|\n)\s*(?:final answer|answer)\s*[:：]\s*(.+)", re.IGNORECASE)
_HASH_RE = re.compile(r"####\s*(.+)")


@dataclass(frozen=True)
class EpisodeStats:
    clarifications: int     # assistant questions answered by the user
    tool_calls: int
    assistant_turns: int
    turns: int              # every turn of the episode (assistant, tool and user replies)
    final_text: str         # content of the last assistant turn ("" when none)
    final_answer: str       # extracted answer ("" when none)
    answered: bool          # the episode ends with an assistant turn that is not a tool call


def extract_answer(text: str) -> str:
    """'... Answer: Paris' -> 'Paris'; '#### 72' -> '72'; otherwise the last non-empty line."""
    if not text:
        return ""
    matches = _ANSWER_RE.findall(text) or _HASH_RE.findall(text)
    if matches:
        return matches[-1].strip().rstrip(".").strip()
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def analyze(dialogue: list[dict], prefix_len: int = 0) -> EpisodeStats:
    ep = list(dialogue[prefix_len:])
    clar = tools = asst = 0
    for i, turn in enumerate(ep):
        if turn.get("role") != "assistant":
            continue
        asst += 1
        if turn.get("tool_calls"):
            tools += len(turn["tool_calls"])
        elif i + 1 < len(ep) and ep[i + 1].get("role") == "user":
            clar += 1
    last = next((t for t in reversed(ep) if t.get("role") == "assistant"), None)
    answered = bool(ep) and ep[-1].get("role") == "assistant" and not ep[-1].get("tool_calls")
    final_text = (last or {}).get("content") or "" if answered else ""
    return EpisodeStats(clar, tools, asst, len(ep), final_text, extract_answer(final_text), answered)
