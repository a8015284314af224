"""Whether a registered version may hold an alias: the same read-only chain check `rc1 promote` runs
(rc1/release/chain.py), without setting anything. (A stand-in with the agreed signature until signed attestations
land; `rc1 guard` calls it.)"""

from __future__ import annotations

from dataclasses import dataclass

from rc1.core.errors import Rc1Error


@dataclass(frozen=True)
class Verdict:
    ok: bool
    why: str   # one line


def verify_version(name: str, version: str, *, alias: str | None = None) -> Verdict:
    """The version's chain, read from the tracking server; with `alias`, also whether the chain allows that alias
    (RC1 for a prod version, RC1-dev for a dev one)."""
    import importlib

    from rc1.tracking.registry import MODEL_NAME, resolve_version

    # stand-in: the chain's queries still live in the promote stage, which the library does not import by name
    verify_chain = importlib.import_module("rc1.stages.promote").verify_chain

    if name != MODEL_NAME:
        return Verdict(False, f"{name!r} is not rc1's registered model {MODEL_NAME!r}")
    try:
        mv = resolve_version(version, None, name)
    except Rc1Error as e:
        return Verdict(False, str(e))
    links, target = verify_chain(mv)
    broken = [ln for ln in links if not ln.ok]
    if broken:
        return Verdict(False, "broken link " + "; ".join(f"{ln.name} run {ln.run_id or '-'}: {', '.join(ln.problems)}"
                                                         for ln in broken))
    if alias is not None and alias != target:
        return Verdict(False, f"alias {alias} on version {version}, whose chain allows only {target}")
    return Verdict(True, f"chain holds; version {version} may hold {target}")
