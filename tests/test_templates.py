"""Template packs: v2 has what the issue asks for; a bad pack file is one line naming the file and key."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rc1.errors import Rc1Error
from rc1.templates import load_pack

PACKS = Path(__file__).resolve().parents[1] / "templates"


def test_pack_v2_coverage():
    pack = load_pack(PACKS / "pack_v2")
    s = pack.summary()
    assert all(s["per_category"][c] >= 6 for c in ("math", "multihop", "clarification")), s
    assert len(s["roles"]) >= 4 and len(s["styles"]) >= 3
    assert set(s["tools"]) == {"wiki", "calc"} and "worked" in s["modes"]
    for task in ("hotpotqa", "strategyqa", "gsm8k"):
        assert pack.for_task(task, clarify=False) and pack.for_task(task, clarify=True)
    assert all(t.hidden_reply for t in pack.templates if t.clarify)
    assert pack.for_task("gsm8k", clarify=False, max_turns=1)  # single-turn templates exist
    assert all(t.mode != "worked" for t in pack.for_task("gsm8k", clarify=False, max_turns=4))


def test_pack_v1_is_the_plain_baseline():
    pack = load_pack(PACKS / "pack_v1")
    assert len(pack.roles) == 1 and len(pack.styles) == 1
    assert not any(t.clarify or t.tools or t.mode != "plain" for t in pack.templates)
    assert pack.summary()["per_category"]["clarification"] == 0


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
    ("roles.json", lambda d: d["roles"][1].update(id="student"), r"roles\.json: key 'roles': duplicate id 'student'"),
    ("styles.json", lambda d: d["styles"][0].update(system="be brief"),
     r"styles\.json: key 'styles\[0\]\(concise\)\.system': expected a list, got str"),
    ("pack.json", lambda d: d["system"]["answer"].pop("gsm8k"), r"pack\.json: key 'system\.answer\.gsm8k': missing"),
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
