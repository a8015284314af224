"""The thinking budget (rc1.generation.budget) on the tiny model: a policy that closes its reasoning early is untouched
(the same tokens with and without the budget, in transformers' generate and in rc1 evaluate's batched decode); one that
never closes it is closed at the budget and answers within the answer budget. The training, evaluation and serving
paths through the real commands: tests/stages/test_train_grpo.py."""

from __future__ import annotations

import pytest

from rc1.core.ppo_config import GenerationCfg

CORPUS = ["Tom has 3 apples and buys 5 more. How many apples does he have? Answer: 8",
          "Paris is the capital of France. The answer is yes. I checked it quickly."] * 4
QUESTIONS = ["Tom has 3 apples and buys 5 more. How many apples?", "Is Paris the capital of France?"]
ANSWER = "I checked it quickly.\n</think>\n\nAnswer: 8<|im_end|>"   # what the trained policy says after <think>\n
BUDGET = GenerationCfg(thinking_budget=12, answer_budget=10, closing="\nTime is up.\n")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from rc1.train.tiny import load_model, load_tokenizer, tiny_dir

    path = str(tiny_dir(CORPUS, seed=0, cache_dir=tmp_path_factory.mktemp("models")))
    return load_model(path).eval(), load_tokenizer(path)


def prompts(tok) -> list[list[int]]:
    return [tok.apply_chat_template([{"role": "user", "content": q}], add_generation_prompt=True, tokenize=True,
                                    return_dict=False) for q in QUESTIONS]


@pytest.fixture(scope="module")
def closes_early(tiny):
    """The tiny model trained (plain next-token loss, a few seconds) to reason a few tokens, close `</think>` and
    answer: a policy that closes well within the budget."""
    import copy

    import torch

    model, tok = tiny
    model = copy.deepcopy(model).train()
    target = tok.encode(ANSWER, add_special_tokens=False)
    rows = [torch.tensor(p + target) for p in prompts(tok)]
    opt = torch.optim.Adam(model.parameters(), lr=3e-2)
    torch.manual_seed(0)
    for step in range(1, 61):
        for ids, p in zip(rows, prompts(tok)):
            labels = ids.clone()
            labels[:len(p)] = -100
            loss = model(input_ids=ids[None], labels=labels[None]).loss
            opt.zero_grad()
            loss.backward()
            opt.step()
        if step % 10 == 0 and all(generate(model.eval(), tok, p)[0] == target for p in prompts(tok)):
            break   # it says ANSWER after every prompt (about 30 steps)
        model.train()
    return model.eval(), tok


def generate(model, tok, ids, budget=None, max_new_tokens=40) -> tuple[list[int], list]:
    """transformers' generate, greedy, with the budget's processor (training rollouts, the served model)."""
    import torch

    from rc1.generation.budget import GenerateCall, for_tokenizer

    call = GenerateCall(for_tokenizer(tok, budget, [model.generation_config.eos_token_id]))
    x = torch.tensor([ids])
    out = model.generate(input_ids=x, attention_mask=torch.ones_like(x), max_new_tokens=max_new_tokens,
                         do_sample=False, pad_token_id=tok.pad_token_id, **call.kwargs())
    new = call.trim([out[0, len(ids):].tolist()])[0]
    end = next((i for i, t in enumerate(new) if t == tok.eos_token_id), None)
    return (new if end is None else new[:end + 1]), call.stats()


def test_a_policy_that_closes_early_is_untouched(closes_early):
    from rc1.inference.policy_vs_base import TransformersBackend

    model, tok = closes_early
    target = tok.encode(ANSWER, add_special_tokens=False)
    for ids in prompts(tok):
        free, _ = generate(model, tok, ids)
        assert free == target   # the trained policy: a few tokens of reasoning, </think>, its answer, end of turn
        budgeted, (turn,) = generate(model, tok, ids, BUDGET)
        assert budgeted == free and not turn.budget_hit and not turn.cut
        assert 0 < turn.think_tokens < BUDGET.thinking_budget and 0 < turn.answer_tokens < BUDGET.answer_budget
    batched = TransformersBackend(model, tok, 40, batch_size=2, generation=BUDGET)
    assert batched._generate(prompts(tok)) == [target, target]   # rc1 evaluate's batched decode: the same
    reply = batched.generate_batch([[{"role": "user", "content": q}] for q in QUESTIONS], [])[0]
    assert reply["content"] == "Answer: 8" and not reply["budget"].budget_hit


def test_a_policy_that_never_closes_is_closed_at_the_budget_and_answers(tiny):
    """The random tiny model never writes </think>: every turn reasons exactly thinking_budget tokens, takes the
    closing (sentence, </think>, blank line) and answers until the answer budget cuts it; generate and rc1's batched
    decode agree token for token."""
    from rc1.generation.budget import for_tokenizer
    from rc1.inference.policy_vs_base import TransformersBackend

    model, tok = tiny
    closing = for_tokenizer(tok, BUDGET).closing_ids
    batched = TransformersBackend(model, tok, 60, batch_size=2, generation=BUDGET)
    for ids, together in zip(prompts(tok), batched._generate(prompts(tok))):
        new, (turn,) = generate(model, tok, ids, BUDGET, max_new_tokens=60)
        assert turn.budget_hit and turn.cut and turn.think_tokens == 12 and turn.answer_tokens == 10
        assert new[12:12 + len(closing)] == list(closing) and len(new) == 12 + len(closing) + 10
        assert together == new
    unbudgeted, (turn,) = generate(model, tok, prompts(tok)[0], None, max_new_tokens=30)
    assert len(unbudgeted) == 30 and turn.think_tokens == 30 and not turn.budget_hit   # counted, never forced


def test_a_model_that_opens_its_reasoning_itself_is_followed(tiny):
    """Hybrid templates leave <think> to the model: the turn starts outside reasoning, enters it at <think>, and the
    budget holds from there; a prompt whose last assistant turn closed its reasoning starts outside it."""
    from rc1.generation.budget import for_tokenizer

    _, tok = tiny
    budget = for_tokenizer(tok, GenerationCfg(thinking_budget=2, answer_budget=3))
    think, close = tok.convert_tokens_to_ids(["<think>", "</think>"])
    word = tok.encode(" apples", add_special_tokens=False)[0]
    turn = budget.turn(tok.encode("<|im_start|>assistant\n", add_special_tokens=False))
    assert not turn.thinking
    for t in (think, word, word):
        assert turn.forced() is None
        turn.feed(t)
    assert turn.hit and turn.forced() == budget.closing_ids[0]
    for t in budget.closing_ids:
        assert turn.forced() == t
        turn.feed(t)
    for _ in range(3):
        turn.feed(word)
    assert turn.stopped and turn.stats().answer_tokens == 3
    closed = budget.turn(tok.encode("<|im_start|>assistant\n<think>\nok\n</think>\n\n", add_special_tokens=False))
    assert not closed.thinking and closed.opened and close in budget.closing_ids


def test_a_closing_that_holds_a_special_token_is_refused(tiny):
    """A closing with `</think>` or an end-of-turn token in it would close early or end the turn without an answer."""
    from rc1.core.errors import Rc1Error
    from rc1.generation.budget import for_tokenizer

    _, tok = tiny
    for text in ("Done.</think>", "Stop.<|im_end|>", "<think>again"):
        with pytest.raises(Rc1Error, match="generation.closing .* holds <think>, </think> or an end-of-turn token"):
            for_tokenizer(tok, GenerationCfg(thinking_budget=4, answer_budget=4, closing=text))
