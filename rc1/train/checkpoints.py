"""Training checkpoints on disk: `step_XXXXX/`, a `latest` pointer, append-only `best/`, and a sha256 manifest.

    <root>/step_00002/           everything transformers' Trainer needs to resume (adapter, optimizer, scheduler,
                                 RNG, trainer_state.json) + rc1_state.json (sampler replay history, adaptive beta, best)
    <root>/latest                text file naming the newest step dir
    <root>/best/001_step_00002/  a copy of a step dir each time the reward beats the previous best; entries are
                                 never overwritten or removed (a new best is a new entry)
    <root>/ckpt_manifest.jsonl   one line per event: {kind: step|best|removed, path, step, sha256, metric, time}

A checkpoint is loaded only after its directory's sha256 matches the manifest's last entry for that path; a
mismatch (a file edited, truncated or swapped) refuses with Rc1Error (exit 2).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
from pathlib import Path
from typing import Any

from rc1.core.errors import Rc1Error
from rc1.core.io import atomic_open, iter_jsonl, sha256_dir

MANIFEST = "ckpt_manifest.jsonl"
LATEST = "latest"
BEST = "best"
STATE = "rc1_state.json"


def step_name(step: int) -> str:
    return f"step_{int(step):05d}"


def step_of(path: str | Path) -> int | None:
    """The step number of a step_XXXXX dir (numeric: step_100000 comes after step_99999), None for other names."""
    name = Path(path).name
    num = name[len("step_"):] if name.startswith("step_") else ""
    return int(num) if num.isdigit() else None


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


class CheckpointStore:
    def __init__(self, root: str | Path):
        self.root = Path(root)

    # ---------------------------------------------------------------- manifest
    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST

    def entries(self) -> list[dict]:
        return list(iter_jsonl(self.manifest_path)) if self.manifest_path.is_file() else []

    def _append(self, entry: dict) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.manifest_path, "a", encoding="utf-8") as fh:  # append-only log: one write per line
            fh.write(json.dumps(entry, sort_keys=True) + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def _entry_for(self, rel: str) -> dict | None:
        found = next((e for e in reversed(self.entries()) if e.get("path") == rel), None)   # the latest record
        return found if found and found.get("kind") != "removed" else None

    # ---------------------------------------------------------------- writing
    def commit_step(self, src: str | Path, step: int, state: dict[str, Any], metric: float | None = None) -> Path:
        """Move a freshly saved Trainer checkpoint to step_XXXXX/, add rc1's state, hash it, point `latest` at it."""
        dest = self.root / step_name(step)
        src = Path(src)
        if dest.exists():  # a resumed run re-saving a step it already had (after a kill past the last save)
            shutil.rmtree(dest)
        if src.resolve() != dest.resolve():
            os.replace(src, dest)
        with atomic_open(dest / STATE) as fh:
            json.dump(state, fh, sort_keys=True)
        self._append({"kind": "step", "path": dest.name, "step": int(step), "sha256": sha256_dir(dest),
                      "metric": metric, "time": _now()})
        with atomic_open(self.root / LATEST) as fh:
            fh.write(dest.name + "\n")
        return dest

    def add_best(self, step: int, metric: float) -> Path:
        """Copy step_XXXXX/ to a new best/NNN_step_XXXXX/ entry (never overwriting an existing entry)."""
        src = self.verify(self.root / step_name(step))
        best_dir = self.root / BEST
        best_dir.mkdir(parents=True, exist_ok=True)
        n = 1 + sum(1 for p in best_dir.iterdir() if p.is_dir() and not p.name.startswith("."))
        dest = best_dir / f"{n:03d}_{step_name(step)}"
        if dest.exists():
            raise Rc1Error(f"{dest}: best entry exists; best/ is append-only")
        tmp = best_dir / f".{dest.name}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(src, tmp)
        os.replace(tmp, dest)
        self._append({"kind": "best", "path": f"{BEST}/{dest.name}", "step": int(step), "sha256": sha256_dir(dest),
                      "metric": metric, "time": _now()})
        return dest

    def rotate(self, keep_last: int) -> list[Path]:
        """Remove all but the newest `keep_last` step dirs (best/ entries are copies and stay)."""
        steps = sorted((p for p in self.root.glob("step_*") if p.is_dir() and step_of(p) is not None), key=step_of)
        removed = []
        for p in steps[:-keep_last] if keep_last > 0 else []:
            shutil.rmtree(p)
            self._append({"kind": "removed", "path": p.name, "step": step_of(p), "time": _now()})
            removed.append(p)
        return removed

    # ---------------------------------------------------------------- reading
    def latest(self) -> Path | None:
        f = self.root / LATEST
        if not f.is_file():
            return None
        p = self.root / f.read_text(encoding="utf-8").strip()
        return p if p.is_dir() else None

    def best(self) -> Path | None:
        """The newest best entry (the best so far)."""
        bests = self.best_entries()
        return self.root / bests[-1]["path"] if bests else None

    def best_entries(self) -> list[dict]:
        return [e for e in self.entries() if e.get("kind") == "best"]

    def verify(self, path: str | Path) -> Path:
        """`path` if its sha256 matches the manifest; Rc1Error otherwise."""
        path = Path(path)
        rel = path.resolve().relative_to(self.root.resolve()).as_posix()
        entry = self._entry_for(rel)
        if entry is None:
            raise Rc1Error(f"{path}: not in {self.manifest_path}; refusing to load an unrecorded checkpoint")
        got = sha256_dir(path)
        if got != entry["sha256"]:
            raise Rc1Error(f"{path}: sha256 {got[:12]}… does not match {MANIFEST} ({entry['sha256'][:12]}…); "
                           f"the checkpoint was modified or is incomplete, refusing to load it")
        return path

    def state(self, path: str | Path) -> dict:
        f = Path(path) / STATE
        return json.loads(f.read_text(encoding="utf-8")) if f.is_file() else {}


def resolve_resume(path: str | Path) -> tuple[CheckpointStore, Path]:
    """`--resume-from DIR`: a run directory (its `latest`) or one step_XXXXX/ dir; verified against the manifest."""
    path = Path(path)
    if not path.exists():
        raise Rc1Error(f"--resume-from {path}: no such directory")
    if (path / MANIFEST).is_file():
        store = CheckpointStore(path)
        target = store.latest()
        if target is None:
            raise Rc1Error(f"--resume-from {path}: no checkpoint yet (no '{LATEST}' pointer)")
    elif (path.parent / MANIFEST).is_file():
        store, target = CheckpointStore(path.parent), path
    elif (path.parent.parent / MANIFEST).is_file():   # a best/NNN_step_XXXXX entry
        store, target = CheckpointStore(path.parent.parent), path
    else:
        raise Rc1Error(f"--resume-from {path}: no {MANIFEST} here or in the parent directory")
    return store, store.verify(target)
