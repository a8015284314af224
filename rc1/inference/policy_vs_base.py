"""RC1 evaluation: the policy (registered LoRA adapter on its base) against the base model, multi-turn, with the
training environment (wiki, calc, ask_user answered with hidden_info), on the shadow set and a held-out split.

Per model: success by task x difficulty, success on needs-clarification items, over-clarification rate (share
of items that did not need a question where the model asked one), average episode turns. Deltas are policy minus
base, in percentage points for rates. success = rc1.scoring.answers.success_of: the task-correct answer and, when the
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

import contextlib
import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol, Sequence

from rc1.core.config import EvaluateThresholds
from rc1.core.console import no_bar
from rc1.core.errors import Rc1Error
from rc1.scoring.dialogue import analyze
from rc1.inference.prefix_cache import PrefixStore, shared_prefixes
from rc1.scoring.answers import success_of
from rc1.train.env import Rc1Env, dispatch_tool, pool_item_prompt, to_rc1_dialogue

HARD_TASKS = ("hotpotqa", "strategyqa")


# ---------------------------------------------------------------- rollouts
class GenerationBackend(Protocol):
    """What the episode loop needs from a model: one assistant message per conversation.

    `prompts`: chat message lists (rc1.train.env.pool_item_prompt plus the episode so far); `tools`: the JSON schemas
    of the environment's tools (what a chat template renders). Returns {role: assistant, content, tool_calls?}
    per prompt, in order, decoded greedily. A backend batches as it likes (TransformersBackend: left-padded
    batches of `batch_size`; LlamaCppBackend: one prompt at a time; VllmBackend: `batch_size` requests per engine
    call); the loop calls it once per turn with every open episode."""

    def generate_batch(self, prompts: Sequence[Sequence[Mapping[str, Any]]],
                       tools: Sequence[Mapping[str, Any]]) -> list[dict]: ...


class TokenBackend:
    """A GenerationBackend around token-level greedy generation: renders each conversation with the tokenizer's
    chat template, hands the prompt ids to `_generate` in chunks of `batch_size` (sorted by length: similar
    lengths, less padding) and parses each reply with TRL's response parser (the one training uses).

    Every turn runs under the thinking budget of `generation` (a ppo config's section; None: counted, never forced:
    rc1.generation.budget), the implementation training rollouts and the served model run; each reply carries its
    turn's counts under "budget" (a TurnStats, which run_episodes takes off the message)."""

    def __init__(self, tokenizer, max_new_tokens: int, batch_size: int = 1, generation=None,
                 eos_ids: Sequence[int | None] = ()):
        from rc1.generation.budget import for_tokenizer
        from rc1.train.chat import prepare

        self.tok = prepare(tokenizer)
        self.max_new_tokens, self.batch_size = max_new_tokens, max(1, int(batch_size))
        self.budget = for_tokenizer(tokenizer, generation, eos_ids)

    def generate_batch(self, prompts, tools) -> list[dict]:
        from trl.chat_template_utils import parse_response

        if not prompts:
            return []
        # one batched render + tokenize call (the tokenizer encodes the batch in parallel); ids as rendered alone
        rendered = self.tok.apply_chat_template([list(m) for m in prompts], tools=list(tools),
                                                add_generation_prompt=True, tokenize=True, return_dict=False)
        out: list[dict | None] = [None] * len(rendered)
        turns = [self.budget.turn(ids) for ids in rendered]
        order = sorted(range(len(rendered)), key=lambda i: len(rendered[i]))
        for k in range(0, len(order), self.batch_size):
            rows = order[k:k + self.batch_size]
            for i, ids in zip(rows, self._generate([rendered[i] for i in rows], [turns[i] for i in rows])):
                msg = parse_response(self.tok, ids, prefix=rendered[i], tools=list(tools))
                out[i] = {"role": "assistant", "content": msg.get("content") or "",
                          **({"reasoning_content": msg["reasoning_content"]} if msg.get("reasoning_content") else {}),
                          **({"tool_calls": msg["tool_calls"]} if msg.get("tool_calls") else {}),
                          "budget": turns[i].stats()}
        return out  # type: ignore[return-value]

    def _generate(self, prompt_ids: list[list[int]], turns: list | None = None) -> list[list[int]]:
        """New token ids per prompt (up to and including its end-of-turn token, or up to where its turn's budget,
        rc1.generation.budget.TurnBudget, stopped it); each token is the turn's forced one when it has one, and is
        fed to it (`turns`: one per prompt; unset, new ones)."""
        raise NotImplementedError

    def _turns(self, prompt_ids: list[list[int]], turns: list | None) -> list:
        return list(turns) if turns is not None else [self.budget.turn(p) for p in prompt_ids]


