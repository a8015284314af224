"""Template packs: v2 has what the issue asks for; a bad pack file is one line naming the file and key."""

from __future__ import annotations

import json
import shutil
import string
from collections import Counter
from pathlib import Path

import pytest

from rc1.data import bundled_tasks
from rc1.core.errors import Rc1Error
from rc1.data.plan import PoolSpec
from rc1.data.pool import build_pool
from rc1.data.templates import load_pack
from rc1.core.text import ngrams, words

PACKS = Path(__file__).resolve().parents[2] / "templates"


def test_pack_v2_coverage():
    pack = load_pack(PACKS / "pack_v2")
    s = pack.summary()
    assert all(s["per_category"][c] >= 6 for c in ("math", "multihop", "clarification")), s
    assert len(s["roles"]) >= 4 and len(s["styles"]) >= 3
    assert set(s["tools"]) == {"wiki", "calc"} and "worked" in s["modes"]
    for task in ("hotpotqa", "strategyqa", "gsm8k"):
        assert pack.for_task(task, clarify=False) and pack.for_task(task, clarify=True)
    assert all(t.hidden_reply for t in pack.templates if t.clarify)
    for task in ("hotpotqa", "strategyqa", "gsm8k"):   # every task can be posed at every difficulty
        assert pack.for_task(task, clarify=False, difficulty="easy")
        assert all(t.mode == "support" for t in pack.templates if t.difficulty == "easy")   # open-book
        assert pack.for_task(task, clarify=False, max_turns=6, difficulty="medium")
        assert pack.for_task(task, clarify=True, difficulty="hard")
    assert pack.for_task("gsm8k", clarify=False, max_turns=1)  # single-turn templates exist
    assert all(t.mode != "worked" for t in pack.for_task("gsm8k", clarify=False, max_turns=4))


def _template_wording(pack) -> list[list[str]]:
    """Every piece of user-facing text the pack owns (openers, closers, evidence headers, the literal text of
    user and worked_user patterns), as word lists."""
    out = [o for r in pack.roles for o in r.openers] + [c for s in pack.styles for c in s.closers]
    out += list(pack.evidence_headers)
    # each pattern once, however many templates share it (the medium templates share the worked lookups)
    for pattern in {p for t in pack.templates for p in (*t.user, *t.worked_user)}:
        out += [lit for lit, _, _, _ in string.Formatter().parse(pattern) if lit.strip()]
    return [w for w in map(words, out) if w]


def test_pack_v2_wording_is_varied():
    # distinct-2 of the pool's user turns rests on this wording; these floors sit below what the pack has
    # (59+ openers a role, 44+ closers a style, 48 headers, ~2100 distinct word bigrams; v2 before had 6, 4, 10, 230)
    pack = load_pack(PACKS / "pack_v2")
    assert min(len({o for o in r.openers if o.strip()}) for r in pack.roles) >= 50
    assert min(len({c for c in s.closers if c.strip()}) for s in pack.styles) >= 40
    assert len(set(pack.evidence_headers)) >= 40
    assert min(len(set(t.user)) for t in pack.templates) >= 8
    assert min(len(set(t.worked_user)) for t in pack.templates if t.mode == "worked") >= 20
    bigrams = [g for w in _template_wording(pack) for g in ngrams(w, 2)]
    assert len(set(bigrams)) >= 1800 and len(set(bigrams)) / len(bigrams) >= 0.8


def test_pool_uses_the_varied_wording():
    """A built pool really shows that wording: many different openers and closers in 1000 seeds, and every task
    posed at every difficulty in the target's shares."""
    pack = load_pack(PACKS / "pack_v2")
    tasks = {t: bundled_tasks(t)[:150] for t in ("hotpotqa", "strategyqa", "gsm8k")}
    spec = PoolSpec(n=1000, mix={"hotpotqa": 0.45, "strategyqa": 0.30, "gsm8k": 0.25}, clarify_rate=0.3,
                    tools=("wiki", "calc"), seed=5)
    openers = {r.id: sorted({o for o in r.openers if o}, key=len, reverse=True) for r in pack.roles}
    closers = {s.id: sorted({c for c in s.closers if c}, key=len, reverse=True) for s in pack.styles}
    question = {t["id"]: t["question"] for items in tasks.values() for t in items}
    seen_o, seen_c, poses = set(), set(), Counter()
    for pool_item in build_pool(tasks, pack, spec):
        users = [t["content"] for t in pool_item["dialogue"] if t["role"] == "user"]
        o = next((x for x in openers[pool_item["role"]] if users[0].startswith((x + " ", x + "\n"))), None)
        c = next((x for x in closers[pool_item["style"]] if users[-1].endswith((" " + x, "\n" + x))), None)
        seen_o.add((pool_item["role"], o))
        seen_c.add((pool_item["style"], c))
        poses[pool_item["task"], pool_item["pose"]] += 1
        assert question[pool_item["source_id"]]
    assert len(seen_o) >= 120 and len(seen_c) >= 80, (len(seen_o), len(seen_c))
    for task, share in spec.mix.items():   # the poses follow the target (a GSM8K item without a calculator step
        for pose, want in spec.target.items():   # has no medium template: it takes another pose)
            assert abs(poses[task, pose] / (1000 * share) - want) <= 0.08, (task, pose, poses)


