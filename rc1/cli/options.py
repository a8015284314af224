"""A stage's parameters, declared once: the fields of its config dataclass. The click options, the logged params and
MLproject's parameter blocks are derived from those fields here (TRL's TrlParser over its config dataclasses is the
model), so a parameter's name, type, default and help exist in one place.

    @dataclass
    class Config:
        \"\"\"Build the seed pool.\"\"\"            # the command's help
        n: str = arg("auto", "Seeds in the pool, or auto.")
        max_turns: int = arg(6, "Most non-system turns a seed's dialogue may have.")

`max_turns` is spelled `--max-turns` (the one spelling --help shows; `--max_turns` parses as a hidden alias, as
MLflow passes an unknown `-P max_turns=...`; a field's `aliases` are more hidden spellings, such as the seeds' runbook
names, and a `Scaled` one takes the value in other units). A field defaulting to None is unset: the stage works the
value out (the config's seed, gates.yaml's threshold), and 'auto' also means unset (MLproject has no optional
parameters).
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from typing import Any, Callable, Union

import click

MISSING = dataclasses.MISSING


@dataclasses.dataclass(frozen=True)
class Scaled:
    """A hidden spelling of a number field in other units: `flag V` sets the field to V / per (the seeds'
    `--max_dup_pct 2.0` is `--dup-rate-max 0.02`)."""

    flag: str
    per: float


def arg(default: Any = MISSING, help: str = "", *, choices: tuple[str, ...] | None = None,
        aliases: tuple[str | Scaled, ...] = (),
        argument: bool = False, hidden: bool = False, flag: str | None = None, log: bool = True,
        mlproject: bool = True, parse: Callable[[str], Any] | None = None) -> Any:
    """A config field with its one line of help; without a default it is required (an option then needs
    @dataclass(kw_only=True) when it follows defaults). `argument`: positional; `hidden`: not in --help nor MLproject
    (plumbing between processes); `flag`: the option's spelling when it is not the field's name (gate's repeatable
    --seed fills `seeds`); `log`: False keeps it out of the run's params (how the run is made, not what it computes:
    --reuse); `mlproject`: False keeps it out of MLproject (a URL that may carry a credential: MLflow logs every -P
    value as given, before rc1 sees it); `parse`: turns the option's text into the value, refusing a bad one with
    its own Rc1Error (one `rc1: error:` line: `--n many`)."""
    meta = {"help": help, "choices": choices, "aliases": tuple(aliases), "argument": argument, "hidden": hidden,
            "flag": flag, "log": log, "mlproject": mlproject, "parse": parse}
    return dataclasses.field(metadata=meta) if default is MISSING else dataclasses.field(default=default, metadata=meta)


def unset(value: Any) -> Any:
    """None for MLproject's spellings of unset ('auto', 'none', ''), the value otherwise."""
    return None if isinstance(value, str) and value in ("", "auto", "none", "None") else value


@dataclasses.dataclass(frozen=True)
class Param:
    """One config field, as the shell sees it."""

    name: str
    kind: type            # int, float, str or bool
    optional: bool        # None allowed (unset)
    multiple: bool        # tuple[...]: a repeatable option (never in MLproject: it passes one value per parameter)
    default: Any          # MISSING when required
    meta: typing.Mapping[str, Any]

    @property
    def required(self) -> bool:
        return self.default is MISSING

    @property
    def flag(self) -> str:
        return self.meta["flag"] or "--" + self.name.replace("_", "-")

    @property
    def mlproject(self) -> bool:
        return not (self.multiple or self.meta["hidden"]) and self.meta.get("mlproject", True)


def params_of(config: type) -> list[Param]:
    """The fields of a config dataclass: the stage's own first, then the shared ones."""
    hints = typing.get_type_hints(config)
    own = vars(config).get("__annotations__", {}).keys()
    out = []
    for f in sorted(dataclasses.fields(config), key=lambda f: f.name not in own):
        kind, optional, multiple = _kind(hints[f.name], f"{config.__qualname__}.{f.name}")
        out.append(Param(f.name, kind, optional, multiple, f.default, f.metadata))
    return out