class LlamaCppBackend(TokenBackend):
    """Greedy generation on llama.cpp: `generator(prompt_ids, max_new_tokens) -> new ids` (a
    rc1.inference.llamacpp.LlamaCppGenerator on a GGUF export) runs prompt by prompt; the prompt ids come from the Hugging
    Face tokenizer and chat template, so both backends see the same ids."""

    def __init__(self, generator: Callable[..., list[int]], tokenizer, max_new_tokens: int, generation=None):
        super().__init__(tokenizer, max_new_tokens, generation=generation,
                         eos_ids=sorted(getattr(generator, "eos", ())))
        self.generator = generator

    def _generate(self, prompt_ids: list[list[int]], turns: list | None = None) -> list[list[int]]:
        return [self.generator(list(p), self.max_new_tokens, turn)
                for p, turn in zip(prompt_ids, self._turns(prompt_ids, turns))]


class VllmBackend(TokenBackend):
    """Greedy generation on rc1's vLLM engine (rc1.generation.vllm_engine), one engine for the policy and its base:
    `weights()` gives this model's (name, tensor) pairs (the policy's with its LoRA folded in:
    rc1.train.rollout.merged_weights), handed to the engine before its first turn when it holds another model's. Each
    turn runs in phases under the thinking budget (rc1.generation.phased), the conversations of a turn together."""

    def __init__(self, engine, weights: Callable[[], Any], tokenizer, max_new_tokens: int, batch_size: int = 1,
                 generation=None, eos_ids: Sequence[int | None] = ()):
        super().__init__(tokenizer, max_new_tokens, batch_size, generation=generation, eos_ids=eos_ids)
        self.engine, self.weights = engine, weights

    def _generate(self, prompt_ids: list[list[int]], turns: list | None = None) -> list[list[int]]:
        from rc1.generation.phased import generate

        if self.engine.holder is not self:
            self.engine.load_weights(self.weights())
            self.engine.holder = self
        rows = generate(lambda reqs: self.engine.sample(reqs, temperature=0.0), self.budget, prompt_ids,
                        self.max_new_tokens, self._turns(prompt_ids, turns))
        return [r.ids for r in rows]


PREFILL_ROWS = 8        # prompts per prefill forward (right-padded; sorted lengths keep the padding small)
SHARED_PREFIX_MIN = 64  # leading ids that prompts must share for that prefix to be prefilled once (rc1.inference.prefix_cache)
PREFIX_STORE_SIZE = 4   # shared prefixes whose keys/values a backend keeps between calls (least recently used dropped)