def test_pack_v1_is_the_plain_baseline():
    pack = load_pack(PACKS / "pack_v1")
    assert len(pack.roles) == 1 and len(pack.styles) == 1
    assert not any(t.clarify or t.tools or t.mode != "plain" for t in pack.templates)
    assert pack.summary()["per_category"]["clarification"] == 0
    assert pack.note_sources == ()   # optional: a pack without them writes plain note lines


def _broken(tmp_path: Path, file: str, edit) -> Path:
    d = tmp_path / "pack"
    shutil.copytree(PACKS / "pack_v2", d)
    p = d / file
    data = json.loads(p.read_text())
    edit(data)
    p.write_text(json.dumps(data))
    return d


@pytest.mark.parametrize("file, edit, message", [
    ("math.json", lambda d: d["templates"][0]["user"].insert(0, "{question} {nonsense}"),
     r"math\.json: key 'templates\[0\]\(math_calc_direct\)\.user\[0\]': unknown placeholder \{nonsense\}"),
    ("multihop.json", lambda d: d["templates"][1].pop("category"),
     r"multihop\.json: key 'templates\[1\]\(mh_direct\)\.category': missing"),
    ("clarification.json", lambda d: d["templates"][0].update(hidden_reply=["no fact here"]),
     r"clarification\.json: key 'templates\[0\]\(cl_bare\)\.hidden_reply\[0\]': needs placeholder \{fact\}"),
    ("multihop.json", lambda d: d["templates"][0].update(tasks=["squad"]), r"unknown task 'squad'"),
    ("multihop.json", lambda d: d["templates"][0].update(tools=["browser"]), r"unknown tool 'browser'"),
    ("math.json", lambda d: d["templates"][2].update(user=["{question} without evidence"]),
     r"needs placeholder \{evidence\}"),
    ("multihop.json", lambda d: d["templates"][0].update(difficulty="trivial"),
     r"multihop\.json: key 'templates\[0\]\(mh_lookup\)\.difficulty': 'trivial' is not one of easy, medium, hard"),
    ("multihop.json", lambda d: d["templates"][0].update(difficulty="easy"),
     r"key 'templates\[0\]\(mh_lookup\)\.difficulty': an easy \(open-book\) template gives the evidence: mode 'support'"),
    ("roles.json", lambda d: d["roles"][1].update(id="student"), r"roles\.json: key 'roles': duplicate id 'student'"),
    ("styles.json", lambda d: d["styles"][0].update(system="be brief"),
     r"styles\.json: key 'styles\[0\]\(concise\)\.system': expected a list, got str"),
    ("pack.json", lambda d: d["system"]["answer"].pop("gsm8k"), r"pack\.json: key 'system\.answer\.gsm8k': missing"),
    ("pack.json", lambda d: d["note_sources"].append(3), r"pack\.json: key 'note_sources\[6\]': expected a string, got int"),
])
def test_bad_pack_names_file_and_key(tmp_path, file, edit, message):
    with pytest.raises(Rc1Error, match=message):
        load_pack(_broken(tmp_path, file, edit))


def test_bad_json_and_missing_dir(tmp_path):
    d = tmp_path / "pack"
    shutil.copytree(PACKS / "pack_v2", d)
    (d / "math.json").write_text('{"templates": [')
    with pytest.raises(Rc1Error, match=r"math\.json: line 1: invalid JSON"):
        load_pack(d)
    with pytest.raises(Rc1Error, match="template pack directory not found"):
        load_pack(tmp_path / "nope")
