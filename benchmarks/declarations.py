"""Every stage parameter, declared once: for each parameter of every `rc1` command, where it is declared and with
which default. It counts
  - the config fields of every command (rc1/stages, rc1/flows; a shared field once, in its mixin),
  - a default given to a function parameter of the same name in a command module,
  - a literal a flow passes for a stage parameter (`build_pool.Config(clarify_rate=0.30)`: a second default),
  - a click option declared by hand anywhere in rc1,
and exits 1 when any parameter has the same default declared twice (MLproject and the CLI are generated from the
configs: tests/unit/test_mlproject.py holds the committed MLproject to them).

    python benchmarks/declarations.py          # the table; exit 1 on a repeated default
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@dataclasses.dataclass(frozen=True)
class Declaration:
    param: str
    where: str      # file:line
    default: str    # repr of the default, or "required"


def _owner_line(cls: type, name: str) -> tuple[type, int]:
    """The class of `cls`'s MRO that declares field `name`, and the line of that declaration."""
    import inspect

    for base in cls.__mro__:
        if name in vars(base).get("__annotations__", {}):
            try:
                src, start = inspect.getsourcelines(base)
            except OSError:   # a class made at import (validate-pool's thresholds: one per gates.yaml key)
                return base, 0
            for k, line in enumerate(src):
                if line.strip().startswith(f"{name}:"):
                    return base, start + k
            return base, start
    raise LookupError(name)


def config_declarations() -> tuple[list[Declaration], set[str]]:
    from rc1.cli import COMMANDS
    from rc1.cli.options import params_of

    seen, out, names = set(), [], set()
    for module_name in COMMANDS.values():
        module = importlib.import_module(module_name)
        config = getattr(module, "Config", None)
        if config is None:
            continue
        for p in params_of(config):
            names.add(p.name)
            owner, line = _owner_line(config, p.name)
            key = (owner, p.name)
            if key in seen:
                continue
            seen.add(key)
            file = Path(sys.modules[owner.__module__].__file__).relative_to(REPO)
            default = "required" if p.required else ("<factory>" if callable(p.default) else repr(p.default))
            out.append(Declaration(p.name, f"{file}:{line}", default))
    return out, names


def source_declarations(names: set[str]) -> list[Declaration]:
    """Defaults of the parameters `names` outside the configs: function defaults and flow literals in the command
    modules, hand-written click options anywhere in rc1."""
    out = []
    command_dirs = (REPO / "rc1" / "stages", REPO / "rc1" / "flows")
    for path in sorted((REPO / "rc1").rglob("*.py")):
        rel = path.relative_to(REPO)
        in_commands = any(d in path.parents for d in command_dirs)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if in_commands and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args
                pos = args.posonlyargs + args.args
                pairs = list(zip(pos[len(pos) - len(args.defaults):], args.defaults))
                pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
                for a, d in pairs:
                    if a.arg in names and isinstance(d, ast.Constant) and d.value is not None:
                        out.append(Declaration(a.arg, f"{rel}:{d.lineno}", repr(d.value)))
            if isinstance(node, ast.Call):
                func = node.func
                if in_commands and isinstance(func, ast.Attribute) and func.attr == "Config":
                    for kw in node.keywords:
                        if kw.arg in names and isinstance(kw.value, ast.Constant) and kw.value.value is not None:
                            out.append(Declaration(kw.arg, f"{rel}:{kw.value.lineno}", repr(kw.value.value)))
                if (isinstance(func, ast.Attribute) and func.attr in ("option", "argument")
                        and isinstance(func.value, ast.Name) and func.value.id == "click"):
                    for a in node.args:
                        if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--"):
                            name = a.value[2:].replace("-", "_")
                            default = next((repr(k.value.value) for k in node.keywords
                                            if k.arg == "default" and isinstance(k.value, ast.Constant)), "None")
                            out.append(Declaration(name, f"{rel}:{node.lineno}", default))
                            break
    return out


def repeated(declarations: list[Declaration]) -> dict[tuple[str, str], list[Declaration]]:
    """(parameter, default) declared more than once; None (unset: worked out by the stage) is not a default."""
    by = defaultdict(list)
    for d in declarations:
        if d.default not in ("None", "required", "<factory>"):
            by[(d.param, d.default)].append(d)
    return {k: v for k, v in by.items() if len(v) > 1}


def main() -> int:
    sys.path.insert(0, str(REPO))
    configs, names = config_declarations()
    decls = configs + source_declarations(names)
    by_param = defaultdict(list)
    for d in decls:
        by_param[d.param].append(d)
    width = max(len(p) for p in by_param)
    for param in sorted(by_param):
        for k, d in enumerate(by_param[param]):
            print(f"{param if k == 0 else '':<{width}}  {d.default:<40.40}  {d.where}")
    rep = repeated(decls)
    print(f"\n{len(by_param)} parameters, {len(decls)} declarations, {len(rep)} repeated default(s)")
    for (param, default), ds in sorted(rep.items()):
        print(f"REPEATED {param}={default}: " + ", ".join(d.where for d in ds))
    return 1 if rep else 0


if __name__ == "__main__":
    sys.exit(main())
