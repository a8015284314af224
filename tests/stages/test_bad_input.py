"""Hostile input through the real commands: every one is exit 2 with one line naming the file, never a traceback,
and leaves no partial output (issue 20: deeply nested JSON/YAML, a 5000-digit integer, an unreadable data file, an
output path that is a directory, a --fresh record with answer NaN or a duplicate id, HotpotQA items with an empty
answer or no context, a 50 MB seed line)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rc1.core.io import write_jsonl
from test_quality import make_pool

REPO = Path(__file__).resolve().parents[2]
DEEP = "[" * 100_000 + "]" * 100_000
BIG_INT = "1" * 5000

pytestmark = pytest.mark.timeout(600)


def rc1(args: list[str], cwd: Path, peak_to: Path | None = None) -> subprocess.CompletedProcess:
    """`rc1 ARGS` in a fresh process (the console script's path: rc1.cli.run); `peak_to`: that process writes its
    peak RSS, or its largest child's, in kB there as it exits. Its own peak is VmHWM, not RUSAGE_SELF: Linux carries
    the forking process's peak across exec into ru_maxrss (a 1.5 GB pytest made a 240 MB command read 1513 MB)."""
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "SCORER_"))},
           "PYTHONPATH": str(REPO), "MLFLOW_TRACKING_URI": f"sqlite:///{cwd / 'mlflow.db'}", "RUN_MODE": "dev"}
    peak = ("import atexit, resource, pathlib\n"
            "hwm = lambda: next(int(ln.split()[1]) for ln in open('/proc/self/status') if ln.startswith('VmHWM:'))\n"
            "atexit.register(lambda: pathlib.Path(%r).write_text(str(max("
            "hwm(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))))\n" % str(peak_to)) if peak_to else ""
    code = f"{peak}import sys\nsys.argv = ['rc1', *{args!r}]\nfrom rc1.cli import run\nrun()\n"
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def refused(r: subprocess.CompletedProcess, *says: str) -> str:
    """The one `rc1: error:` line of a refusal (exit 2, no traceback), checked to say each of `says`."""
    assert r.returncode == 2, r.stderr[-3000:]
    assert "Traceback" not in r.stderr and "traceback" not in r.stderr, r.stderr[-3000:]
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("rc1:")]
    assert len(lines) == 1, r.stderr[-3000:]
    for s in says:
        assert s in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def ws(tmp_path) -> Path:
    import shutil

    shutil.copytree(REPO / "configs", tmp_path / "configs")
    write_jsonl(tmp_path / "pool.jsonl", make_pool(30))
    return tmp_path


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


# ---------------------------------------------------------------- pools, gates, weights
@pytest.mark.parametrize("name, line, says", [
    ("deep", '{"id": "x", "a": ' + DEEP + "}", "line 2: nested too deeply"),
    ("bigint", '{"id": ' + BIG_INT + "}", "line 2: invalid (Exceeds the limit"),
])
def test_a_pool_line_that_does_not_parse(ws, name, line, says):
    pool = ws / f"{name}.jsonl"
    pool.write_text((ws / "pool.jsonl").read_text().splitlines()[0] + "\n" + line + "\n")
    refused(rc1(["validate-pool", str(pool), "--report", "out/report.json", "--no-reuse"], ws), str(pool), says)
    assert not (ws / "out").exists()


def test_a_pool_that_is_a_fifo(ws):
    pool = _fifo(ws / "pool_fifo")   # opening it would wait for a writer forever (a directory: click refuses it)
    refused(rc1(["validate-pool", str(pool), "--no-reuse"], ws), str(pool), "not a regular file")


@pytest.mark.parametrize("text, says", [("shadow: " + DEEP, "nested too deeply"),
                                        (f"shadow:\n  n: {BIG_INT}\n", "invalid (Exceeds the limit")])
def test_a_gates_file_that_does_not_parse(ws, text, says):
    (ws / "bad_gates.yaml").write_text(text)
    refused(rc1(["check-config", "--gates", "bad_gates.yaml"], ws), "bad_gates.yaml", says)


@pytest.mark.parametrize("text, says", [(DEEP, "nested too deeply"),
                                        ('{"correctness": ' + BIG_INT + "}", "invalid (Exceeds the limit")])
def test_a_weights_file_that_does_not_parse(ws, text, says):
    (ws / "w.json").write_text(text)
    refused(rc1(["check-weights", "--weights", "w.json"], ws), "w.json", says)


def test_an_output_path_that_is_a_directory_leaves_nothing_behind(ws):
    (ws / "out" / "report.json").mkdir(parents=True)
    refused(rc1(["validate-pool", "pool.jsonl", "--report", "out/report.json", "--no-reuse"], ws),
            "out/report.json: is a directory")
    assert sorted(p.name for p in (ws / "out").iterdir()) == ["report.json"]   # no diversity report, no leaks


def test_a_seed_line_past_the_length_gate_is_refused_unread(ws):
    """One 50 MB seed: refused while streaming, naming its line; validate-pool's processes stay small (it took 5.9 GB
    before)."""
    pool_item = dict(make_pool(30)[0])
    pool_item["dialogue"] = [*pool_item["dialogue"], {"role": "user", "content": "x " * (25 << 20)}]
    with open(ws / "big.jsonl", "w") as fh:
        fh.write((ws / "pool.jsonl").read_text())
        fh.write(json.dumps(pool_item) + "\n")
    r = rc1(["validate-pool", "big.jsonl", "--report", "out/report.json", "--no-reuse"], ws, peak_to=ws / "peak_kb")
    line = len((ws / "pool.jsonl").read_text().splitlines()) + 1
    refused(r, f"big.jsonl: line {line}: longer than", "refused unread")
    # the command's own peak and its children's (RUSAGE_CHILDREN of this test process would be the largest child
    # any earlier test started: a 1.5 GB preflight failed this check once)
    peak_mb = int((ws / "peak_kb").read_text()) / 1024
    assert 0 < peak_mb < 320, peak_mb  # 238 MB measured; reading and parsing the 50 MB line whole adds ~100 MB
    assert not (ws / "out" / "report.json").exists()


