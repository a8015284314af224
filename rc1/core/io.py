"""File IO that never leaves half-written output: every writer goes to a temp file and renames."""

from __future__ import annotations

import contextlib
import hashlib
import errno
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import IO, Any, Iterable, Iterator

from rc1.core.errors import Rc1Error


# what parsing untrusted JSON can raise besides JSONDecodeError: nesting past the interpreter's recursion limit, an
# integer literal past int's digit limit (ValueError: "Exceeds the limit (4300 digits)")
PARSE_ERRORS = (RecursionError, ValueError)


def parse_problem(e: BaseException) -> str:
    """What was wrong with a text that did not parse, in a few words."""
    if isinstance(e, RecursionError):
        return "nested too deeply"
    if isinstance(e, json.JSONDecodeError):
        return _json_words(e)
    return f"invalid ({str(e).split(';')[0]})"


def yaml_problem(e: BaseException) -> str:
    """'line L: not valid YAML (what the parser found)' for a yaml.YAMLError (its line where it marks one)."""
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    what = " ".join(str(x) for x in (getattr(e, "context", None), getattr(e, "problem", None)) if x)
    return f"{f'line {mark.line + 1}: ' if mark is not None else ''}not valid YAML{f' ({what})' if what else ''}"


def json_problem(e: json.JSONDecodeError, lineno: int | None = None) -> str:
    """'line L: invalid JSON at column C (what)' (see _json_words)."""
    return f"line {e.lineno if lineno is None else lineno}: {_json_words(e)}"


def _json_words(e: json.JSONDecodeError) -> str:
    """'invalid JSON at column C (what)': the decoder's own words end in "at" where its message goes on with the
    position ("Invalid control character at"), so the position is said first and the words without it."""
    what = e.msg[:-3] if e.msg.endswith(" at") else e.msg
    what = {"Unterminated string starting": "unterminated string"}.get(what, what)
    return f"invalid JSON at column {e.colno} ({what})"


def why_not_a_file(path: str | os.PathLike, what: str = "file") -> str | None:
    """Why `path` is not a regular file this process can open, in a few words; None when it is one."""
    path = Path(path)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return f"a broken symlink (to {os.readlink(path)}), not a {what}" if path.is_symlink() else f"{what} not found"
    except OSError as e:
        if e.errno == errno.ELOOP:
            return f"a symlink loop (its links lead back to themselves), not a {what}"
        return f"cannot read ({e.strerror or type(e).__name__})"
    if stat.S_ISDIR(mode):
        return f"is a directory, expected a {what}"
    if not stat.S_ISREG(mode):
        return f"not a regular file (a FIFO, socket or device), expected a {what}"
    return None


def readable_file(path: str | os.PathLike, what: str = "file") -> Path:
    """`path` as a regular file this process can read, else an Rc1Error naming it (a directory, a FIFO or a device
    is refused before it is opened: opening a FIFO would wait for a writer)."""
    why = why_not_a_file(path, what)
    if why:
        raise Rc1Error(f"{path}: {why}")
    return Path(path)


def writable_outputs(*paths: str | os.PathLike) -> None:
    """Refuse, before anything is computed or written, output paths that are directories (or whose parent is a
    file): a stage never leaves some of its outputs behind because a later one could not be written."""
    for p in map(Path, paths):
        if p.is_dir():
            raise Rc1Error(f"{p}: is a directory, not a file to write")
        parent = next((q for q in p.parents if q.exists()), None)
        if parent is not None and not parent.is_dir():
            raise Rc1Error(f"{p}: cannot be written ({parent} is a file, not a directory)")


LOCK_NAME = ".rc1.lock"


