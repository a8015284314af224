"""The Config is a stage's only input (issue 31): the run mode and the judge endpoint are Config fields resolved in one
module (rc1.core.settings), flows hand them to their steps by name and never through os.environ, and argv(cfg), the
inverse of the CLI builder, gives back every command's Config."""

from __future__ import annotations

import dataclasses
import importlib
import os
import re
import subprocess
from pathlib import Path

import click
import pytest

from rc1.cli import COMMANDS, cli
from rc1.cli.options import argv, build, logged_params, params_of
from rc1.core.errors import Rc1Error
from rc1.flows import gate, main, preflight
from rc1.flows.step import Step
from rc1.stages import probe_scorer, shadow_run, train
from rc1_cli import run_cli

REPO = Path(__file__).resolve().parents[2]
JUDGE = {"mode": "prod", "judge_provider": "openai-compatible", "judge_base_url": "http://127.0.0.1:9/v1",
         "judge_model": "judge-m", "judge_timeout_s": 7.0, "judge_rate": 3.0}


def test_one_module_reads_the_mode_and_judge_variables():
    out = subprocess.run(["grep", "-rln", r"SCORER_\|RUN_MODE", "rc1", "--include=*.py"], cwd=REPO,
                         capture_output=True, text=True).stdout.split()
    assert out == ["rc1/core/settings.py"]
    defs = subprocess.run(["grep", "-rn", "def run_mode", "rc1", "--include=*.py"], cwd=REPO, capture_output=True,
                          text=True).stdout.splitlines()
    assert len(defs) == 1, defs   # one run-mode rule


def test_probe_scorer_help_names_the_judge_endpoint_and_the_mode(capsys):
    assert run_cli(["probe-scorer", "--help"]) == 0
    shown = capsys.readouterr().out
    for option in ("--judge-provider", "--judge-model", "--judge-base-url", "--judge-timeout-s", "--judge-rate",
                   "--mode"):
        assert option in shown
    assert "--judge-api-key" not in shown   # the key is an environment variable only


