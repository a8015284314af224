"""The judge cache: sqlite (WAL, thread-safe, safe across processes), one row per judge sample.

Location: $RC1_CACHE_DIR/judge_cache.sqlite; without RC1_CACHE_DIR, $XDG_CACHE_HOME/rc1 or
~/.cache/rc1 (outside the repository and the MLflow store, shared by every checkout and run).

Key: (judge spec version, provider, model, prompt digest, sample index). The prompt digest
(`prompt_digest`) is the sha256 of exactly what the judge was sent: the rendered messages, the
sampling settings (temperature, max_tokens, response_format, ...), the endpoint (provider, base URL
without credentials) and the spec version. Another server, temperature, rubric or context length
is another key. Entries older than the TTL (14 days by default) are misses; a row that does not
hold seven scores in [0, 1] is a miss and is deleted. `invalidate(spec)` drops one spec version.
Failed and unstable requests are kept in a second table with the full request, so `replay-bad`
can score them again. Hit/miss counters are kept per process (stats()) and summed in the file (totals()).

Locks: reads wait for a lock (sqlite busy timeout plus retries, up to `lock_wait_s`, then a miss).
Writes are queued and retried: a judge reply that was paid for is never dropped because another
process holds the write lock. What is still queued when the cache is closed (or the process exits)
after `lock_wait_s` goes to `<file>.pending.jsonl`, which the next open imports.
A file that is not a readable sqlite database is a CacheCorrupt error (exit 2) naming it;
`repair()` (`rc1 scorecache repair`) moves it aside and keeps the rows that can still be read.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import sqlite3
import threading
import time
import weakref
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Iterator

from rc1.core.errors import Rc1Error
from rc1.core.redaction import scrub
from rc1.scoring.base import JudgeRequest
from rc1.scoring.spec import MalformedReply, parse_reply

CACHE_FILE = "judge_cache.sqlite"
DAY_S = 86400.0
SCHEMA_VERSION = 3   # 2: the digest is the prompt digest (rows keyed by request fields are dropped); 3: scoring_log
SCORING_LOG_KEEP = 10_000   # scoring records kept (the newest); assert-not-simulated reads the latest 100

_SCHEMA = """
CREATE TABLE IF NOT EXISTS samples (
  spec TEXT NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL, digest TEXT NOT NULL, sample INTEGER NOT NULL,
  scores TEXT NOT NULL, created REAL NOT NULL,
  PRIMARY KEY (spec, provider, model, digest, sample));
CREATE TABLE IF NOT EXISTS bad (
  spec TEXT NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL, digest TEXT NOT NULL,
  kind TEXT NOT NULL, request TEXT NOT NULL, detail TEXT, created REAL NOT NULL,
  PRIMARY KEY (spec, provider, model, digest));
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS scoring_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT, created REAL NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL,
  base_url TEXT NOT NULL, live INTEGER NOT NULL, cached INTEGER NOT NULL, billable INTEGER NOT NULL,
  latency_ms REAL NOT NULL);
"""
_PUT_LOG = ("INSERT INTO scoring_log (created, provider, model, base_url, live, cached, billable, latency_ms) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
_PRUNE_LOG = "DELETE FROM scoring_log WHERE id <= (SELECT MAX(id) FROM scoring_log) - ?"
_PUT_SAMPLE = "INSERT OR REPLACE INTO samples VALUES (?, ?, ?, ?, ?, ?, ?)"
_PUT_BAD = "INSERT OR REPLACE INTO bad VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
_DEL_SAMPLE = "DELETE FROM samples WHERE spec=? AND provider=? AND model=? AND digest=? AND sample=?"
_ADD_COUNTER = "INSERT INTO counters(name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = value + ?"


class CacheCorrupt(Rc1Error):
    """The cache file is not a readable sqlite database."""


def default_cache_dir() -> Path:
    env = os.environ.get("RC1_CACHE_DIR", "").strip()
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "rc1"


def prompt_digest(spec: str, endpoint: dict[str, Any], body: dict[str, Any]) -> str:
    """sha256 of what the judge saw: spec version, endpoint (provider, base URL, model) and the exact
    request body (rendered messages + sampling settings), canonical JSON."""
    blob = json.dumps({"spec": spec, "endpoint": endpoint, "body": body}, sort_keys=True, ensure_ascii=False,
                      separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def valid_scores(text: str) -> dict[str, float] | None:
    """A stored row's scores when they are what the strict reply parser accepts, else None."""
    try:
        obj = json.loads(text)
        if not isinstance(obj, dict):
            return None
        return parse_reply(json.dumps(obj))
    except (MalformedReply, ValueError, TypeError):
        return None


