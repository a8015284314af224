"""benchmarks/bench_learning.py's curve summary: the printed fifths cover every step, the last ends the run."""

from __future__ import annotations

import pytest

from bench_module import bench_module


def _bench():
    return bench_module("bench_learning")


def test_the_last_fifth_ends_with_the_last_step():
    blocks = _bench().blocks
    curve = [0.0] * 60 + [1.0, 1.0]   # 62 steps: the last two rose
    fifths = blocks(curve)
    assert len(fifths) == 5 and fifths[-1] > 0
    assert sum(f * n for f, n in zip(fifths, (12, 13, 12, 13, 12))) == pytest.approx(sum(curve))
    assert blocks([0.5, 1.0]) == [0.5, 1.0]


def _logps(model, tok, prompts, completions) -> list[float]:
    """Each completion's log-probability under `model` after its chat-rendered prompt."""
    import torch

    out = []
    with torch.no_grad():
        for p, c in zip(prompts, completions):
            head = tok.apply_chat_template(p, add_generation_prompt=True, tokenize=True, return_dict=False)
            ids = torch.tensor([list(head) + list(c)])
            logits = model(input_ids=ids).logits[0, len(head) - 1:-1].float()
            out.append(float(torch.log_softmax(logits, -1).gather(1, ids[0, len(head):, None]).sum()))
    return out


def test_one_step_of_the_learn_run_moves_the_policy_toward_its_rewarded_replies(tmp_path):
    """All learning can stop silently (the thinking template once left the tiny model no answer slot: every reward 0,
    every advantage 0, the benchmark flat). One optimizer step of bench_learning's learn run, through rc1's trainer
    with the thinking template and the benchmark's budget: some replies state a verdict and others do not (non-zero
    advantages), and the step raises the log-probability of the rewarded replies against the others."""
    bench = _bench()
    args = bench.parser().parse_args(["--data", str(bench.BUNDLED), "--steps", "1", "--heldout", "10"])
    base, train, _ = bench.setup(args, tmp_path)
    verdicts = bench.verdict_reward()
    seen: dict = {}

    def reward(completions, prompts=None, completion_ids=None, **kw):
        rewards = verdicts(completions)
        if "before" not in seen:   # the step's rollouts, scored by the policy before its update
            seen.update(prompts=prompts, ids=completion_ids, rewards=rewards,
                        before=_logps(trainer.model, trainer.processing_class, prompts, completion_ids))
        return rewards

    trainer = bench.make_run("learn", args, base, train, str(tmp_path / "out"), reward=reward)
    trainer.train()
    after = _logps(trainer.model, trainer.processing_class, seen["prompts"], seen["ids"])
    g = args.group
    rewards = seen["rewards"]
    adv = [r - sum(rewards[i - i % g:i - i % g + g]) / g for i, r in enumerate(rewards)]
    assert any(a != 0 for a in adv), "no group's replies differ in reward: every advantage is 0, nothing can learn"
    moved = [b - a for a, b in zip(seen["before"], after)]
    up = [m for m, a in zip(moved, adv) if a > 0]
    down = [m for m, a in zip(moved, adv) if a < 0]
    assert sum(up) / len(up) > sum(down) / len(down), (up, down)
