"""The trust room stands under rc1.tracking (issue 37): no module of rc1/tracking imports rc1/release or rc1/checks
(nor the stages, flows or CLI above them), and rc1/trust imports nothing of rc1.tracking or above, nor MLflow.
Lazy imports inside functions count: an arrow is an arrow."""

from __future__ import annotations

import ast
from pathlib import Path

RC1 = Path(__file__).resolve().parents[2] / "rc1"


def _imports(package: str) -> dict[str, set[str]]:
    """module -> every module it imports (absolute, any depth of the file), for the modules of `package`."""
    out = {}
    for path in (RC1 / package).rglob("*.py"):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
                names |= {f"{node.module}.{a.name}" for a in node.names}
            elif isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
        out[str(path.relative_to(RC1.parent))] = names
    return out


def _offending(package: str, banned: tuple[str, ...]) -> dict[str, list[str]]:
    return {m: sorted(n for n in names if n.split(".")[:2] in [b.split(".") for b in banned] or n in banned)
            for m, names in _imports(package).items()
            if any(n == b or n.startswith(b + ".") for n in names for b in banned)}


def test_tracking_imports_nothing_of_release_checks_or_above():
    assert _offending("tracking", ("rc1.release", "rc1.checks", "rc1.stages", "rc1.flows", "rc1.cli")) == {}


def test_the_trust_room_imports_nothing_above_it():
    assert _offending("trust", ("rc1.tracking", "rc1.release", "rc1.checks", "rc1.stages", "rc1.flows", "rc1.cli",
                                "mlflow")) == {}
