"""Template packs: the JSON files under templates/<pack>/ that turn a Task into a PoolItem dialogue.

A pack directory holds:
- pack.json     {name, version, description, system: {intro, tools, clarify, answer: {task: [..]}},
                 vague: {name: [..]}, evidence_headers: [..], note_sources: [..]}
- roles.json    {roles: [{id, system: [..], openers: [..]}]}        (who asks)
- styles.json   {styles: [{id, system: [..], closers: [..]}]}       (how the reply should sound)
- any other *.json: {templates: [template, ...]} with each template
    {id, category: math|multihop|clarification, difficulty: easy|medium|hard, tasks: [..],
     mode: plain|support|paragraphs|worked, tools: [wiki|calc ..], user: [pattern ..], worked_user: [..],
     worked_reply: [..], hidden_reply: [..]}
  `difficulty` is the pose the template gives an item (rc1.pool): easy is open-book (mode support: the gold
  evidence is in the user turn), medium leaves the evidence to the tools, hard is closed-book with distractors
  or a needed clarification. Without it: easy for support, hard for clarification, else medium.

Patterns are str.format strings over a fixed set of placeholders (PLACEHOLDERS). Every list of
variants is a choice the pool builder makes per seed, so one source item yields genuinely different
pool items. load_pack validates all of it; a problem is an Rc1Error naming the file and the key.
"""

from __future__ import annotations

import json
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rc1.core.io import json_problem, why_not_a_file
from rc1.core.config import TASKS
from rc1.core.errors import Rc1Error
from rc1.data.tools import TOOLS

CATEGORIES = ("math", "multihop", "clarification")
DIFFICULTIES = ("easy", "medium", "hard")
MODES = ("plain", "support", "paragraphs", "worked")
PLACEHOLDERS = {
    "user": {"opener", "question", "closer", "evidence", "header"},
    "worked_user": {"opener", "lookup"},
    "worked_reply": {"result"},
    "hidden_reply": {"fact"},
}
RESERVED_FILES = {"pack.json", "roles.json", "styles.json"}


@dataclass(frozen=True)
class Template:
    id: str
    category: str
    tasks: tuple[str, ...]
    mode: str
    tools: tuple[str, ...]
    user: tuple[str, ...]
    worked_user: tuple[str, ...] = ()
    worked_reply: tuple[str, ...] = ()
    hidden_reply: tuple[str, ...] = ()
    file: str = ""
    difficulty: str = "medium"

    @property
    def clarify(self) -> bool:
        return self.category == "clarification"

    def turns(self) -> int:
        """Non-system turns of a pool item built from this template (worked: user, call, tool, reply, user)."""
        return 5 if self.mode == "worked" else 1


@dataclass(frozen=True)
class Role:
    id: str
    system: tuple[str, ...]
    openers: tuple[str, ...]


@dataclass(frozen=True)
class Style:
    id: str
    system: tuple[str, ...]
    closers: tuple[str, ...]


@dataclass
class TemplatePack:
    name: str
    version: str
    description: str
    directory: str
    intro: tuple[str, ...]
    tools_lines: tuple[str, ...]
    clarify_lines: tuple[str, ...]
    answer_lines: dict[str, tuple[str, ...]]
    vague_names: tuple[str, ...]
    evidence_headers: tuple[str, ...]
    roles: tuple[Role, ...]
    styles: tuple[Style, ...]
    templates: tuple[Template, ...]
    note_sources: tuple[str, ...] = ()   # where a hard pose's note line came from (rc1.data.render: _notes)
    _by_task: dict = field(default_factory=dict, repr=False)

    def for_task(self, task: str, clarify: bool, max_turns: int | None = None,
                 difficulty: str | None = None) -> list[Template]:
        key = (task, clarify, max_turns, difficulty)
        if key not in self._by_task:
            self._by_task[key] = [t for t in self.templates if task in t.tasks and t.clarify == clarify
                                  and (max_turns is None or t.turns() <= max_turns)
                                  and (difficulty is None or t.difficulty == difficulty)]
        return self._by_task[key]

    def summary(self) -> dict[str, Any]:
        per_cat = {c: sum(1 for t in self.templates if t.category == c) for c in CATEGORIES}
        return {"name": self.name, "version": self.version, "templates": len(self.templates),
                "per_category": per_cat, "roles": [r.id for r in self.roles], "styles": [s.id for s in self.styles],
                "modes": sorted({t.mode for t in self.templates}),
                "tools": sorted({x for t in self.templates for x in t.tools})}


