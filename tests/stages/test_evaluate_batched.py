"""Batched evaluation episodes: the same greedy dialogues as the one-episode-at-a-time loop, with the tiny model;
and the turn-by-turn loop's bookkeeping (tools between turns, per-episode stop, turn budget) with a scripted backend."""

from __future__ import annotations

import pytest

from rc1.data import bundled_tasks
from rc1.inference.policy_vs_base import (PREFIX_STORE_SIZE, SHARED_PREFIX_MIN, TransformersBackend, run_episodes, run_items,
                          tool_schemas)
from rc1.data.plan import PoolSpec
from rc1.data.pool import build_pool
from rc1.scoring.responder import ShadowItem
from rc1.data.shadow_set import select_shadow
from rc1.data.templates import load_pack
from rc1.train.env import pool_item_prompt
from rc1.train.tiny import corpus_from_pool_items, load_model, load_tokenizer, tiny_dir
from sequential_reference import sequential_episode

MIX = {"hotpotqa": 0.45, "strategyqa": 0.30, "gsm8k": 0.25}


@pytest.fixture(scope="module")
def pool_items():
    tasks = {t: bundled_tasks(t)[:30] for t in MIX}
    spec = PoolSpec(n=10, mix=MIX, max_turns=3, clarify_rate=0.3, tools=("wiki", "calc"), seed=11)
    return list(build_pool(tasks, load_pack("templates/pack_v2"), spec))


@pytest.fixture(scope="module")
def shadow_items():
    """Shadow-set records as `rc1 evaluate` poses them: one fixed system prompt, so every prompt begins with the same
    system prompt and tool schemas."""
    tasks = {t: bundled_tasks(t)[:30] for t in MIX}
    return [ShadowItem.from_record(r).as_pool_item() for r in select_shadow(tasks, 8, 3, mix=MIX)]


@pytest.fixture(scope="module")
def tiny(pool_items, tmp_path_factory):
    path = str(tiny_dir(corpus_from_pool_items(pool_items), seed=0, cache_dir=tmp_path_factory.mktemp("models")))
    return load_model(path).eval(), load_tokenizer(path)


@pytest.fixture(scope="module")
def sharp(tiny):
    """The tiny model with its non-norm weights x10: the freshly initialised tiny model answers every prompt with
    one repeated token, this one's greedy continuations differ by prompt and by step (what equality must hold on)."""
    import copy

    import torch

    model, tok = tiny
    model = copy.deepcopy(model)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" not in name:
                p.mul_(10.0)
    return model, tok


@pytest.mark.parametrize("which", ["tiny", "sharp"])
def test_batched_greedy_equals_the_sequential_loop(pool_items, which, request):
    model, tok = request.getfixturevalue(which)
    # 10 seeds in batches of 4: uneven chunks, prompts of different lengths (left padding), some rows ending
    # at their end-of-turn token while others run to max_new_tokens
    batched = run_episodes(TransformersBackend(model, tok, max_new_tokens=16, batch_size=4), pool_items, max_turns=3)
    reference = [sequential_episode(model, tok, s, 3, 16) for s in pool_items]
    assert batched == reference
    assert len({len(tok.apply_chat_template(pool_item_prompt(dict(s)), tokenize=True, return_dict=False))
                for s in pool_items}) > 3


