"""The gate's requirements on a preflight run (pure part; the tracking-server path is in test_pipeline)."""

from pathlib import Path

from rc1.core.config import load_thresholds
from rc1.data import bundled_tasks
from rc1.checks.gate_rules import fresh_shadow_leaks, option_problems
from rc1.trust.rules import RECHECKS, preflight_problems
from rc1.train.sampler import plain_pool_item
from rc1.core.io import sha256_file

GATES = load_thresholds(Path(__file__).parents[2] / "configs" / "gates.yaml")


def _passing(tmp_path):
    files = {}
    for name in ("pool", "balanced", "shadow", "weights", "config", "gates"):
        p = tmp_path / f"{name}.txt"
        p.write_text(name)
        files[name] = p
    tags = {"rc1.round1_pass": "true", "rc1.round2_pass": "true"}
    for name, p in files.items():
        tags[f"sha256.{name}"] = sha256_file(p)
    metrics = {"round2_pass": 1.0, "round2.validate_pool.passed": 1.0, "round2.shadow_run.passed": 1.0,
               "round2.validate_pool.leak_count": 0.0, "round2.validate_pool.distinct_2": 0.7,
               "round2.validate_pool.dup_rate": 0.0, "round2.shadow_run.spearman": 0.9,
               "round2.shadow_run.top10pct_overlap": 0.8, "round2.shadow_run.corr_improve_pct": 15.0,
               "round2.shadow_run.corr_to_success_new": 0.5}
    return tags, metrics, files


def test_a_passing_unchanged_preflight_opens_the_gate(tmp_path):
    tags, metrics, _ = _passing(tmp_path)
    assert preflight_problems(tags, metrics, GATES) == []
    # the numbers come from its sha256-checked table (round_metrics.json); without it nothing is rechecked: refused
    assert "round_metrics.json" in preflight_problems(tags, None, GATES)[0]


def test_failed_round_refuses(tmp_path):
    tags, metrics, _ = _passing(tmp_path)
    tags["rc1.round2_pass"] = "false"
    assert preflight_problems(tags, metrics, GATES) == ["it did not pass round 2"]
    tags["rc1.round1_pass"] = "false"
    assert preflight_problems(tags, metrics, GATES) == ["it did not pass round 1"]


def test_a_preflight_that_hashed_no_pool_refuses(tmp_path):
    tags, metrics, _ = _passing(tmp_path)
    del tags["sha256.pool"]
    assert preflight_problems(tags, metrics, GATES) == ["it recorded no sha256 for the pool"]


def test_options_must_hash_as_preflight_checked(tmp_path):
    tags, _, files = _passing(tmp_path)
    shas = {k[len("sha256."):]: v for k, v in tags.items() if k.startswith("sha256.")}
    same = {"config": str(files["config"]), "gates": str(files["gates"])}
    assert option_problems(shas, same, [1, 2, 3], [3, 2, 1]) == []
    assert option_problems(shas, {"config": None, "gates": None}, None, [1, 2, 3]) == []
    other = tmp_path / "other.yaml"
    other.write_text("episodes: 1")
    (problem,) = option_problems(shas, {"config": str(other), "gates": None}, None, [1])
    assert problem.startswith(f"--config {other} is not the config preflight checked")
    assert "--gates nope.yaml: file not found" in option_problems(shas, {"gates": "nope.yaml"}, None, [1])
    (problem,) = option_problems(shas, same, [1], [1, 2, 3])
    assert problem == "--seed 1 differs from the checked config's seeds 1,2,3"
    # --max-steps: a quick dev run, but in prod only the checked schedule trains
    assert option_problems(shas, same, None, [1], mode="dev", max_steps=1, config_steps=2000) == []
    assert option_problems(shas, same, None, [1], mode="prod", max_steps=2000, config_steps=2000) == []
    (problem,) = option_problems(shas, same, None, [1], mode="prod", max_steps=1, config_steps=2000,
                                 config_episodes=64000)
    assert problem.startswith("--max-steps 1 differs from the 2000 optimizer steps the checked config's ppo.episodes "
                              "64000 make")


def test_metrics_are_rechecked_against_current_thresholds(tmp_path):
    tags, metrics, _ = _passing(tmp_path)
    metrics["round2.validate_pool.leak_count"] = 1.0
    metrics["round2.shadow_run.passed"] = 0.0
    problems = preflight_problems(tags, metrics, GATES)
    assert any("leak_count" in p for p in problems) and any("shadow_run did not pass" in p for p in problems)
    del metrics[RECHECKS[3][0]]
    assert any("missing" in p for p in preflight_problems(tags, metrics, GATES))
    # issue 32: a judge whose reward is anti-correlated with success; its corr_improve_pct is undefined, not logged
    tags, metrics, _ = _passing(tmp_path)
    metrics["round2.shadow_run.corr_to_success_new"] = -0.49
    del metrics["round2.shadow_run.corr_improve_pct"]
    assert preflight_problems(tags, metrics, GATES) == [
        "metric round2.shadow_run.corr_improve_pct is missing",
        "round2.shadow_run.corr_to_success_new=-0.49 no longer meets shadow_run.corr_to_success_new_min=0.3"]


def test_dev_waived_steps_are_not_rechecked_but_prod_ones_are(tmp_path):
    tags, metrics, _ = _passing(tmp_path)
    metrics["round2.shadow_run.top10pct_overlap"] = 0.4
    tags["rc1.mode"] = "prod"
    assert any("top10pct_overlap" in p for p in preflight_problems(tags, metrics, GATES))
    tags.update({"rc1.mode": "dev", "rc1.waived": "shadow_run.top10pct_overlap"})
    assert preflight_problems(tags, metrics, GATES.for_mode("dev")) == []


def test_fresh_prompts_that_pose_shadow_questions_are_found():
    shadow = bundled_tasks("strategyqa")[:20]
    others = bundled_tasks("strategyqa")[20:40]
    reworded = dict(shadow[3], id="strategyqa:copy-1", question="Quick one: " + shadow[3]["question"])
    fresh = [plain_pool_item(t) for t in [shadow[0], reworded, *others]]
    gate = load_thresholds("configs/gates.yaml").validate_pool
    leaks = fresh_shadow_leaks(fresh, shadow, gate.leak_ngram, gate.leak_sim)
    assert leaks == [f"fresh:{shadow[0]['id']}", "fresh:strategyqa:copy-1"]   # by id, then by the leak rule
    assert fresh_shadow_leaks([plain_pool_item(t) for t in others], shadow, gate.leak_ngram, gate.leak_sim) == []

