"""A config that names a small-step trial trains only after that trial passed its evaluation: the gate refuses
full training without one (naming the trial run when there is one), and `rc1 gate --trial` runs the trial path at
toy scale in dev, recorded as a trial."""

from __future__ import annotations

import shutil
from pathlib import Path

import mlflow
import pytest

from rc1_cli import run_cli

REPO = Path(__file__).parents[2]
LAUNCH = "\nlauncher: accelerate\naccelerate_config: configs/accelerate/cpu_ddp.yaml\n"


def _gates() -> list:
    return mlflow.search_runs(search_all_experiments=True, filter_string="tags.`rc1.stage` = 'gate'",
                              order_by=["attributes.start_time DESC"], output_format="list")


def prod_preflight(capsys, prod_key, config: str):
    """A dev preflight of `config`, then its statement signed as prod by the test's prod key (what a prod preflight
    that recorded these facts would sign; a real one needs a live judge and a configured dataset): a prod gate admits on
    it, and refuses it (no live judge, bundled data). First, its rc1.mode tag alone says prod: refused."""
    from restate import as_prod

    assert run_cli(["preflight", "--mode", "dev", "--n", "1500", "--config", config]) == 0, capsys.readouterr().err
    pre = mlflow.search_runs(search_all_experiments=True, output_format="list",
                             filter_string="tags.`rc1.stage` = 'preflight'")[0]
    mlflow.MlflowClient().set_tag(pre.info.run_id, "rc1.mode", "prod")
    capsys.readouterr()
    assert run_cli(["gate", "--mode", "prod"]) == 2
    (line,) = [x for x in capsys.readouterr().err.splitlines() if x.startswith("rc1")]
    assert line.endswith(f"preflight {pre.info.run_id} cannot be used: it is signed as a dev run, not prod (its "
                         f"rc1.mode tag was edited in the store?)"), line
    prod_key()
    as_prod(pre.info.run_id)
    return pre


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    for d in ("configs", "templates"):
        shutil.copytree(REPO / d, root / d)
    # trained the way a team trains on GPUs: each seed through `accelerate launch` (here 2 CPU processes, gloo)
    dev = (root / "configs" / "ppo_dev.yaml").read_text() + LAUNCH
    # prod-like: the dev job with a trial it must pass first; the trial is the same job in fewer episodes, one seed
    (root / "configs" / "ppo_prodlike.yaml").write_text(dev + "\ntrial: configs/ppo_dev_trial.yaml\n")
    (root / "configs" / "ppo_dev_trial.yaml").write_text(
        dev.replace("  episodes: 16 ", "  episodes: 8 ").replace("seeds: [20250820, 20250821, 20250822]", "seeds: [20250820]"))
    monkeypatch.chdir(root)
    for var in ("MLFLOW_TRACKING_URI", "MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_ID", "RUN_MODE", "SCORER_PROVIDER",
                "REWARD_LIVE_MODE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    yield root
    mlflow.set_tracking_uri(None)


@pytest.mark.slow
def test_full_training_waits_for_a_passing_trial(project, capsys):
    assert run_cli(["preflight", "--mode", "dev", "--n", "1500", "--config", "configs/ppo_prodlike.yaml"]) == 0, \
        capsys.readouterr().err
    pre = mlflow.search_runs(search_all_experiments=True, output_format="list",
                             filter_string="tags.`rc1.stage` = 'preflight'")[0]
    assert "sha256.trial_config" in pre.data.tags          # the trial config is checked and hashed like the rest
    assert "sha256.accelerate_config" in pre.data.tags     # and so is the accelerate config the gate launches with

    capsys.readouterr()
    assert run_cli(["gate", "--mode", "dev", "--max-steps", "1"]) == 2
    err = capsys.readouterr().err
    assert f"full training needs a passing trial of preflight {pre.info.run_id}, and there is none" in err
    assert not _gates()

    assert run_cli(["gate", "--mode", "dev", "--trial", "--max-steps", "1"]) == 0, capsys.readouterr().err
    (trial,) = _gates()
    assert trial.data.tags["rc1.gate_kind"] == "trial" and trial.data.params["kind"] == "trial"
    trains = mlflow.search_runs(search_all_experiments=True, output_format="list",
                                filter_string=f"tags.`rc1.stage` = 'train' AND tags.`rc1.gate_run_id` = '{trial.info.run_id}'")
    assert len(trains) == 1 and trains[0].data.tags["rc1.gate_kind"] == "trial"   # the trial's one seed
    # launched by the gate through accelerate: 2 processes, one gated train run, its child
    assert trains[0].data.tags["rc1.launcher"] == "accelerate" and trains[0].data.tags["rc1.processes"] == "2"
    assert trains[0].data.tags["rc1.gated"] == "true" and trains[0].data.tags["mlflow.parentRunId"] == trial.info.run_id

    # the trial measured s/step and projected the full config's job from it (2 processes per seed)
    m = trial.data.metrics
    assert m["rc1.measured_sec_per_step"] > 0 and m["rc1.projected_days_per_seed"] > 0
    assert m["rc1.projected_device_hours"] == pytest.approx(2 * m["rc1.projected_wall_hours"])

    verdict = trial.data.tags["rc1.rc1_verdict"]
    capsys.readouterr()
    if verdict == "pass":   # not expected of one step of the tiny model; then full training may start
        assert run_cli(["gate", "--mode", "dev", "--max-steps", "1", "--no-evaluate"]) == 0
    else:
        assert run_cli(["gate", "--mode", "dev", "--max-steps", "1"]) == 2
        err = capsys.readouterr().err
        assert f"the newest trial, gate run {trial.info.run_id}, did not pass its evaluation" in err
        # the verdict edited in the store, and a passing trial gate run made there: the gate reads what the trial
        # signed, and a run that signed nothing is no trial (issue 28)
        client = mlflow.MlflowClient()
        client.set_tag(trial.info.run_id, "rc1.rc1_verdict", "pass")
        assert run_cli(["gate", "--mode", "dev", "--max-steps", "1"]) == 2
        (line,) = [x for x in capsys.readouterr().err.splitlines() if x.startswith("rc1")]
        assert line.endswith(f"the newest trial, gate run {trial.info.run_id}, did not pass its evaluation (verdict "
                             f"{verdict})"), line
        fake = client.create_run(trial.info.experiment_id, tags={
            **{k: trial.data.tags[k] for k in ("rc1.stage", "rc1.gate_kind", "rc1.preflight_run_id", "rc1.mode")},
            "rc1.rc1_verdict": "pass"}).info.run_id
        client.set_terminated(fake)
        assert run_cli(["gate", "--mode", "dev", "--max-steps", "1"]) == 2
        (line,) = [x for x in capsys.readouterr().err.splitlines() if x.startswith("rc1")]
        assert line == (f"rc1: error: gate refused: the newest trial of preflight {pre.info.run_id}, gate run {fake}, "
                        f"cannot be used: carries no signed statement (rc1.intoto.json)"), line
        client.delete_run(fake)
        assert [g.info.run_id for g in _gates()] == [trial.info.run_id]   # refused before a full gate run opened
    # a trial version proves the trial: it takes `trial-best`, never `best`, and is never promoted
    assert run_cli(["promote", "--alias", "trial-best"]) == 2
    assert "is a trial gate" in capsys.readouterr().err
    if verdict != "pass":   # no full gate ran: nothing holds `best`
        assert run_cli(["promote", "--alias", "best"]) == 2
        assert "has no alias 'best'" in capsys.readouterr().err


@pytest.mark.slow
def test_prod_max_steps_is_held_to_the_schedule_that_trains(project, capsys, prod_key):
    """`rc1 gate --mode prod --trial --max-steps N` trains the trial config, so N (optimizer steps) is checked against the
    steps the trial config's ppo.episodes make, not the full config's: the trial's own steps pass that check, the full
    config's steps (which would run the trial 2x longer than preflight checked it) are refused. No training: the refusal
    comes first (this dev preflight signed as prod fails prod's metric rechecks too, in the same one line)."""
    try:
        pre = prod_preflight(capsys, prod_key, "configs/ppo_prodlike.yaml")
        lines = {}
        for steps in ("2", "4"):   # the optimizer steps of the trial config's 8 episodes, of the full config's 16
            capsys.readouterr()
            assert run_cli(["gate", "--mode", "prod", "--trial", "--max-steps", steps]) == 2
            # one line from rc1 (MLflow's own download bars aside)
            (lines[steps],) = [x for x in capsys.readouterr().err.splitlines() if x.startswith("rc1")]
            assert lines[steps].startswith(f"rc1: error: gate refused: preflight {pre.info.run_id} cannot be used: ")
        assert "--max-steps" not in lines["2"], lines["2"]
        assert "--max-steps 4 differs from the 2 optimizer steps the trial config's ppo.episodes 8 make" in lines["4"], \
            lines["4"]
        assert not _gates()
    finally:
        import os

        os.environ.pop("RUN_MODE", None)   # the gate sets it for the process


@pytest.mark.slow
def test_full_training_is_refused_when_its_trial_projects_too_long(project, capsys):
    """config_check.projected_days_per_seed_max through the real commands: the trial gate measures s/step, and the
    full gate refuses (one line, naming the projection and the key) when the full config would take longer per seed
    than the gates allow. Here the bound is a microsecond, so any measured step exceeds it."""
    import yaml

    gates = yaml.safe_load(Path("configs/gates.yaml").read_text())
    gates["config_check"]["projected_days_per_seed_max"] = 1e-11
    Path("configs/gates_fast.yaml").write_text(yaml.safe_dump(gates))
    # the dev job with a trial, trained in this process (no accelerate launch: the projection is the point here)
    dev = (REPO / "configs" / "ppo_dev.yaml").read_text()
    Path("configs/ppo_inproc.yaml").write_text(dev + "\ntrial: configs/ppo_inproc_trial.yaml\n")
    Path("configs/ppo_inproc_trial.yaml").write_text(
        dev.replace("  episodes: 16 ", "  episodes: 8 ").replace("seeds: [20250820, 20250821, 20250822]", "seeds: [20250820]"))
    assert run_cli(["preflight", "--mode", "dev", "--n", "1500", "--config", "configs/ppo_inproc.yaml",
                    "--gates", "configs/gates_fast.yaml"]) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert run_cli(["gate", "--mode", "dev", "--trial", "--max-steps", "1", "--no-evaluate",
                    "--gates", "configs/gates_fast.yaml"]) == 0
    assert "projected ppo_inproc.yaml: 16 episodes = 4 optimizer steps x" in capsys.readouterr().err
    (trial,) = _gates()
    days = trial.data.metrics["rc1.projected_days_per_seed"]
    assert days > 1e-11
    # a faster projection logged in the store counts for nothing: the gate reads the one the trial signed
    mlflow.MlflowClient().log_metric(trial.info.run_id, "rc1.projected_days_per_seed", 1e-12)
    assert run_cli(["gate", "--mode", "dev", "--max-steps", "1", "--gates", "configs/gates_fast.yaml"]) == 2
    (line,) = [x for x in capsys.readouterr().err.splitlines() if x.startswith("rc1")]
    assert (f"ppo_inproc.yaml would take {days:.3g} days per seed at the s/step trial gate run {trial.info.run_id} "
            f"measured, above config_check.projected_days_per_seed_max 1e-11") in line, line
    assert len(_gates()) == 1   # refused before a full gate run was opened


@pytest.mark.parametrize("key,value", [("finetune", "lora"), ("lora_generation", "merged"),
                                       ("gradient_checkpointing", False), ("max_turns", 1)])
def test_the_trial_runs_the_full_jobs_engine(project, capsys, key, value):
    """The trial's verdict and its s/step speak for the full job only when it trains the same way: a trial of
    ppo_scale.yaml with another finetune, LoRA handling or gradient checkpointing fails `rc1 check-config` (prod)."""
    import yaml

    from test_gate_keys import failing

    trial = yaml.safe_load(Path("configs/ppo_trial.yaml").read_text())
    section = "model" if key == "finetune" else "ppo"
    trial[section][key] = value
    if key == "lora_generation":
        trial["model"]["finetune"] = "lora"   # merged needs LoRA; the finetune check fails with it
    Path("configs/ppo_trial.yaml").write_text(yaml.safe_dump(trial))
    expect = {f"trial.{key}"} | ({"trial.finetune"} if key == "lora_generation" else set())
    assert failing(capsys, ["check-config", "--config", "configs/ppo_scale.yaml", "--mode", "prod"]) == (2, expect)


def test_the_projection_carries_a_trials_step_to_the_full_shape_as_an_upper_bound():
    """Decoding reads every weight once per new token whatever the batch: 32 prompts x 128 new tokens have the rollout
    tokens of 8 x 512 but a quarter of its decode steps, so a step measured there is carried x4 to 8 x 512, not x1; a
    trial of a larger batch at the same length is never carried below what it measured. The job is ppo.episodes, i.e.
    the optimizer steps they make (ppo_scale.yaml: 50000 episodes of 32 per step)."""
    from rc1.core.ppo_config import load_ppo_config
    from rc1.train.projection import Shape, project

    full = load_ppo_config(REPO / "configs" / "ppo_scale.yaml")
    trial = load_ppo_config(REPO / "configs" / "ppo_trial.yaml")
    long_full = full.model_copy(update={"ppo": full.ppo.model_copy(update={"max_new_tokens": 512})})
    assert project(long_full, Shape(32, 4, 128), 10.0).sec_per_step == pytest.approx(40.0)
    p = project(full, trial, 10.0)   # the trial: the full job's batch at 256 of its 320 new tokens
    assert p.sec_per_step == pytest.approx(12.5) and p.steps == 1563 and p.episodes == 50000
    assert p.days_per_seed == pytest.approx(1563 * 12.5 / 86400)
    wide = trial.model_copy(update={"ppo": trial.ppo.model_copy(update={"batch_size": 64, "max_new_tokens": 512})})
    assert project(full, wide, 10.0).sec_per_step == pytest.approx(10.0)   # both ratios below 1
    assert project(full, full, 10.0).sec_per_step == pytest.approx(10.0)
    longer = trial.model_copy(update={"ppo": trial.ppo.model_copy(update={"max_new_tokens": 2048})})
    assert project(full, longer, 10.0).sec_per_step == pytest.approx(10.0)


def test_the_shipped_job_projects_within_a_day_per_seed_on_the_measured_h200():
    """The bar: ppo_scale.yaml from the H200 figures (../shared/GPU.md: 19.4 s/step at 8 x 4 x 128, 70.1 s/step at
    8 x 4 x 512, transformers generate) is at most 24 h per seed: the 128-token measurement carried x2.5 to 320 tokens,
    48.5 s/step x 1563 optimizer steps."""
    from rc1.core.ppo_config import load_ppo_config
    from rc1.train.projection import H200, reference

    full = load_ppo_config(REPO / "configs" / "ppo_scale.yaml")
    proj, where = reference(full)
    assert where is H200[0] and proj.sec_per_step == pytest.approx(48.5)
    assert proj.steps == 1563 and proj.hours_per_seed == pytest.approx(1563 * 48.5 / 3600) and proj.hours_per_seed <= 24


def test_what_a_faster_rollout_backend_buys_is_arithmetic_on_the_h200_measurements():
    """docs/training.md's table: at 50000 episodes of 8 x 4, transformers generate fits 364 new tokens in 24 h per seed
    and nothing in 6 h; generation 5x faster (87% of a step) fits 1318 and 297; the shipped 320 fits 6 h from 5.7x."""
    from rc1.core.ppo_config import load_ppo_config
    from rc1.train.projection import new_tokens_within, speedup_needed

    full = load_ppo_config(REPO / "configs" / "ppo_scale.yaml")
    assert (new_tokens_within(full, 24), new_tokens_within(full, 6)) == (364, 0)
    assert (new_tokens_within(full, 24, speedup=5), new_tokens_within(full, 6, speedup=5)) == (1318, 297)
    assert (new_tokens_within(full, 24, speedup=10), new_tokens_within(full, 6, speedup=10)) == (1840, 415)
    assert speedup_needed(full, 24) == 1.0 and speedup_needed(full, 6) == pytest.approx(5.70, abs=0.01)
    assert speedup_needed(full, 1) is None   # 13% of a step is not generation: 2.8 h at any speed


def test_a_projection_that_is_not_a_number_does_not_pass():
    from rc1.checks.gate_rules import projection_problem

    trial = {"run_id": "r1", "verdict": "pass", "projected_days_per_seed": float("nan")}
    assert "above config_check.projected_days_per_seed_max 7" in projection_problem([trial], 7.0, "ppo_scale.yaml")
    assert projection_problem([{**trial, "projected_days_per_seed": 6.9}], 7.0, "ppo_scale.yaml") is None


@pytest.mark.slow
def test_prod_refuses_a_full_job_that_names_no_trial(project, capsys, prod_key):
    """config_check.projected_days_per_seed_max is checked on a trial's measured s/step: a prod config without a
    `trial` would start its full job unmeasured, so the prod gate refuses it (in its one line, beside what else this
    dev preflight signed as prod fails)."""
    try:
        prod_preflight(capsys, prod_key, "configs/ppo_dev.yaml")
        capsys.readouterr()
        assert run_cli(["gate", "--mode", "prod"]) == 2
        (line,) = [x for x in capsys.readouterr().err.splitlines() if x.startswith("rc1")]
        assert "ppo_dev.yaml names no trial config (key `trial`)" in line, line
        assert not _gates()
    finally:
        import os

        os.environ.pop("RUN_MODE", None)   # the gate sets it for the process


def test_the_newest_trial_decides_both_the_verdict_and_the_projection():
    """Rerunning trials until one passes does not count, nor does an older trial's projection beside a newer verdict:
    the newest trial of the preflight must have passed and measured a projection within the bound."""
    from rc1.checks.gate_rules import projection_problem, trial_problem

    passed = {"run_id": "old", "verdict": "pass", "projected_days_per_seed": 1.0}
    failed = {"run_id": "new", "verdict": "fail", "projected_days_per_seed": 1.0}
    assert "the newest trial, gate run new, did not pass" in trial_problem([failed, passed], "p1")
    assert trial_problem([passed, failed], "p1") is None
    unmeasured = {"run_id": "new", "verdict": "pass", "projected_days_per_seed": None}
    assert "gate run new, recorded no rc1.projected_days_per_seed" in projection_problem([unmeasured, passed], 7.0,
                                                                                        "ppo_scale.yaml")
    assert projection_problem([passed, unmeasured], 7.0, "ppo_scale.yaml") is None
    assert projection_problem([], 7.0, "ppo_scale.yaml") is None   # no trial: trial_problem says so