def test_rows_leave_the_batch_at_their_own_end_token(pool_items, shadow_items, sharp):
    """End tokens chosen so that rows end at different steps: finished rows leave the batch (the cache drops them, and
    the rows continuing a shared prefix are regrouped) while the others go on, and every row is its alone-greedy
    continuation cut at its first end token. Pool seeds (own system prompts) and shadow items (a shared prefix)."""
    import torch
    from transformers import GenerationConfig

    model, tok = sharp
    prompts = [tok.apply_chat_template(pool_item_prompt(dict(s)), tools=tool_schemas(), add_generation_prompt=True,
                                       tokenize=True, return_dict=False) for s in [*pool_items, *shadow_items[:4]]]
    never_ends = GenerationConfig(do_sample=False, max_new_tokens=12, eos_token_id=None, pad_token_id=0)
    alone = [model.generate(torch.tensor([p]), attention_mask=torch.ones(1, len(p), dtype=torch.long),
                            generation_config=never_ends)[0, len(p):].tolist() for p in prompts]
    assert all(len(a) == 12 for a in alone)
    backend = TransformersBackend(model, tok, max_new_tokens=12, batch_size=len(prompts))

    def cut(a, ends):
        return next((a[:j + 1] for j, t in enumerate(a) if t in ends), a)

    # the token whose first appearance ends the rows at the most different steps
    end = max(sorted({t for a in alone for t in a}), key=lambda t: len({len(cut(a, {t})) for a in alone}))
    backend.eos_ids = {end}
    expected = [cut(a, {end}) for a in alone]
    assert len({len(c) for c in expected}) >= 3 and sum(len(c) < 12 for c in expected) >= len(expected) // 4
    assert backend._generate(prompts) == expected


def _prompt_ids(tok, messages):
    return tok.apply_chat_template(messages, tools=tool_schemas(), add_generation_prompt=True, tokenize=True,
                                   return_dict=False)


def test_shared_prefix_reuse_equals_the_sequential_loop(pool_items, shadow_items, sharp):
    """Shadow items share their system prompt and tool schemas (prefilled once), pool seeds each have their own system
    prompt (sharing a few leading ids: prefilled alone), in the same turns: the dialogues equal the sequential loop's,
    on a fresh backend and again on one that already holds the prefix."""
    model, tok = sharp
    items = [x for pair in zip(shadow_items[:5], pool_items[:5]) for x in pair]
    reference = [sequential_episode(model, tok, s, 3, 16) for s in items]
    backend = TransformersBackend(model, tok, max_new_tokens=16, batch_size=6)
    assert run_episodes(backend, items, max_turns=3) == reference
    held = backend.prefixes.match(_prompt_ids(tok, pool_item_prompt(dict(shadow_items[0]))))
    assert held is not None and len(held[0]) > 500   # the system prompt and the tool schemas
    assert all(backend.prefixes.match(_prompt_ids(tok, pool_item_prompt(dict(s)))) is None for s in pool_items)
    assert len({tuple(_prompt_ids(tok, pool_item_prompt(dict(s)))[:SHARED_PREFIX_MIN])
                for s in pool_items}) == len(pool_items)
    assert run_episodes(backend, items, max_turns=3) == reference


def test_a_lora_policy_decodes_as_the_sequential_loop(pool_items, shadow_items, sharp):
    """The policy as `rc1 evaluate` loads it (a PeftModel: LoRA adapter on the base), shared prefix and not."""
    import copy

    import torch
    from peft import LoraConfig, get_peft_model

    model, tok = sharp
    torch.manual_seed(0)
    policy = get_peft_model(copy.deepcopy(model), LoraConfig(r=4, target_modules=["q_proj", "k_proj", "v_proj"],
                                                             init_lora_weights=False)).eval()
    items = [*shadow_items[:4], *pool_items[:3]]
    reference = [sequential_episode(policy, tok, s, 2, 12) for s in items]
    assert reference != [sequential_episode(model, tok, s, 2, 12) for s in items]   # the adapter changes the replies
    assert run_episodes(TransformersBackend(policy, tok, max_new_tokens=12, batch_size=8), items, 2) == reference


def test_keys_values_on_a_shared_prefix_are_those_of_the_prompt_prefilled_alone(shadow_items, sharp):
    import torch

    model, tok = sharp
    prompts = [_prompt_ids(tok, pool_item_prompt(dict(s)))[:-1] for s in shadow_items]
    with torch.inference_mode():
        own, prefixes = TransformersBackend(model, tok, 4, batch_size=8)._prefill(prompts)
        alone = [TransformersBackend(model, tok, 4)._prefill([p]) for p in prompts]
    assert all(kv is not None for kv in prefixes) and all(a[1] == [None] for a in alone)
    for row, prefix, (ref, _) in zip(own, prefixes, alone):
        assert prefix[0][0].shape[2] + row[0][0].shape[2] == ref[0][0][0].shape[2]
        for (k, v), (pk, pv), (k0, v0) in zip(row, prefix, ref[0]):
            torch.testing.assert_close(torch.cat([pk, k], dim=2), k0, rtol=1e-5, atol=1e-4)
            torch.testing.assert_close(torch.cat([pv, v], dim=2), v0, rtol=1e-5, atol=1e-4)


