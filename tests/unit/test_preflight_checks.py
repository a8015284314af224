from pathlib import Path

from rc1.core.config import load_thresholds
from rc1.core.ppo_config import load_ppo_config
from rc1.checks.preflight_checks import config_checks, resources_checks, round_summary, step_result

CONFIGS = Path(__file__).parents[2] / "configs"
GATES = load_thresholds(CONFIGS / "gates.yaml")


def _by_name(checks):
    return {c["name"]: c for c in checks}


def test_shipped_prod_config_passes_the_prod_config_check():
    checks = config_checks(load_ppo_config(CONFIGS / "ppo_scale.yaml"), GATES)
    assert all(c["pass"] for c in checks), checks


def test_config_check_catches_each_violation():
    ppo = load_ppo_config(CONFIGS / "ppo_scale.yaml")
    bad = ppo.model_copy(update={"simulate": True, "live_mode": False, "use_overclar_penalty": False,
                                 "seeds": [1, 1, 2], "ppo": ppo.ppo.model_copy(update={"episodes": 10, "target_kl": 0.1,
                                                                                 "mask_truncated_completions": False}),
                                 "model": ppo.model.model_copy(update={"finetune": "lora"})})
    failing = {n for n, c in _by_name(config_checks(bad, GATES)).items() if not c["pass"]}
    assert failing == {"simulate", "live_mode", "use_overclar_penalty", "seeds", "episodes", "target_kl", "finetune",
                       "mask_truncated_completions"}


def test_dev_waives_only_what_gates_yaml_lists_and_keeps_the_real_value():
    checks = [{"name": "live_mode", "value": False, "threshold": True, "pass": False},
              {"name": "episodes", "value": 16, "threshold": ">= 1", "pass": True}]
    dev = step_result("config_check", checks, GATES, "dev")
    assert dev.passed and dev.waived == ["config_check.live_mode"]
    assert dev.checks[0]["value"] is False and dev.checks[0]["pass"] is False
    prod = step_result("config_check", checks, GATES, "prod")
    assert not prod.passed and prod.failing[0]["name"] == "live_mode"
    # a check that dev does not list stays a failure in dev too
    other = step_result("validate_pool", [{"name": "leak_count", "value": 3, "threshold": 0, "pass": False}], GATES, "dev")
    assert not other.passed
    summary = round_summary(1, "dev", [dev, other])
    assert summary["passed"] is False and [f["name"] for f in summary["failing"]] == ["leak_count"]


def test_resources_check_uses_the_threshold(tmp_path):
    ok = _by_name(resources_checks(tmp_path, GATES.for_mode("dev")))["free_disk_gb"]
    assert ok["pass"] and ok["value"] > 1
    strict = GATES.model_copy(update={"resources": GATES.resources.model_copy(update={"free_disk_gb_min": 1e9})})
    assert not _by_name(resources_checks(tmp_path, strict))["free_disk_gb"]["pass"]
