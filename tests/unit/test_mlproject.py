"""MLproject = the CLI: the committed file is what the commands' configs generate (rc1.cli.mlproject), and every
entry point is the `rc1` subcommand of the same name, with its options (a parameter is named as the config field and
run param it becomes, max_steps, and passed as the option's one spelling, --max-steps), the same defaults ('auto'
where the command works the value out) and the same required parameters; the underscore spellings of options still
parse, hidden from --help."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest
import yaml

from rc1.cli import cli
from rc1.cli.mlproject import render

REPO = Path(__file__).resolve().parents[2]
SPEC = yaml.safe_load((REPO / "MLproject").read_text())["entry_points"]
PREFIX = ["python", "-m", "rc1.cli"]


def test_mlproject_is_generated_from_the_configs():
    assert (REPO / "MLproject").read_text() == render(), "MLproject is stale: run `python -m rc1.cli.mlproject`"


def _command(name: str) -> click.Command:
    cmd = cli.get_command(click.Context(cli), name)
    assert cmd is not None, f"no `rc1 {name}`"
    return cmd


def _same_default(mlproject: object, param: click.Parameter, ctx: click.Context) -> bool:
    value = param.get_default(ctx, call=True)
    if value is None:
        return mlproject == "auto"
    if isinstance(value, bool):
        return str(mlproject).lower() == str(value).lower()
    if isinstance(value, (int, float)):
        return float(mlproject) == float(value)
    return str(mlproject) == str(value)


@pytest.mark.parametrize("entry_point", sorted(SPEC))
def test_entry_point_is_its_command(entry_point, monkeypatch):
    monkeypatch.delenv("RUN_MODE", raising=False)   # a mode option's default: $RUN_MODE or dev
    spec = SPEC[entry_point]
    tokens = shlex.split(spec["command"])
    assert tokens[:3] == PREFIX and tokens[3] == entry_point.replace("_", "-"), spec["command"]
    cmd = _command(tokens[3])
    params = spec.get("parameters") or {}
    used = re.findall(r"\{([^}]+)\}", spec["command"])
    assert sorted(used) == sorted(params), f"{entry_point}: each parameter used once, and only those"
    options = {o: p for p in cmd.params for o in p.opts}
    arguments = [p for p in cmd.params if isinstance(p, click.Argument)]
    ctx = click.Context(cmd)
    rest = tokens[4:]
    while rest:
        token = rest.pop(0)
        if token.startswith("--"):   # --opt-name {opt_name}: the option's one spelling, the field's name
            value = rest.pop(0)
            name = value.strip("{}")
            assert token == "--" + name.replace("_", "-") and "-" not in name, f"{entry_point}: {token} {value}"
            param = options.get(token)
            assert param is not None and param.opts[0] == token, f"{entry_point}: {token} is not how rc1 spells it"
        else:                         # a positional {name}: the command's argument (or a group's subcommand)
            name = token.strip("{}")
            if isinstance(cmd, click.Group):
                assert params[name]["default"] in cmd.list_commands(ctx)
                continue
            param = arguments.pop(0)
            assert param.name == name.replace("-", "_"), f"{entry_point}: argument {param.name}, not {name}"
        mlp = params[name]
        if param.required:
            assert "default" not in mlp, f"{entry_point}: {name} is required by `rc1 {tokens[3]}`"
        else:
            assert _same_default(mlp.get("default"), param, ctx), \
                f"{entry_point}: {name} defaults to {mlp.get('default')!r}, rc1 to {param.get_default(ctx, call=True)!r}"


def test_every_path_command_has_its_entry_point():
    for name in ("main", "preflight", "gate", "train", "evaluate", "promote", "export-gguf", "bundle"):
        assert name.replace("-", "_") in SPEC
    for ep in ("evaluate", "promote", "export_gguf", "bundle"):
        assert "version" in SPEC[ep]["parameters"], f"{ep} takes a version under mlflow run too"


def test_old_spellings_parse_hidden_from_help():
    cmd = _command("build-pool")
    ctx = cmd.make_context("build-pool", ["--max_turns", "4", "--templates_dir", "t", "--clarify-rate", "0.2"])
    assert (ctx.params["max_turns"], ctx.params["templates_dir"], ctx.params["clarify_rate"]) == (4, "t", 0.2)
    shown = cmd.get_help(click.Context(cmd, info_name="build-pool"))
    assert "--max-turns" in shown and "--max_turns" not in shown and "--templates_dir" not in shown
    diff = _command("difficulty")
    assert diff.make_context("difficulty", ["--in", "p.jsonl"]).params["pool"] == "p.jsonl"
    assert "--in " not in diff.get_help(click.Context(diff, info_name="difficulty"))


def test_auto_means_unset_where_the_command_works_the_value_out():
    ctx = _command("train").make_context("train", ["--config", "auto", "--seed", "auto", "--max-steps", "auto"])
    assert (ctx.params["config"], ctx.params["seed"], ctx.params["max_steps"]) == (None, None, None)
    ctx = _command("gate").make_context("gate", ["--max-steps", "2", "--fresh", "auto"])
    assert (ctx.params["max_steps"], ctx.params["fresh"]) == (2, None)
    with pytest.raises(click.BadParameter):
        _command("gate").make_context("gate", ["--max-steps", "two"])
