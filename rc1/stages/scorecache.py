"""`rc1 scorecache stat | invalidate --spec V | replay-bad | repair`: look after the judge cache
($RC1_CACHE_DIR/judge_cache.sqlite, default ~/.cache/rc1/judge_cache.sqlite)."""

from __future__ import annotations

import json

import click

from rc1.cli.options import build, click_params
from rc1.core.errors import Rc1Error
from rc1.scoring.cache import CACHE_FILE, JudgeCache, default_cache_dir, repair
from rc1.scoring.judge_settings import JudgeSettings
from rc1.stages.shared import Judged


def _cache() -> JudgeCache:
    return JudgeCache(ttl_days=JudgeSettings.from_env().cache_ttl_days)


@click.group("scorecache")
def command():
    """The sqlite judge cache: counters, invalidation by judge spec version, replay of failed/unstable items."""


@command.command("stat")
@click.option("--purge-expired", is_flag=True, help="also delete entries older than the TTL")
def stat(purge_expired):
    """Entries by spec/provider/model, expired entries, failed/unstable records, lifetime hit rate."""
    cache = _cache()
    purged = cache.purge_expired() if purge_expired else None
    out = cache.totals()
    if purged is not None:
        out["purged"] = purged
    click.echo(json.dumps(out, indent=2))


@command.command("invalidate")
@click.option("--spec", required=True, help="judge spec version whose entries are dropped (e.g. judge-v1)")
def invalidate(spec):
    """Drop every cached sample and failed/unstable record of one judge spec version."""
    click.echo(json.dumps({"spec": spec, "deleted": _cache().invalidate(spec)}))


@command.command("replay-bad", params=click_params(Judged))
def replay_bad_cmd(**values):
    """Re-score the recorded failed/unstable requests with the current provider (fresh samples).
    Exit 2 when some still fail."""
    from rc1.core.settings import use_config
    from rc1.scoring.judge import make_judge
    from rc1.scoring.replay import replay_bad

    with use_config(build(Judged, values)):
        out = replay_bad(make_judge(cache=_cache()))
    click.echo(json.dumps(out))
    if out["after"]["failed"]:
        raise Rc1Error(f"replay-bad: {out['after']['failed']} of {out['replayed']} requests still fail")


@command.command("repair")
def repair_cmd():
    """Move a corrupt cache file aside (<file>.corrupt-<time>) and start a fresh one with every row of it
    that can still be read and is valid; prints what was kept."""
    click.echo(json.dumps(repair(default_cache_dir() / CACHE_FILE)))
