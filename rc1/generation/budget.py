"""The thinking budget (ppo config `generation`): per assistant turn at most `thinking_budget` tokens of reasoning, then
at most `answer_budget` tokens of answer. The one implementation that training rollouts, `rc1 evaluate` (batched
PyTorch and llama.cpp) and the served model all run, so the model evaluated is the model served.

When a turn's reasoning reaches its budget without `</think>`, the closing text (a short sentence, then `</think>` and
a blank line: the Qwen3 technical report's thinking budget) is forced token by token and the model answers after it.
An answer that reaches its budget without an end-of-turn token is cut there: the turn is truncated (it ends without
its end-of-turn token, so TRL's mask_truncated_completions sees it as truncated too).

`TurnBudget` is fed each token a turn generates and says which token is forced next and when the turn must stop; it
also counts what the metrics report (think/budget_hit_rate, think/mean_tokens, answer/mean_tokens). The adapters:
`GenerateCall` (transformers `generate`: a LogitsProcessor and a StoppingCriteria; training rollouts and the served
model), `TransformersBackend._decode` and `LlamaCppGenerator` (rc1 evaluate) call `forced`/`feed` themselves.
Without a budget the same object only counts (a turn is never forced or cut).

Whether a turn starts inside its reasoning is read from the prompt: the Qwen3 thinking models' chat template opens
`<think>` itself (the tiny dev model's template does the same, rc1.train.chat); a model that opens `<think>` as its
first token is followed from there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from rc1.core.errors import Rc1Error

OPEN, CLOSE, TURN_START = "<think>", "</think>", "<|im_start|>"


@dataclass(frozen=True)
class TurnStats:
    think_tokens: int      # reasoning the model generated (the forced closing not counted)
    answer_tokens: int     # tokens after `</think>` (the end-of-turn token not counted)
    budget_hit: bool       # the reasoning reached thinking_budget and was closed by rc1
    cut: bool              # the turn ended without its end-of-turn token (answer budget or the caller's token limit)

    def to_json(self) -> dict:
        return {"think_tokens": self.think_tokens, "answer_tokens": self.answer_tokens,
                "budget_hit": self.budget_hit, "cut": self.cut}


@dataclass(frozen=True)
class ThinkingBudget:
    """The budgets and the token ids they act on (one tokenizer's)."""

    thinking: int | None            # None: no limit (count only)
    answer: int | None
    open_id: int | None
    close_id: int | None
    turn_start_id: int | None
    closing_ids: tuple[int, ...]    # forced at the thinking budget: the closing sentence, `</think>`, a blank line
    eos_ids: frozenset[int]

    def turn(self, prompt_ids: Sequence[int]) -> "TurnBudget":
        """The state of a turn that continues `prompt_ids` (left padding ignored)."""
        ids = [int(i) for i in prompt_ids]

        def last(token: int | None) -> int:
            return max((i for i, t in enumerate(ids) if t == token), default=-1) if token is not None else -1

        opened = last(self.open_id)
        return TurnBudget(self, thinking=opened > max(last(self.close_id), last(self.turn_start_id)),
                          opened=opened > last(self.turn_start_id))


@dataclass
class TurnBudget:
    """One turn as it generates: `forced()` before each token, `feed(token)` after; `done` when it must stop."""

    budget: ThinkingBudget
    thinking: bool                  # inside the reasoning now
    opened: bool = False            # this turn's reasoning was opened (by the template or the model)
    think_tokens: int = 0
    answer_tokens: int = 0
    generated: int = 0              # every token fed, forced ones included
    hit: bool = False
    ended: bool = False             # the end-of-turn token came
    stopped: bool = False           # the answer budget is used up
    queue: list[int] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.ended or self.stopped

    def forced(self) -> int | None:
        """The token the turn must take next, or None (the model chooses)."""
        return self.queue[0] if self.queue and not self.done else None

    def feed(self, token: int) -> None:
        b, token = self.budget, int(token)
        if self.done:
            return
        self.generated += 1
        if self.queue:   # the closing text, forced: neither reasoning nor answer
            self.queue.pop(0)
            if token == b.close_id:
                self.thinking = False
            return
        if token in b.eos_ids:
            self.ended = True
        elif self.thinking:
            if token == b.close_id:
                self.thinking = False
                return
            self.think_tokens += 1
            if b.thinking is not None and self.think_tokens >= b.thinking:
                self.hit = True
                self.queue = list(b.closing_ids)
        elif token == b.open_id and not self.opened and self.answer_tokens == 0:
            self.thinking = self.opened = True   # the model opened its reasoning itself
        else:
            self.answer_tokens += 1
            if b.answer is not None and self.answer_tokens >= b.answer:
                self.stopped = True

    def stats(self) -> TurnStats:
        return TurnStats(self.think_tokens, self.answer_tokens, self.hit, cut=not self.ended)


def single_token(tok, text: str) -> int | None:
    """The id of `text` when the tokenizer holds it as one token, else None."""
    ids = tok.encode(text, add_special_tokens=False)
    return int(ids[0]) if len(ids) == 1 else None


def for_tokenizer(tok, generation, eos_ids: Iterable[int | None] = ()) -> ThinkingBudget:
    """The budget of a ppo config's `generation` section on this tokenizer. A budget on a tokenizer without single
    `<think>`/`</think>` tokens is refused (it could never find the reasoning it limits)."""
    open_id, close_id = single_token(tok, OPEN), single_token(tok, CLOSE)
    limited = generation is not None and generation.thinking_budget is not None
    if limited and (open_id is None or close_id is None):
        raise Rc1Error(f"generation.thinking_budget: the tokenizer has no single {OPEN}/{CLOSE} tokens, so it has no "
                       f"reasoning to limit; unset generation.thinking_budget and answer_budget for this model")
    eos = {int(i) for i in eos_ids if i is not None} | ({int(tok.eos_token_id)} if tok.eos_token_id is not None else set())
    closing: tuple[int, ...] = ()
    if limited:
        sentence = tok.encode(generation.closing, add_special_tokens=False)
        if {open_id, close_id, *eos} & set(sentence):   # it would reopen, close early or end the turn unanswered
            raise Rc1Error(f"generation.closing {generation.closing!r} holds {OPEN}, {CLOSE} or an end-of-turn token; "
                           f"write it as plain text (rc1 adds {CLOSE} after it)")
        closing = (*sentence, close_id, *tok.encode("\n\n", add_special_tokens=False))
    return ThinkingBudget(thinking=generation.thinking_budget if limited else None,
                          answer=generation.answer_budget if limited else None, open_id=open_id, close_id=close_id,
                          turn_start_id=single_token(tok, TURN_START), closing_ids=closing, eos_ids=frozenset(eos))


# ---------------------------------------------------------------- transformers generate
class GenerateCall:
    """The budget of one `generate` call: its turns (one per batch row, set on the first step) and the
    `logits_processor` / `stopping_criteria` arguments that apply it."""

    def __init__(self, budget: ThinkingBudget):
        self.budget = budget
        self.turns: list[TurnBudget] | None = None

    def kwargs(self) -> dict[str, Any]:
        from transformers import LogitsProcessor, LogitsProcessorList, StoppingCriteria, StoppingCriteriaList

        call = self

        class Force(LogitsProcessor):
            def __call__(self, input_ids, scores):
                if call.turns is None:   # the first step: the rows are the prompts
                    call.turns = [call.budget.turn(row) for row in input_ids.tolist()]
                for i, turn in enumerate(call.turns):
                    token = turn.forced()
                    if token is not None:
                        scores[i, :] = float("-inf")
                        scores[i, token] = 0.0
                return scores

        class Stop(StoppingCriteria):
            def __call__(self, input_ids, scores, **kwargs):
                import torch

                for turn, token in zip(call.turns or [], input_ids[:, -1].tolist()):
                    turn.feed(token)
                return torch.tensor([t.stopped for t in call.turns or []], dtype=torch.bool, device=input_ids.device)

        return {"logits_processor": LogitsProcessorList([Force()]), "stopping_criteria": StoppingCriteriaList([Stop()])}

    def trim(self, completions: Sequence[Sequence[int]]) -> list[list[int]]:
        """Each row's new ids without what generate padded after the turn stopped (a stopped row has no end-of-turn
        token to cut at, so it gets the pad token until the batch ends)."""
        if self.turns is None:
            return [list(c) for c in completions]
        return [list(c)[:t.generated] if t.stopped else list(c) for c, t in zip(completions, self.turns)]

    def stats(self) -> list[TurnStats]:
        return [t.stats() for t in self.turns or []]


def summarize_turns(turns: Sequence[TurnStats]) -> dict[str, float]:
    """The per-turn metrics (TRL-style names): the share of turns whose reasoning hit the budget, mean reasoning and
    answer tokens per turn."""
    n = max(1, len(turns))
    return {"think/budget_hit_rate": sum(t.budget_hit for t in turns) / n,
            "think/mean_tokens": sum(t.think_tokens for t in turns) / n,
            "answer/mean_tokens": sum(t.answer_tokens for t in turns) / n}


def unanswered(stats, cut: bool) -> bool:
    """Whether an episode (its rc1.scoring.dialogue.analyze stats) ended without a final answer: its last turn was cut
    before its end-of-turn token, or it has no final answer turn (out of turns mid tool call, or only reasoning)."""
    return cut or not stats.answered or not stats.final_text


def forced_mask(budget: ThinkingBudget, prompt_ids: Sequence[int], completion_ids: Sequence[int],
                env_mask: Sequence[int] | None = None) -> list[int]:
    """`env_mask` (1: a token the model generated, 0: one the environment wrote, a tool result; TRL's tool mask) with
    0 also where the thinking budget forced the token: the closing at the budget, which no sampler chose. Found by
    replaying each generated turn's TurnBudget over the completion (a turn starts after the prompt and after each run
    of environment tokens), so it holds for any backend that applied `budget`."""
    mask = [int(m) for m in env_mask] if env_mask is not None else [1] * len(completion_ids)
    context = [int(i) for i in prompt_ids]
    turn: TurnBudget | None = None
    for i, token in enumerate(completion_ids):
        token = int(token)
        if not mask[i]:
            turn = None
        else:
            turn = turn or budget.turn(context)
            if turn.forced() == token:
                mask[i] = 0
            turn.feed(token)
        context.append(token)
    return mask
