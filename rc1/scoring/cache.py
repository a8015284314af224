"""The judge cache: sqlite (WAL, thread-safe), one row per judge sample.

Location: $RC1_CACHE_DIR/judge_cache.sqlite; without RC1_CACHE_DIR, $XDG_CACHE_HOME/rc1 or
~/.cache/rc1 (outside the repository and the MLflow store, shared by every checkout and run).

Key: (judge spec version, provider, model, prompt digest, sample index). Entries older than the TTL
(14 days by default) are misses. `invalidate(spec)` drops one spec version. Failed and unstable
requests are kept in a second table with the full request, so `replay-bad` can score them again.
Hit/miss counters are kept per process (stats()) and summed in the file (totals()).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Iterator

from rc1.scoring.base import JudgeRequest

CACHE_FILE = "judge_cache.sqlite"
DAY_S = 86400.0

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
"""


def default_cache_dir() -> Path:
    env = os.environ.get("RC1_CACHE_DIR", "").strip()
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "rc1"


def request_to_json(req: JudgeRequest) -> str:
    return json.dumps(asdict(req), ensure_ascii=False, default=list)


def request_from_json(text: str) -> JudgeRequest:
    d = json.loads(text)
    d["dialogue"] = tuple(d.get("dialogue") or ())
    d["context"] = tuple(d.get("context") or ())
    return JudgeRequest(**d)


class JudgeCache:
    def __init__(self, path: str | Path | None = None, ttl_days: float = 14.0):
        self.path = Path(path) if path else default_cache_dir() / CACHE_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.ttl_s = ttl_days * DAY_S
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30.0)
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        self.hits = 0
        self.misses = 0

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _exec(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    # ------------------------------------------------------------ samples
    def get(self, spec: str, provider: str, model: str, digest: str, sample: int,
            now: float | None = None) -> dict[str, float] | None:
        now = time.time() if now is None else now
        rows = self._exec("SELECT scores, created FROM samples WHERE spec=? AND provider=? AND model=? AND digest=? "
                          "AND sample=?", (spec, provider, model, digest, sample))
        hit = bool(rows) and now - rows[0][1] <= self.ttl_s
        with self._lock:
            if hit:
                self.hits += 1
            else:
                self.misses += 1
            self._db.execute("INSERT INTO counters(name, value) VALUES (?, 1) "
                             "ON CONFLICT(name) DO UPDATE SET value = value + 1", ("hits" if hit else "misses",))
        return json.loads(rows[0][0]) if hit else None

    def put(self, spec: str, provider: str, model: str, digest: str, sample: int, scores: dict[str, float],
            now: float | None = None) -> None:
        self._exec("INSERT OR REPLACE INTO samples VALUES (?, ?, ?, ?, ?, ?, ?)",
                   (spec, provider, model, digest, sample, json.dumps(scores), time.time() if now is None else now))

    # ------------------------------------------------------------ failed / unstable
    def record_bad(self, spec: str, provider: str, model: str, req: JudgeRequest, kind: str, detail: str = "") -> None:
        self._exec("INSERT OR REPLACE INTO bad VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   (spec, provider, model, req.digest(), kind, request_to_json(req), detail, time.time()))

    def clear_bad(self, spec: str, digest: str) -> int:
        with self._lock:
            return self._db.execute("DELETE FROM bad WHERE spec=? AND digest=?", (spec, digest)).rowcount

    def delete_bad(self, spec: str, provider: str, model: str, digest: str) -> int:
        with self._lock:
            return self._db.execute("DELETE FROM bad WHERE spec=? AND provider=? AND model=? AND digest=?",
                                    (spec, provider, model, digest)).rowcount

    def bad_items(self, spec: str | None = None) -> Iterator[dict[str, Any]]:
        sql = "SELECT spec, provider, model, digest, kind, request, detail, created FROM bad"
        rows = self._exec(sql + (" WHERE spec=? ORDER BY created" if spec else " ORDER BY created"),
                          (spec,) if spec else ())
        for spec_, prov, model, digest, kind, req, detail, created in rows:
            yield {"spec": spec_, "provider": prov, "model": model, "digest": digest, "kind": kind,
                   "request": request_from_json(req), "detail": detail, "created": created}

    # ------------------------------------------------------------ maintenance
    def invalidate(self, spec: str) -> dict[str, int]:
        with self._lock:
            s = self._db.execute("DELETE FROM samples WHERE spec=?", (spec,)).rowcount
            b = self._db.execute("DELETE FROM bad WHERE spec=?", (spec,)).rowcount
        return {"samples": s, "bad": b}

    def purge_expired(self, now: float | None = None) -> int:
        cutoff = (time.time() if now is None else now) - self.ttl_s
        with self._lock:
            return self._db.execute("DELETE FROM samples WHERE created < ?", (cutoff,)).rowcount

    def stats(self) -> dict[str, Any]:
        n = self.hits + self.misses
        return {"cache_hits": self.hits, "cache_misses": self.misses, "cache_hit_rate": self.hits / n if n else 0.0}

    def totals(self, now: float | None = None) -> dict[str, Any]:
        """What `rc1 scorecache stat` prints: entries by spec/provider/model, expired, bad, lifetime counters."""
        cutoff = (time.time() if now is None else now) - self.ttl_s
        groups = self._exec("SELECT spec, provider, model, COUNT(*), SUM(created < ?) FROM samples "
                            "GROUP BY spec, provider, model ORDER BY spec, provider, model", (cutoff,))
        bad = self._exec("SELECT kind, COUNT(*) FROM bad GROUP BY kind")
        counters = dict(self._exec("SELECT name, value FROM counters"))
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
