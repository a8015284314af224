"""TRANSITION: the old spelling helpers, for entry points not yet moved to rc1/stages."""

from __future__ import annotations

import click


class SpelledOption(click.Option):
    """An option shown in --help under its one spelling (hyphens); its older spellings (--max_turns, --in) still
    parse, as hidden aliases."""

    hidden_aliases: tuple[str, ...] = ()

    def get_help_record(self, ctx: click.Context):
        saved = self.opts
        self.opts = [o for o in saved if o not in self.hidden_aliases]
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts = saved


class AutoIsUnset(click.ParamType):
    """The value of an option whose default is unset (the command works it out: the config's seed, the mode's
    config), where 'auto' also means unset: MLproject has no optional parameters, so its default is 'auto'."""

    def __init__(self, inner: click.ParamType):
        self.inner, self.name = inner, inner.name

    def convert(self, value, param, ctx):
        return None if value == "auto" else self.inner.convert(value, param, ctx)


def one_spelling(cmd: click.Command) -> click.Command:
    """Every option of `cmd` (and of its subcommands) under one spelling, with hyphens: that one first and the only
    one --help shows; the others parse as hidden aliases. An option that defaults to unset also takes 'auto'.
    tests/test_mlproject.py holds MLproject to the same names and defaults."""
    for sub in getattr(cmd, "commands", {}).values():
        one_spelling(sub)
    for p in cmd.params:
        if not isinstance(p, click.Option):
            continue
        longs = [o for o in p.opts if o.startswith("--")]
        if longs:
            primary = "--" + longs[0][2:].replace("_", "-")
            p.opts = [primary] + [o for o in p.opts if o != primary]
            p.__class__ = SpelledOption
            p.hidden_aliases = tuple(o for o in longs if o != primary)
        if p.default is None and not p.is_flag and not p.multiple and not isinstance(p.type, AutoIsUnset):
            p.type = AutoIsUnset(p.type)
    return cmd


