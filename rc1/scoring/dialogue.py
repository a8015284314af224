"""What a candidate dialogue did: clarifying questions, tool calls, turns and its final answer.

Convention (shared by the responder, the judge, the training environment and evaluation):
- a dialogue is a list of turns {role: system|user|assistant|tool, content, name?, tool_calls?}
- the seed's dialogue is the prefix; everything after it is the assistant's episode
- an assistant tool call is an assistant turn with `tool_calls: [{name, arguments}]`, answered by
  {role: tool, name, content}
- a clarifying question is an assistant turn (without tool calls) that the environment answers
  with a user turn (hidden_info): structurally, assistant -> user inside the episode
- the final answer is the last assistant turn, without its `<think>` blocks (strip_think); rc1.scoring.answers.final_answer
  extracts it ("Answer: X" or "#### X" marks X; a hedge with several answers has none)
"""

from __future__ import annotations

from dataclasses import dataclass

from rc1.scoring.answers import extract_answer, final_answer  # noqa: F401  (extract_answer: re-exported)

_OPEN, _CLOSE = "<think>", "</think>"


@dataclass(frozen=True)
class EpisodeStats:
    clarifications: int     # assistant questions answered by the user
    tool_calls: int
    assistant_turns: int
    turns: int              # every turn of the episode (assistant, tool and user replies)
    final_text: str         # content of the last assistant turn without <think> blocks ("" when none)
    final_answer: str       # extracted answer ("" when none or hedged)
    answered: bool          # the episode ends with an assistant turn that is not a tool call
    hedged: bool = False    # the final turn states more than one distinct answer (so it has none)
    marked: bool = False    # the final answer follows an "Answer:" / "####" marker (or is boxed)


def strip_think(text: str) -> str:
    """Text without its reasoning blocks: everything up to the first `</think>` dropped when no `<think>` comes before
    it (the chat template opened the block), `<think>...</think>` pairs removed, an unclosed `<think>` drops the rest,
    a stray `</think>` is dropped. Linear. (The first `</think>` ends the template's block, as the thinking budget
    reads the turn: a later `<think>` block never brings the template's reasoning back into the answer.)"""
    text = text or ""
    close = text.find(_CLOSE)
    if close >= 0 and text.rfind(_OPEN, 0, close) < 0:
        text = text[close + len(_CLOSE):]
    out, pos = [], 0
    while True:
        start = text.find(_OPEN, pos)
        if start < 0:
            out.append(text[pos:])
            break
        out.append(text[pos:start])
        end = text.find(_CLOSE, start)
        if end < 0:
            break
        pos = end + len(_CLOSE)
    return "".join(out).replace(_CLOSE, "").strip()


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
    final_text = strip_think((last or {}).get("content") or "") if answered else ""
    fa = final_answer(final_text)
    return EpisodeStats(clar, tools, asst, len(ep), final_text, fa.span, answered, fa.hedged, fa.marked)
