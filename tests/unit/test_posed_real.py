"""Real samples of unseen shapes: the shadow set leaves the pool most of each task's items, and the posed pool
passes the difficulty gate, distinct-2 and the 3-gram KL on them, measured as preflight measures."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

from rc1.data import bundled_tasks
from rc1.core.errors import Rc1Error
from rc1.core.io import read_json
from rc1.data.plan import PoolSpec, plan_pool
from rc1.data.shadow_set import capped_note, select_shadow, shadow_counts
from rc1.core.text import normalize
from rc1_cli import run_cli

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data"
MIX = {"hotpotqa": 0.45, "strategyqa": 0.30, "gsm8k": 0.25}
SHAPE = "hotpotqa=120,strategyqa=400,gsm8k=1319"   # the unseen sample of the issue: official formats, this shape
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data not present")


def _subsample(dst: Path, seed: int, frac: float | None = None, counts: str | None = None) -> Path:
    sys.path.insert(0, str(REPO / "benchmarks"))
    from real_subsample import parse_counts, write_subsample

    write_subsample(SHARED, dst, frac, seed, parse_counts(counts) if counts else None)
    return dst


def test_the_shadow_set_takes_at_most_a_third_of_a_task_and_the_rest_by_the_mix():
    records = {"hotpotqa": bundled_tasks("hotpotqa")[:120], "strategyqa": bundled_tasks("strategyqa")[:400],
               "gsm8k": bundled_tasks("gsm8k")}
    rows = select_shadow(records, 245, 20250820, True, MIX)
    assert Counter(r["task"] for r in rows) == {"hotpotqa": 40, "strategyqa": 112, "gsm8k": 93}  # the mix: 110/74/61
    assert len({r["id"] for r in rows}) == 245
    exclude = frozenset({r["id"] for r in rows} | {normalize(r["question"]) for r in rows})
    plan = plan_pool(records, PoolSpec(n=None, mix=MIX, exclude=exclude))
    assert len(plan.kept["hotpotqa"]) >= 80     # 10 were left when the set took 110 of the 120
    note = capped_note(245, MIX, {t: len(v) for t, v in records.items()})
    assert note == ("the shadow set takes at most 33% of a task's records: hotpotqa 40 of 120 (the mix asks 110); "
                    "the rest from strategyqa 112 (mix 74), gsm8k 93 (mix 61)")
    assert capped_note(245, MIX, {"hotpotqa": 478, "strategyqa": 1890, "gsm8k": 7473}) is None
    with pytest.raises(Rc1Error, match=r"needs 245 records, .*hotpotqa 120 records \(40 at most\), strategyqa 150 "
                                       r"records \(50 at most\), gsm8k 150 records \(50 at most\); together 140"):
        shadow_counts(245, MIX, {"hotpotqa": 120, "strategyqa": 150, "gsm8k": 150})


@needs_shared
def test_materialize_shadow_on_a_small_real_sample_says_what_it_capped(tmp_path, monkeypatch, capsys):
    data = _subsample(tmp_path / "data", 7, counts=SHAPE)
    monkeypatch.chdir(tmp_path)
    for var in ("MLFLOW_TRACKING_URI", "MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_ID"):
        monkeypatch.delenv(var, raising=False)
    assert run_cli(["materialize-shadow", "--data-dir", str(data), "--materialize", "s.jsonl",
                    "--dump-manifest", "m.json", "--gates", str(REPO / "configs" / "gates.yaml")]) == 0
    m = read_json("m.json")
    assert m["n"] == 245 and {t: v["n"] for t, v in m["per_task"].items()} == \
        {"hotpotqa": 40, "strategyqa": 112, "gsm8k": 93}
    assert "[rc1] materialize-shadow: the shadow set takes at most 33% of a task's records: hotpotqa 40 of 120" \
        in capsys.readouterr().err


@needs_shared
@pytest.mark.parametrize("name,seed,frac,counts", [("third", 1, 0.3333, None), ("shape", 7, None, SHAPE)])
def test_a_small_real_sample_poses_a_pool_that_passes_difficulty_and_distinct_2(tmp_path, name, seed, frac, counts):
    """Before: a third of ../shared/data failed clue_overlap_median.easy (.399) and the 120-HotpotQA shape the hard
    median (.269) with a 66-seed pool (the shadow set took 110 of its 120 HotpotQA items); distinct-2 .603 on the
    shape once the set was capped, while the hard pose repeated the easy pose's evidence (.632 now)."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from bench_posing import measure

    r = measure(str(_subsample(tmp_path / name, seed, frac, counts)))
    assert r["failed"] == [], r
    assert r["distinct_2"] >= 0.63 and r["kl_3gram_vs_v1"] >= 0.15, r   # issue 19's bar .63 (gate .60); gate .15
    assert 0.40 <= r["medians"]["easy"] <= 0.65 and 0.10 <= r["medians"]["hard"] <= 0.20
    assert r["n"] > 500


def test_gsm8k_clarification_seeds_take_every_clarification_template():
    """GSM8K's clarification templates are 'paragraphs' (a worked step as the start): they once applied to HotpotQA
    and StrategyQA only, so every GSM8K clarification seed fell back to the first one."""
    from rc1.data.pool import build_pool
    from rc1.data.templates import load_pack

    pack = load_pack(REPO / "templates" / "pack_v2")
    tasks = {"gsm8k": bundled_tasks("gsm8k")[:200]}
    pool_items = build_pool(tasks, pack, PoolSpec(n=300, mix={"gsm8k": 1.0}, clarify_rate=0.3, tools=("calc",), seed=3))
    used = {s["template_id"] for s in pool_items if s["needs_clarification"]}
    assert used == {t.id for t in pack.for_task("gsm8k", clarify=True)}
