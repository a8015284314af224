"""`rc1 verify models:/rc1-policy@RC1` (or `--version N`, `--alias A`): the check promote runs, read-only, for
whoever deploys: the version's chain from its runs' signed statements, the weights it serves held to the digest its
train run signed, and with a release alias (RC1, RC1-dev) a signed promotion to it. Prints the chain table; a broken
link: exit 2, one line naming it. Run it before serving or shipping a version (rc1.release.version_check). `best` and
`trial-best` are checked for what they claim: a gated train run's own signed model."""

from __future__ import annotations

import re
from dataclasses import dataclass

import click

from rc1.cli.options import arg
from rc1.core.errors import Rc1Error
from rc1.stages.shared import Versioned
from rc1.core.settings import configured

MODEL_URI = re.compile(r"^models:/(?P<name>[^/@]+)(?:@(?P<alias>[^/@]+)|/(?P<version>\d+))$")


@dataclass
class Config(Versioned):
    """Check a registered version's signed chain (read-only); exit 2 naming the broken link."""

    uri: str | None = arg(None, "models:/<name>@<alias> or models:/<name>/<version> (unset: --version, --alias, "
                                "else alias RC1).", argument=True)


def target(cfg: Config) -> tuple[str, str | None, str | None]:
    """(registered model, version, alias) from the model URI or --version/--alias (neither: alias RC1)."""
    from rc1.release.chain import RC1
    from rc1.tracking.registry import MODEL_NAME

    if cfg.uri is None:
        return (MODEL_NAME, *cfg.version_or_alias(RC1))
    m = MODEL_URI.match(cfg.uri)
    if not m:
        raise Rc1Error(f"{cfg.uri}: not a model URI; give models:/<name>@<alias> or models:/<name>/<version>")
    if cfg.version is not None or cfg.alias is not None:
        raise Rc1Error("give a model URI or --version/--alias, not both")
    return m["name"], m["version"], m["alias"]


@configured
def run(cfg: Config) -> dict:
    """Verify; returns {name, version, alias, target}. A broken link: Rc1Error (exit 2) naming it."""
    from rc1.release.reconcile import reconcile_promotions
    from rc1.release.version_check import verify_version
    from rc1.tracking.store import setup_tracking
    from rc1.tracking.registry import resolve_version

    name, version, alias = target(cfg)
    setup_tracking()
    for line in reconcile_promotions():
        click.echo(f"[rc1] settled an unfinished promotion: {line}", err=True)
    mv = resolve_version(version, alias, name=name)
    verdict = verify_version(name, str(mv.version), alias=alias)
    click.echo(verdict.table(), err=True)
    if not verdict.ok:
        raise Rc1Error(f"not verified: {verdict.why}" + (f" (alias {alias})" if alias else ""))
    return {"name": name, "version": verdict.version, "alias": alias, "target": verdict.target}


def show(res: dict) -> None:
    from rc1.release.version_check import WORKING_ALIASES

    head = f"verified: {res['name']} version {res['version']}" + (f" as {res['alias']}" if res["alias"] else "")
    if res["alias"] in WORKING_ALIASES:   # what `best` claims, not a release
        click.echo(f"{head}: it serves its gated train run's signed model (the whole chain: rc1 verify --version "
                   f"{res['version']})")
    else:
        click.echo(f"{head}: every link of its chain is signed and holds")
