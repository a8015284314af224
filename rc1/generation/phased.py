"""The thinking budget over a sampler that cannot run a logits processor: vLLM (s1-style budget forcing in phases).

A turn generates in phases, each one sampler call that runs up to a token limit and stops at given tokens, the limits
read from the turn's TurnBudget (rc1.generation.budget), so every token is decided as `GenerateCall` decides it in
transformers' generate:

- reasoning: up to what is left of `thinking_budget`, stopping at an end-of-turn token (and at `</think>` when an
  answer budget must start counting there);
- at the budget: the closing text (sentence, `</think>`, blank line) is appended by rc1, not sampled;
- answer: up to what is left of `answer_budget`, stopping at an end-of-turn token; the turn is cut at the budget;
- a turn whose prompt did not open `<think>` first takes one token alone (the model may open its reasoning with it).

Rows advance together: each round is one sampler call over every row that still samples, each with its own limit and
stop tokens. Under greedy decoding the tokens are those of transformers' generate with the budget's logits processor
(tests/unit/test_vllm_rollouts.py). Forced tokens are marked: no sampler chose them, so they carry no logprob of the
sampler's (0.0 stands in) and no gradient (rc1.generation.budget.forced_mask).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from rc1.generation.budget import ThinkingBudget, TurnBudget


@dataclass(frozen=True)
class Request:
    """One sampler call's work for a row: continue `ids` by at most `max_tokens`, stopping after any of `stop`."""

    ids: list[int]
    max_tokens: int
    stop: frozenset[int]


# requests -> per request (new ids, each one's sampled logprob); a row may return fewer ids than asked (it stopped)
Sampler = Callable[[Sequence[Request]], list[tuple[list[int], list[float]]]]


@dataclass
class Generated:
    """One row's turn: its new ids, the sampler's logprob of each (0.0 for a forced one), which ids rc1 forced, and
    the turn's budget state (its TurnStats: `turn.stats()`)."""

    turn: TurnBudget
    ids: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    forced: list[bool] = field(default_factory=list)

    def add(self, token: int, logprob: float, forced: bool) -> None:
        self.ids.append(int(token))
        self.logprobs.append(float(logprob))
        self.forced.append(forced)
        self.turn.feed(token)


def next_request(budget: ThinkingBudget, turn: TurnBudget, prompt: Sequence[int], done: Sequence[int],
                 room: int) -> Request | None:
    """What the row samples next (None: nothing, its turn ended or `room` tokens are used)."""
    if turn.done or room <= 0:
        return None
    eos = budget.eos_ids
    if turn.thinking:
        left = room if budget.thinking is None else budget.thinking - turn.think_tokens
        stop = eos | {budget.close_id} if budget.answer is not None and budget.close_id is not None else eos
    elif not turn.opened and turn.answer_tokens == 0 and budget.open_id is not None:
        left, stop = 1, eos   # its first token may open the reasoning
    else:
        left = room if budget.answer is None else budget.answer - turn.answer_tokens
        stop = eos
    return Request([*prompt, *done], max(1, min(left, room)), frozenset(stop))


def generate(sample: Sampler, budget: ThinkingBudget, prompts: Sequence[Sequence[int]],
             max_new_tokens: int, turns: Sequence[TurnBudget] | None = None) -> list[Generated]:
    """Each prompt's turn under `budget`, at most `max_new_tokens` new ids (forced ones included), sampled by
    `sample` round by round. `turns`: the rows' TurnBudgets when the caller holds them (unset: new ones)."""
    rows = [Generated(t) for t in (turns if turns is not None else [budget.turn(p) for p in prompts])]
    while True:
        for row in rows:   # the closing text: appended, not sampled
            while (token := row.turn.forced()) is not None and len(row.ids) < max_new_tokens:
                row.add(token, 0.0, forced=True)
        todo = [(i, r) for i, row in enumerate(rows)
                if (r := next_request(budget, row.turn, prompts[i], row.ids, max_new_tokens - len(row.ids)))]
        if not todo:
            return rows
        for (i, req), (ids, logprobs) in zip(todo, sample([r for _, r in todo])):
            row = rows[i]
            for token, logprob in zip(ids[:req.max_tokens], logprobs):
                if row.turn.done:
                    break
                row.add(token, logprob, forced=False)
            if not ids:   # the sampler gave nothing (the model's length limit): the turn cannot go on
                row.turn.stopped = True