def test_a_backend_keeps_at_most_its_store_size_of_prefixes(pool_items, sharp):
    """One more shared prefix in a call than the store holds: the least recently used is dropped (even while the call
    uses it), and the replies are the ones each prompt gets alone."""
    model, tok = sharp
    questions = [pool_item_prompt(dict(s))[-1]["content"] for s in pool_items[:2]]
    prompts = [[{"role": "system", "content": f"Persona {k}: a careful assistant."}, {"role": "user", "content": q}]
               for k in range(PREFIX_STORE_SIZE + 1) for q in questions]
    backend = TransformersBackend(model, tok, max_new_tokens=8, batch_size=len(prompts))
    replies = backend.generate_batch(prompts, tool_schemas())
    assert len(backend.prefixes) == PREFIX_STORE_SIZE
    assert sum(backend.prefixes.match(_prompt_ids(tok, p)) is not None for p in prompts) == 2 * PREFIX_STORE_SIZE
    assert replies == TransformersBackend(model, tok, max_new_tokens=8, batch_size=1).generate_batch(prompts,
                                                                                                      tool_schemas())


class ScriptedBackend:
    """A deterministic stand-in model: by the length of the first user turn it looks up, computes or asks on its
    first turn, then answers; every fourth seed keeps calling tools until the turn budget ends its episode."""

    TOOLS = (("wiki", {"query": "Paris"}), ("calc", {"expression": "2*3"}), ("ask_user", {"question": "Which one?"}))

    def __init__(self):
        self.calls: list[int] = []

    def generate_batch(self, prompts, tools):
        assert {t["function"]["name"] for t in tools} == {"wiki", "calc", "ask_user"}
        self.calls.append(len(prompts))
        out = []
        for msgs in prompts:
            k = len(next(m["content"] for m in msgs if m["role"] == "user"))
            if msgs[-1]["role"] == "tool" and k % 4:
                out.append({"role": "assistant", "content": f"Answer: {msgs[-1]['content'][:20]}"})
            else:
                name, args = self.TOOLS[k % 3]
                out.append({"role": "assistant", "content": "", "tool_calls": [
                    {"type": "function", "function": {"name": name, "arguments": args}}]})
        return out


def test_turn_loop_runs_tools_between_turns_and_stops_each_episode(pool_items):
    backend = ScriptedBackend()
    together = run_episodes(backend, pool_items, max_turns=3)
    assert backend.calls[0] == len(pool_items) and backend.calls == sorted(backend.calls, reverse=True)
    alone = [run_episodes(ScriptedBackend(), [s], max_turns=3)[0] for s in pool_items]
    assert together == alone
    episodes = [d[len(s["dialogue"]):] for d, s in zip(together, pool_items)]
    tool_rounds = [sum(bool(t.get("tool_calls")) or (t["role"] == "user") for t in e) for e in episodes]
    assert all(len(e) >= 2 for e in episodes) and max(tool_rounds) == 3 and min(tool_rounds) == 1
    for e in episodes:
        assert sum(t["role"] == "assistant" for t in e) <= 3
        if e[-1]["role"] == "assistant" and not e[-1].get("tool_calls"):   # answered: after a tool result
            assert e[-1]["content"].startswith("Answer: ") and e[-2]["role"] in ("tool", "user")


def test_run_items_rows_follow_the_items(pool_items):
    items = [("heldout", s, "easy") for s in pool_items[:4]]
    rows = run_items(ScriptedBackend(), items, max_turns=2, progress=False)
    assert [r["id"] for r in rows] == [str(s["id"]) for s in pool_items[:4]]
    assert all(r["split"] == "heldout" and r["difficulty"] == "easy" and r["dialogue"] for r in rows)
