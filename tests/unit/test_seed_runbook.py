"""The seeds' runbook lines, as written, parse through click into their stage's Config with the values they mean;
the runbook's judge providers are accepted or refused in one line naming the choice."""

from __future__ import annotations

import shlex

import pytest

from rc1.cli import load_command
from rc1.cli.options import build, command_config
from rc1_cli import run_cli

# each line of the founding runbook (issue 38), with the Config fields it must set; `--provider $SCORER_PROVIDER` is
# written once per value the seeds use
RUNBOOK = [
    ("rc1 materialize-shadow --n 245 --seed 20250820 --stratify --materialize data/shadow_eval_245.jsonl "
     "--dump-manifest reports/rc1/sample_manifest.json",
     {"n": 245, "seed": 20250820, "stratify": True, "materialize": "data/shadow_eval_245.jsonl",
      "dump_manifest": "reports/rc1/sample_manifest.json"}),
    ('rc1 build-pool --out data/rollouts/rc1_seed.jsonl --n 30000 --mix "hotpotqa:0.45,strategyqa:0.30,gsm8k:0.25" '
     '--max_turns 6 --clarify_rate 0.30 --tools "wiki,calc" --templates_dir templates/pack_v2',
     {"out": "data/rollouts/rc1_seed.jsonl", "n": 30000, "mix": "hotpotqa:0.45,strategyqa:0.30,gsm8k:0.25",
      "max_turns": 6, "clarify_rate": 0.30, "tools": "wiki,calc", "templates_dir": "templates/pack_v2"}),
    ("rc1 validate-pool data/rollouts/rc1_seed.jsonl --min_distinct2 0.60 --kl3_min 0.15 --roles_min 4 --styles_min 3 "
     "--max_dup_pct 2.0 --max_len 4096 --min_len 64 --leak_check data/shadow_eval_245.jsonl --leak_ngram 5 "
     '--leak_sim 0.85 --by_task "hotpotqa,strategyqa,gsm8k"',
     {"pool": "data/rollouts/rc1_seed.jsonl", "distinct_2_min": 0.60, "kl_3gram_vs_v1_min": 0.15, "roles_min": 4,
      "styles_min": 3, "dup_rate_max": 0.02, "len_tokens_max": 4096, "len_tokens_min": 64,
      "leak_check": "data/shadow_eval_245.jsonl", "leak_ngram": 5, "leak_sim": 0.85,
      "by_task": "hotpotqa,strategyqa,gsm8k"}),
    ("rc1 probe-scorer --n 8 --provider gemini --live", {"n": 8, "judge_provider": "gemini", "live": True}),
    ("rc1 assert-not-simulated --cache_hit_lt 0.90", {"cache_hit_lt": 0.90}),
    ("rc1 assert-not-simulated --cache_hit_lt 0.95", {"cache_hit_lt": 0.95}),
    ("rc1 shadow-run --n 245 --seed 20250820 --stratify", {"n": 245, "seed": 20250820, "stratify": True}),
    ('rc1 shadow-run --n 245 --seed 20250820 --stratify --tag "pre_run_check"', {"tag": "pre_run_check"}),
    ("rc1 difficulty --in data/rollouts/rc1_seed.jsonl --out data/rollouts/rc1_seed.metrics.jsonl",
     {"pool": "data/rollouts/rc1_seed.jsonl", "out": "data/rollouts/rc1_seed.metrics.jsonl"}),
    ("rc1 weight-calib --cv 5 --boot 200 --l2 0.1 --seed 42", {"cv": 5, "boot": 200, "l2": 0.1, "seed": 42}),
    ("rc1 overclar-ablation --alpha 0.07 --cap 3 --ablation", {"alpha": 0.07, "cap": 3, "ablation": True}),
    ("rc1 train --config configs/ppo_scale.yaml", {"config": "configs/ppo_scale.yaml"}),
    ("rc1 train --config configs/ppo_scale.yaml --resume-from checkpoints/rc1/latest",
     {"config": "configs/ppo_scale.yaml", "resume_from": "checkpoints/rc1/latest"}),
]


def config_of(line: str):
    name, *args = shlex.split(line)[1:]
    ctx = load_command(name).make_context(name, args)   # click's parser: an unknown option raises here
    return build(command_config(name), ctx.params)


@pytest.mark.parametrize("line,fields", RUNBOOK, ids=[line.split()[1] for line, _ in RUNBOOK])
def test_a_runbook_line_parses_into_what_it_means(line, fields):
    cfg = config_of(line)
    for key, want in fields.items():
        assert getattr(cfg, key) == (pytest.approx(want) if isinstance(want, float) else want), key


def test_the_documented_spelling_and_the_seeds_set_one_field():
    """`--max_dup_pct` is a percentage of `--dup-rate-max`'s rate; both at once is refused, naming both."""
    assert config_of("rc1 validate-pool p.jsonl --dup-rate-max 0.05").dup_rate_max == 0.05
    from rc1.core.errors import Rc1Error

    with pytest.raises(Rc1Error, match="--max_dup_pct and --dup-rate-max"):
        config_of("rc1 validate-pool p.jsonl --dup-rate-max 0.05 --max_dup_pct 2")
    assert "--max_dup_pct" not in load_command("validate-pool").get_help(
        load_command("validate-pool").make_context("validate-pool", ["p"]))


@pytest.mark.parametrize("how", ["option", "environment"])
def test_deepseek_r1_is_refused_in_one_line_naming_the_choice(how, scorer_env, monkeypatch, capsys):
    """The seeds' SCORER_PROVIDER=deepseek_r1: no run, one line naming the nearest provider and the choices."""
    monkeypatch.chdir(scorer_env)
    args = ["probe-scorer", "--n", "8", "--live"]
    if how == "option":
        args += ["--provider", "deepseek_r1"]
    else:
        monkeypatch.setenv("SCORER_PROVIDER", "deepseek_r1")
    assert run_cli(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'deepseek_r1': not a judge provider (did you mean deepseek?)" in err[0], err
    assert "gemini" in err[0] and not (scorer_env / "mlruns").exists()


def test_by_task_is_parsed_as_difficulty_parses_it(tmp_path, monkeypatch, capsys):
    """validate-pool's --by-task is difficulty's: known tasks, an unknown one refused in one line before any run."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.jsonl").write_text("{}\n")
    assert run_cli(["validate-pool", "p.jsonl", "--by_task", "hotpotqa,mmlu"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["rc1: error: --by-task: unknown task 'mmlu'; known: hotpotqa, strategyqa, gsm8k"]
    assert not (tmp_path / "mlruns").exists()


def test_no_ablation_is_refused_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert run_cli(["overclar-ablation", "--no-ablation"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("rc1: error: --no-ablation: overclar-ablation is the ablation")
    assert not (tmp_path / "mlruns").exists()
