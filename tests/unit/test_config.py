"""Config files: the shipped ones load, and every kind of bad input is one line naming file and key."""

import shutil
from pathlib import Path

import pytest

from rc1.cli import main
from rc1.core.config import load_data_config, load_gates, load_ppo_scale, load_weights, parse_mix
from rc1.core.errors import Rc1Error

CONFIGS = Path(__file__).parents[2] / "configs"


def test_shipped_configs_load():
    gates = load_gates(CONFIGS / "gates.yaml")
    assert gates.validate_pool.distinct_2_min == 0.60 and gates.validate_pool.leak_count_max == 0
    assert gates.for_mode("dev").config_check.episodes_min == 1
    assert gates.for_mode("prod").config_check.episodes_min == 50000
    assert load_ppo_scale(CONFIGS / "ppo_scale.yaml").mix["hotpotqa"] == 0.45
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
        load_gates(bad)
    assert str(bad) in str(e.value) and expected in str(e.value) and "\n" not in str(e.value)


def test_bad_ppo_mix_and_weights(tmp_path):
    ppo = tmp_path / "ppo.yaml"
    ppo.write_text((CONFIGS / "ppo_scale.yaml").read_text().replace("gsm8k: 0.25", "gsm8k: 0.35"))
    with pytest.raises(Rc1Error, match=r"key 'mix': mix sums to 1.1"):
        load_ppo_scale(ppo)
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
        (load_gates if name == "gates.yaml" else load_ppo_scale)(bad)


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
    from rc1.scoring.settings import JudgeSettings

    for var, value in (("SCORER_TIMEOUT_S", "inf"), ("SCORER_RATE", "nan"), ("SCORER_RATE", "1e308"),
                       ("SCORER_BURST", "0"), ("SCORER_TPM", "-5"), ("SCORER_TIMEOUT_S", "86400")):
        monkeypatch.setenv(var, value)
        with pytest.raises(Rc1Error, match=var):
            JudgeSettings.from_env()
        monkeypatch.delenv(var)
    monkeypatch.setenv("SCORER_RATE", "2.5")
    assert JudgeSettings.from_env().rate == 2.5
