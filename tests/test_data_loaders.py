"""Dataset loaders: official formats in, Task records out; bad input is one clear line (or a counted skip);
source resolution; the builtin generators' answers are right."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from entrypoints.cli import main
from rc1.config import DataConfig, Source, TaskSources
from rc1.data import DATA_FILES, load_tasks, read_task_file
from rc1.data.builtin import builtin_digest, builtin_tasks, generate_raw
from rc1.data.builtin_math import generate_gsm8k
from rc1.data.builtin_multihop import generate_hotpotqa
from rc1.data.builtin_vocab import skeleton
from rc1.data.builtin_yesno import generate_strategyqa
from rc1.errors import Rc1Error
from rc1.text import ngrams, words
from rc1.tools import calc

REPO = Path(__file__).resolve().parents[1]
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
    cfg = DataConfig(on_bad_record="skip", tasks={"gsm8k": TaskSources(sources=[Source(kind="builtin")])})
    assert load_tasks("gsm8k", d, data_cfg=cfg).skipped == 1  # data.yaml's mode applies to --data-dir too


def test_source_resolution(tmp_path, monkeypatch):
    with pytest.raises(Rc1Error, match=r"gsm8k/train\.jsonl: file not found"):
        load_tasks("gsm8k", tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    local = write_data_dir(tmp_path / "d", [HOTPOT], [STRATEGY], [json.dumps(GSM)])
    cfg = DataConfig(tasks={"gsm8k": TaskSources(sources=[
        Source(kind="local", path=str(tmp_path / "missing.jsonl")),
        Source(kind="hf", name="openai/gsm8k", config="main", split="train"),
        Source(kind="builtin", n=30)])}, on_bad_record="error")
    got = load_tasks("gsm8k", data_cfg=cfg)
    assert got.source_kind == "builtin" and len(got.records) == 30
    assert got.digest == builtin_digest("gsm8k", 30, 0) and got.tried[1].endswith("offline")
    cfg.tasks["gsm8k"].sources[0] = Source(kind="local", path=str(local / DATA_FILES["gsm8k"]))
    assert load_tasks("gsm8k", data_cfg=cfg).source_kind == "local"
    with pytest.raises(Rc1Error, match="unknown task"):
        load_tasks("squad", data_cfg=cfg)


def test_builtin_gsm8k_answers_recompute():
    # the main generator's scenarios (generate_raw mixes in other families with their own shape)
    raws = generate_gsm8k(300, 7)
    for raw in raws:
        anns = re.findall(r"<<([^=<>]+)=([^<>]+)>>", raw["answer"])
        assert len(anns) >= 2
        for expr, value in anns:
            assert calc(expr) == value
        final = raw["answer"].rsplit("####", 1)[1].strip()
        assert final == anns[-1][1] and int(final) >= 0
    # no two problems differ only in their names (the pool's shadow guard could not tell them apart)
    shapes = [skeleton(r["question"]) for r in raws]
    assert len(set(shapes)) == len(shapes)


def test_builtin_hotpotqa_supporting_facts_are_real_sentences():
    for raw in generate_hotpotqa(300, 3):
        paras = dict((t, s) for t, s in raw["context"])
        assert len(paras) == 10 and len({t for t, _ in raw["supporting_facts"]}) == 2
        gold = [paras[t][i] for t, i in raw["supporting_facts"]]
        if raw["answer"] in ("yes", "no"):
            continue
        if raw["type"] == "comparison":
            assert raw["answer"] in {t for t, _ in raw["supporting_facts"]}
            assert raw["answer"] in raw["question"]
        else:
            assert any(raw["answer"] in s for s in gold), (raw["question"], raw["answer"], gold)
            # the descriptors that vary the wording never give the answer away
            assert raw["answer"] not in raw["question"], (raw["question"], raw["answer"])


def test_builtin_strategyqa_answers_follow_from_facts():
    raws = generate_strategyqa(400, 2)
    for raw in raws:
        # every title the question quotes is one the facts talk about (appositions never land inside a title)
        for title in re.findall(r'"([^"]+)"', raw["question"]):
            assert title in " ".join(raw["facts"]), (raw["question"], raw["facts"])
    shapes = [skeleton(r["question"]) for r in raws if re.search(r"\d", r["question"])]
    assert len(set(shapes)) == len(shapes)
    # the numeric families: recompute the answer from the two numbers the facts state
    checked = 0
    for raw in raws:
        q, facts = raw["question"], " ".join(raw["facts"])
        m = re.search(r"The (.+?) (?:holds|seats|has room for) ([\d,]+) ", facts)
        n = re.search(r"has (?:about|roughly|some) ([\d,]+) (?:inhabitants|residents)", facts)
        if m and n and "too small" not in q and "too cramped" not in q:
            fits = int(m.group(2).replace(",", "")) >= int(n.group(1).replace(",", ""))
            assert raw["answer"] == fits, (q, facts)
            checked += 1
    assert checked >= 3


def test_builtin_strategyqa_questions_are_varied():
    qs = [r["question"] for r in generate_strategyqa(500, 11)]
    assert len(set(qs)) == len(qs)
    openings = Counter(words(q)[0] for q in qs)
    assert len(openings) >= 20 and openings.most_common(1)[0][1] <= 0.4 * len(qs)
    bigrams = [g for q in qs for g in ngrams(words(q), 2)]
    assert len(set(bigrams)) / len(bigrams) >= 0.5  # the generator this replaced scored 0.485 here


def test_builtin_strategyqa_and_determinism():
    raws = generate_raw("strategyqa", n=300, seed=1)
    assert all(r["facts"] and r["decomposition"] and isinstance(r["answer"], bool) for r in raws)
    assert 0.3 < sum(r["answer"] for r in raws) / len(raws) < 0.7
    assert builtin_tasks("hotpotqa", 50, 5) == builtin_tasks("hotpotqa", 50, 5)
    assert builtin_tasks("hotpotqa", 50, 5) != builtin_tasks("hotpotqa", 50, 6)
    assert len({r["question"] for r in builtin_tasks("gsm8k", 500, 0)}) == 500


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
