"""The seed pool core: deterministic, exact mix and clarify counts, shadow exclusion, real tool results,
genuinely different seeds per source item; and the build-pool stage (exit codes, MLflow run, reuse)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from rc1.data import load_tasks
from rc1.data.sources import BUNDLED_DIR as BUNDLED
from rc1.core.errors import Rc1Error
from rc1.data.plan import PoolSpec, largest_remainder
from rc1.data.pool import PoolStats, build_pool, pool_item_lines
from rc1.data.render import NOTE_SOURCE_RATE, calc_steps
from rc1.core.records import POOL_ITEM_KEYS, pool_item_problem
from rc1.data.templates import load_pack
from rc1.core.text import dialogue_tokens, normalize
from rc1.data.tools import WikiIndex, calc
from rc1_cli import run_cli

REPO = Path(__file__).resolve().parents[2]
PACK_V2 = REPO / "templates" / "pack_v2"
MIX = {"hotpotqa": 0.45, "strategyqa": 0.30, "gsm8k": 0.25}


@pytest.fixture(scope="module")
def tasks():
    """Real items: the first of each task's bundled sample (enough for 900 seeds at 3 poses an item)."""
    return {t: load_tasks(t, BUNDLED).records[:k] for t, k in (("hotpotqa", 150), ("strategyqa", 150), ("gsm8k", 150))}


@pytest.fixture(scope="module")
def pack():
    return load_pack(PACK_V2)


def spec(**kw) -> PoolSpec:
    base = dict(n=600, mix=MIX, max_turns=6, clarify_rate=0.3, tools=("wiki", "calc"), seed=11)
    return PoolSpec(**{**base, **kw})


def test_largest_remainder_is_exact():
    assert largest_remainder(30000, MIX) == {"hotpotqa": 13500, "strategyqa": 9000, "gsm8k": 7500}
    got = largest_remainder(101, MIX)
    assert sum(got.values()) == 101 and got == {"hotpotqa": 46, "strategyqa": 30, "gsm8k": 25}


def test_pool_is_deterministic_and_well_formed(tasks, pack):
    a = list(build_pool(tasks, pack, spec()))
    assert a == list(build_pool(tasks, pack, spec()))
    assert a != list(build_pool(tasks, pack, spec(seed=12)))
    assert len({s["id"] for s in a}) == len(a) == 600
    assert [json.loads(line) for line in pool_item_lines(iter(a))] == a
    for s in a:
        assert pool_item_problem(s) is None and set(POOL_ITEM_KEYS) <= set(s)
        assert s["dialogue"][0]["role"] == "system" and s["dialogue"][-1]["role"] == "user"
        assert sum(t["role"] != "system" for t in s["dialogue"]) <= 6
        assert 64 <= dialogue_tokens(s["dialogue"]) <= 4096


def test_mix_and_clarify_rate_are_exact(tasks, pack):
    stats = PoolStats()
    pool_items = list(build_pool(tasks, pack, spec(n=601), stats))
    counts = Counter(s["task"] for s in pool_items)
    assert counts == largest_remainder(601, MIX) == stats.counts
    assert sum(s["needs_clarification"] for s in pool_items) == round(601 * 0.3)
    # any prefix keeps the mix (tasks are interleaved)
    head = Counter(s["task"] for s in pool_items[:100])
    assert abs(head["hotpotqa"] - 45) <= 1 and abs(head["gsm8k"] - 25) <= 1
    none = list(build_pool(tasks, pack, spec(clarify_rate=0.0)))
    assert not any(s["needs_clarification"] or s["hidden_info"] for s in none)


def test_clarification_seeds_hide_a_needed_fact(tasks, pack):
    by_id = {t["id"]: t for ts in tasks.values() for t in ts}
    clar = [s for s in build_pool(tasks, pack, spec()) if s["needs_clarification"]]
    assert {s["task"] for s in clar} == set(MIX)
    for s in clar:
        original = by_id[s["source_id"]]["question"]
        asked = s["dialogue"][-1]["content"]
        assert original not in asked and s["hidden_info"]
        assert s["template_id"].startswith("cl_")


