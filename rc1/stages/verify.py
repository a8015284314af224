"""`rc1 verify models:/rc1-policy@RC1` (or `--version N`, `--alias A`): the check promote runs, read-only, for
whoever deploys: the version's chain from its runs' signed statements, every file it serves held to the digest its
train run signed, and with a release alias (RC1, RC1-dev) a signed promotion to it. Prints the trust root (path and
sha256) and the chain table; a broken link: exit 2, one line naming it. It writes nothing, to the store or anywhere
(an unfinished promotion is settled by the next promote, bundle or export-gguf). `rc1 serve` serves what this
check verified (rc1.trust.version). `best` and `trial-best` are checked for what they claim: a gated train run's own
signed model."""

from __future__ import annotations

from dataclasses import dataclass

import click

from rc1.cli.options import arg
from rc1.core.errors import Rc1Error
from rc1.stages.shared import Trusting, Versioned, parse_model_uri
from rc1.core.settings import configured

@dataclass
class Config(Versioned, Trusting):
    """Check a registered version's signed chain (read-only); exit 2 naming the broken link."""

    uri: str | None = arg(None, "models:/<name>@<alias> or models:/<name>/<version> (unset: --version, --alias, "
                                "else alias RC1).", argument=True)


def target(cfg: Config) -> tuple[str, str | None, str | None]:
    """(registered model, version, alias) from the model URI or --version/--alias (neither: alias RC1)."""
    from rc1.tracking.registry import MODEL_NAME
    from rc1.trust.rules import RC1

    if cfg.uri is None:
        return (MODEL_NAME, *cfg.version_or_alias(RC1))
    if cfg.version is not None or cfg.alias is not None:
        raise Rc1Error("give a model URI or --version/--alias, not both")
    return parse_model_uri(cfg.uri)


@configured
def run(cfg: Config) -> dict:
    """Verify; returns {name, version, alias, target}. A broken link: Rc1Error (exit 2) naming it."""
    from rc1.tracking.evidence import store_source
    from rc1.tracking.registry import resolve_version
    from rc1.trust.version import verify_version

    name, version, alias = target(cfg)
    trust = cfg.pinned_trust()
    source = store_source(read_only=True)
    mv = resolve_version(version, alias, name=name)
    verdict = verify_version(source, name, str(mv.version), alias=alias, trust=trust)
    click.echo(verdict.table(), err=True)
    if not verdict.ok:
        raise Rc1Error(f"not verified: {verdict.why}" + (f" (alias {alias})" if alias else ""))
    return {"name": name, "version": verdict.version, "alias": alias, "target": verdict.target}


def show(res: dict) -> None:
    from rc1.trust.version import WORKING_ALIASES

    head = f"verified: {res['name']} version {res['version']}" + (f" as {res['alias']}" if res["alias"] else "")
    if res["alias"] in WORKING_ALIASES:   # what `best` claims, not a release
        click.echo(f"{head}: it serves its gated train run's signed model (the whole chain: rc1 verify --version "
                   f"{res['version']})")
    else:
        click.echo(f"{head}: every link of its chain is signed and holds")
