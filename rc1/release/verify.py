"""Is a registered version (and the alias it holds) genuine? One read-only check, shared by `rc1 promote` (before it
sets an alias), `rc1 verify` (for whoever deploys), `rc1 bundle` / `rc1 export-gguf` (before they use a release
alias) and `rc1 guard` (the registry webhook receiver).

    verdict = verify_version("rc1-policy", "3", alias="RC1-dev")
    verdict.ok, verdict.why      # why: one line naming the first broken link ("" when ok)
    verdict.links                # every link checked (rc1.release.chain.Link), in chain order

It never writes the registry or the tracking store.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rc1.core.errors import Rc1Error
from rc1.release.chain import Link


@dataclass
class Verdict:
    ok: bool
    why: str                                  # one line naming the broken link; "" when ok
    version: str
    target: str | None = None                 # the release alias the version may hold (RC1 or RC1-dev)
    links: list[Link] = field(default_factory=list)


def broken_line(name: str, version: str, links: list[Link]) -> str:
    """One line naming every broken link ("" when none is)."""
    broken = [ln for ln in links if not ln.ok]
    if not broken:
        return ""
    why = "; ".join(f"{ln.name} run {ln.run_id or '-'}: {', '.join(ln.problems)}" for ln in broken)
    return f"{name} version {version}: broken link {why}"


def verify_version(name: str, version: str, *, alias: str | None = None) -> Verdict:
    """The version's whole chain, from the tracking server (see rc1.stages.promote); with `alias`, also that the
    version may hold that alias. Read-only."""
    from rc1.stages.promote import verify_chain
    from rc1.tracking import setup_tracking
    from rc1.tracking.registry import resolve_version

    setup_tracking()
    try:
        mv = resolve_version(version=version, name=name)
    except Rc1Error as e:
        return Verdict(False, str(e), str(version))
    links, target = verify_chain(mv)
    if alias is not None and alias != target:
        links.append(Link("alias", None, alias, [f"alias {alias} is not this version's release alias ({target})"]))
    why = broken_line(name, str(mv.version), links)
    return Verdict(not why, why, str(mv.version), target, links)