def test_tool_calls_and_worked_exchanges_are_real(tasks, pack):
    pool_items = list(build_pool(tasks, pack, spec()))
    with_tools = [s for s in pool_items if s["tools"]]
    assert with_tools and all(s["expected_tool_calls"] or any("tool_calls" in t for t in s["dialogue"])
                              for s in with_tools)
    for s in with_tools:
        names = {c["name"] for c in s["expected_tool_calls"]}
        assert names <= set(s["tools"]) and names <= ({"calc"} if s["task"] == "gsm8k" else {"wiki"})
        for c in s["expected_tool_calls"]:
            if c["name"] == "calc":
                assert not calc(c["arguments"]["expression"]).startswith("error")
    worked = [s for s in pool_items if any(t["role"] == "tool" for t in s["dialogue"])]
    assert {s["task"] for s in worked} == set(MIX)
    for s in worked:
        call = next(t for t in s["dialogue"] if t.get("tool_calls"))["tool_calls"][0]
        result = next(t for t in s["dialogue"] if t["role"] == "tool")["content"]
        if call["name"] == "calc":
            assert result == calc(call["arguments"]["expression"])
        else:
            assert result == WikiIndex(s["context"]).search(call["arguments"]["query"])
    assert not [s for s in build_pool(tasks, pack, spec(tools=())) if s["tools"] or s["expected_tool_calls"]]


def test_seeds_of_one_item_differ(tasks, pack):
    pool_items = list(build_pool(tasks, pack, spec(n=900)))
    by_item: dict[str, list] = {}
    for s in pool_items:
        by_item.setdefault(s["source_id"], []).append(s)
    multi = [v for v in by_item.values() if len(v) >= 3]   # every item of the limiting task is posed max_poses_per_item times
    assert multi
    for group in multi:
        combos = [(s["template_id"], s["role"], s["style"], s["hidden_info"]) for s in group]
        assert len(set(combos)) == len(combos)
        prompts = {"\n".join(t["content"] for t in s["dialogue"] if t["role"] in ("system", "user")) for s in group}
        assert len(prompts) == len(group)


def test_hard_notes_say_where_lines_came_from_and_an_item_shows_new_distractors(tasks, pack):
    """In about NOTE_SOURCE_RATE of the hard (closed-book) seeds every note line, support and distractor alike, says
    where the user got it, in the others none does; two seeds of one HotpotQA item share no distractor sentence
    while the item's distractor paragraphs have unshown ones."""
    pool_items = list(build_pool(tasks, pack, spec(n=900, clarify_rate=0.6)))   # some items get two clarification seeds
    hard = [s for s in pool_items if s["pose"] == "hard" and s["task"] != "gsm8k"
            and (s["needs_clarification"] or s["task"] == "strategyqa")]   # HotpotQA's plain hard pose shows passages
    sourced = 0
    for s in hard:
        notes = [ln[2:] for ln in s["dialogue"][-1]["content"].split("\n") if ln.startswith("- ")]
        tagged = [any(n.startswith(f"{src}: ") for src in pack.note_sources) for n in notes]
        assert notes and (all(tagged) or not any(tagged)), s["dialogue"][-1]["content"]
        sourced += all(tagged)
    assert abs(sourced / len(hard) - NOTE_SOURCE_RATE) < 0.15, (sourced, len(hard))
    own: dict[str, list] = {}
    for s in hard:
        if s["task"] == "hotpotqa":
            own.setdefault(s["source_id"], []).append(s)
    shared = later = 0
    for group in own.values():
        gold = {t for t, _ in group[0]["supporting_facts"]}
        others = {x.strip() for t, sents in group[0]["context"] if t not in gold for x in sents if x.strip()}
        shown = [{ln.split(": ", 1)[-1] if ln.split(": ", 1)[0] in pack.note_sources else ln
                  for ln in (x[2:] for x in s["dialogue"][-1]["content"].split("\n") if x.startswith("- "))} & others
                 for s in group]
        for i in range(1, len(shown)):
            later += len(shown[i])
            shared += len(shown[i] & set().union(*shown[:i]))
    # a seed shows an earlier one's distractor only when its hidden fact rules out the unshown ones (drawn at random,
    # 5-8 of ~16 sentences, a third of them would be shared)
    assert later and shared / later < 0.1, (shared, later)


