"""Output directories rc1 writes whole (a bundle, a training run's checkpoints, a preflight's working files): rc1
replaces or empties only a directory it made itself.

A directory rc1 makes carries MARKER, a file naming the kind of output it holds. `check_out_dir` refuses, in one
line and before anything is written: the working directory, any parent of it, the home directory, the repository
rc1 runs from (and its parents), a path that is not a directory, and an existing directory holding anything but an
earlier rc1 output of the same kind (its marker, or for directories from before the marker, the file that kind
always writes: LEGACY). `claim_out_dir` checks and marks a directory a stage then writes into; `replace_out_dir`
puts a finished directory in place of an earlier output of its kind (renamed in, so a crash leaves the old one or
the new one, never half of each) and lists every file it put there, with its sha256, in FILES: an earlier output is
replaced only when it holds those files and nothing else, unchanged (a file a user added or edited there is never
deleted: the directory is refused, naming it). A bundle from before FILES existed is held to its bundle.json.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from rc1.core.errors import Rc1Error

MARKER = ".rc1-output"
FILES = ".rc1-files"   # the files replace_out_dir wrote, {relative path: sha256}
# the file an output of each kind always held before the marker existed
LEGACY = {"bundle": ("bundle.json",), "train": ("ckpt_manifest.jsonl",),
          "preflight": ("shadow_eval_245.jsonl", "shadow_manifest.json", "rc1_seed.jsonl")}
# everything such an unmarked earlier output may hold, where rc1 replaces it whole (rc1 bundle): a user's directory that
# merely holds a file of that name (a bundle.json of their own) is not an earlier bundle
LEGACY_ONLY = {"bundle": frozenset({"bundle.json", "requirements.txt", "REPRODUCE.md", "configs", "templates"})}
_IGNORED = {MARKER, FILES, ".rc1.lock"}   # rc1's own bookkeeping (the lock of rc1.core.io.exclusive_dir)


def _resolved(path: Path, what: str) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError) as e:   # a symlink loop (RuntimeError before Python 3.13)
        raise Rc1Error(f"{what} {path}: cannot be resolved ({e})") from None


def _protected(p: Path) -> str | None:
    """Why `p` (resolved) must never be written whole, or None."""
    cwd = Path.cwd().resolve()
    if p == cwd or p in cwd.parents:
        return "the working directory" if p == cwd else "a parent of the working directory"
    home = Path.home().resolve()
    if p == home or p in home.parents:
        return "the home directory" if p == home else "a parent of the home directory"
    repo = Path(__file__).resolve().parents[2]   # the checkout rc1 runs from
    if (repo / ".git").exists() and (p == repo or p in repo.parents):
        return "the repository" if p == repo else "a parent of the repository"
    if (p / ".git").exists():
        return "a git repository"
    return None


def _kind_of(path: Path) -> str | None:
    marker = path / MARKER
    try:
        return marker.read_text(encoding="utf-8").strip() if marker.is_file() else None
    except OSError:
        return None


def check_out_dir(path: str | os.PathLike, kind: str, what: str = "--out") -> Path:
    """`path` if rc1 may write it whole as an output of `kind`; else Rc1Error, one line naming it (nothing written)."""
    p = Path(path)
    resolved = _resolved(p, what)
    why = _protected(resolved)
    if why:
        raise Rc1Error(f"{what} {p}: is {why}; rc1 writes an output directory of its own only: pass a new directory")
    if not p.exists() and not p.is_symlink():
        return p
    if not p.is_dir():
        raise Rc1Error(f"{what} {p}: exists and is not a directory")
    names = {q.name for q in p.iterdir()} - _IGNORED
    found = _kind_of(p)
    legacy = found is None and not names.isdisjoint(LEGACY.get(kind, ())) and names <= LEGACY_ONLY.get(kind, names)
    if names and found != kind and not legacy:
        entries = f"{len(names)} entr{'y' if len(names) == 1 else 'ies'}"
        held = f"a {found} output" if found else f"{entries} rc1 did not write"
        raise Rc1Error(f"{what} {p}: exists and holds {held} (no {MARKER} of a {kind}); rc1 never deletes what it did "
                       f"not write: pass a new or empty directory")
    if names and (kind in LEGACY_ONLY or (p / FILES).is_file()):
        foreign = _not_written(p, kind)
        if foreign:
            raise Rc1Error(f"{what} {p}: holds {foreign[0]}{f' and {len(foreign) - 1} more' if len(foreign) > 1 else ''}"
                           f", which rc1 did not write there (or that changed since); rc1 never deletes what it did not "
                           f"write: move it away or pass a new directory")
    return p


def _written(p: Path, kind: str) -> dict[str, str | None] | None:
    """{relative path: sha256 or None} of the files rc1 wrote into the output `p`: its FILES, else (a bundle from
    before FILES) its bundle.json's files and the three files a bundle writes beside them; None when neither."""
    try:
        if (p / FILES).is_file():
            return {str(k): str(v) for k, v in json.loads((p / FILES).read_text(encoding="utf-8")).items()}
        if kind == "bundle" and (p / "bundle.json").is_file():
            listed = json.loads((p / "bundle.json").read_text(encoding="utf-8")).get("files") or {}
            return {**{str(k): str(v) for k, v in listed.items()},
                    **{n: None for n in ("bundle.json", "requirements.txt", "REPRODUCE.md")}}
    except (OSError, ValueError, AttributeError):
        return None
    return None


def _not_written(p: Path, kind: str) -> list[str]:
    """The entries of `p` that rc1 did not write there as it holds them (every one, when it knows of none): a file
    not listed or changed since, any symlink (to a file or a directory), a directory holding no file rc1 wrote (a
    user's own, empty or not)."""
    from rc1.core.io import sha256_file

    wrote = _written(p, kind) or {}
    dirs = {str(d) for rel in wrote for d in Path(rel).parents if str(d) != "."}
    out = []
    for f in sorted(p.rglob("*")):
        rel = str(f.relative_to(p))
        if rel in _IGNORED:
            continue
        if f.is_symlink() or (f.is_dir() and rel not in dirs) or (not f.is_dir() and (
                rel not in wrote or (wrote[rel] is not None and sha256_file(f) != wrote[rel]))):
            out.append(rel)
    return out


def claim_out_dir(path: str | os.PathLike, kind: str, what: str = "--out") -> Path:
    """check_out_dir, then create the directory and mark it as an output of `kind`."""
    p = check_out_dir(path, kind, what)
    p.mkdir(parents=True, exist_ok=True)
    if _kind_of(p) != kind:
        (p / MARKER).write_text(kind + "\n", encoding="utf-8")
    return p


def replace_out_dir(src: str | os.PathLike, dest: str | os.PathLike, kind: str, what: str = "--out") -> Path:
    """A copy of the finished directory `src` at `dest` (checked as check_out_dir does), marked as `kind`."""
    dest = check_out_dir(dest, kind, what)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.parent / f".{dest.name}.{os.getpid()}.new"
    old = dest.parent / f".{dest.name}.{os.getpid()}.old"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        shutil.copytree(src, tmp)
        from rc1.core.io import sha256_file

        written = {str(f.relative_to(tmp)): sha256_file(f) for f in sorted(tmp.rglob("*")) if f.is_file()}
        (tmp / FILES).write_text(json.dumps(written, indent=1, sort_keys=True), encoding="utf-8")
        (tmp / MARKER).write_text(kind + "\n", encoding="utf-8")
        if dest.exists():
            os.replace(dest, old)
        os.replace(tmp, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)
    return dest