# ---------------------------------------------------------------- validation helpers
class _File:
    def __init__(self, path: Path):
        self.path = path
        try:
            self.data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise Rc1Error(f"{path}: {json_problem(e)}") from None
        except UnicodeDecodeError:
            raise Rc1Error(f"{path}: not UTF-8 text") from None
        if not isinstance(self.data, dict):
            raise Rc1Error(f"{path}: expected a JSON object at the top level")

    def fail(self, key: str, msg: str):
        raise Rc1Error(f"{self.path}: key '{key}': {msg}")

    def get(self, obj: dict, key: str, where: str, typ: type | tuple, required: bool = True, default=None):
        full = f"{where}.{key}" if where else key
        if key not in obj:
            if required:
                self.fail(full, "missing")
            return default
        val = obj[key]
        if not isinstance(val, typ) or isinstance(val, bool) and typ is not bool:
            self.fail(full, f"expected {_tname(typ)}, got {type(val).__name__}")
        return val

    def strings(self, obj: dict, key: str, where: str, required: bool = True, allow_empty_item: bool = False,
                placeholders: set[str] | None = None, need: set[str] = frozenset()) -> tuple[str, ...]:
        full = f"{where}.{key}" if where else key
        val = self.get(obj, key, where, list, required, default=[])
        if required and not val:
            self.fail(full, "must be a non-empty list")
        for i, s in enumerate(val):
            if not isinstance(s, str):
                self.fail(f"{full}[{i}]", f"expected a string, got {type(s).__name__}")
            if not s.strip() and not allow_empty_item:
                self.fail(f"{full}[{i}]", "empty string")
            if placeholders is not None:
                names = _placeholders(s, lambda m: self.fail(f"{full}[{i}]", m))
                unknown = names - placeholders
                if unknown:
                    self.fail(f"{full}[{i}]", f"unknown placeholder {{{sorted(unknown)[0]}}}; allowed: "
                                               f"{', '.join('{' + p + '}' for p in sorted(placeholders))}")
                missing = need - names
                if missing:
                    self.fail(f"{full}[{i}]", f"needs placeholder {{{sorted(missing)[0]}}}")
        return tuple(val)


def _tname(typ) -> str:
    names = {list: "a list", dict: "an object", str: "a string", int: "an integer", bool: "true/false"}
    if isinstance(typ, tuple):
        return " or ".join(names.get(t, t.__name__) for t in typ)
    return names.get(typ, typ.__name__)


def _placeholders(pattern: str, fail) -> set[str]:
    try:
        return {name for _, name, _, _ in string.Formatter().parse(pattern) if name is not None}
    except ValueError as e:
        fail(f"bad format string ({e})")
        return set()


def _load_template(f: _File, raw: Any, i: int) -> Template:
    where = f"templates[{i}]"
    if not isinstance(raw, dict):
        f.fail(where, f"expected an object, got {type(raw).__name__}")
    tid = f.get(raw, "id", where, str)
    where = f"templates[{i}]({tid})"
    category = f.get(raw, "category", where, str)
    if category not in CATEGORIES:
        f.fail(f"{where}.category", f"{category!r} is not one of {', '.join(CATEGORIES)}")
    tasks = tuple(f.strings(raw, "tasks", where))
    for t in tasks:
        if t not in TASKS:
            f.fail(f"{where}.tasks", f"unknown task {t!r}; known: {', '.join(TASKS)}")
    mode = f.get(raw, "mode", where, str, required=False, default="plain")
    if mode not in MODES:
        f.fail(f"{where}.mode", f"{mode!r} is not one of {', '.join(MODES)}")
    tools = tuple(f.strings(raw, "tools", where, required=False))
    for t in tools:
        if t not in TOOLS:
            f.fail(f"{where}.tools", f"unknown tool {t!r}; known: {', '.join(TOOLS)}")
    need_user = {"question"} | ({"evidence"} if mode in ("support", "paragraphs") else set())
    user = f.strings(raw, "user", where, placeholders=PLACEHOLDERS["user"], need=need_user)
    worked_user = f.strings(raw, "worked_user", where, required=mode == "worked",
                            placeholders=PLACEHOLDERS["worked_user"], need={"lookup"})
    worked_reply = f.strings(raw, "worked_reply", where, required=mode == "worked",
                             placeholders=PLACEHOLDERS["worked_reply"], need={"result"})
    if mode == "worked" and not tools:
        f.fail(f"{where}.tools", "a worked template needs the tool its earlier exchange calls")
    hidden = f.strings(raw, "hidden_reply", where, required=category == "clarification",
                       placeholders=PLACEHOLDERS["hidden_reply"], need={"fact"})
    if category == "clarification" and mode not in ("plain", "paragraphs"):
        f.fail(f"{where}.mode", "clarification templates are 'plain' or 'paragraphs' (other evidence or a worked "
                                "lookup could reveal the hidden fact)")
    if category != "clarification" and hidden:
        f.fail(f"{where}.hidden_reply", "only clarification templates hide a fact")
    if category == "math" and tasks != ("gsm8k",):
        f.fail(f"{where}.tasks", "math templates apply to gsm8k only")
    default = "easy" if mode == "support" else "hard" if category == "clarification" else "medium"
    difficulty = f.get(raw, "difficulty", where, str, required=False, default=default)
    if difficulty not in DIFFICULTIES:
        f.fail(f"{where}.difficulty", f"{difficulty!r} is not one of {', '.join(DIFFICULTIES)}")
    if difficulty == "easy" and mode != "support":
        f.fail(f"{where}.difficulty", "an easy (open-book) template gives the evidence: mode 'support'")
    return Template(tid, category, tasks, mode, tools, user, worked_user, worked_reply, hidden, f.path.name,
                    difficulty)