@contextlib.contextmanager
def exclusive_dir(path: str | os.PathLike, what: str, instead: str = "") -> Iterator[Path]:
    """Hold `path` (created if needed) for this process alone while the block runs: a second process that asks
    for it is refused at once with one line naming the holder (flock: released by the kernel when the holder dies,
    so a killed run leaves no stale lock). `instead`: what else the user can do ("pass another --out-dir")."""
    import fcntl

    path = Path(path)
    if path.exists() and not path.is_dir():
        raise Rc1Error(f"{path}: {what} is a file, not a directory")
    path.mkdir(parents=True, exist_ok=True)
    fh = open(path / LOCK_NAME, "a+")
    try:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "another process"
            raise Rc1Error(f"{path}: {what} is in use by {holder}; wait for it to finish"
                           + (f" or {instead}" if instead else "")) from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"rc1 pid {os.getpid()}\n")
        fh.flush()
        yield path
    finally:
        fh.close()


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temp file beside `path`; rename it onto `path` only if the block finishes."""
    path = Path(path)
    writable_outputs(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_json(path: str | os.PathLike, obj: Any) -> Path:
    with atomic_open(path) as fh:
        json.dump(obj, fh, indent=2, sort_keys=False, default=_json_default)
        fh.write("\n")
    return Path(path)


def write_jsonl(path: str | os.PathLike, rows: Iterable[dict]) -> int:
    """Stream rows to `path` atomically; returns the number of rows written."""
    n = 0
    with atomic_open(path) as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, default=_json_default))
            fh.write("\n")
            n += 1
    return n


def read_json(path: str | os.PathLike) -> Any:
    path = readable_file(path, "JSON file")
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except json.JSONDecodeError as e:
        raise Rc1Error(f"{path}: {json_problem(e)}") from None
    except UnicodeDecodeError:
        raise Rc1Error(f"{path}: not UTF-8 text") from None
    except OSError as e:
        raise Rc1Error(f"{path}: cannot read ({e.strerror or type(e).__name__})") from None
    except PARSE_ERRORS as e:
        raise Rc1Error(f"{path}: {parse_problem(e)}") from None


def line_ranges(path: str | os.PathLike, parts: int) -> list[tuple[int, int, int]]:
    """Up to `parts` consecutive (start byte, end byte, line number before start) pieces of a file, cut at line
    starts: iter_jsonl_lines over each piece, in order, yields exactly the lines of the whole file."""
    size = os.path.getsize(path)
    cuts = [(0, 0)]
    with open(path, "rb") as fh:
        for k in range(1, parts):
            start, lines = cuts[-1]
            fh.seek(start)
            target = max(start, size * k // parts)
            while fh.tell() < target:  # count the lines on the way: error messages name file lines
                block = fh.read(min(1 << 20, target - fh.tell()))
                lines += block.count(b"\n")
            if fh.tell() > 0:
                fh.seek(fh.tell() - 1)
                if fh.read(1) != b"\n":
                    fh.readline()  # to the start of the next line
                    lines += 1
            if start < fh.tell() < size:
                cuts.append((fh.tell(), lines))
    ends = [c[0] for c in cuts[1:]] + [size]
    return [(start, end, lines) for (start, lines), end in zip(cuts, ends)]


def iter_jsonl_lines(path: str | os.PathLike, piece: tuple[int, int, int] | None = None,
                     max_line_bytes: int | None = None) -> Iterator[tuple[int, str, dict]]:
    """(line number, raw line without its newline, parsed object) per non-empty line; a bad line is an
    Rc1Error naming file and line. The raw line lets a writer copy a row without encoding it again.
    `piece`: only that piece of the file (see line_ranges); line numbers stay the file's. `max_line_bytes`: a longer
    line is refused as soon as that much of it was read (it is never held whole)."""
    path = readable_file(path, "JSONL file")
    try:
        fh = open(path, "rb")
    except OSError as e:
        raise Rc1Error(f"{path}: cannot read ({e.strerror or type(e).__name__})") from None
    lines = _piece_lines(path, fh, *(piece or (0, os.path.getsize(path), 0)), max_line_bytes=max_line_bytes)
    with fh:
        for lineno, line in lines:
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise Rc1Error(f"{path}: {json_problem(e, lineno)}") from None
            except PARSE_ERRORS as e:
                raise Rc1Error(f"{path}: line {lineno}: {parse_problem(e)}") from None
            if not isinstance(row, dict):
                raise Rc1Error(f"{path}: line {lineno}: expected a JSON object, got {type(row).__name__}")
            yield lineno, line.rstrip("\r\n"), row


def _piece_lines(path: Path, fh, start: int, end: int, before: int, max_line_bytes: int | None = None
                 ) -> Iterator[tuple[int, str]]:
    """(line number, text) of the lines of binary `fh` from byte `start` to `end`; `before` lines precede it."""
    fh.seek(start)
    lineno = before
    limit = -1 if max_line_bytes is None else max_line_bytes + 1
    while fh.tell() < end:
        raw = fh.readline(limit)
        if not raw:
            break
        lineno += 1
        if max_line_bytes is not None and len(raw.rstrip(b"\r\n")) > max_line_bytes:
            raise Rc1Error(f"{path}: line {lineno}: longer than {max_line_bytes} bytes, more than a record within "
                           f"the length gate can take (refused unread)")
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise Rc1Error(f"{path}: line {lineno}: not UTF-8 text (is it a JSONL file?)") from None
        yield lineno, line


def iter_jsonl(path: str | os.PathLike) -> Iterator[dict]:
    """Yield one dict per non-empty line; a bad line is an Rc1Error naming file and line."""
    for _, _, row in iter_jsonl_lines(path):
        yield row


def read_jsonl(path: str | os.PathLike) -> list[dict]:
    return list(iter_jsonl(path))


def sha256_file(path: str | os.PathLike) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def sha256_dir(path: str | os.PathLike, pattern: str = "**/*") -> str:
    """Digest of a directory: relative paths and contents of its files, in sorted order: every file, hidden ones and
    those under __pycache__ too (a digest that skips a directory lets whatever is put there pass)."""
    root = Path(path)
    h = hashlib.sha256()
    for p in sorted(q for q in root.glob(pattern) if q.is_file()):
        h.update(str(p.relative_to(root)).encode())
        h.update(b"\0")
        h.update(sha256_file(p).encode())
    return h.hexdigest()


def stat_fingerprint(path: str | os.PathLike) -> str:
    """A cheap digest of a file or directory: relative names, sizes and modification times (a reuse key part where
    hashing the contents would take minutes, e.g. a model's weights; rewriting a file changes its size or mtime)."""
    root = Path(path)
    if root.is_file():
        st = root.stat()
        rows = [(root.name, st.st_size, st.st_mtime_ns)]
    elif root.is_dir():
        rows = sorted((str(p.relative_to(root)), st.st_size, st.st_mtime_ns)
                      for p in root.rglob("*") if p.is_file() for st in [p.stat()])
    else:
        return "missing"
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _json_default(o: Any) -> Any:
    # numpy scalars and arrays, Paths, sets: the types stage outputs actually carry
    if hasattr(o, "tolist"):
        return o.tolist()
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")