def _kind(hint: Any, where: str) -> tuple[type, bool, bool]:
    optional = multiple = False
    if typing.get_origin(hint) in (Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        optional = len(args) < len(typing.get_args(hint))
        if len(args) != 1:
            raise TypeError(f"{where}: one type per field, not {hint}")
        hint = args[0]
    if typing.get_origin(hint) is tuple:
        multiple, hint = True, typing.get_args(hint)[0]
    if hint not in (int, float, str, bool):
        raise TypeError(f"{where}: {hint} is not int, float, str or bool")
    return hint, optional, multiple


def logged_params(cfg: Any) -> dict[str, Any]:
    """The params a stage logs: every field (unset ones as 'auto'; a URL without user info, query or fragment)."""
    from rc1.core.redaction import safe_url

    def shown(name: str, v: Any) -> Any:
        if v is None:
            return "auto"
        if isinstance(v, tuple):
            return list(v)
        return safe_url(v) if isinstance(v, str) and name.endswith("url") else v

    return {f.name: shown(f.name, getattr(cfg, f.name)) for f in dataclasses.fields(cfg)
            if f.metadata.get("log", True) and not f.metadata.get("hidden")}


# ---- click


class _IntLike(click.ParamType):
    """An integer that also accepts MLflow's float rendering of it ('245.0'): MLproject has no int type."""

    name = "integer"

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        try:
            f = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not an integer", param, ctx)
        if not f.is_integer():
            self.fail(f"{value!r} is not an integer", param, ctx)
        return int(f)


INT = _IntLike()
_NO = "rc1_no_"   # the hidden --no-x of a bool option x
_SCALED = "rc1_scaled_"   # a Scaled alias of field x: rc1_scaled_<i>_x


class _AutoIsUnset(click.ParamType):
    """An unset-by-default value, where 'auto' (MLproject's spelling of unset) also means unset."""

    def __init__(self, inner: click.ParamType):
        self.inner, self.name = inner, inner.name

    def convert(self, value, param, ctx):
        return None if unset(value) is None else self.inner.convert(value, param, ctx)

    def get_metavar(self, *args, **kwargs):
        return self.inner.get_metavar(*args, **kwargs)


class _SpelledOption(click.Option):
    """An option shown in --help under its one spelling; its other spellings parse as hidden aliases."""

    hidden_aliases: tuple[str, ...] = ()

    def get_help_record(self, ctx):
        saved = self.opts
        self.opts = [o for o in saved if o not in self.hidden_aliases]
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts = saved


class _Parsed(click.ParamType):
    """An option whose field parses its own text (arg's `parse`)."""

    def __init__(self, parse: Callable[[str], Any], name: str):
        self.parse, self.name = parse, name

    def convert(self, value, param, ctx):
        return value if not isinstance(value, str) else self.parse(value)


def _click_type(p: Param) -> click.ParamType:
    if p.meta.get("parse"):
        return _Parsed(p.meta["parse"], {int: "integer", float: "float", str: "text", bool: "boolean"}[p.kind])
    choices = p.meta["choices"]
    t = click.Choice(choices) if choices else {int: INT, float: click.FLOAT, str: click.STRING, bool: click.BOOL}[p.kind]
    return _AutoIsUnset(t) if p.optional or p.default is None else t


def click_params(config: type) -> list[click.Parameter]:
    out: list[click.Parameter] = []
    for p in params_of(config):
        if p.meta["argument"] and p.multiple:   # the command's remaining words, passed on as they are (rc1 serve)
            out.append(click.Argument([p.name], nargs=-1, type=click.UNPROCESSED))
            continue
        if p.meta["argument"]:
            out.append(click.Argument([p.name], type=_click_type(p), required=p.required,
                                      **({} if p.required else {"default": p.default})))
            continue
        spelled = [a for a in p.meta["aliases"] if isinstance(a, str)]
        for i, a in enumerate(a for a in p.meta["aliases"] if isinstance(a, Scaled)):
            out.append(click.Option([a.flag, f"{_SCALED}{i}_{p.name}"], type=click.FLOAT, hidden=True, default=None))
        hidden = tuple(dict.fromkeys(a for a in (*spelled, "--" + p.flag[2:].replace("-", "_")) if a != p.flag))
        kw: dict[str, Any] = dict(type=_click_type(p), required=p.required, help=p.meta["help"],
                                  hidden=p.meta["hidden"], multiple=p.multiple,
                                  show_default=p.default is not None and not p.multiple)
        if not p.required:   # click enforces `required` only where no default is given, None included
            kw["default"] = p.default
        if p.kind is bool:   # --x, --x true|false (MLproject), --no-x
            kw.update(is_flag=False, flag_value=True)
            no = "--no-" + p.flag[2:]
            out.append(click.Option([no, "--no_" + p.flag[2:].replace("-", "_"), _NO + p.name], is_flag=True,
                                    default=False, hidden=True, expose_value=True))
        opt = _SpelledOption([p.flag, *hidden, p.name], **kw)
        opt.hidden_aliases = hidden
        out.append(opt)
    return out


def build(config: type, values: dict[str, Any]) -> Any:
    """The config from a click callback's values (each --no-x applied)."""
    values = dict(values)
    for k in [k for k in values if k.startswith(_NO)]:
        if values.pop(k):
            values[k.removeprefix(_NO)] = False
    for p in params_of(config):
        if p.multiple:
            values[p.name] = tuple(values.get(p.name) or ())
        for i, a in enumerate(a for a in p.meta["aliases"] if isinstance(a, Scaled)):
            given = values.pop(f"{_SCALED}{i}_{p.name}", None)
            if given is None:
                continue
            if values.get(p.name) not in (None, p.default):
                from rc1.core.errors import Rc1Error

                raise Rc1Error(f"{a.flag} and {p.flag} set the same value: give one of them")
            values[p.name] = given / a.per
    return config(**values)


def argv(cfg: Any) -> list[str]:
    """The command line that parses back into `cfg` (click_params' inverse): each field that differs from its
    default as its one spelling (`--max-steps 4`, `--no-reuse`, a repeatable option once per value, a positional
    argument where it belongs); what every subprocess of rc1 is started with."""
    args: list[str] = []
    positional: list[str] = []
    for p in params_of(type(cfg)):
        value = getattr(cfg, p.name)
        if not p.required and value == p.default and (p.default is None) == (value is None):
            continue
        if p.meta["argument"] and p.multiple:
            positional += [str(v) for v in value]
        elif p.meta["argument"]:
            positional.append("auto" if value is None else str(value))
        elif p.multiple:
            args += [a for v in value for a in (p.flag, _text(v))]
        elif p.kind is bool and value is not None:
            args += [p.flag if value else "--no-" + p.flag[2:]]
        else:
            args += [p.flag, "auto" if value is None else _text(value)]
    return [*args, *positional]


def from_params(config: type, params: typing.Mapping[str, Any]) -> dict[str, Any]:
    """The fields of `config` among logged `params` (strings, as MLflow keeps them), converted as the command line
    converts them; a repeatable field is left out. A value the option would refuse is an Rc1Error naming the param
    (the tracking store is writable by others: a param is input like any other)."""
    from rc1.core.errors import Rc1Error

    out = {}
    for p in params_of(config):
        if p.name in params and not p.multiple:
            try:
                out[p.name] = _click_type(p).convert(params[p.name], None, None)
            except click.BadParameter as e:
                raise Rc1Error(f"logged param {p.name}={str(params[p.name])[:80]!r}: {e.message}") from None
    return out


def command_config(name: str) -> type:
    """The Config of command `name` (its module imported here, when it is needed, not by the caller)."""
    import importlib

    from rc1.cli.commands import COMMANDS

    return importlib.import_module(COMMANDS[name]).Config


def command_argv(name: str, **fields: Any) -> list[str]:
    """`python -m rc1.cli <name> ...` for a Config of command `name` with `fields`: how rc1 starts one of its
    commands as a subprocess."""
    import sys

    return [sys.executable, "-m", "rc1.cli", name, *argv(command_config(name)(**fields))]


def _text(value: Any) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def command(name: str, config: type, run: Callable[[Any], Any], show: Callable[[Any], None] | None = None
            ) -> click.Command:
    """`rc1 <name>`: parse the options into a `config`, run the stage, show its result."""

    def callback(**values):
        from rc1.core.settings import use_config

        cfg = build(config, values)
        with use_config(cfg):   # run is @configured; `show` reads the same mode and judge
            result = run(cfg)
            if show is not None:
                show(result)

    passes_on = any(p.meta["argument"] and p.multiple for p in params_of(config))   # words for another program
    settings = {"show_default": False, **({"ignore_unknown_options": True, "allow_interspersed_args": False}
                                          if passes_on else {})}
    return click.Command(name, callback=callback, params=click_params(config), help=inspect.cleandoc(config.__doc__ or ""),
                         context_settings=settings)