class TransformersBackend(TokenBackend):
    """Greedy generation with a transformers (or PEFT) causal LM in batches of `batch_size` (prompts of similar length
    prefilled PREFILL_ROWS at a time, the batch decoded together in one preallocated cache), each row cut at its own
    end-of-turn token."""

    def __init__(self, model, tokenizer, max_new_tokens: int, batch_size: int = 1, generation=None):
        super().__init__(tokenizer, max_new_tokens, batch_size, generation=generation,
                         eos_ids=model_eos_ids(model, tokenizer))
        self.model = model
        self.prefixes = PrefixStore(PREFIX_STORE_SIZE)
        self.eos_ids = set(self.budget.eos_ids)
        check_plain_greedy(model)

    def _generate(self, prompt_ids: list[list[int]], turns: list | None = None) -> list[list[int]]:
        """New token ids per prompt, each up to and including its first end-of-turn token (as if generated alone).

        Each prompt but its last token is prefilled (_prefill). The rows' keys/values after their shared prefix (all
        of them for a row without one) are then copied, left-padded, into one cache with room for every new token
        (written in place: no copy of the whole cache per step); a shared prefix's keys/values stay one copy for all
        its rows (rc1.inference.batch_cache.SharedPrefixes). The batch decodes greedily together (_decode: one forward per step
        instead of one per row)."""
        import torch

        from rc1.inference.batch_cache import SharedPrefixes, batch_cache

        if min(len(p) for p in prompt_ids) < 2:
            raise ValueError("a prompt needs at least two tokens")
        device = self.model.device
        with torch.inference_mode():
            own, prefixes = self._prefill([p[:-1] for p in prompt_ids])
            lengths = [len(p) - 1 - (0 if kv is None else kv[0][0].shape[2]) for p, kv in zip(prompt_ids, prefixes)]
            cache = batch_cache(own, lengths, self.max_new_tokens)
            del own   # the prefill caches (a shared prefix copied per row there): the decode holds its own copy
            width = cache.layers[0].length
            # the rows' attention mask over their own cache, 4D as attention takes it (transformers passes it on as is)
            mask = torch.zeros((len(prompt_ids), 1, 1, width + self.max_new_tokens), dtype=torch.bool)
            for r, n in enumerate(lengths):
                mask[r, ..., width - n:width + 1] = True   # the row's prefilled ids and its last prompt token
            token = torch.tensor([[p[-1]] for p in prompt_ids], dtype=torch.long, device=device)
            position = torch.tensor([[len(p) - 1] for p in prompt_ids], dtype=torch.long, device=device)
            return self._decode(cache, mask.to(device), width, token, position, SharedPrefixes(prefixes),
                                self._turns(prompt_ids, turns))

    def _decode(self, cache, mask, width: int, token, position, shared, turns) -> list[list[int]]:
        """Greedy steps for the batch: each step's token is the argmax of its logits, as generate(do_sample=False)
        takes it, or the token its turn's budget forces (rc1.generation.budget); attention is
        rc1.inference.batch_cache.shared_prefix_attention (each row's shared prefix, then its own cache).
        A row leaves the batch at its end-of-turn token or when its budget stops it; the finished rows are dropped from
        the cache once they are a quarter of it, so the last long rows do not carry them."""
        import torch

        from rc1.inference.batch_cache import decode_attention

        new: list[list[int]] = [[] for _ in range(len(token))]
        live: list[int | None] = list(range(len(token)))   # batch row -> prompt index; None once that prompt ended
        with decode_attention(self.model):
            for step in range(self.max_new_tokens):
                out = self.model(input_ids=token, attention_mask=mask[..., :width + step + 1], position_ids=position,
                                 past_key_values=cache, use_cache=True, logits_to_keep=1, shared_prefixes=shared)
                picked = out.logits[:, -1, :].float().argmax(dim=-1).tolist()
                for j, r in enumerate(live):
                    forced = turns[r].forced() if r is not None else None
                    picked[j] = picked[j] if forced is None else forced
                nxt = torch.tensor(picked, dtype=torch.long, device=token.device)
                for j, t in enumerate(picked):
                    r = live[j]
                    if r is not None:
                        new[r].append(t)
                        turns[r].feed(t)
                        if t in self.eos_ids or turns[r].stopped:   # its end-of-turn token, or its answer budget used up
                            live[j] = None
                alive = [j for j, r in enumerate(live) if r is not None]
                if not alive or step + 1 == self.max_new_tokens:
                    break
                token, position = nxt.view(-1, 1), position + 1
                mask[..., width + step + 1] = True
                if len(alive) <= 0.75 * len(live):   # drop the finished rows (one copy of the cache)
                    idx = torch.tensor(alive, dtype=torch.long, device=token.device)
                    for layer in cache.layers:
                        layer.batch_select_indices(idx)
                    token, position, mask = token[idx], position[idx], mask[idx]
                    shared.select(alive)
                    live = [live[j] for j in alive]
        return new

    def _prefill(self, prompts: list[list[int]]) -> tuple[list[list[tuple]], list[list[tuple] | None]]:
        """Per prompt: per layer (keys, values) of its ids after its shared prefix (all its ids if it has none), shape
        (1, kv_heads, len, head_dim), as if the whole prompt had been prefilled alone; and that prefix's per-layer
        (keys, values), or None.

        A prompt that begins with a shared prefix (one the backend keeps, or one it shares with at least
        SHARED_PREFIX_MIN ids with other prompts of the call: rc1.inference.prefix_cache) prefills only its own ids, on top of
        that prefix's keys/values, which are computed once and kept (the PREFIX_STORE_SIZE most recently used).
        Prompts with the same prefix are prefilled PREFILL_ROWS at a time, by length (_prefill_rows)."""
        start = [self.prefixes.match(p) for p in prompts]   # per prompt: (prefix ids, its keys/values) or None
        loose = [i for i, m in enumerate(start) if m is None]
        for length, members in shared_prefixes([prompts[i] for i in loose], SHARED_PREFIX_MIN):
            ids = tuple(prompts[loose[members[0]]][:length])
            entry = (ids, self._prefill_rows([list(ids)])[0])
            self.prefixes.put(*entry)
            for m in members:
                start[loose[m]] = entry
        by_prefix: dict[tuple[int, ...], list[int]] = {}
        for i, m in enumerate(start):
            by_prefix.setdefault(m[0] if m else (), []).append(i)
        out: list[list[tuple]] = [[] for _ in prompts]
        for key, rows in by_prefix.items():
            prefix = start[rows[0]][1] if key else None
            rows.sort(key=lambda i: len(prompts[i]))
            for k in range(0, len(rows), PREFILL_ROWS):
                group = rows[k:k + PREFILL_ROWS]
                for i, kv in zip(group, self._prefill_rows([prompts[i][len(key):] for i in group], prefix)):
                    out[i] = [(ks[..., len(key):, :], vs[..., len(key):, :]) for ks, vs in kv]
        return out, [m[1] if m else None for m in start]

    def _prefill_rows(self, rows: list[list[int]], prefix: list[tuple] | None = None) -> list[list[tuple]]:
        """One forward over `rows` (after `prefix`'s keys/values, one row's, when given): per row, per layer (keys,
        values) of prefix + row. The rows are right-padded: under the causal mask no real token attends to a pad after
        it, so no padding mask is needed (without a prefix the fast causal attention kernel runs) and each row's cache
        is its first len(prefix) + len(ids) positions. Only the cache is wanted: the forward stops once the last layer
        has stored its keys/values (rc1.inference.batch_cache.PrefillCache)."""
        import torch

        from rc1.inference.batch_cache import CacheFilled, PrefillCache

        ids = torch.full((len(rows), max(len(p) for p in rows)), rows[0][-1], dtype=torch.long)
        for r, p in enumerate(rows):
            ids[r, :len(p)] = torch.tensor(p, dtype=torch.long)
        start = 0 if prefix is None else prefix[0][0].shape[2]
        shared = None if prefix is None else [(k.expand(len(rows), -1, -1, -1), v.expand(len(rows), -1, -1, -1))
                                              for k, v in prefix]
        cache = PrefillCache(self.model.config.get_text_config().num_hidden_layers - 1, shared)
        try:
            self.model(input_ids=ids.to(self.model.device), past_key_values=cache, use_cache=True, logits_to_keep=1)
        except CacheFilled:   # the last layer's keys/values are in; its attention/MLP over the prompt are not needed
            pass
        return [[(layer.keys[r:r + 1, :, :start + len(p)], layer.values[r:r + 1, :, :start + len(p)])
                 for layer in cache.layers] for r, p in enumerate(rows)]