def test_a_flow_hands_its_judge_and_mode_to_its_steps_without_the_environment(monkeypatch):
    for var in ("RUN_MODE", "SCORER_PROVIDER", "SCORER_MODEL", "SCORER_BASE_URL", "SCORER_TIMEOUT_S", "SCORER_RATE",
                "REWARD_LIVE_MODE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("SCORER_API_KEY", "sk-test-key-1234")
    before = dict(os.environ)
    flow = main.Config(seed=11, n=40, gates="g.yaml", reuse=False, config="c.yaml", max_steps=2, **JUDGE)
    pre = Step(preflight).config(flow)   # main's steps: every same-named field, none copied by hand
    assert (pre.seed, pre.n, pre.gates, pre.reuse, pre.config) == (11, 40, "g.yaml", False, "c.yaml")
    g = Step(gate).config(flow)
    assert (g.mode, g.max_steps, g.judge_base_url, g.judge_rate) == ("prod", 2, JUDGE["judge_base_url"], 3.0)
    probe = Step(probe_scorer, not_shared=("n", "seed")).config(pre)
    assert probe.n == 8 and probe.seed is None   # its --n and --seed mean something else: not inherited
    assert {k: getattr(probe, k) for k in JUDGE} == JUDGE
    step = Step(train).config(g, seed=3)
    assert step.mode == "prod" and step.judge_model == "judge-m" and step.seed == 3

    from rc1.core.settings import active_fields, run_mode, use_config
    from rc1.scoring.judge import make_judge

    with use_config(probe):   # what Step.run and `rc1 <stage>` wrap the stage in
        judge = make_judge(cache=False)
        assert run_mode() == "prod" and active_fields() == JUDGE
    assert judge.endpoint()["base_url"] == JUDGE["judge_base_url"] and judge.endpoint()["model"] == "judge-m"
    assert (judge.settings.timeout_s, judge.settings.rate) == (7.0, 3.0)
    assert dict(os.environ) == before and run_mode() == "dev"   # nothing written, nothing left active
    # the fields are logged (the URL as safe_url keeps it), the key never
    params = logged_params(probe)
    assert params["judge_base_url"] == JUDGE["judge_base_url"] and params["mode"] == "prod"
    assert "sk-test-key-1234" not in repr(params)



def test_preflight_seed_never_selects_the_shadow_set():
    """--seed is the pipeline's random seed; materialize-shadow's seed selects the shadow set, gates.yaml shadow.seed
    when unset (a prod floor): preflight's --seed must not reach it, as before the steps inherited by name."""
    step = next(s for s in preflight.STEPS if s.name == "materialize_shadow")
    cfg = preflight.Config(mode="dev", seed=7)
    assert step.config(cfg, preflight.Ctx(cfg, "configs/ppo_dev.yaml"), 1).seed is None


@pytest.mark.parametrize("url", ["http://127.0.0.1:9/v1?code=s3cr3t-value", "http://u:s3cr3t-value@127.0.0.1/v1",
                                 "http://127.0.0.1/v1#s3cr3t-value", "http://127.0.0.1/v1;key=s3cr3t-value",
                                 "ftp://127.0.0.1/v1"])
def test_a_judge_url_with_a_query_or_credentials_is_refused_in_one_line(url):
    with pytest.raises(Rc1Error) as e:
        probe_scorer.Config(judge_base_url=url)
    assert "s3cr3t" not in str(e.value) and "\n" not in str(e.value)


def _commands_with_configs():
    for name, module in COMMANDS.items():
        config = getattr(importlib.import_module(module), "Config", None)
        if config is not None:
            yield name, config


def _value(p):
    """A value other than the field's default, of its type."""
    if p.multiple:
        return (1, 2) if p.kind is int else ("a", "b")
    if p.meta["choices"]:
        return next((c for c in reversed(p.meta["choices"]) if c != p.default), p.default)
    return {bool: not p.default, int: 3, float: 0.25, str: "x.jsonl"}[p.kind]


def _required(config):
    return {p.name: _value(p) for p in params_of(config) if p.required}


def test_argv_parses_back_into_every_commands_config():
    """rc1.cli.options.argv is click_params' inverse: for every command, a Config with one field changed at a time
    (each field of each command that its Config accepts so changed) parses back from argv(cfg) to the same Config."""
    tried = 0
    for name, config in _commands_with_configs():
        command = cli.get_command(click.Context(cli), name)
        base = _required(config)
        for p in [None, *params_of(config)]:
            try:
                cfg = config(**base, **({} if p is None or p.required else {p.name: _value(p)}))
            except (Rc1Error, ValueError, TypeError):   # a value its Config refuses
                continue
            ctx = command.make_context(name, argv(cfg))
            assert build(config, ctx.params) == cfg, (name, p and p.name, argv(cfg))
            if getattr(config, "resolves_mode", False):   # a stage's own __post_init__ keeps the shared ones
                assert cfg.mode in ("dev", "prod"), name
            tried += 1
    assert tried > 250


def test_the_shadow_run_launcher_and_the_bundle_commands_are_argv():
    from rc1.cli.options import command_argv
    from rc1.release.reproduce import gate_argv, preflight_argv

    cmd = command_argv("shadow-run", report="r.json", scored_out="s.jsonl", mode="prod", judge_model="m")
    assert cmd[1:4] == ["-m", "rc1.cli", "shadow-run"]
    assert shadow_run.Config(report="r.json", scored_out="s.jsonl", mode="prod", judge_model="m") == build(
        shadow_run.Config, cli.get_command(click.Context(cli), "shadow-run").make_context("x", cmd[4:]).params)
    logged = {**{k: str(v) for k, v in logged_params(preflight.Config(mode="dev", n=50, seed=7)).items()},
              "out_dir": "out/dev"}
    again = preflight_argv(logged)
    assert again[:2] == ["rc1", "preflight"] and "--out-dir" not in again
    assert build(preflight.Config, cli.get_command(click.Context(cli), "preflight").make_context("x", again[2:]).params
                 ) == preflight.Config(mode="dev", n=50, seed=7)
    with pytest.raises(Rc1Error, match="logged param mode='staging'"):
        preflight_argv({"mode": "staging"})
    assert sorted(gate_argv({"mode": "prod", "max_steps": "4", "kind": "full"})) == sorted(
        ["rc1", "gate", "--mode", "prod", "--max-steps", "4"])
    assert not [f for f in dataclasses.fields(train.Config) if re.search("api_key|secret", f.name)]


def test_every_command_runs_under_its_configs_settings():
    """The Config's mode and judge fields are active while `run(cfg)` runs, however it is called (rc1.core.settings
    .configured): not only through the `rc1` command and a flow's step."""
    for name, module in COMMANDS.items():
        mod = importlib.import_module(module)
        if getattr(mod, "Config", None) is not None and hasattr(mod, "run"):
            assert getattr(mod.run, "__wrapped__", None) is not None, f"{module}.run is not @configured"


def test_a_stage_called_from_python_runs_in_its_configs_mode(scorer_env, monkeypatch):
    """probe_scorer.run(Config(mode='prod')) with no $RUN_MODE: its run is a prod run (was: dev judge and tags)."""
    from mlflow.tracking import MlflowClient

    from rc1.core.errors import CheckFailed

    monkeypatch.chdir(scorer_env)
    with pytest.raises(CheckFailed):
        probe_scorer.run(probe_scorer.Config(mode="prod", n=1, gates=str(REPO / "configs" / "gates.yaml")),
                         progress=False)
    client = MlflowClient()
    runs = client.search_runs([e.experiment_id for e in client.search_experiments()])
    assert [r.data.tags["rc1.mode"] for r in runs] == ["prod"]