def test_shadow_items_are_excluded(tasks, pack):
    shadow = tasks["hotpotqa"][:5] + tasks["gsm8k"][:3]
    reworded = dict(tasks["strategyqa"][0])
    by_question = frozenset(normalize(t["question"]) for t in shadow[5:]) | {normalize(reworded["question"] + " Explain.")}
    exclude = frozenset(t["id"] for t in shadow[:5]) | by_question
    stats = PoolStats()
    pool_items = list(build_pool(tasks, pack, spec(exclude=exclude), stats))
    used = {s["source_id"] for s in pool_items}
    assert not used & {t["id"] for t in shadow} and reworded["id"] not in used
    assert stats.excluded["hotpotqa"] >= 5 and stats.excluded["strategyqa"] >= 1 and stats.excluded["gsm8k"] >= 3
    # questions that differ from a shadow one only in a few words are left out too: the
    # validator's leak rule finds nothing in the pool
    from rc1.core.leak import ShadowIndex
    from rc1.core.records import posed_question
    from rc1.core.text import words

    index = ShadowIndex([(t["id"], t["question"]) for t in shadow + [reworded]])
    assert not [s["id"] for s in pool_items if index.match(s["id"], words(posed_question(s)))]


def test_max_turns_and_bad_specs(tasks, pack):
    short = list(build_pool(tasks, pack, spec(max_turns=1)))
    assert all(len(s["dialogue"]) == 2 for s in short)
    for bad, msg in ((spec(mix={"hotpotqa": 0.5, "squad": 0.5}), "unknown task 'squad'"),
                     (spec(mix={"hotpotqa": 0.5, "gsm8k": 0.4}), "sums to 0.9"),
                     (spec(clarify_rate=1.5), "--clarify-rate"), (spec(tools=("browser",)), "unknown tool")):
        with pytest.raises(Rc1Error, match=msg):
            next(build_pool(tasks, pack, bad))
    v1 = load_pack(REPO / "templates" / "pack_v1")
    with pytest.raises(Rc1Error, match="no clarification template"):
        next(build_pool(tasks, v1, spec()))
    plain = list(build_pool(tasks, v1, PoolSpec(n=50, mix=MIX, seed=1)))  # what validate-pool's KL baseline uses
    assert len(plain) == 50 and {s["role"] for s in plain} == {"user"}


def test_pieces_of_the_stream_are_the_seeds_of_one_pass(tasks, pack, tmp_path, monkeypatch):
    """build-pool builds the second half of the stream in another process: build_pool(start, stop) gives the
    seeds at those positions (cuts inside an item's seeds included) and stats that add up to one pass's;
    the stage's writer gives the bytes of one pass, and their sha256."""
    from rc1.stages.build_pool import _write_pool
    from rc1.core.io import sha256_file

    sp = spec(n=700, exclude=frozenset(t["id"] for t in tasks["gsm8k"][:2]))
    whole_stats = PoolStats()
    whole = list(build_pool(tasks, pack, sp, whole_stats))
    for cut in (1, 233, 350, 699):
        a_stats, b_stats = PoolStats(), PoolStats()
        a = list(build_pool(tasks, pack, sp, a_stats, 0, cut))
        b = list(build_pool(tasks, pack, sp, b_stats, cut, sp.n))
        assert a + b == whole
        assert b_stats.counts == whole_stats.counts
        assert a_stats.tool_seeds + b_stats.tool_seeds == whole_stats.tool_seeds
        assert a_stats.worked_seeds + b_stats.worked_seeds == whole_stats.worked_seeds
        assert a_stats.leak_redraws + b_stats.leak_redraws == whole_stats.leak_redraws
    for n, fork in ((700, True), (1, True), (2, True), (3, True), (0, True), (700, False)):   # 2: an empty first part
        monkeypatch.setenv("RC1_NO_FORK", "" if fork else "1")
        sp_n = spec(n=n)
        ref_stats = PoolStats()
        ref = "".join(pool_item_lines(build_pool(tasks, pack, sp_n, ref_stats)))
        stats, written, _, sha, _ = _write_pool(tasks, pack, sp_n, tmp_path / "pool.jsonl", False)
        assert (tmp_path / "pool.jsonl").read_text(encoding="utf-8") == ref and written == n
        assert sha == sha256_file(tmp_path / "pool.jsonl")
        assert stats.as_dict() == ref_stats.as_dict()
        assert list(stats.clarify) == list(ref_stats.clarify)