def model_eos_ids(model, tokenizer) -> list[int]:
    """The ids that end a model's turn: its generation config's, else the tokenizer's end-of-sequence id."""
    eos = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    eos = eos if eos is not None else tokenizer.eos_token_id
    return sorted(set(eos if isinstance(eos, (list, tuple)) else [eos]) - {None})


# generation_config settings that change which token greedy decoding picks (logits processors of generate())
_GREEDY_NEUTRAL = {"repetition_penalty": (None, 1.0), "no_repeat_ngram_size": (None, 0), "bad_words_ids": (None,),
                   "min_length": (None, 0), "min_new_tokens": (None, 0), "suppress_tokens": (None,),
                   "begin_suppress_tokens": (None,), "forced_bos_token_id": (None,), "forced_eos_token_id": (None,),
                   "sequence_bias": (None,), "exponential_decay_length_penalty": (None,)}


def check_plain_greedy(model) -> None:
    """TransformersBackend and VllmBackend decode by argmax of the logits, which is generate(do_sample=False) only when
    the model's generation_config adds no logits processor: refuse one that does rather than decode differently."""
    config = getattr(model, "generation_config", None)
    for key, neutral in _GREEDY_NEUTRAL.items():
        value = getattr(config, key, None)
        if value not in neutral:
            raise Rc1Error(f"generation_config.{key} = {value!r}: batched greedy evaluation applies no logits "
                           f"processor; clear it in the model's generation_config.json")


