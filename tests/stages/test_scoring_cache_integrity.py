"""The judge cache serves only what the same judge said to the same prompt, survives locks held by other
processes without losing a paid reply, and names a corrupt file (exit 2) with `scorecache repair`."""

import json
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from rc1_cli import run_cli

import rc1.scoring.spec as spec
from rc1.scoring.cache import CACHE_FILE, CacheCorrupt, JudgeCache
from rc1.scoring.judge import make_judge
from rc1.scoring.judge_settings import JudgeSettings

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]
FAST = dict(rate=400, burst=20, timeout_s=30.0, backoff_base_s=0.01, backoff_max_s=0.05, samples=1)
S = {"correctness": 1.0, "reasoning": 0.5, "grounding": 0.5, "clarification": 1.0, "efficiency": 0.7,
     "tool_use": 0.6, "communication": 0.9}
LOW = {d: 0.1 for d in S}
HIGH = {d: 0.9 for d in S}


def reqs(n):
    from rc1.scoring.base import JudgeRequest

    return [JudgeRequest(item_id=f"i{i}", candidate_id="c", task="gsm8k", question=f"What is {i} + 1?",
                         gold_answer=str(i + 1), needs_clarification=False,
                         dialogue=({"role": "user", "content": f"What is {i} + 1?"},
                                   {"role": "assistant", "content": f"Answer: {i + 1}"}))
            for i in range(n)]


def judge(srv, cache_path, **settings):
    return make_judge("openai-compatible", "same-name", base_url=srv.url, api_key="sk-test",
                      settings=JudgeSettings(**{**FAST, **settings}), cache=JudgeCache(cache_path))


def test_another_server_temperature_or_rubric_is_another_key(fake_judge_server, scorer_env, monkeypatch):
    a = fake_judge_server(fixed_scores=LOW)
    b = fake_judge_server(fixed_scores=HIGH)
    path = scorer_env / "c.sqlite"
    first = judge(a, path).score_many(reqs(3), progress=False)
    assert [r.scores["correctness"] for r in first] == [0.1] * 3
    assert [r.scores["correctness"] for r in judge(a, path).score_many(reqs(3), progress=False)] == [0.1] * 3
    assert a.stats()["requests"] == 3                                     # same server: served from the cache
    second = judge(b, path).score_many(reqs(3), progress=False)
    assert b.stats()["requests"] == 3 and [r.scores["correctness"] for r in second] == [0.9] * 3
    judge(b, path, temperature=0.3).score_many(reqs(3), progress=False)   # other sampling settings
    assert b.stats()["requests"] == 6
    judge(b, path, context_chars=100).score_many(reqs(3), progress=False)  # other rendering (no context: same)
    monkeypatch.setattr(spec, "SYSTEM_PROMPT", spec.SYSTEM_PROMPT + "\n- correctness: half credit for close")  # rubric edited
    judge(b, path).score_many(reqs(3), progress=False)
    assert b.stats()["requests"] == 9
    # the digest is of what the server received
    j = judge(b, path)
    sent = [j._p.request_body(r)["messages"] for r in reqs(3)]
    assert all(body["messages"] in sent for body in b.bodies[-3:])   # concurrent calls: any order


def test_bad_rows_are_misses_and_deleted(tmp_path):
    c = JudgeCache(tmp_path / "c.sqlite")
    c.put("v", "p", "m", "ok", 0, S)
    c.put("v", "p", "m", "range", 0, {**S, "correctness": 7.5})
    c.put("v", "p", "m", "missing", 0, {k: v for k, v in S.items() if k != "grounding"})
    c.put("v", "p", "m", "nan", 0, {**S, "reasoning": float("nan")})
    c.close()
    c = JudgeCache(tmp_path / "c.sqlite")
    assert c.get("v", "p", "m", "ok", 0) == S
    for bad in ("range", "missing", "nan"):
        assert c.get("v", "p", "m", bad, 0) is None
    c.close()
    assert JudgeCache(tmp_path / "c.sqlite").totals()["entries"] == 1


def _hold_write_lock(path: Path, seconds: float) -> threading.Thread:
    ready = threading.Event()

    def hold():
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("BEGIN IMMEDIATE")
        ready.set()
        time.sleep(seconds)
        db.execute("ROLLBACK")
        db.close()

    t = threading.Thread(target=hold)
    t.start()
    ready.wait(5)
    return t


def test_locked_writes_are_queued_then_written_or_kept_in_the_pending_file(tmp_path):
    path = tmp_path / "c.sqlite"
    JudgeCache(path).close()
    holder = _hold_write_lock(path, 1.0)
    c = JudgeCache(path, lock_wait_s=5.0)
    c.put("v", "p", "m", "a", 0, S)                  # does not raise, does not block
    assert c.get("v", "p", "m", "a", 0) == S         # read your own queued write; other reads go on (WAL)
    c.close()                                        # waits for the lock, then writes
    holder.join()
    assert JudgeCache(path).get("v", "p", "m", "a", 0) == S

    holder = _hold_write_lock(path, 1.5)
    c = JudgeCache(path, lock_wait_s=0.2)
    c.put("v", "p", "m", "b", 0, S)
    c.close()                                        # gave up waiting: the row goes to the pending file
    assert c.pending_path.is_file()
    holder.join()
    again = JudgeCache(path)                         # the next open imports it
    assert not c.pending_path.exists()
    again.close()
    assert JudgeCache(path).get("v", "p", "m", "b", 0) == S