def test_calc_steps_reads_solution_lines():
    steps = ["Natalia sold 48/2 = 24 clips in May.", "She earned 0.2 x 50 = $10.", "Total 1,000 + 24 = 1,024.",
             "Wrong 2+2 = 5."]
    assert calc_steps(steps) == [("48 / 2", "24"), ("0.2 * 50", "10"), ("1000 + 24", "1024")]


# ---------------------------------------------------------------- the stage
@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for var in ("MLFLOW_TRACKING_URI", "MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_ID"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tmp_path


def _data_dir(root: Path) -> str:
    """The bundled real sample, read as --data-dir reads any directory in the official layout (.gz files)."""
    return str(BUNDLED)


def test_build_pool_cli_exit_codes(store, capsys):
    base = ["build-pool", "--data-dir", _data_dir(store / "data"), "--out", "pool.jsonl", "--n", "50",
            "--templates_dir", str(PACK_V2), "--gates", str(REPO / "configs" / "gates.yaml")]
    for mix, msg in (("hotpotqa:0.5,squad:0.5", "unknown task 'squad'"), ("hotpotqa:0.5,gsm8k:0.3", "sums to 0.8"),
                     ("hotpotqa=1", "is not name:fraction")):
        assert run_cli([*base, "--mix", mix]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and msg in err[0]
    # --n is a ceiling: more than the data supplies at 3 poses an item exits 2 naming the task and the largest n
    assert run_cli([*base, "--n", "100000"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "task 'hotpotqa' runs short" in err[0] and "the largest n the data supports is 2800" in err[0]
    assert run_cli([*base, "--tools", "wiki,browser"]) == 2
    assert run_cli([*base, "--shadow", "missing.jsonl"]) == 2
    assert "--shadow missing.jsonl: file not found" in capsys.readouterr().err
    assert not Path("pool.jsonl").exists()


def test_build_pool_stage_logs_and_reuses(store):
    from mlflow.tracking import MlflowClient

    from rc1.stages import build_pool
    from rc1.stages import materialize_shadow
    from rc1.core.io import read_jsonl, sha256_file

    data = _data_dir(store / "data")
    gates = str(REPO / "configs" / "gates.yaml")
    sh = materialize_shadow.run(materialize_shadow.Config(data_dir=data, n=20, seed=5, stratify=True,
                                                          materialize="shadow.jsonl", dump_manifest="manifest.json",
                                                          gates=gates))
    kw = dict(data_dir=data, out="pool.jsonl", n=120, mix="hotpotqa:0.45,strategyqa:0.30,gsm8k:0.25", max_turns=6,
              clarify_rate=0.3, tools="wiki,calc", templates_dir=str(PACK_V2), shadow="shadow.jsonl", seed=3,
              gates=gates)
    first = build_pool.run(build_pool.Config(**kw), progress=False)
    assert first["n"] == 120 and not first["reused"]
    run = MlflowClient().get_run(first["run_id"])
    assert run.info.status == "FINISHED" and run.data.tags["rc1.stage"] == "build_pool"
    assert run.data.tags["sha256.pool.jsonl"] == sha256_file("pool.jsonl")
    assert run.data.metrics["n.hotpotqa"] == 54 and run.data.metrics["clarify_rate"] == pytest.approx(0.3)
    assert {i.dataset.name for i in run.inputs.dataset_inputs} >= {"data.hotpotqa", "shadow", "templates"}
    shadow_ids = {r["id"] for r in read_jsonl("shadow.jsonl")}
    assert not shadow_ids & {s["source_id"] for s in read_jsonl("pool.jsonl")} and len(shadow_ids) == sh["n"] == 20
    Path("pool.jsonl").unlink()
    again = build_pool.run(build_pool.Config(**kw), progress=False)
    assert again["reused"] and sha256_file("pool.jsonl") == run.data.tags["sha256.pool.jsonl"]