def request_to_json(req: JudgeRequest) -> str:
    return json.dumps(asdict(req), ensure_ascii=False, default=list)


def request_from_json(text: str) -> JudgeRequest:
    d = json.loads(text)
    d["dialogue"] = tuple(d.get("dialogue") or ())
    d["context"] = tuple(d.get("context") or ())
    return JudgeRequest(**d)


def _locked(e: sqlite3.DatabaseError) -> bool:
    """Refused by another connection's lock (retry later), rather than a damaged file."""
    msg = str(e).lower()
    return isinstance(e, sqlite3.OperationalError) and ("locked" in msg or "busy" in msg)


_OPEN: "weakref.WeakSet[JudgeCache]" = weakref.WeakSet()


@atexit.register
def _flush_all() -> None:  # queued writes of caches nobody closed
    for cache in list(_OPEN):
        cache.close()


class JudgeCache:
    def __init__(self, path: str | Path | None = None, ttl_days: float = 14.0, lock_wait_s: float = 600.0):
        self.path = Path(path) if path else default_cache_dir() / CACHE_FILE
        if self.path.is_dir():
            raise Rc1Error(f"judge cache {self.path}: is a directory, not a sqlite file")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.ttl_s = ttl_days * DAY_S
        self.lock_wait_s = lock_wait_s
        self.pending_path = self.path.with_name(self.path.name + ".pending.jsonl")
        self._rlock = threading.Lock()      # the read connection
        self._wlock = threading.Lock()      # the write connection
        self._qlock = threading.Lock()      # the queue of writes
        self._queue: list[tuple[str, tuple]] = []
        self._queued_scores: dict[tuple, str] = {}   # read-your-writes for queued samples
        self._counts = {"hits": 0, "misses": 0}      # not yet added to the file's counters
        self.hits = 0
        self.misses = 0
        self._closed = False
        self._read = self._connect()
        self._write = self._connect()
        self._write.execute("PRAGMA busy_timeout = 100")   # queued writes: short waits, retried later
        self._retry(self._init_schema, self.lock_wait_s)
        self._import_pending()
        _OPEN.add(self)

    # ------------------------------------------------------------ plumbing
    def _connect(self) -> sqlite3.Connection:
        try:
            return sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=5.0)
        except sqlite3.Error as e:
            raise CacheCorrupt(f"judge cache {self.path}: cannot open ({e})") from None

    def _corrupt(self, e: Exception) -> CacheCorrupt:
        return CacheCorrupt(f"judge cache {self.path}: corrupt or not a sqlite database ({e}); "
                            f"run `rc1 scorecache repair` to move it aside and keep what can be read")

    def _retry(self, fn: Callable[[], Any], wait_s: float) -> Any:
        """fn() until it is not refused by a lock, for up to wait_s; corruption is a CacheCorrupt."""
        deadline = time.monotonic() + wait_s
        pause = 0.02
        while True:
            try:
                return fn()
            except sqlite3.DatabaseError as e:
                if not _locked(e):
                    raise self._corrupt(e) from None
                if time.monotonic() >= deadline:
                    raise
            time.sleep(pause)
            pause = min(0.5, pause * 2)

    def _init_schema(self) -> None:
        with self._wlock:
            db = self._write
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version < SCHEMA_VERSION:
                db.execute("BEGIN IMMEDIATE")
                try:
                    old = db.execute("SELECT 1 FROM sqlite_master WHERE name='samples'").fetchall()
                    for stmt in filter(None, (s.strip() for s in _SCHEMA.split(";"))):
                        db.execute(stmt)
                    if old and version < 2:   # rows keyed by request fields, not by what the judge saw: dropped
                        db.execute("DELETE FROM samples")
                    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                    db.execute("COMMIT")
                except BaseException:
                    db.execute("ROLLBACK")
                    raise

    def _reads(self, sql: str, args: tuple = ()) -> list[tuple]:
        def run():
            with self._rlock:
                return self._read.execute(sql, args).fetchall()
        try:
            return self._retry(run, self.lock_wait_s)
        except sqlite3.OperationalError:
            return []   # still locked after lock_wait_s: nothing read (a miss, never a crash)

    def _now_write(self, sql: str, args: tuple = ()) -> int:
        """A maintenance write that waits for the lock (up to lock_wait_s); returns the row count."""
        def run():
            with self._wlock:
                self._write.execute("PRAGMA busy_timeout = 5000")
                try:
                    return self._write.execute(sql, args).rowcount
                finally:
                    self._write.execute("PRAGMA busy_timeout = 100")
        self.flush()
        return self._retry(run, self.lock_wait_s)

    def _enqueue(self, sql: str, args: tuple) -> None:
        """Queue a write and try it once; never raises (a damaged file surfaces on reads and at close,
        where what is queued goes to the pending file)."""
        with self._qlock:
            self._queue.append((sql, args))
        try:
            self.flush(wait_s=0.0)
        except CacheCorrupt:
            pass

    def flush(self, wait_s: float = 0.0) -> bool:
        """Write the queued rows (one transaction); True when the queue is empty. wait_s: how long to keep
        retrying while another process holds the write lock (0: one try, the rest stays queued)."""
        deadline = time.monotonic() + wait_s
        pause = 0.05
        while True:
            if not self._wlock.acquire(blocking=wait_s > 0):
                return False   # another thread is writing; it takes our rows along or leaves them queued
            try:
                with self._qlock:
                    batch, counts = list(self._queue), dict(self._counts)
                if not batch and not any(counts.values()):
                    return True
                try:
                    self._write.execute("BEGIN IMMEDIATE")
                    try:
                        for sql, args in batch:
                            self._write.execute(sql, args)
                        for name, n in counts.items():
                            if n:
                                self._write.execute(_ADD_COUNTER, (name, n, n))
                        self._write.execute("COMMIT")
                    except BaseException:
                        self._write.execute("ROLLBACK")
                        raise
                except sqlite3.DatabaseError as e:
                    if not _locked(e):
                        raise self._corrupt(e) from None
                else:
                    with self._qlock:
                        del self._queue[:len(batch)]
                        for name, n in counts.items():
                            self._counts[name] -= n
                        for sql, args in batch:
                            if sql == _PUT_SAMPLE:
                                self._queued_scores.pop(args[:5], None)
                    continue   # rows queued meanwhile: go again
            finally:
                self._wlock.release()
            if time.monotonic() >= deadline:
                return False
            time.sleep(pause)
            pause = min(0.5, pause * 2)

    def close(self) -> None:
        """Write what is queued (waiting up to lock_wait_s for another process's lock), keep the rest in
        the pending file, close. Idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            if not self.flush(wait_s=self.lock_wait_s):
                self._spill()
        except CacheCorrupt:
            self._spill()
        with self._rlock, self._wlock:
            self._read.close()
            self._write.close()
        _OPEN.discard(self)

    def _spill(self) -> None:
        with self._qlock:
            batch, self._queue = self._queue, []
        rows = [{"sql": sql, "args": list(args)} for sql, args in batch if sql in (_PUT_SAMPLE, _PUT_BAD, _PUT_LOG)]
        if rows:
            with self.pending_path.open("a", encoding="utf-8") as f:
                for row in rows:
                    f.write(json.dumps(row) + "\n")

    def _import_pending(self) -> None:
        if not self.pending_path.is_file():
            return
        taking = self.pending_path.with_name(self.pending_path.name + f".{os.getpid()}")
        try:
            os.replace(self.pending_path, taking)   # one process takes the file
        except OSError:
            return
        for line in taking.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                row = json.loads(line)
                if row["sql"] in (_PUT_SAMPLE, _PUT_BAD, _PUT_LOG):
                    with self._qlock:
                        self._queue.append((row["sql"], tuple(row["args"])))
            except (ValueError, KeyError, TypeError):
                continue
        self.flush(wait_s=0.0)
        taking.unlink()   # what did not flush is queued in memory: written later or spilled again at close

    # ------------------------------------------------------------ samples
    def get(self, spec: str, provider: str, model: str, digest: str, sample: int,
            now: float | None = None) -> dict[str, float] | None:
        now = time.time() if now is None else now
        key = (spec, provider, model, digest, sample)
        with self._qlock:
            queued = self._queued_scores.get(key)
        if queued is not None:
            rows = [(queued, now)]
        else:
            rows = self._reads("SELECT scores, created FROM samples WHERE spec=? AND provider=? AND model=? "
                               "AND digest=? AND sample=?", key)
        scores = None
        if rows and now - rows[0][1] <= self.ttl_s:
            scores = valid_scores(rows[0][0])
            if scores is None:   # a bad row: a miss, and gone
                self._enqueue(_DEL_SAMPLE, key)
        with self._qlock:
            name = "hits" if scores is not None else "misses"
            setattr(self, name, getattr(self, name) + 1)
            self._counts[name] += 1
        return scores

    def put(self, spec: str, provider: str, model: str, digest: str, sample: int, scores: dict[str, float],
            now: float | None = None) -> None:
        """Store one sample. Never raises for a lock: the row is queued and written as soon as it can be."""
        text = json.dumps(scores)
        args = (spec, provider, model, digest, sample, text, time.time() if now is None else now)
        with self._qlock:
            self._queued_scores[args[:5]] = text
        self._enqueue(_PUT_SAMPLE, args)

    # ------------------------------------------------------------ scoring records
    def log_scoring(self, endpoint: dict[str, str], live: bool, records: list[tuple[bool, bool, float]],
                    now: float | None = None) -> None:
        """One record per judge sample looked up: (served from the cache, billable provider reply, latency ms);
        written in one transaction with the pruning to the newest SCORING_LOG_KEEP."""
        now = time.time() if now is None else now
        rows = [(_PUT_LOG, (now, endpoint["provider"], endpoint["model"], endpoint["base_url"], int(live), int(cached),
                            int(billable), float(ms))) for cached, billable, ms in records]
        with self._qlock:
            self._queue.extend(rows)
        self._enqueue(_PRUNE_LOG, (SCORING_LOG_KEEP,))

    def recent_scoring(self, n: int) -> list[dict[str, Any]]:
        """The latest n scoring records, newest first."""
        self.flush(wait_s=self.lock_wait_s)
        rows = self._reads("SELECT created, provider, model, base_url, live, cached, billable, latency_ms "
                           "FROM scoring_log ORDER BY id DESC LIMIT ?", (int(n),))
        keys = ("created", "provider", "model", "base_url", "live", "cached", "billable", "latency_ms")
        return [dict(zip(keys, r)) for r in rows]

    # ------------------------------------------------------------ failed / unstable
    def record_bad(self, spec: str, provider: str, model: str, req: JudgeRequest, kind: str, detail: str = "") -> None:
        """detail may quote a reply: it is scrubbed (rc1.core.redaction) before it is stored."""
        self._enqueue(_PUT_BAD, (spec, provider, model, req.digest(), kind, request_to_json(req), scrub(detail or ""),
                                 time.time()))

    def clear_bad(self, spec: str, digest: str) -> None:
        """Forget a failed/unstable record once the request scored cleanly (queued like every scoring write)."""
        self._enqueue("DELETE FROM bad WHERE spec=? AND digest=?", (spec, digest))

    def delete_bad(self, spec: str, provider: str, model: str, digest: str) -> int:
        return self._now_write("DELETE FROM bad WHERE spec=? AND provider=? AND model=? AND digest=?",
                               (spec, provider, model, digest))

    def bad_items(self, spec: str | None = None) -> Iterator[dict[str, Any]]:
        self.flush(wait_s=self.lock_wait_s)
        sql = "SELECT spec, provider, model, digest, kind, request, detail, created FROM bad"
        rows = self._reads(sql + (" WHERE spec=? ORDER BY created" if spec else " ORDER BY created"),
                           (spec,) if spec else ())
        for spec_, prov, model, digest, kind, req, detail, created in rows:
            yield {"spec": spec_, "provider": prov, "model": model, "digest": digest, "kind": kind,
                   "request": request_from_json(req), "detail": detail, "created": created}

    # ------------------------------------------------------------ maintenance
    def invalidate(self, spec: str) -> dict[str, int]:
        s = self._now_write("DELETE FROM samples WHERE spec=?", (spec,))
        b = self._now_write("DELETE FROM bad WHERE spec=?", (spec,))
        return {"samples": s, "bad": b}

    def purge_expired(self, now: float | None = None) -> int:
        cutoff = (time.time() if now is None else now) - self.ttl_s
        return self._now_write("DELETE FROM samples WHERE created < ?", (cutoff,))

    def stats(self) -> dict[str, Any]:
        n = self.hits + self.misses
        return {"cache_hits": self.hits, "cache_misses": self.misses, "cache_hit_rate": self.hits / n if n else 0.0}

    def check(self) -> None:
        """PRAGMA quick_check: a CacheCorrupt when the file is damaged."""
        rows = self._retry(lambda: self._read.execute("PRAGMA quick_check").fetchall(), self.lock_wait_s)
        if [r[0] for r in rows] != ["ok"]:
            raise self._corrupt(sqlite3.DatabaseError("; ".join(str(r[0]) for r in rows[:3])))

    def totals(self, now: float | None = None) -> dict[str, Any]:
        """What `rc1 scorecache stat` prints: entries by spec/provider/model, expired, bad, lifetime counters."""
        self.check()
        self.flush(wait_s=self.lock_wait_s)
        cutoff = (time.time() if now is None else now) - self.ttl_s
        groups = self._reads("SELECT spec, provider, model, COUNT(*), SUM(created < ?) FROM samples "
                             "GROUP BY spec, provider, model ORDER BY spec, provider, model", (cutoff,))
        bad = self._reads("SELECT kind, COUNT(*) FROM bad GROUP BY kind")
        counters = dict(self._reads("SELECT name, value FROM counters"))
        hits, misses = counters.get("hits", 0), counters.get("misses", 0)
        return {
            "path": str(self.path),
            "ttl_days": self.ttl_s / DAY_S,
            "entries": sum(g[3] for g in groups),
            "expired": sum(int(g[4] or 0) for g in groups),
            "by_key": [{"spec": g[0], "provider": g[1], "model": g[2], "entries": g[3]} for g in groups],
            "bad": dict(bad),
            "lifetime_hits": hits,
            "lifetime_misses": misses,
            "lifetime_hit_rate": hits / (hits + misses) if hits + misses else 0.0,
        }


def repair(path: str | Path) -> dict[str, Any]:
    """Move a damaged cache file aside (<file>.corrupt-<unix time>, with its -wal/-shm) and start a fresh
    one holding every row of the old file that can still be read and is valid. Returns what was kept."""
    path = Path(path)
    if not path.exists():
        raise Rc1Error(f"judge cache {path}: no such file")
    aside = path.with_name(f"{path.name}.corrupt-{int(time.time())}")
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(path) + suffix)
        if src.exists():
            os.replace(src, Path(str(aside) + suffix))
    kept = {"samples": 0, "bad": 0}
    seen = {"samples": 0, "bad": 0}
    old_rows: dict[str, list[tuple]] = {"samples": [], "bad": []}
    try:
        old = sqlite3.connect(f"file:{aside}?mode=ro", uri=True)
        for table in old_rows:
            try:
                old_rows[table] = old.execute(f"SELECT * FROM {table}").fetchall()
            except sqlite3.DatabaseError:
                continue
        old.close()
    except sqlite3.DatabaseError:
        pass
    fresh = JudgeCache(path)
    for row in old_rows["samples"]:
        seen["samples"] += 1
        if len(row) == 7 and isinstance(row[5], str) and valid_scores(row[5]) is not None:
            fresh._queue.append((_PUT_SAMPLE, tuple(row)))
            kept["samples"] += 1
    for row in old_rows["bad"]:
        seen["bad"] += 1
        if len(row) == 8:
            fresh._queue.append((_PUT_BAD, tuple(row)))
            kept["bad"] += 1
    fresh.close()
    return {"path": str(path), "moved_to": str(aside), "read": seen, "kept": kept}