def test_a_locked_read_waits_instead_of_raising(tmp_path):
    path = tmp_path / "c.sqlite"
    c = JudgeCache(path)
    c.put("v", "p", "m", "a", 0, S)
    c.close()
    ready = threading.Event()

    def hold():   # exclusive locking mode: nobody can even read until it commits
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("PRAGMA locking_mode=EXCLUSIVE")
        db.execute("BEGIN EXCLUSIVE")
        db.execute("INSERT INTO counters VALUES ('held', 1)")
        ready.set()
        time.sleep(1.0)
        db.execute("COMMIT")
        db.close()

    holder = threading.Thread(target=hold)
    holder.start()
    ready.wait(5)
    t0 = time.monotonic()
    assert JudgeCache(path).get("v", "p", "m", "a", 0) == S
    assert time.monotonic() - t0 >= 0.5
    holder.join()


HAMMER = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, {tests!r})
    from rc1.scoring.base import JudgeRequest
    from rc1.scoring.cache import JudgeCache
    from rc1.scoring.judge import make_judge
    from rc1.scoring.judge_settings import JudgeSettings
    url, path, tag = sys.argv[1:4]
    s = JudgeSettings(rate=400, burst=20, timeout_s=60, samples=1, max_concurrency=4, initial_concurrency=4)
    j = make_judge("openai-compatible", "m", base_url=url, api_key="k", settings=s, cache=JudgeCache(path))
    rs = [JudgeRequest(item_id=f"{{tag}}{{i}}", candidate_id="c", task="gsm8k", question=f"{{tag}} q{{i}}",
                       gold_answer="1", needs_clarification=False,
                       dialogue=({{"role": "assistant", "content": f"{{tag}} {{i}}"}},)) for i in range(40)]
    out = j.score_many(rs, progress=False)
    j.cache.close()
    print(json.dumps({{"failed": sum(r.failed for r in out), "scored": sum(r.scores is not None for r in out),
                      "billed": j.stats()["billable_count"]}}))
""")


def test_two_processes_hammer_the_cache_while_a_third_holds_the_write_lock(fake_judge_server, tmp_path):
    srv = fake_judge_server(delay_s=0.1)  # replies keep arriving during the whole lock
    path = tmp_path / "c.sqlite"
    JudgeCache(path).close()
    code = HAMMER.format(tests=str(ROOT / "tests"))
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sqlite3, sys, time
        db = sqlite3.connect({str(path)!r}, isolation_level=None)
        db.execute("BEGIN IMMEDIATE"); print("locked", flush=True); time.sleep(10); db.execute("ROLLBACK")
    """)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    t0 = time.monotonic()
    procs = [subprocess.Popen([sys.executable, "-c", code, srv.url, str(path), tag], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=ROOT) for tag in ("a", "b")]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=90)
        assert p.returncode == 0, err[-2000:]
        results.append(json.loads(out.strip().splitlines()[-1]))
    assert holder.wait(timeout=30) == 0
    assert time.monotonic() - t0 >= 5   # the writers really ran into the lock
    assert all(r["failed"] == 0 and r["scored"] == 40 for r in results)
    billed = sum(r["billed"] for r in results)
    assert billed == srv.stats()["requests"] == 80
    c = JudgeCache(path)
    assert c.totals()["entries"] == billed                # every paid reply is in the cache


def test_corrupt_cache_is_exit_2_naming_the_file_and_repair_moves_it_aside(scorer_env, capsys):
    path = scorer_env / "cache" / CACHE_FILE
    c = JudgeCache()
    c.put("v", "p", "m", "kept", 0, S)
    c.close()
    good = path.read_bytes()
    path.write_bytes(b"this is not a sqlite database" * 100)
    with pytest.raises(CacheCorrupt, match=str(path)):
        JudgeCache()
    assert run_cli(["scorecache", "stat"]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "scorecache repair" in err and "Traceback" not in err
    assert run_cli(["scorecache", "repair"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kept"] == {"samples": 0, "bad": 0} and Path(out["moved_to"]).read_bytes().startswith(b"this is")
    assert run_cli(["scorecache", "stat"]) == 0
    # a readable file with a bad row: repair keeps the good rows only
    path.write_bytes(good)
    db = sqlite3.connect(path)
    db.execute("INSERT INTO samples VALUES ('v', 'p', 'm', 'bad', 0, '{\"correctness\": 3}', 0)")
    db.commit()
    db.close()
    capsys.readouterr()
    assert run_cli(["scorecache", "repair"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["read"]["samples"] == 2 and out["kept"]["samples"] == 1
    assert JudgeCache().get("v", "p", "m", "kept", 0, now=time.time()) is not None
