"""llama.cpp for inference: GGUF export of a registered version (real GRPO-trained tiny model, real MLflow store),
llama.cpp's logits and greedy tokens against PyTorch's, `rc1 evaluate --backend llamacpp`, and llama-cpp-python's
OpenAI-compatible server on 127.0.0.1 as the `llamacpp` judge behind probe-scorer and assert-not-simulated.
llama-cpp-python is part of the test extra: these tests never skip (a missing install fails them)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import mlflow
import pytest
from mlflow.tracking import MlflowClient

from rc1_cli import run_cli
from test_train_grpo import seed_row as _seed   # the same tiny seed rows as the training tests

pytestmark = pytest.mark.timeout(600)

REPO = Path(__file__).resolve().parents[2]
TASKS = ("gsm8k", "hotpotqa", "strategyqa")


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    """A registered rc1-policy version (2 GRPO steps of the tiny model) and its f32 GGUF export."""
    from rc1.stages import train

    root = tmp_path_factory.mktemp("llamacpp")
    shutil.copytree(REPO / "configs", root / "configs")
    combos = [(t, d) for t in TASKS for d in ("easy", "medium", "hard")] * 3
    (root / "pool.jsonl").write_text("".join(json.dumps(_seed(i, t, d)) + "\n" for i, (t, d) in enumerate(combos)))
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        for var in ("MLFLOW_TRACKING_URI", "MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_ID", "SCORER_BASE_URL", "SCORER_MODEL",
                    "SCORER_API_KEY"):
            mp.delenv(var, raising=False)
        for k, v in {"RUN_MODE": "dev", "SCORER_PROVIDER": "heuristic", "REWARD_LIVE_MODE": "0",
                     "RC1_CACHE_DIR": str(root / "cache"), "OMP_NUM_THREADS": "1"}.items():
            mp.setenv(k, v)
        trained = train.run(train.Config(config="configs/ppo_dev.yaml", seed=11, pool="pool.jsonl", max_steps=2,
                                         out_dir=str(root / "train")))
        version = trained["model_version"]
        assert run_cli(["export-gguf", "--version", version, "--outtype", "f32"]) == 0
        yield {"root": root, "version": version, "mp": mp}
        mlflow.set_tracking_uri(None)


def _gguf(ws, dst: Path) -> Path:
    from rc1.tracking.registry import download_export, resolve_version

    path, outtype = download_export(resolve_version(version=ws["version"]), dst)
    assert outtype == "f32"
    return path


def _merged_policy(ws, workdir: Path):
    from rc1.inference.gguf_export import merged_model
    from rc1.tracking.registry import resolve_version, version_weights
    from rc1.train.tiny import load_tokenizer

    base, adapter, tok_src, _ = version_weights(resolve_version(version=ws["version"]), workdir)
    return merged_model(base, adapter), load_tokenizer(tok_src)


def test_export_is_an_artifact_with_sha256_linked_to_the_version(ws, tmp_path):
    import gguf

    from rc1.core.io import sha256_file

    mv = MlflowClient().get_model_version("rc1-policy", ws["version"])
    run = MlflowClient().get_run(mv.tags["rc1.gguf_run_id"])
    assert run.info.status == "FINISHED" and run.data.tags["rc1.stage"] == "export_gguf"
    assert run.data.tags["rc1.model_version"] == ws["version"] and mv.tags["rc1.gguf_outtype"] == "f32"
    name = mv.tags["rc1.gguf_artifact"]
    assert name.endswith(".gguf") and run.data.tags[f"sha256.{name}"] == mv.tags["rc1.gguf_sha256"]
    path = _gguf(ws, tmp_path)
    assert sha256_file(path) == mv.tags["rc1.gguf_sha256"]
    reader = gguf.GGUFReader(str(path))
    arch = reader.get_field("general.architecture")
    assert arch.contents() == "qwen3"
    assert reader.get_field("tokenizer.ggml.model").contents() == "gpt2"
    assert {t.name for t in reader.tensors} >= {"token_embd.weight", "blk.0.attn_q_norm.weight", "output_norm.weight"}
    assert run_cli(["export-gguf", "--version", "999"]) == 2            # no such version: one line, exit 2


def test_f16_and_q8_0_exports_read_back_with_their_types(ws, tmp_path):
    import gguf

    from rc1.core.errors import Rc1Error
    from rc1.inference.gguf_export import write_gguf

    model, tok = _merged_policy(ws, tmp_path / "w")
    sizes = {}
    for outtype, qtype in (("f16", gguf.GGMLQuantizationType.F16), ("q8_0", gguf.GGMLQuantizationType.Q8_0)):
        path = write_gguf(model, tok, tmp_path / f"m-{outtype}.gguf", outtype)
        types = {t.name: t.tensor_type for t in gguf.GGUFReader(str(path)).tensors}
        assert types["blk.0.attn_q.weight"] == qtype and types["token_embd.weight"] == qtype
        assert types["blk.0.attn_norm.weight"] == gguf.GGMLQuantizationType.F32   # norms stay f32
        sizes[outtype] = path.stat().st_size
    assert sizes["q8_0"] < sizes["f16"]
    with pytest.raises(Rc1Error, match="outtype"):
        write_gguf(model, tok, tmp_path / "bad.gguf", "q4_k")
    assert not (tmp_path / "bad.gguf").exists()


def test_llamacpp_logits_and_greedy_tokens_match_pytorch(ws, tmp_path, capsys):
    import torch

    from rc1.inference.policy_vs_base import TransformersBackend
    from gguf_logits import prompt_logits
    from rc1.inference.llamacpp import LlamaCppGenerator, load_gguf
    from rc1.train.env import pool_item_prompt

    model, tok = _merged_policy(ws, tmp_path / "w")
    path = _gguf(ws, tmp_path)
    llm = load_gguf(path, logits_all=True)
    worst = 0.0
    prompts = [tok.apply_chat_template(pool_item_prompt(_seed(i, t, "hard")), add_generation_prompt=True, tokenize=True,
                                       return_dict=False) for i, t in enumerate(TASKS)]
    for ids in prompts:
        text = tok.decode(ids)
        assert llm.tokenize(text.encode(), add_bos=False, special=True) == ids   # same tokenizer in the GGUF
        with torch.no_grad():
            ref = model(torch.tensor([ids])).logits[0].numpy()
        got = prompt_logits(llm, ids)
        worst = max(worst, float(abs(ref - got).max()))
    with capsys.disabled():
        print(f"\n[llama.cpp vs PyTorch, f32 GGUF] max |logit difference| over {len(prompts)} prompts: {worst:.2e}")
    assert worst < 1e-3

    def same_greedy(ids, a, b):
        if a != b:   # only a near-tie of PyTorch's own top two logits may flip the greedy choice
            k = next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)
            with torch.no_grad():
                top2 = torch.topk(model(torch.tensor([list(ids) + a[:k]])).logits[0, -1], 2).values
            assert float(top2[0] - top2[1]) < 1e-3, (a, b)

    torch_backend = TransformersBackend(model, tok, max_new_tokens=24)
    cpp_gen = LlamaCppGenerator(path)
    for ids in prompts:
        same_greedy(ids, torch_backend._generate([list(ids)])[0], cpp_gen(list(ids), 24))
    # the thinking budget (ppo_dev.yaml's) on llama.cpp as on PyTorch: the same implementation, the same tokens
    from rc1.core.ppo_config import load_ppo_config

    budgeted = TransformersBackend(model, tok, max_new_tokens=32, generation=load_ppo_config("configs/ppo_dev.yaml")
                                   .generation)
    for ids in prompts:
        turn = budgeted.budget.turn(ids)
        a, b = budgeted._generate([list(ids)])[0], cpp_gen(list(ids), 32, turn)
        assert turn.hit and turn.think_tokens == 6 and b[6:6 + len(budgeted.budget.closing_ids)] == list(
            budgeted.budget.closing_ids)
        same_greedy(ids, a, b)


def test_evaluate_on_llamacpp_logs_the_same_report_as_pytorch(ws, tmp_path):
    pool = [json.loads(line) for line in Path("pool.jsonl").read_text().splitlines()]
    picks = [r for r in pool if r["id"] in ("gsm8k:0", "hotpotqa:5", "strategyqa:8")]
    Path("shadow.jsonl").write_text("".join(json.dumps(r) + "\n" for r in picks))
    args = ["evaluate", "--version", ws["version"], "--shadow", "shadow.jsonl", "--heldout", "none"]
    run_cli(args)                                                   # PyTorch: exit 2 when the verdict fails
    assert run_cli(args + ["--backend", "llamacpp"]) == 0          # a report: the RC1 verdict stays PyTorch's
    client = MlflowClient()
    runs = client.search_runs([client.get_experiment_by_name("rc1").experiment_id],
                              "tags.`rc1.stage` = 'evaluate'", order_by=["attributes.start_time ASC"])
    pt, cpp = runs[-2], runs[-1]
    assert cpp.data.tags["rc1.backend"] == "llamacpp" and pt.data.tags["rc1.backend"] == "transformers"
    assert cpp.data.tags["rc1.gguf_outtype"] == "f32" and "rc1.passed" in cpp.data.tags
    # the same metrics; only a reduction that is undefined for one backend's outputs (base rate 0) may be absent, and
    # MLflow's system/ metrics, which a run gets only once it lasted a sampling interval (timing, not the backend)
    def evaluated(run) -> set[str]:
        return {k for k in run.data.metrics if not k.startswith("system/")}

    assert evaluated(cpp) ^ evaluated(pt) <= {"delta.overclar_reduction_pct"}

    def report(run):
        return json.loads(Path(client.download_artifacts(run.info.run_id, "evaluate_report.json",
                                                         str(tmp_path))).read_text())

    a, b = report(cpp), report(pt)
    assert set(a) == set(b) and set(a["policy"]) == set(b["policy"]) and set(a["deltas"]) == set(b["deltas"])
    assert a["policy"]["n"] == b["policy"]["n"] == 3
    # the thinking budget on llama.cpp too: measured and logged as for PyTorch (the tiny policy never closes <think>)
    assert cpp.data.metrics["policy.think/budget_hit_rate"] == pt.data.metrics["policy.think/budget_hit_rate"] == 1.0
    assert "policy.episodes/truncated_rate" in cpp.data.metrics
    mv = client.get_model_version("rc1-policy", ws["version"])
    assert mv.tags["rc1.evaluate_llamacpp_run_id"] == cpp.info.run_id
    assert mv.tags["rc1.evaluate_run_id"] == pt.info.run_id
    from rc1.tracking.registry import evaluation_of

    assert evaluation_of(ws["version"]).run_id == pt.info.run_id   # promote reads the PyTorch evaluation, not the newer one


def test_training_refuses_llamacpp_rollouts(ws, capsys):
    cfg = Path("configs/ppo_dev.yaml")
    bad = Path("configs/ppo_llamacpp.yaml")
    bad.write_text(re.sub(r"  rollout_backend: \w+", "  rollout_backend: llamacpp", cfg.read_text()))
    assert "rollout_backend" in bad.read_text()
    capsys.readouterr()
    assert run_cli(["train", "--config", str(bad), "--max-steps", "1"]) == 2
    err = capsys.readouterr().err
    assert "ppo.rollout_backend" in err and "logits and gradients" in err and "Traceback" not in err


# ---------------------------------------------------------------- llama.cpp as the judge
@pytest.fixture
def llamacpp_server(ws, tmp_path):
    from local_llm import llama_server

    with llama_server(_gguf(ws, tmp_path), "rc1-judge", tmp_path / "server.log") as url:
        yield url


def test_llamacpp_server_is_a_real_judge_for_probe_and_anti_simulation(ws, llamacpp_server, tmp_path, monkeypatch):
    from rc1.scoring.providers import make_provider
    from rc1.scoring.judge_settings import JudgeSettings
    from rc1.scoring.spec import parse_reply

    for k, v in {"SCORER_PROVIDER": "llamacpp", "SCORER_BASE_URL": llamacpp_server, "SCORER_MODEL": "rc1-judge",
                 "RUN_MODE": "prod", "RC1_CACHE_DIR": str(tmp_path / "cache")}.items():
        monkeypatch.setenv(k, v)
    gates = str(REPO / "configs" / "gates.yaml")
    assert run_cli(["probe-scorer", "--n", "2", "--live", "--gates", gates]) == 0
    assert run_cli(["assert-not-simulated", "--cache_hit_lt", "0.90", "--n", "6",   # the probe's 2 x K=3 records
                    "--config", str(REPO / "configs" / "ppo_scale.yaml"), "--gates", gates]) == 0
    client = MlflowClient()
    exp = client.get_experiment_by_name("rc1").experiment_id
    for stage in ("probe_scorer", "assert_not_simulated"):
        (run, *_) = client.search_runs([exp], f"tags.`rc1.stage` = '{stage}'",
                                       order_by=["attributes.start_time DESC"])
        m = run.data.metrics
        assert run.data.tags["rc1.passed"] == "true" and m["billable_count"] >= 6 and m["latency_ms"] > 0
    # the JSON schema makes every reply of the (meaningless) tiny model a parseable score object
    from rc1.scoring.base import JudgeRequest

    provider = make_provider("llamacpp", settings=JudgeSettings(max_tokens=200))
    q = "Tom has 2 apples and buys 4 more. How many?"
    req = JudgeRequest(item_id="gsm8k:x", candidate_id="c0", task="gsm8k", question=q, gold_answer="6",
                       needs_clarification=False, dialogue=({"role": "user", "content": q},
                                                            {"role": "assistant", "content": "Answer: 6"}))
    for i in range(3):
        reply = provider.complete(req, i)
        assert reply.latency_ms > 0 and set(parse_reply(reply.text)) == {
            "correctness", "reasoning", "grounding", "clarification", "efficiency", "tool_use", "communication"}
