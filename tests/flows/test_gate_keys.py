"""Every key of configs/gates.yaml can fail: for each key, the smallest input (or a gates.yaml override passed with
the command's --gates) that makes exactly that key's check(s) fail through the real CLI (exit 2, the failing
table printed). A meta-test fails when a key of configs/gates.yaml has no case here, so a key added later must
bring its failing case (see KNOWN_ELSEWHERE for keys other work adds).

Keys that are not thresholds (a parameter of how something is built or defined, or dev-mode policy) are listed
in NOT_THRESHOLDS with the reason; the meta-test requires every key to be in exactly one of the two tables.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Callable

import pytest
import yaml

from rc1.core.io import write_jsonl
from rc1_cli import run_cli

REPO = Path(__file__).resolve().parents[2]
SHIPPED = yaml.safe_load((REPO / "configs" / "gates.yaml").read_text())
pytestmark = pytest.mark.timeout(300)


def flat_keys(d: dict, prefix: str = "") -> set[str]:
    """section.key for every leaf (config_check.mix is one key: the whole mix is one check)."""
    out = set()
    for k, v in d.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict) and name not in ("config_check.mix", "dev_mode.overrides"):
            out |= flat_keys(v, name + ".")
        else:
            out.add(name)
    return out


# keys that configure rather than bound: nothing passes or fails on their value alone
NOT_THRESHOLDS = {
    "shadow.n": "size of the shadow set materialize_shadow selects (its `n` check compares the output with it)",
    "validate_pool.distinct_2_words": "how much user-turn text distinct-2 is measured on (the check is distinct_2_min)",
    "shadow.seed": "selection seed of the shadow set",
    "shadow.stratify": "whether the shadow set is stratified by task",
    "scoring.unstable_variance_max": "defines an unstable judge sample (down-weighted, logged); no check reads it",
    "dev_mode.overrides": "dev-mode policy: which thresholds dev replaces (tested in test_preflight_checks)",
    "dev_mode.waive": "dev-mode policy: which checks dev waives (tested in test_preflight_checks, test_gate_rules)",
    "scale.stages": "the generation sizes of `rc1 scale` and their order (test_scale: a stage waits for the earlier one)",
}


# ---------------------------------------------------------------- the project every case runs in
@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """One project directory and one MLflow store for the whole module (a new sqlite store costs seconds)."""
    root = tmp_path_factory.mktemp("gate_keys")
    for d in ("configs", "templates"):
        shutil.copytree(REPO / d, root / d)
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        for var in ("MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_ID", "SCORER_BASE_URL", "SCORER_API_KEY", "SCORER_MODEL",
                    "OPENAI_API_KEY"):
            mp.delenv(var, raising=False)
        mp.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{root / 'mlflow.db'}")
        mp.setenv("RC1_CACHE_DIR", str(root / "cache"))
        mp.setenv("RUN_MODE", "dev")
        mp.setenv("SCORER_PROVIDER", "heuristic")
        mp.setenv("REWARD_LIVE_MODE", "0")
        yield root


def gates_with(root: Path, name: str, overrides: dict[str, object]) -> str:
    g = yaml.safe_load((REPO / "configs" / "gates.yaml").read_text())
    for dotted, value in overrides.items():
        section, key = dotted.split(".", 1)
        g[section][key] = value
    path = root / f"gates_{name}.yaml"
    path.write_text(yaml.safe_dump(g))
    return str(path)


def failing(capsys, args: list[str]) -> tuple[int, set[str]]:
    """Exit code and the names of the checks the printed table marks FAIL."""
    capsys.readouterr()
    code = run_cli(args)
    err = capsys.readouterr().err
    return code, {m.group(1) for m in re.finditer(r"^  (\S+)\s.*\bFAIL$", err, re.M)}


# ---------------------------------------------------------------- validate_pool
SHADOW = [("hotpotqa:s1", "Which magazine was started first, Arthur's Magazine or First for Women?"),
          ("strategyqa:c1", "Is Cholera alive?"), ("strategyqa:c2", "Do bees sleep?"),
          ("strategyqa:p1", "Would a pear sink in water if dropped into bathtub")]


def _validate(root, capsys, key, pool, overrides=None, baseline=None):
    from test_quality import make_pool

    d = root / "validate" / key.replace(".", "_")
    d.mkdir(parents=True)
    write_jsonl(d / "pool.jsonl", pool)
    write_jsonl(d / "base.jsonl", baseline if baseline is not None else
                make_pool(200, start=50_000, wrapper="Answer the following question as well as you can:"))
    write_jsonl(d / "shadow.jsonl", [{"id": i, "task": i.split(":")[0], "question": q} for i, q in SHADOW])
    return failing(capsys, ["validate-pool", str(d / "pool.jsonl"), "--leak_check", str(d / "shadow.jsonl"),
                            "--baseline_pool", str(d / "base.jsonl"), "--report", str(d / "report.json"),
                            "--gates", gates_with(root, key, overrides or {}), "--no-reuse"])


def _pool(n=200):
    from test_quality import make_pool

    return make_pool(n)


def _with(pool, i, **kw):
    from test_quality import make_seed

    pool = list(pool)
    pool[i] = make_seed(i, pool[i]["task"], **kw)
    return pool


def _exact_copies(pool, k):
    """k seeds that repeat the seed before them (same task, other id): 5% exact duplicates."""
    pool = list(pool)
    for i in range(1, 2 * k, 2):
        pool[i] = dict(pool[i - 1], id=f"dup-{i}")
    return pool


def _near_copies(pool, k):
    """k seeds that are another seed with one word of its question changed (near, not exact, duplicates)."""
    from test_quality import make_seed

    pool = list(pool)
    for i in range(k):
        src = pool[i]
        q = src["dialogue"][1]["content"].split(" ", 5)[-1]
        pool[100 + i] = make_seed(i, pool[100 + i]["task"], question=q.replace(q.split()[3], "changed", 1),
                                  system=src["dialogue"][0]["content"], role=src["role"], style=src["style"])
        pool[100 + i]["id"] = f"near-{i}"
    return pool


V = {  # key -> (pool builder, overrides, baseline builder or None, expected failing checks)
    "validate_pool.distinct_2_min": (_pool, {"validate_pool.distinct_2_min": 0.999}, None, {"distinct_2"}),
    "validate_pool.kl_3gram_vs_v1_min": (_pool, {}, _pool, {"kl_3gram_vs_v1"}),
    "validate_pool.roles_min": (lambda: [dict(s, role="student") for s in _pool()], {}, None, {"roles"}),
    "validate_pool.styles_min": (lambda: [dict(s, style="concise") for s in _pool()], {}, None, {"styles"}),
    "validate_pool.dup_rate_max": (lambda: _exact_copies(_pool(), 10), {}, None, {"dup_rate", "near_dup_rate"}),
    "validate_pool.near_dup_jaccard": (lambda: _near_copies(_pool(), 10), {}, None, {"near_dup_rate"}),
    "validate_pool.len_tokens_min": (lambda: _with(_pool(), 3, system="Hi.", question="Why?"), {}, None,
                                     {"len_tokens_min"}),
    "validate_pool.len_tokens_max": (lambda: _with(_pool(), 3, question=" ".join(f"w{i}" for i in range(5000))), {},
                                     None, {"len_tokens_max"}),
    # "Do bees sleep?" is shorter than 5 words: compared whole, "bees sleep? Do tell" is no leak; as 2-grams it is
    "validate_pool.leak_ngram": (lambda: _with(_pool(), 11, question="Bees sleep? Do tell."),
                                 {"validate_pool.leak_ngram": 2}, None, {"leak_count"}),
    # two of ten words changed: containment 0.8, a leak only below the shipped 0.85
    "validate_pool.leak_sim": (lambda: _with(_pool(), 11, question="Would a pear sink in water when thrown into bathtub"),
                               {"validate_pool.leak_sim": 0.75}, None, {"leak_count"}),
    "validate_pool.leak_count_max": (lambda: _with(_pool(), 11, question="Is Cholera alive?"), {}, None, {"leak_count"}),
    "validate_pool.mix_tolerance_pp": (lambda: [dict(s, task="gsm8k") if i < 20 and s["task"] == "hotpotqa" else s
                                                for i, s in enumerate(_pool())], {}, None,
                                       {"mix_dev_pp.hotpotqa", "mix_dev_pp.gsm8k"}),
}


def test_shipped_thresholds_pass_the_clean_inputs(project, capsys):
    """The baseline every case departs from: the clean pool passes validate-pool under the shipped gates."""
    assert _validate(project, capsys, "clean", _pool()) == (0, set())


def test_pool_size_min_fails_a_small_pool_in_prod(project, capsys, monkeypatch):
    """validate_pool.pool_size_min (20000; dev overrides it to 1): the clean 200-seed pool fails it in prod."""
    monkeypatch.setenv("RUN_MODE", "prod")
    assert _validate(project, capsys, "pool_size_prod", _pool()) == (2, {"pool_size"})


@pytest.mark.parametrize("key", sorted(V))
def test_validate_pool_key_fails(project, capsys, key):
    pool, overrides, baseline, expect = V[key]
    code, failed = _validate(project, capsys, key, pool(), overrides, baseline() if baseline else None)
    assert (code, failed) == (2, expect)
    if key.endswith(("leak_ngram", "leak_sim")):   # the same input passes with the shipped value
        assert _validate(project, capsys, key + "_shipped", pool())[1] == set()


# ---------------------------------------------------------------- difficulty
def _two_turns(pool):
    """Every seed opens with a user/assistant exchange before its question: 3 non-system turns."""
    return [dict(s, dialogue=[s["dialogue"][0], {"role": "user", "content": "Hello there."},
                              {"role": "assistant", "content": "Hi, how can I help?"}, *s["dialogue"][1:]])
            for s in pool]


D = {  # key -> (overrides, pool change, expected failing checks)
    "difficulty.hard_min": ({"difficulty.hard_min": 0.5}, {"hard_share.hotpotqa", "hard_share.strategyqa",
                                                            "hard_share.gsm8k"}),
    "difficulty.easy_max": ({"difficulty.easy_max": 0.1}, {"easy_share.hotpotqa", "easy_share.strategyqa",
                                                            "easy_share.gsm8k"}),
    "difficulty.len_tokens_max": ({"difficulty.len_tokens_max": 10}, {"len_tokens_max"}),
    "difficulty.turns_max": ({"difficulty.turns_max": 2}, {"turns_max"}, _two_turns),
    "difficulty.tool_hops_max": ({"difficulty.tool_hops_max": 0}, {"tool_hops_max"}),
    # hard / easy seeds whose evidence restates their question, or that have no evidence: the shipped bounds fail
    "difficulty.clue_overlap_hard_median_max": ({}, {"clue_overlap_median.hard"}, lambda pool: [
        dict(s, context=[["Q", [s["dialogue"][-1]["content"]]]]) if "-h" in s["id"] else s for s in pool]),
    "difficulty.clue_overlap_hard_median_min": ({}, {"clue_overlap_median.hard"}, lambda pool: [
        dict(s, context=[]) if "-h" in s["id"] else s for s in pool]),
    "difficulty.clue_overlap_easy_median_min": ({}, {"clue_overlap_median.easy"}, lambda pool: [
        dict(s, context=[]) if "-e" in s["id"] else s for s in pool]),
    "difficulty.clue_overlap_easy_median_max": ({}, {"clue_overlap_median.easy"}, lambda pool: [
        dict(s, context=[["Q", [s["dialogue"][-1]["content"]]]]) if "-e" in s["id"] else s for s in pool]),
}


@pytest.mark.parametrize("key", sorted(D))
def test_difficulty_key_fails(project, capsys, key):
    from test_difficulty import graded_pool

    overrides, expect, *change = D[key]
    d = project / "difficulty" / key.replace(".", "_")
    d.mkdir(parents=True)
    write_jsonl(d / "pool.jsonl", change[0](graded_pool(8)) if change else graded_pool(8))
    code, failed = failing(capsys, ["difficulty", "--in", str(d / "pool.jsonl"), "--out", str(d / "m.jsonl"),
                                    "--balanced", str(d / "b.jsonl"), "--report", str(d / "r.json"),
                                    "--gates", gates_with(project, key, overrides), "--no-reuse"])
    assert (code, failed) == (2, expect)


# ---------------------------------------------------------------- config_check, resources, weights
def _ppo(root: Path, name: str, change: Callable[[dict], None]) -> str:
    cfg = yaml.safe_load((REPO / "configs" / "ppo_scale.yaml").read_text())
    cfg.pop("trial", None)   # the key under test alone: the trial config's own checks (trial.*) are test_trial's
    change(cfg)
    path = root / f"ppo_{name}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return str(path)


C = {
    "config_check.episodes_min": (lambda c: c["ppo"].update(episodes=49_999), {"episodes"}),
    "config_check.target_kl_min": (lambda c: c["ppo"].update(target_kl=0.019), {"target_kl"}),
    "config_check.target_kl_max": (lambda c: c["ppo"].update(target_kl=0.051), {"target_kl"}),
    "config_check.seeds_min": (lambda c: c.update(seeds=c["seeds"][:2]), {"seeds"}),
    "config_check.finetune": (lambda c: c["model"].update(finetune="lora"), {"finetune"}),
    "config_check.mix": (lambda c: c.update(mix={"hotpotqa": 0.5, "strategyqa": 0.25, "gsm8k": 0.25}), {"mix"}),
    # rloo is a strategy rc1 trains (dev accepts it) but prod's list leaves out: it has no tool loop
    "config_check.strategies": (lambda c: (c["trainer"].update(strategy="rloo"), c["ppo"].update(max_turns=1)),
                                {"strategy"}),
}


def test_shipped_prod_config_passes_check_config(project, capsys):
    """The bar: the shipped ppo_scale.yaml passes prod's config_check (its episodes rule among them), and the projection
    it prints from the H200 figures is at most 24 h per seed."""
    capsys.readouterr()
    assert run_cli(["check-config", "--config", str(REPO / "configs" / "ppo_scale.yaml"), "--mode", "prod",
                    "--gates", str(REPO / "configs" / "gates.yaml")]) == 0
    err = capsys.readouterr().err
    assert "FAIL" not in err
    line = re.search(r"config_check: projected on the reference \(H200[^)]*\): ppo_scale\.yaml: 50000 episodes = "
                     r"1563 optimizer steps x 48\.5 s/step = ([\d.]+) h per seed", err)
    assert line and float(line.group(1)) <= 24, err


def test_a_prod_config_without_a_thinking_budget_is_refused_in_one_line(project, capsys, monkeypatch):
    """512 new tokens on Qwen3-4B-Thinking-2507 and no thinking budget: its episodes would end inside <think>.
    `rc1 check-config` (preflight's config_check) and `rc1 train` in prod refuse it before anything loads."""
    path = _ppo(project, "no_budget", lambda c: (c.pop("generation"), c["ppo"].update(max_new_tokens=512)))
    expect = (f"rc1: error: {path}: Qwen/Qwen3-4B-Thinking-2507 reasons in <think> blocks and "
              "generation.thinking_budget is unset: with ppo.max_new_tokens 512")
    capsys.readouterr()
    assert run_cli(["check-config", "--config", path, "--mode", "prod", "--gates",
                    str(REPO / "configs" / "gates.yaml")]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(expect), line
    monkeypatch.setenv("RUN_MODE", "prod")
    assert run_cli(["train", "--config", path, "--pool", "no_pool.jsonl"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(expect), line


@pytest.mark.parametrize("key", sorted(C))
def test_config_check_key_fails(project, capsys, key):
    change, expect = C[key]
    assert failing(capsys, ["check-config", "--config", _ppo(project, key, change), "--mode", "prod",
                            "--gates", str(REPO / "configs" / "gates.yaml")]) == (2, expect)


def test_resources_free_disk_gb_min_fails(project, capsys):
    gates = gates_with(project, "disk", {"resources.free_disk_gb_min": 1e9})
    assert failing(capsys, ["check-resources", "--path", str(project), "--mode", "prod", "--gates", gates]) \
        == (2, {"free_disk_gb"})


def test_resources_accelerator_mem_gb_min_fails(project, capsys):
    """1 PB of accelerator memory is never free (and without an accelerator the check fails as 'none'). Prod
    refuses a disk bar under the seed's 50 GB, so on a machine with less free the disk row fails beside it."""
    gates = gates_with(project, "accel", {"resources.accelerator_mem_gb_min": 1e6})
    code, failed = failing(capsys, ["check-resources", "--path", str(project), "--mode", "prod", "--needs-accelerator",
                                    "--gates", gates])
    assert code == 2 and "accelerator_mem_gb" in failed and failed <= {"accelerator_mem_gb", "free_disk_gb"}, failed


W = {
    "weights.max_each": ({"correctness": 0.6, "reasoning": 0.1, "tool_use": 0.1, "clarification": 0.1,
                          "efficiency": 0.05, "safety": 0.05, "format": 0.0}, {"max_each"}),
    "weights.sum_tolerance": ({"correctness": 0.3, "reasoning": 0.2, "tool_use": 0.1, "clarification": 0.1,
                               "efficiency": 0.1, "safety": 0.1, "format": 0.1001}, {"sum_to_one"}),
}


@pytest.mark.parametrize("key", sorted(W))
def test_weights_key_fails(project, capsys, key):
    from rc1.core.config import DIMENSIONS

    weights, expect = W[key]
    weights = dict(zip(DIMENSIONS, weights.values()))   # the shipped dimension names, in order
    path = project / f"weights_{key}.json"
    path.write_text(json.dumps(weights))
    assert failing(capsys, ["check-weights", "--weights", str(path), "--gates", str(REPO / "configs" / "gates.yaml")]) \
        == (2, expect)


# ---------------------------------------------------------------- probe_scorer, anti_simulation (a live judge)
@pytest.fixture
def live(project, monkeypatch, fake_judge_server):
    srv = fake_judge_server()
    for k, v in {"SCORER_PROVIDER": "openai-compatible", "SCORER_BASE_URL": srv.url, "SCORER_MODEL": "fake",
                 "SCORER_API_KEY": "sk-test", "RUN_MODE": "prod", "SCORER_RATE": "500", "SCORER_BURST": "20",
                 "REWARD_LIVE_MODE": "1"}.items():
        monkeypatch.setenv(k, v)
    return srv


@pytest.mark.parametrize("key, overrides, expect", [
    ("probe_scorer.billable_min", {"probe_scorer.billable_min": 10**6}, {"billable_count"}),
    ("probe_scorer.latency_ms_min", {"probe_scorer.latency_ms_min": 1e9}, {"latency_ms"}),
])
def test_probe_scorer_key_fails(project, live, capsys, key, overrides, expect):
    assert failing(capsys, ["probe-scorer", "--n", "1", "--live", "--gates", gates_with(project, key, overrides)]) \
        == (2, expect)


def _scoring_runs(capsys, cached_n: int) -> list[str]:
    """A probe (fresh prompts: all misses, 1 request) and a scoring run answered from the cache (cached_n
    requests): the counters of a round that really scored little."""
    from mlflow.tracking import MlflowClient

    from rc1.stages import probe_scorer

    probe = probe_scorer.run(probe_scorer.Config(n=1, live=True), progress=False)["run_id"]
    args = ["probe-scorer", "--seed", str(cached_n), "--n", str(cached_n)]
    run_cli(args)            # scores the fixed prompts
    run_cli(args)            # the same prompts again: all from the cache (and this run fails, as it should)
    client = MlflowClient()
    exp = client.get_experiment_by_name("rc1")
    (cached,) = client.search_runs([exp.experiment_id], "tags.`rc1.stage` = 'probe_scorer'",
                                   order_by=["attributes.start_time DESC"], max_results=1)
    assert cached.data.metrics["cache_hit_rate"] == 1.0
    capsys.readouterr()
    return [probe, cached.info.run_id]


@pytest.mark.parametrize("key, round_no, cached_n", [
    ("anti_simulation.cache_hit_lt_round1", "1", 9),    # 27 hits of 30 lookups: 0.90, not < 0.90 (and < 0.95)
    ("anti_simulation.cache_hit_lt_round2", "2", 30),   # 90 of 93: 0.968, not < 0.95
])
def test_anti_simulation_key_fails(project, live, capsys, key, round_no, cached_n):
    runs = _scoring_runs(capsys, cached_n)
    cmd = ["assert-not-simulated", "--round", round_no, "--run-id", runs[0], "--run-id", runs[1]]
    assert failing(capsys, cmd) == (2, {"cache_hit_rate"})
    if round_no == "1":   # the same counters meet round 2's bar: the round-1 key decided it
        assert failing(capsys, cmd[:2] + ["2"] + cmd[3:]) == (0, set())


# ---------------------------------------------------------------- shadow_run, weight_calib, overclar_ablation
SR_PERMISSIVE = {"shadow_run.spearman_min": -1.0, "shadow_run.top10pct_overlap_min": 0.0,
                 "shadow_run.corr_improve_pct_min": -1e9, "shadow_run.corr_to_success_new_min": -1.0}


@pytest.mark.parametrize("key, value, expect", [
    ("shadow_run.spearman_min", 1.0, {"spearman"}),
    ("shadow_run.top10pct_overlap_min", 1.0, {"top10pct_overlap"}),
    ("shadow_run.corr_improve_pct_min", 1e9, {"corr_improve_pct"}),
    # under the shipped value: a real judge anti-correlated with success (tests/stages/test_real_judge.py)
    ("shadow_run.corr_to_success_new_min", 1.0, {"corr_to_success_new"}),
])
def test_shadow_run_key_fails(project, capsys, key, value, expect):
    from test_shadow_run_cli import shadow_records

    shadow = project / "sr_shadow.jsonl"
    write_jsonl(shadow, shadow_records())
    gates = gates_with(project, key, {**SR_PERMISSIVE, key: value})
    assert failing(capsys, ["shadow-run", "--shadow", str(shadow), "--report", str(project / f"sr_{key}.json"),
                            "--gates", gates]) == (2, expect)


@pytest.mark.parametrize("key, expect", [
    ("weight_calib.rank_corr_median_improve_pct_min", {"rank_corr_median_improve_pct"}),
    ("weight_calib.mae_improve_pct_min", {"mae_improve_pct"}),
])
def test_weight_calib_key_fails(project, capsys, key, expect):
    from test_weight_calib_cli import write_scored

    write_scored(project / "wc_scored.jsonl")
    gates = gates_with(project, key, {"weight_calib.rank_corr_median_improve_pct_min": -1e9,
                                      "weight_calib.mae_improve_pct_min": -1e9, key: 1e9})
    assert failing(capsys, ["weight-calib", "--boot", "10", "--scored", str(project / "wc_scored.jsonl"), "--out",
                            str(project / f"w_{key}.json"), "--report", str(project / f"wr_{key}.json"),
                            "--gates", gates]) == (2, expect)


@pytest.mark.parametrize("key, value, expect", [
    ("overclar_ablation.overclar_rate_reduction_pct_min", 101.0, {"overclar_rate_reduction_pct"}),
    ("overclar_ablation.avg_turns_increase_max", -100.0, {"avg_turns_increase"}),
    ("overclar_ablation.success_drop_pp_max", -100.0, {"success_drop_pp"}),
])
def test_overclar_ablation_key_fails(project, capsys, key, value, expect):
    from test_overclar_ablation import rows_where_needless_questions_win_without_penalty

    write_jsonl(project / "oa_scored.jsonl", [{**r, "responder": "reference", "judge_provider": "heuristic"}
                                             for r in rows_where_needless_questions_win_without_penalty()])
    assert failing(capsys, ["overclar-ablation", "--alpha", "0.07", "--cap", "3", "--scored",
                            str(project / "oa_scored.jsonl"), "--report", str(project / f"oa_{key}.json"),
                            "--gates", gates_with(project, key, {key: value})]) == (2, expect)


# ---------------------------------------------------------------- every key has a case
CASES = ({*V, *D, *C, *W, "validate_pool.pool_size_min", "resources.free_disk_gb_min", "resources.accelerator_mem_gb_min",
          "probe_scorer.billable_min", "probe_scorer.latency_ms_min", "anti_simulation.cache_hit_lt_round1",
          "anti_simulation.cache_hit_lt_round2", "shadow_run.spearman_min", "shadow_run.top10pct_overlap_min",
          "shadow_run.corr_improve_pct_min", "shadow_run.corr_to_success_new_min",
          "weight_calib.rank_corr_median_improve_pct_min",
          "weight_calib.mae_improve_pct_min", "overclar_ablation.overclar_rate_reduction_pct_min",
          "overclar_ablation.avg_turns_increase_max", "overclar_ablation.success_drop_pp_max"})

# Keys whose failing case lives in another module (the command needs a trained, registered policy):
# key -> the test that makes it fail through the real command.
ELSEWHERE = {  # beside the tiny model that tests/stages/test_train_grpo.py trains once for its module
    "evaluate.hard_success_gain_pp_min": "tests/stages/test_train_grpo.py",
    "evaluate.clarify_success_gain_pp_min": "tests/stages/test_train_grpo.py",
    "evaluate.avg_turns_increase_max": "tests/stages/test_train_grpo.py",
    "evaluate.min_shadow_items": "tests/stages/test_promote.py",      # `rc1 promote` refuses (h9a)
    "evaluate.min_heldout_items": "tests/stages/test_promote.py",
    "judge_robustness.attack_win_rate_max": "tests/stages/test_judge_robustness.py",   # a gullible judge server (h10a)
    # a judge that gives every answer one score (it wins no attack); the real 135M judge: test_real_judge.py
    "judge_robustness.honest_correct_beats_wrong_rate_min": "tests/stages/test_judge_robustness.py",
    "config_check.projected_days_per_seed_max": "tests/flows/test_trial.py",   # the full gate after a trial measured s/step
    "scale.response_distinct_2_min": "tests/flows/test_scale.py",       # `rc1 scale` after report
    "scale.easy_minus_hard_success_min": "tests/flows/test_scale.py",
    "scale.unstable_share_max": "tests/flows/test_scale.py",            # a judge whose K samples disagree
    "scale.judge_failed_max": "tests/flows/test_scale.py",              # a judge whose replies are malformed
}

# Thresholds no offline input can make fail through the command, with why (and where the rule is tested):
NOT_FAILABLE_OFFLINE = {
    "evaluate.overclar_reduction_pct_min": "consulted only when the base model over-clarifies; with a base rate of 0 "
    "the check passes iff the policy's rate stays 0 (whatever the threshold), and the offline tiny model never asks "
    "a needless question. The threshold's failing case is tested on the report (tests/unit/test_evaluate.py); a live "
    "base model makes it reachable through `rc1 evaluate`.",
}

# Keys other work of this session adds to configs/gates.yaml (the integrator adds their cases above):
KNOWN_ELSEWHERE: dict[str, str] = {}


def test_every_gates_yaml_key_has_a_failing_case_or_is_not_a_threshold():
    keys = flat_keys(SHIPPED)
    covered = CASES | set(ELSEWHERE) | set(NOT_FAILABLE_OFFLINE)
    missing = sorted(keys - covered - set(NOT_THRESHOLDS))
    assert not missing, f"configs/gates.yaml keys with no failing case in tests/flows/test_gate_keys.py: {missing}"
    assert not (covered & set(NOT_THRESHOLDS)), "a key is both a threshold with a case and a non-threshold"
    stale = sorted((covered | set(NOT_THRESHOLDS)) - keys)
    assert not stale, f"cases for keys that are not in configs/gates.yaml: {stale}"
    for key, where in ELSEWHERE.items():
        assert (REPO / where).is_file() and key in (REPO / where).read_text(), f"{key}: no case in {where}"
