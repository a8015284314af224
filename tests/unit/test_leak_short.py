"""The leak rule holds for every shadow question: short ones (fewer words than the n-gram) are compared whole,
a shared source id is a leak, an empty or unreadable shadow file is an error, and the pool builder excludes by
the same rule (rc1.core.leak.ShadowIndex.pool_item_leaks)."""

from __future__ import annotations

import json
from pathlib import Path

from rc1.core.config import load_thresholds
from rc1.data import bundled_tasks
from rc1.core.io import read_json, write_jsonl
from rc1.data.plan import PoolSpec
from rc1.data.pool import PoolStats, build_pool
from rc1.core.leak import ShadowIndex
from rc1.quality.validate import validate_pool
from rc1.data.templates import load_pack
from rc1.core.text import normalize, words
from rc1_cli import run_cli
from test_quality import MIX, SHADOW, make_pool, make_seed

REPO = Path(__file__).resolve().parents[2]
GATE = load_thresholds(REPO / "configs" / "gates.yaml").validate_pool
SHORT = [("strategyqa:c1", "Is Cholera alive?"), ("strategyqa:c2", "Do bees sleep?")]


def _seed_leaks(idx, text, i=0, **kw):
    return idx.pool_item_leaks(make_seed(i, "strategyqa", question=text, **kw))


def test_short_shadow_questions_are_compared_whole():
    idx = ShadowIndex(SHADOW + SHORT, ngram=5, sim=0.85)
    verbatim = _seed_leaks(idx, "Is Cholera alive?")
    assert [(l.shadow_id, l.kind, l.similarity) for l in verbatim] == [("strategyqa:c1", "short", 1.0)]
    # reworded in case, punctuation and spacing, wrapped in template text: still the whole question
    assert [l.shadow_id for l in _seed_leaks(idx, "Quick one -- IS cholera, ALIVE ?? Thanks a lot")] == ["strategyqa:c1"]
    assert [l.shadow_id for l in _seed_leaks(idx, "do bees sleep")] == ["strategyqa:c2"]
    # the words present but not as the question: no leak; other short questions: no leak
    assert _seed_leaks(idx, "Is it true that cholera, once alive in water, spreads?") == []
    assert _seed_leaks(idx, "Do wasps sleep at night?") == []
    # long questions keep the n-gram + containment rule, one word changed is still found
    assert [l.shadow_id for l in _seed_leaks(idx, SHADOW[1][1].replace("were", "was"))] == ["strategyqa:s2"]


def test_source_id_overlap_is_a_leak_and_counts_into_leak_count():
    pool = make_pool(100)
    pool[5] = make_seed(5, pool[5]["task"], source_id="strategyqa:c2")   # same source item, other words
    res = validate_pool(iter(pool), gate=GATE, mix=MIX, shadow=SHADOW + SHORT, baseline=make_pool(50, start=9000))
    leak = next(c for c in res.checks if c["name"] == "leak_count")
    assert leak["value"] == 1 and not leak["pass"]
    assert [(l["seed_id"], l["shadow_id"], l["kind"]) for l in res.leaks] == [("seed-5", "strategyqa:c2", "source_id")]
    assert res.diversity["leaks"]["shadow_source_id_overlap"] == ["strategyqa:c2"]


def test_pool_builder_excludes_by_the_same_rule():
    tasks = {"strategyqa": bundled_tasks("strategyqa")[:40]}
    short_q = "Is Cholera alive?"
    # a source item whose question contains a short shadow question, and one that is the shadow item itself
    tasks["strategyqa"][0] = {**tasks["strategyqa"][0], "question": f"Honestly, is cholera alive? Explain."}
    shadow_item = tasks["strategyqa"][1]
    exclude = frozenset({normalize(short_q), shadow_item["id"], normalize(shadow_item["question"])})
    stats = PoolStats()
    spec = PoolSpec(n=60, mix={"strategyqa": 1.0}, max_turns=6, clarify_rate=0.3, tools=("wiki", "calc"), seed=3,
                    exclude=exclude, leak_ngram=GATE.leak_ngram, leak_sim=GATE.leak_sim)
    pool_items = list(build_pool(tasks, load_pack(REPO / "templates" / "pack_v2"), spec, stats))
    assert stats.excluded["strategyqa"] >= 2
    used = {s["source_id"] for s in pool_items}
    assert tasks["strategyqa"][0]["id"] not in used and shadow_item["id"] not in used
    idx = ShadowIndex([("x", short_q), (shadow_item["id"], shadow_item["question"])], ngram=GATE.leak_ngram,
                      sim=GATE.leak_sim)
    assert not any(idx.pool_item_leaks(s) for s in pool_items)


def _files(d: Path, pool: list[dict], shadow: list[tuple[str, str]]) -> list[str]:
    write_jsonl(d / "pool.jsonl", pool)
    write_jsonl(d / "base.jsonl", make_pool(200, start=50_000, wrapper="Answer the following question as well as you can:"))
    write_jsonl(d / "shadow.jsonl", [{"id": sid, "task": sid.split(":")[0], "question": q} for sid, q in shadow])
    return ["validate-pool", str(d / "pool.jsonl"), "--leak_check", str(d / "shadow.jsonl"), "--baseline_pool",
            str(d / "base.jsonl"), "--gates", str(REPO / "configs" / "gates.yaml"), "--no-reuse",
            "--report", str(d / "out" / "validation_report.json")]


def test_cli_verbatim_short_shadow_question_in_a_pool_is_a_leak_and_empty_shadow_is_exit_2(tmp_path, monkeypatch,
                                                                                          capsys):
    """The bar: a verbatim short shadow question planted in a pool is a leak (validate-pool exit 2)."""
    monkeypatch.chdir(tmp_path)
    for var in ("MLFLOW_TRACKING_URI", "MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_ID", "RUN_MODE"):
        monkeypatch.delenv(var, raising=False)
    pool = make_pool(200)
    pool[9] = make_seed(9, "strategyqa", question="Is Cholera alive?")
    cmd = _files(tmp_path, pool, SHADOW + SHORT)
    assert run_cli(cmd) == 2
    rep = read_json(tmp_path / "out" / "validation_report.json")
    assert next(c for c in rep["checks"] if c["name"] == "leak_count")["value"] == 1
    (leak,) = [json.loads(line) for line in (tmp_path / "out" / "leaks.jsonl").read_text().splitlines()]
    assert leak["seed_id"] == "seed-9" and leak["shadow_id"] == "strategyqa:c1" and leak["kind"] == "short"
    capsys.readouterr()
    for content in ("", "\n\n", b"\xff\xfe\x00bin"):
        (tmp_path / "shadow.jsonl").write_bytes(content if isinstance(content, bytes) else content.encode())
        assert run_cli(cmd) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "shadow.jsonl" in err[0], err
    assert run_cli(["build-pool", "--n", "10", "--shadow", str(tmp_path / "shadow.jsonl"), "--out",
                    str(tmp_path / "p.jsonl"), "--templates_dir", str(REPO / "templates" / "pack_v2")]) == 2
    assert not (tmp_path / "p.jsonl").exists()
