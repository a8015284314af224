"""rc1's layout holds: the import graph of rc1/ (every import, at module level or inside a function) has no cycle;
no stage imports another command (stage or flow); a flow imports stages and the flows it is made of; the library
imports no command; and every stage parameter is declared once (benchmarks/declarations.py)."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
COMPOSED = {"rc1.flows.main": {"rc1.flows.preflight", "rc1.flows.gate"}}   # main: preflight, then the gate


def _modules() -> dict[str, Path]:
    out = {}
    for path in (REPO / "rc1").rglob("*.py"):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def import_graph() -> dict[str, set[str]]:
    """{module: the rc1 modules it imports} (an import of a package's name resolves to the package)."""
    mods = _modules()

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            for t in targets:
                r = resolve(t) if t.startswith("rc1") else None
                if r and r != mod:
                    graph[mod].add(r)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _is_command(mod: str) -> bool:
    return mod.startswith(("rc1.stages.", "rc1.flows.")) and mod not in ("rc1.stages.shared", "rc1.flows.step")


def test_no_import_cycle():
    assert _cycles(import_graph()) == []


def test_the_cycle_check_finds_one():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_command_imports_another():
    graph = import_graph()
    bad = []
    for mod, targets in graph.items():
        if not _is_command(mod):
            continue
        for t in targets:
            if not _is_command(t):
                continue
            allowed = mod.startswith("rc1.flows.") and (t.startswith("rc1.stages.") or t in COMPOSED.get(mod, ()))
            if not allowed:
                bad.append(f"{mod} -> {t}")
    assert bad == []


def test_the_library_imports_no_command():
    graph = import_graph()
    bad = [f"{m} -> {t}" for m, ts in graph.items() for t in ts
           if not _is_command(m) and not m.startswith("rc1.cli") and m not in ("rc1.stages", "rc1.flows")
           and _is_command(t)]
    assert bad == []


def test_no_entrypoints_package():
    assert not (REPO / "entrypoints").exists() and importlib.util.find_spec("entrypoints") is None


def test_every_stage_parameter_is_declared_once():
    spec = importlib.util.spec_from_file_location("declarations", REPO / "benchmarks" / "declarations.py")
    declarations = importlib.util.module_from_spec(spec)
    sys.modules["declarations"] = declarations   # its dataclass looks its module up
    spec.loader.exec_module(declarations)
    configs, names = declarations.config_declarations()
    found = configs + declarations.source_declarations(names)
    assert {"clarify_rate", "max_turns", "mix", "gates", "data_dir", "seed"} <= names
    assert declarations.repeated(found) == {}
    # and the count would see a copy: a second literal default of a declared parameter is reported
    copy = declarations.Declaration("clarify_rate", "elsewhere.py:1", "0.3")
    assert ("clarify_rate", "0.3") in declarations.repeated(found + [copy])


def test_the_generation_layer_stands_below_train_inference_and_tracking():
    """rc1.generation (the thinking budget, the dtype, vLLM's engine) is what training rollouts, `rc1 evaluate` and the
    served model stand on: it imports nothing of rc1 but rc1.core, and they import the budget from it."""
    graph = import_graph()
    below = {t for m, ts in graph.items() if m.startswith("rc1.generation") for t in ts
             if not t.startswith(("rc1.generation", "rc1.core"))}
    assert below == set()
    for user in ("rc1.train.hooks", "rc1.inference.policy_vs_base", "rc1.tracking.served"):
        assert "rc1.generation.budget" in graph[user], user