def tool_schemas() -> list[dict]:
    """JSON schemas of the environment's tools, as a chat template renders them."""
    from transformers.utils import get_json_schema

    env = Rc1Env()
    return [get_json_schema(f) for f in (env.wiki, env.calc, env.ask_user)]


@dataclass
class _Episode:
    pool_item: Mapping[str, Any]
    env: Rc1Env
    messages: list[dict]
    completion: list[dict]
    done: bool = False
    turns: list = field(default_factory=list)   # TurnStats of each assistant turn (rc1.generation.budget)


def run_episodes(backend: GenerationBackend, pool_items: Sequence[Mapping[str, Any]], max_turns: int,
                 progress: Callable[[int], None] | None = None, turns: list | None = None) -> list[list[dict]]:
    """Multi-turn episodes of every pool item, turn by turn: all open episodes generate in one backend call, then
    their tool calls run in the environment; an episode ends with its first assistant turn without tool calls
    or after `max_turns` assistant turns. Returns per seed its prefix followed by the episode (rc1's dialogue
    convention). `progress(k)` is called when k episodes have ended; `turns`, when given, receives per seed the
    TurnStats of its assistant turns (what the thinking budget did, rc1.generation.budget)."""
    tools = tool_schemas()
    eps = []
    for pool_item in pool_items:
        env = Rc1Env(max_turns=max_turns)
        env.reset(seed_json=json.dumps(dict(pool_item)))
        eps.append(_Episode(pool_item, env, pool_item_prompt(dict(pool_item)), []))
    for turn in range(max_turns):
        open_eps = [e for e in eps if not e.done]
        if not open_eps:
            break
        replies = backend.generate_batch([e.messages for e in open_eps], tools)
        for e, msg in zip(open_eps, replies):
            if "budget" in msg:
                msg = dict(msg)
                e.turns.append(msg.pop("budget"))
            e.messages.append(msg)
            e.completion.append(msg)
            if not msg.get("tool_calls") or turn == max_turns - 1:
                e.done = True
            for call in msg.get("tool_calls") or []:
                fn = call.get("function", call)
                result = dispatch_tool(e.env, str(fn.get("name")), fn.get("arguments") or {})
                tool_msg = {"role": "tool", "name": str(fn.get("name")), "content": result}
                e.messages.append(tool_msg)
                e.completion.append(tool_msg)
        if progress is not None:
            progress(sum(e.done for e in eps))
    if turns is not None:
        turns.extend(e.turns for e in eps)
    return [list(e.pool_item.get("dialogue") or []) + to_rc1_dialogue([], e.completion) for e in eps]