def load_pack(directory: str | Path) -> TemplatePack:
    """Read and validate templates/<pack>/; any problem is an Rc1Error naming the file and key."""
    root = Path(directory)
    if not root.is_dir():
        raise Rc1Error(f"{root}: template pack directory not found")
    for name in RESERVED_FILES:
        if why_not_a_file(root / name):
            raise Rc1Error(f"{root / name}: {why_not_a_file(root / name)} (a pack needs "
                           f"{', '.join(sorted(RESERVED_FILES))})")

    pf = _File(root / "pack.json")
    meta = pf.data
    name = pf.get(meta, "name", "", str)
    version = str(pf.get(meta, "version", "", (str, int)))
    description = pf.get(meta, "description", "", str, required=False, default="")
    system = pf.get(meta, "system", "", dict)
    intro = pf.strings(system, "intro", "system", required=False, allow_empty_item=True) or ("",)
    tools_lines = pf.strings(system, "tools", "system", required=False, placeholders={"tools"}, need={"tools"})
    clarify_lines = pf.strings(system, "clarify", "system", required=False)
    answers = pf.get(system, "answer", "system", dict)
    answer_lines = {}
    for task in TASKS:
        answer_lines[task] = pf.strings(answers, task, "system.answer")
    vague = pf.get(meta, "vague", "", dict, required=False, default={})
    vague_names = pf.strings(vague, "name", "vague", required=False) or ("X",)
    headers = pf.strings(meta, "evidence_headers", "", required=False) or ("Notes:",)
    sources = pf.strings(meta, "note_sources", "", required=False)

    roles = _named_entries(root / "roles.json", "roles", "openers", Role)
    styles = _named_entries(root / "styles.json", "styles", "closers", Style)

    templates: list[Template] = []
    seen: dict[str, str] = {}
    files = sorted(p for p in root.glob("*.json") if p.name not in RESERVED_FILES)
    if not files:
        raise Rc1Error(f"{root}: no template files (*.json besides {', '.join(sorted(RESERVED_FILES))})")
    for path in files:
        tf = _File(path)
        for i, raw in enumerate(tf.get(tf.data, "templates", "", list)):
            t = _load_template(tf, raw, i)
            if t.id in seen:
                tf.fail(f"templates[{i}].id", f"duplicate template id {t.id!r} (also in {seen[t.id]})")
            seen[t.id] = path.name
            templates.append(t)
    if not templates:
        raise Rc1Error(f"{root}: the template files list no templates")
    return TemplatePack(name, version, description, str(root), tuple(intro), tuple(tools_lines), tuple(clarify_lines),
                        answer_lines, tuple(vague_names), tuple(headers), tuple(roles), tuple(styles),
                        tuple(templates), tuple(sources))


def _named_entries(path: Path, key: str, phrases: str, cls: type) -> list:
    """roles.json / styles.json: a non-empty list of {id, system: [...], <phrases>: [...]} with unique ids."""
    f = _File(path)
    out = []
    for i, raw in enumerate(f.get(f.data, key, "", list)):
        where = f"{key}[{i}]"
        if not isinstance(raw, dict):
            f.fail(where, "expected an object")
        eid = f.get(raw, "id", where, str)
        out.append(cls(eid, f.strings(raw, "system", f"{where}({eid})"),
                       f.strings(raw, phrases, f"{where}({eid})", allow_empty_item=True)))
    if not out:
        f.fail(key, f"must list at least one {key[:-1]}")
    _unique(f, key, [e.id for e in out])
    return out


def _unique(f: _File, key: str, ids: list[str]) -> None:
    dup = next((i for i in ids if ids.count(i) > 1), None)
    if dup is not None:
        f.fail(key, f"duplicate id {dup!r}")
