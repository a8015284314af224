"""The reward's difficulty factor and over-clarification penalty act on the GRPO update: advantages as TRL's
GRPOTrainer computes them in rc1's training (rc1.train.engine.train, the tiny model, a few steps), read back
from the per-step metrics rc1.adv_abs.<difficulty> and rc1.adv_mean.asked / not_asked.

The judge here scores by a rollout's position in its group (and, for the penalty test, by how many user turns
its dialogue has), so every group gets the same raw rewards whatever the tiny model wrote; the reward model,
the reward function TRL calls and TRL's advantage computation are rc1's and TRL's own."""

from pathlib import Path

import pytest

from rc1.core.config import DIMENSIONS, load_weights
from rc1.core.ppo_config import PPOConfig, load_ppo_config
from rc1.scoring.reward import RewardModel, RewardParams
from rc1.scoring.base import JudgeResult
from rc1.train import engine
from rc1.train.tiny import corpus_from_pool_items, resolve_base, load_tokenizer

REPO = Path(__file__).resolve().parents[2]
G = 2


class PositionJudge:
    """Scores rollout i of a batch by i % G (its place in its group): identical raw rewards for every group."""
    provider, live = "test-position", False

    def __init__(self, spread: float = 0.3, per_user_turn: float = 0.0):
        self.spread, self.per_user_turn = spread, per_user_turn

    def score_many(self, requests, progress=True):
        out = []
        for r in requests:
            i = int(r.candidate_id.split(":")[0])
            users = sum(t.get("role") == "user" for t in r.dialogue)
            v = 0.2 + self.spread * (i % G) + self.per_user_turn * users
            out.append(JudgeResult(r, {d: v for d in DIMENSIONS}))
        return out

    def stats(self):
        return {}


def pool_item(i, difficulty, needs=False):
    return {"id": f"gsm8k:{i}", "task": "gsm8k", "source_id": str(i), "template_id": "t1", "role": "student",
            "style": "terse", "dialogue": [{"role": "system", "content": "You are a careful assistant."},
                                           {"role": "user", "content": "Tom has 2 apples and buys 3 more. How many?"}],
            "needs_clarification": needs, "hidden_info": None, "tools": ["wiki", "calc"], "expected_tool_calls": [],
            "answer": "5", "context": [], "difficulty": difficulty}


@pytest.fixture(scope="module")
def setup(tmp_path_factory, monkeypatch_module):
    root = tmp_path_factory.mktemp("adv")
    monkeypatch_module.chdir(root)
    monkeypatch_module.setenv("OMP_NUM_THREADS", "1")
    cfg = load_ppo_config(REPO / "configs/ppo_dev.yaml").model_dump()
    cfg["ppo"].update(batch_size=2, group_size=G, max_new_tokens=16)
    cfg.pop("generation")   # the reward -> advantage path alone (the thinking budget: test_thinking_budget.py)
    cfg["checkpoint"]["save_every_episodes"] = 10000
    cfg["sampling"].update(difficulty={"easy": 0.5, "medium": 0.0, "hard": 0.5},
                           seed_pool_schedule=[{"from_episode": 0, "ratio": 1.0}])
    ppo = PPOConfig.model_validate(cfg)
    pool = [pool_item(1, "hard"), pool_item(2, "easy")]
    base = resolve_base("tiny", corpus_from_pool_items(pool), seed=0, cache_dir=root / "models")
    return {"root": root, "ppo": ppo, "pool": pool, "base": base}


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


def train_steps(setup, name, params, judge, pool=None, steps=2, generation_kwargs=None, ppo=None):
    logged: dict[int, dict] = {}
    rm = RewardModel(judge, load_weights(REPO / "configs/weights.json"), params)
    engine.train(ppo or setup["ppo"], base=setup["base"], pool=pool or setup["pool"], seed=3, out_dir=setup["root"] / name,
                 max_steps=steps, reward_model=rm, log_metrics=lambda m, s: logged.setdefault(s, {}).update(m),
                 generation_kwargs=generation_kwargs)
    return logged


def adv_by_difficulty(logged):
    hard = [m["rc1.adv_abs.hard"] for m in logged.values() if "rc1.adv_abs.hard" in m]
    easy = [m["rc1.adv_abs.easy"] for m in logged.values() if "rc1.adv_abs.easy" in m]
    assert hard and easy, logged
    return sum(hard) / len(hard), sum(easy) / len(easy)


def test_difficulty_factor_scales_the_advantages_of_hard_vs_easy_groups(setup):
    beta = 0.08
    hard, easy = adv_by_difficulty(train_steps(setup, "beta", RewardParams(beta=beta, use_penalty=False),
                                               PositionJudge()))
    # same raw rewards in every group; unscaled advantages keep the factor: (1 + beta) vs (1 - beta)
    assert hard / easy == pytest.approx((1 + beta) / (1 - beta), rel=1e-3)
    hard0, easy0 = adv_by_difficulty(train_steps(setup, "beta0", RewardParams(beta=0.0, use_penalty=False),
                                                 PositionJudge()))
    assert hard0 == pytest.approx(easy0, rel=1e-6)
    assert hard0 == pytest.approx(0.15, rel=1e-3)   # |0.2 - 0.35| = |0.5 - 0.35|: raw rewards, untouched


BIAS = 3.0


def ask_bias(setup, strength):
    """sequence_bias that makes the tiny model close its reasoning (the template opened <think>) and write one
    ask_user tool call (first token: `strength`)."""
    tok = load_tokenizer(setup["base"])
    call = '</think>\n\n<tool_call>\n{"name": "ask_user", "arguments": {"question": "Which?"}}\n</tool_call><|im_end|>'
    ids = tok(call, add_special_tokens=False)["input_ids"]
    return [[ids[:1], strength]] + [[ids[:k], 50.0] for k in range(2, len(ids) + 1)]


def test_overclarification_penalty_reorders_advantages_within_a_group(setup):
    pool = [pool_item(1, "medium"), pool_item(2, "medium")]          # factor 1; asking is never needed here
    judge = PositionJudge(spread=0.0, per_user_turn=0.02)  # an ask_user reply is a user turn: +0.02 raw per ask
    gen = {"sequence_bias": ask_bias(setup, BIAS)}         # about half the rollouts open with an ask_user call
    cfg = setup["ppo"].model_dump()
    cfg["ppo"].update(group_size=4, max_new_tokens=40)
    ppo = PPOConfig.model_validate(cfg)
    first_step = {}
    for use_penalty in (False, True):
        logged = train_steps(setup, f"pen{use_penalty}", RewardParams(beta=0.08, use_penalty=use_penalty), judge,
                             pool=pool, steps=1, generation_kwargs=gen, ppo=ppo)
        first_step[use_penalty] = logged[1]
    off, on = first_step[False], first_step[True]
    assert 0 < off["rc1.ask_user_per_rollout"] == on["rc1.ask_user_per_rollout"]   # same rollouts both times
    assert "rc1.adv_mean.asked" in off and "rc1.adv_mean.not_asked" in off
    # without the penalty asking scores higher (the judge's +0.02); with alpha=0.07 per question it scores lower
    assert off["rc1.adv_mean.asked"] > off["rc1.adv_mean.not_asked"]
    assert on["rc1.adv_mean.asked"] < on["rc1.adv_mean.not_asked"]