# ---------------------------------------------------------------- per-item rows and summaries
def item_row(item: Mapping[str, Any], dialogue: Sequence[Mapping[str, Any]], split: str,
             difficulty: str | None, turns: Sequence = ()) -> dict:
    """One evaluated item: its episode's behaviour and success, and (`turns`: its TurnStats) what the thinking budget
    did: reasoning and answer tokens per turn, turns whose reasoning hit the budget, `truncated` when the episode
    ended without a final answer (rc1.generation.budget.unanswered)."""
    from rc1.generation.budget import unanswered

    stats = analyze(list(dialogue), len(item.get("dialogue") or []))
    needs = bool(item.get("needs_clarification", False))
    return {
        "think_tokens": [t.think_tokens for t in turns], "answer_tokens": [t.answer_tokens for t in turns],
        "budget_hits": sum(t.budget_hit for t in turns),
        "truncated": unanswered(stats, bool(turns) and turns[-1].cut),
        "id": str(item["id"]), "split": split, "task": item["task"], "difficulty": difficulty or "unknown",
        "needs_clarification": needs, "clarifications": stats.clarifications, "tool_calls": stats.tool_calls,
        "turns": stats.turns, "final_answer": stats.final_answer,
        "success": success_of(item["task"], item.get("answer"), needs, stats.clarifications, stats.final_answer),
        "overclarified": (not needs) and stats.clarifications > 0,
    }


def run_items(backend: GenerationBackend, items: Sequence[tuple[str, Mapping, str | None]], max_turns: int,
              progress: bool = True, desc: str = "evaluate", bar=None) -> list[dict]:
    """Per-item rows (item_row + the dialogue) of batched episodes of `backend` on `items` (split, item, difficulty).
    `bar`: a tqdm bar of the caller's to advance (one bar over several runs), else one of its own."""
    from tqdm import tqdm

    with contextlib.nullcontext(bar) if bar is not None else \
            tqdm(total=len(items), desc=desc, unit=" episodes", disable=no_bar(progress), leave=False) as bar:
        start = bar.n

        def advance(done: int) -> None:
            bar.update(start + done - bar.n)

        turns: list = []
        dialogues = run_episodes(backend, [item for _, item, _ in items], max_turns, advance, turns)
    return [{**item_row(item, dialogue, split, diff, t), "dialogue": dialogue}
            for (split, item, diff), dialogue, t in zip(items, dialogues, turns)]


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
        **thinking_summary(rows),
    }


def thinking_summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What the thinking budget did over the rows: the per-turn metrics (rc1.generation.budget.summarize_turns), the
    share of episodes that ended without a final answer, and every turn's reasoning tokens (the report's histogram)."""
    think = [n for r in rows for n in r.get("think_tokens", [])]
    answer = [n for r in rows for n in r.get("answer_tokens", [])]
    turns = max(1, len(think))
    return {"think/budget_hit_rate": sum(r.get("budget_hits", 0) for r in rows) / turns,
            "think/mean_tokens": sum(think) / turns, "answer/mean_tokens": sum(answer) / turns,
            "episodes/truncated_rate": _rate(rows, "truncated") if rows and "truncated" in rows[0] else None,
            "think_tokens_per_turn": think}


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


def rc1_checks(d: Mapping[str, Any], gate: EvaluateThresholds, base_overclar_rate: float | None = None) -> list[dict]:
    def check(name, value, op, threshold):   # no value (no items): fails
        ok = value is not None and (value >= threshold if op == ">=" else value <= threshold)
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


def build_report(policy_rows: Sequence[Mapping], base_rows: Sequence[Mapping], gate: EvaluateThresholds) -> EvalReport:
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
        for k in ("success", "hard_success", "clarify_success", "overclar_rate", "avg_turns", "n",
                  "think/budget_hit_rate", "think/mean_tokens", "answer/mean_tokens", "episodes/truncated_rate"):
            if s.get(k) is not None:
                out[f"{who}.{k}"] = float(s[k])
        for cell, v in s["success_by_task_difficulty"].items():
            if v is not None:
                out[f"{who}.success.{cell}"] = float(v)
    for k, v in report.deltas.items():
        if isinstance(v, (int, float)) and v == v and abs(v) != float("inf"):
            out[f"delta.{k}"] = float(v)
    return out
