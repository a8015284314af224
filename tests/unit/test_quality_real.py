"""The leak check on a pool built from the real datasets (../shared/data; skipped without them):
a clean pool has no leak, and shadow questions planted verbatim and lightly reworded are all found."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from rc1.core.config import load_thresholds
from rc1.quality.validate import validate_pool
from rc1.core.text import normalize

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"
MIX = {"hotpotqa": 0.45, "strategyqa": 0.30, "gsm8k": 0.25}

pytestmark = pytest.mark.skipif(not (DATA / "gsm8k" / "train.jsonl").is_file(), reason="../shared/data not present")


def reword(question: str) -> str:
    """A light rewording: lower case, no punctuation, the last word swapped for another."""
    words = normalize(question).split()
    return " ".join(words[:-1] + ["exactly"])


@pytest.fixture(scope="module")
def real():
    from rc1.data import load_tasks
    from rc1.data.plan import PoolSpec
    from rc1.data.pool import build_pool
    from rc1.data.shadow_set import select_shadow
    from rc1.data.templates import load_pack

    tasks = {t: load_tasks(t, DATA).records for t in MIX}
    shadow = select_shadow(tasks, 60, seed=20250820, mix=MIX)
    exclude = frozenset([s["id"] for s in shadow] + [normalize(s["question"]) for s in shadow])
    spec = PoolSpec(n=1500, mix=MIX, clarify_rate=0.30, tools=("wiki", "calc"), seed=7, exclude=exclude)
    pool = list(build_pool(tasks, load_pack(REPO / "templates" / "pack_v2"), spec))
    return pool, shadow


def test_clean_real_pool_has_no_leak_and_planted_questions_are_all_found(real):
    pool, shadow = real
    gate = load_thresholds(REPO / "configs" / "gates.yaml").validate_pool
    pairs = [(s["id"], s["question"]) for s in shadow]
    clean = validate_pool(iter(pool), gate=gate, mix=MIX, shadow=pairs, baseline=pool[:500])
    assert clean.leaks == []

    planted = copy.deepcopy(pool)
    targets = [s for t in MIX for s in [x for x in shadow if x["task"] == t
                                          and len(normalize(x["question"]).split()) >= 8][:4]]
    assert len(targets) == 12
    expected = {}
    for k, s in enumerate(targets):
        for how, text in (("verbatim", s["question"]), ("reworded", reword(s["question"]))):
            host = copy.deepcopy(next(p for p in pool if p["task"] == s["task"] and p["dialogue"][-1]["role"] == "user"))
            host["id"] = f"planted-{how}-{k}"
            host["dialogue"][-1]["content"] = f"Quick one from my notes. {text} Thanks!"
            planted.insert(len(planted) * (k + 1) // (len(targets) + 1), host)
            expected[host["id"]] = s["id"]
    res = validate_pool(iter(planted), gate=gate, mix=MIX, shadow=pairs, baseline=pool[:500])
    found = {l["seed_id"]: l["shadow_id"] for l in res.leaks}
    assert found == expected
    assert next(c for c in res.checks if c["name"] == "leak_count")["pass"] is False