# ---------------------------------------------------------------- data files
def _data_dir(root: Path, hotpot_text: str | None = None) -> Path:
    d = root / "data"
    for sub in ("hotpotqa", "strategyqa", "gsm8k"):
        (d / sub).mkdir(parents=True, exist_ok=True)
    item = {"_id": "h1", "question": "Which came first?", "answer": "A", "type": "comparison", "level": "hard",
            "supporting_facts": [["A", 0]], "context": [["A", ["A came first."]], ["B", ["B came later."]]]}
    (d / "hotpotqa" / "hotpot_dev_distractor_v1.json").write_text(hotpot_text or json.dumps([item]))
    (d / "strategyqa" / "strategyqa_train.json").write_text(json.dumps(
        [{"qid": "s1", "term": "t", "description": "d", "question": "Is it?", "answer": True, "facts": ["f"],
          "decomposition": ["q"]}]))
    (d / "gsm8k" / "train.jsonl").write_text(json.dumps({"question": "1+1?", "answer": "1+1=2\n#### 2"}) + "\n")
    return d


HOTPOT = {"_id": "h2", "question": "Who?", "answer": "B", "supporting_facts": [], "context": [["B", ["B is."]]]}


@pytest.mark.parametrize("text, says", [
    (DEEP, "nested too deeply"),
    (json.dumps([{**HOTPOT, "answer": "  "}]), "item 1: key 'answer': empty"),
    (json.dumps([{**HOTPOT, "context": []}]), "item 1: key 'context': no paragraph text"),
    (json.dumps([{**HOTPOT, "context": [["B", []]]}]), "item 1: key 'context': no paragraph text"),
])
def test_a_hotpotqa_file_that_is_bad(ws, text, says):
    d = _data_dir(ws, text)
    refused(rc1(["materialize-shadow", "--data-dir", str(d), "--n", "3", "--no-reuse"], ws),
            "hotpot_dev_distractor_v1.json", says)


@pytest.mark.parametrize("kind", ["dir", "fifo"])
def test_a_data_file_that_cannot_be_read(ws, kind):
    d = _data_dir(ws)
    path = d / "gsm8k" / "train.jsonl"
    path.unlink()
    path.mkdir() if kind == "dir" else _fifo(path)
    refused(rc1(["materialize-shadow", "--data-dir", str(d), "--n", "3", "--no-reuse"], ws), str(path))


def test_a_gsm8k_line_with_a_5000_digit_integer(ws):
    d = _data_dir(ws)
    (d / "gsm8k" / "train.jsonl").write_text('{"question": "q", "answer": ' + BIG_INT + "}\n")
    refused(rc1(["materialize-shadow", "--data-dir", str(d), "--n", "3", "--no-reuse"], ws),
            "train.jsonl: line 1: invalid (Exceeds the limit")


# ---------------------------------------------------------------- --fresh
FRESH = {"id": "f1", "task": "gsm8k", "question": "What is 2 + 2?", "answer": "4"}


@pytest.mark.parametrize("lines, says", [
    (['{"id": "f1", "task": "gsm8k", "question": "What is 2 + 2?", "answer": NaN}'],
     "record 1: task record: answer nan"),
    ([json.dumps(FRESH), json.dumps({**FRESH, "question": "What is 3 + 3?", "answer": "6"})],
     "record 2: duplicate id 'f1' (record 1)"),
    (['{"id": "f1", "a": ' + DEEP + "}"], "line 1: nested too deeply"),
])
def test_a_bad_fresh_file_is_refused_before_training(ws, lines, says):
    (ws / "fresh.jsonl").write_text("\n".join(lines) + "\n")
    refused(rc1(["train", "--config", "configs/ppo_dev.yaml", "--pool", "pool.jsonl", "--fresh", "fresh.jsonl",
                 "--max-steps", "1"], ws), "fresh.jsonl", says)
    assert not (ws / "out").exists()


def test_a_report_path_that_is_a_directory_leaves_no_other_output(ws):
    """judge-robustness writes three files: a --report that is a directory is refused before any of them."""
    from rc1.data import bundled_tasks

    write_jsonl(ws / "shadow.jsonl", [dict(r) for t in ("hotpotqa", "strategyqa", "gsm8k")
                                      for r in bundled_tasks(t)[:2]])
    (ws / "rep" / "jr.json").mkdir(parents=True)
    refused(rc1(["judge-robustness", "--shadow", "shadow.jsonl", "--n", "3", "--report", "rep/jr.json", "--no-reuse"],
                ws), "rep/jr.json: is a directory")
    assert sorted(p.name for p in (ws / "rep").iterdir()) == ["jr.json"]


# ---------------------------------------------------------------- option values a Config refuses before any run
@pytest.mark.parametrize("args, says", [
    (["main", "--n", "-1"], "--n: '-1' is not a number of seeds"),
    (["preflight", "--n", "many"], "--n: 'many' is not a number of seeds"),
    (["weight-calib", "--l2", "-1"], "--l2 -1.0"),
    (["weight-calib", "--boot", "0"], "--boot 0"),
    (["overclar-ablation", "--alpha", "nan", "--scored", "none.jsonl"], "alpha (nan)"),
])
def test_bad_option_values_are_refused_before_any_run(ws, args, says):
    refused(rc1(args, ws), *says)
    assert not (ws / "mlflow.db").exists()   # refused by the Config: no tracking store was even opened
