"""Dataset loaders: official formats in (plain or .gz), Task records out; bad input is one clear line (or a counted
skip); source resolution; the bundled real sample is what its README says and rebuilds byte for byte."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from rc1.cli import main
from rc1.core.config import DataConfig, Source, TaskSources
from rc1.data import DATA_FILES, load_tasks, read_task_file
from rc1.data.sources import BUNDLED_DIR
from rc1.core.errors import Rc1Error
from rc1.core.io import sha256_file

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data"

HOTPOT = {"_id": "h1", "question": "Which city is the capital of Poland?", "answer": "Warsaw", "type": "bridge",
          "level": "easy", "supporting_facts": [["Warsaw", 0]],
          "context": [["Warsaw", ["Warsaw is the capital of Poland.", " It lies on the Vistula."]],
                      ["Vienna", ["Vienna is the capital of Austria."]]]}
STRATEGY = {"qid": "s1", "term": "Ice", "description": "frozen water", "question": "Does ice float on water?",
            "answer": True, "facts": ["Ice is less dense than water."], "decomposition": ["Is ice less dense than water?"]}
GSM = {"question": "Tom has 3 apples and buys 4 more. How many apples does he have?",
       "answer": "Tom has 3+4 = <<3+4=7>>7 apples.\n#### 7"}


def write_data_dir(root: Path, hotpot: list, strategy: list, gsm_lines: list[str]) -> Path:
    for task, content in (("hotpotqa", json.dumps(hotpot)), ("strategyqa", json.dumps(strategy)),
                          ("gsm8k", "\n".join(gsm_lines) + "\n")):
        p = root / DATA_FILES[task]
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(content, encoding="utf-8")
    return root


def test_official_formats_become_task_records(tmp_path):
    d = write_data_dir(tmp_path, [HOTPOT], [STRATEGY], [json.dumps(GSM)])
    h = load_tasks("hotpotqa", d).records[0]
    assert h["id"] == "hotpotqa:h1" and h["answer"] == "Warsaw" and h["supporting_facts"] == [["Warsaw", 0]]
    s = load_tasks("strategyqa", d).records[0]
    assert s["id"] == "strategyqa:s1" and s["answer"] == "yes" and s["facts"] == STRATEGY["facts"]
    g = load_tasks("gsm8k", d)
    assert g.records[0]["id"] == "gsm8k:1" and g.records[0]["answer"] == "7"
    assert g.records[0]["decomposition"] == ["Tom has 3+4 = 7 apples."]  # no <<...>> annotations
    assert g.source_kind == "local" and len(g.digest) == 64 and g.skipped == 0


@pytest.mark.parametrize("task, content, message", [
    ("hotpotqa", json.dumps([HOTPOT])[:-40], r"hotpot_dev_distractor_v1\.json: line 1: invalid JSON"),
    ("hotpotqa", json.dumps([HOTPOT, {k: v for k, v in HOTPOT.items() if k != "answer"}]),
     r"hotpot_dev_distractor_v1\.json: item 2: missing key 'answer'"),
    ("hotpotqa", json.dumps([{**HOTPOT, "context": "Warsaw"}]), r"item 1: key 'context': expected a list"),
    ("strategyqa", json.dumps([{**STRATEGY, "answer": "maybe"}]), r"item 1: key 'answer': expected true or false, got str"),
    ("strategyqa", json.dumps({"qid": "x"}), r"expected a JSON list"),
    ("gsm8k", json.dumps(GSM) + "\n" + json.dumps({"question": "q"}), r"train\.jsonl: line 2: missing key 'answer'"),
    ("gsm8k", json.dumps(GSM) + "\n{\"question\": \"q\", \"ans", r"train\.jsonl: line 2: invalid JSON"),
    ("gsm8k", json.dumps({**GSM, "answer": "no final number"}), r"line 1: key 'answer': no '#### <number>'"),
])
def test_bad_records_name_file_and_place(tmp_path, task, content, message):
    p = tmp_path / DATA_FILES[task]
    p.parent.mkdir(parents=True)
    p.write_text(content, encoding="utf-8")
    with pytest.raises(Rc1Error, match=message):
        read_task_file(task, p)


def test_skip_mode_counts_bad_records(tmp_path):
    bad = {k: v for k, v in STRATEGY.items() if k != "facts"}
    d = write_data_dir(tmp_path, [HOTPOT], [STRATEGY, bad, {**STRATEGY, "qid": "s2", "answer": 1}],
                       [json.dumps(GSM), "not json", json.dumps({"question": "x", "answer": "#### 5"})])
    s = load_tasks("strategyqa", d, on_bad_record="skip")
    assert [r["id"] for r in s.records] == ["strategyqa:s1"] and s.skipped == 2
    assert "item 2: missing key 'facts'" in s.skip_examples[0]
    g = load_tasks("gsm8k", d, on_bad_record="skip")
    assert len(g.records) == 2 and g.skipped == 1 and "line 2" in g.skip_examples[0]
    cfg = DataConfig(on_bad_record="skip", tasks={"gsm8k": TaskSources(sources=[Source(kind="bundled")])})
    assert load_tasks("gsm8k", d, data_cfg=cfg).skipped == 1  # data.yaml's mode applies to --data-dir too


def test_source_resolution(tmp_path, monkeypatch):
    with pytest.raises(Rc1Error, match=r"gsm8k/train\.jsonl: file not found"):
        load_tasks("gsm8k", tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    local = write_data_dir(tmp_path / "d", [HOTPOT], [STRATEGY], [json.dumps(GSM)])
    cfg = DataConfig(tasks={"gsm8k": TaskSources(sources=[
        Source(kind="local", path=str(tmp_path / "missing.jsonl")),
        Source(kind="hf", name="openai/gsm8k", config="main", split="train"),
        Source(kind="bundled")])}, on_bad_record="error")
    got = load_tasks("gsm8k", data_cfg=cfg)
    assert got.source_kind == "bundled" and len(got.records) == 800
    bundled = BUNDLED_DIR / (DATA_FILES["gsm8k"] + ".gz")
    assert got.source_uri == str(bundled) and got.digest == sha256_file(bundled) and got.tried[1].endswith("offline")
    cfg.tasks["gsm8k"].sources[0] = Source(kind="local", path=str(local / DATA_FILES["gsm8k"]))
    assert load_tasks("gsm8k", data_cfg=cfg).source_kind == "local"
    with pytest.raises(Rc1Error, match="unknown task"):
        load_tasks("squad", data_cfg=cfg)


def test_bundled_sample_is_real_data_in_the_official_formats_with_licenses():
    sizes = {"hotpotqa": 420, "strategyqa": 600, "gsm8k": 800}
    for task, n in sizes.items():
        path = BUNDLED_DIR / (DATA_FILES[task] + ".gz")
        got = load_tasks(task, BUNDLED_DIR)          # --data-dir reads the .gz layout as it reads the plain one
        assert got.source_kind == "local" and got.source_uri == str(path) and len(got.records) == n
        assert got.skipped == 0 and len({r["id"] for r in got.records}) == n
        assert (path.parent / "LICENSE").read_text().count("Citation") == 1
    assert "CC BY-SA 4.0" in (BUNDLED_DIR / "hotpotqa" / "LICENSE").read_text()
    assert all("MIT License" in (BUNDLED_DIR / t / "LICENSE").read_text() for t in ("strategyqa", "gsm8k"))


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data not present")
def test_bundled_sample_rebuilds_byte_for_byte_from_the_official_files(tmp_path):
    """The command in rc1/data/bundled/README.md, from ../shared/data: the same bytes as shipped."""
    import sys

    sys.path.insert(0, str(REPO / "benchmarks"))
    from real_subsample import parse_counts, write_subsample

    readme = (BUNDLED_DIR / "README.md").read_text()
    assert "--n hotpotqa=420,strategyqa=600,gsm8k=800 --seed 19 --gzip" in readme
    write_subsample(SHARED, tmp_path, None, 19, parse_counts("hotpotqa=420,strategyqa=600,gsm8k=800"), True)
    for rel in DATA_FILES.values():
        assert sha256_file(tmp_path / (rel + ".gz")) == sha256_file(BUNDLED_DIR / (rel + ".gz")), rel


def test_gzip_files_read_like_plain_ones_and_a_broken_one_is_one_line(tmp_path):
    d = write_data_dir(tmp_path / "plain", [HOTPOT], [STRATEGY], [json.dumps(GSM)])
    z = tmp_path / "gz"
    for rel in DATA_FILES.values():
        (z / rel).parent.mkdir(parents=True)
        (z / (rel + ".gz")).write_bytes(gzip.compress((d / rel).read_bytes()))
    for task in DATA_FILES:
        assert load_tasks(task, z).records == load_tasks(task, d).records
    broken = z / (DATA_FILES["hotpotqa"] + ".gz")
    broken.write_bytes(gzip.compress(json.dumps([HOTPOT]).encode())[:-12])   # truncated
    with pytest.raises(Rc1Error, match=r"hotpot_dev_distractor_v1\.json\.gz: unreadable"):
        load_tasks("hotpotqa", z)
    broken.write_bytes(b"not gzip at all")
    with pytest.raises(Rc1Error, match=r"hotpot_dev_distractor_v1\.json\.gz: unreadable"):
        load_tasks("hotpotqa", z)


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data not present")
def test_shared_data_loads():
    sizes = {"hotpotqa": 478, "strategyqa": 1890, "gsm8k": 7473}
    for task, n in sizes.items():
        got = load_tasks(task, SHARED)
        assert len(got.records) == n and got.skipped == 0
        assert all(r["id"].startswith(task + ":") for r in got.records)
    g = load_tasks("gsm8k", SHARED).records[0]
    assert g["id"] == "gsm8k:1" and g["answer"] == "72" and "<<" not in " ".join(g["decomposition"])


def test_cli_bad_data_exits_2_with_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    d = write_data_dir(tmp_path / "data", [HOTPOT], [STRATEGY], [json.dumps(GSM), "{truncated"])
    with pytest.raises(SystemExit) as e:
        main(["build-pool", "--data-dir", str(d), "--out", str(tmp_path / "p.jsonl"), "--n", "10",
              "--templates_dir", str(REPO / "templates" / "pack_v2"), "--gates", str(REPO / "configs" / "gates.yaml")])
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and len(err) == 1 and "train.jsonl: line 2: invalid JSON" in err[0]
    assert not (tmp_path / "p.jsonl").exists()
