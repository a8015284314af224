"""Issue 29: shadow questions disguised with zero-width spaces, soft hyphens and look-alike letters meet the shadow
set's guards as the plain questions do (rc1.core.text.skeleton), through the real commands on the bundled sample:
twins in the data are kept out of the pool (and so out of balanced.jsonl), and seeds posing them are leaks to
`rc1 validate-pool` (exit 2)."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from rc1.core.io import read_json, read_jsonl, write_jsonl
from rc1.data.sources import BUNDLED_DIR
from rc1_cli import run_cli

REPO = Path(__file__).resolve().parents[2]
GATES = str(REPO / "configs" / "gates.yaml")
LOOKALIKE = str.maketrans("aeopcxyi", "\u0430\u0435\u043e\u0440\u0441\u0445\u0443\u0456")   # Cyrillic look-alikes


def disguise(text: str, how: int) -> str:
    """The question as a person reads it, with every word disguised one way (0 zero-width spaces, 1 soft hyphens,
    2 Cyrillic look-alike letters, 3 all three and a combining accent)."""
    if how == 2:
        return text.translate(LOOKALIKE)
    mark = ("\u200b", "\u00ad", "\u200b\u00ad")[min(how, 2)]
    out = " ".join(w[:2] + mark + w[2:] if len(w) > 3 else w for w in text.split(" "))
    return out.translate(LOOKALIKE).replace("e", "e\u0301") if how == 3 else out


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for var in ("MLFLOW_TRACKING_URI", "MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_ID", "RUN_MODE"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path


def _sample_and_shadow(store: Path) -> tuple[Path, list[dict]]:
    """The templates and the bundled sample copied into `store`, the shadow set materialized: (the data directory,
    10 shadow GSM8K items)."""
    shutil.copytree(REPO / "templates", store / "templates")
    data = store / "data"
    shutil.copytree(BUNDLED_DIR, data, ignore=shutil.ignore_patterns("README.md", "LICENSE"))
    assert run_cli(["materialize-shadow", "--data-dir", str(data), "--materialize", "shadow.jsonl",
                    "--gates", GATES]) == 0
    return data, [r for r in read_jsonl(store / "shadow.jsonl") if r["task"] == "gsm8k"][:10]


def test_disguised_shadow_questions_are_kept_out_of_the_pool_and_caught_as_leaks(store, capsys):
    data, shadow = _sample_and_shadow(store)
    assert len(shadow) == 10
    # the data gains a disguised twin of each of 10 shadow GSM8K questions (new lines: other source ids)
    gsm = data / "gsm8k" / "train.jsonl.gz"
    lines = gzip.decompress(gsm.read_bytes()).decode().splitlines()
    twins = {f"gsm8k:{len(lines) + k}": disguise(r["question"], k % 4) for k, r in enumerate(shadow)}
    lines += [json.dumps({"question": q, "answer": "He has #### 7"}, ensure_ascii=False) for q in twins.values()]
    gsm.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))

    assert run_cli(["build-pool", "--data-dir", str(data), "--shadow", "shadow.jsonl", "--mix", "gsm8k:1.0",
                    "--n", "900", "--out", "pool.jsonl", "--gates", GATES]) == 0
    pool = read_jsonl(store / "pool.jsonl")
    used = {s["source_id"] for s in pool}
    assert len(pool) == 900 and len(used) > 700 and not used & set(twins)   # every other item is posed, no twin

    # seeds that pose the disguised questions (a pool built without the guard, or written by hand) are leaks
    planted = [{**pool[k], "id": f"planted-{k}", "dialogue": [
        *[t for t in pool[k]["dialogue"] if t["role"] == "system"], {"role": "user", "content": q}]}
        for k, q in enumerate(twins.values())]
    write_jsonl(store / "planted.jsonl", pool + planted)
    capsys.readouterr()
    assert run_cli(["validate-pool", "planted.jsonl", "--leak-check", "shadow.jsonl", "--mix", "gsm8k:1.0",
                    "--report", "out/validation_report.json", "--gates", GATES]) == 2
    leaks = [c for c in read_json(store / "out" / "validation_report.json")["checks"] if c["name"] == "leak_count"]
    assert leaks[0]["value"] >= 10 and not leaks[0]["pass"]
    found = {json.loads(x)["seed_id"] for x in (store / "out" / "leaks.jsonl").read_text().splitlines()}
    assert {p["id"] for p in planted} <= found
    assert read_json(store / "out" / "diversity_report.json")["format_chars"] > 50   # counted too

    # the balanced pool the gate trains on holds no twin
    assert run_cli(["difficulty", "--pool", "pool.jsonl", "--out", "out/m.jsonl", "--balanced", "out/b.jsonl",
                    "--report", "out/d.json", "--gates", GATES]) in (0, 2)
    balanced = {s["source_id"] for s in read_jsonl(store / "out" / "b.jsonl")}
    assert balanced and not balanced & set(twins)


# capital letters from Greek and Cyrillic (whose lower case is no look-alike of the Latin one: "Ν" -> "ν", read "v")
# and the question's numbers in Devanagari digits (a model reads "४८" as 48)
CAPITALS = str.maketrans("ABEHIKMNOPTXY", "\u0391\u0392\u0395\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a7"
                                          "\u03a5")
DIGITS = str.maketrans("0123456789", "\u0966\u0967\u0968\u0969\u096a\u096b\u096c\u096d\u096e\u096f")


def test_capital_look_alikes_and_digits_of_another_script_are_caught_as_leaks(store, capsys):
    """Review: every word-initial capital a Greek capital, every number in Devanagari digits, the lower-case letters
    Cyrillic look-alikes: still the shadow question, and still a leak to `rc1 validate-pool`."""
    data, shadow = _sample_and_shadow(store)
    assert run_cli(["build-pool", "--data-dir", str(data), "--shadow", "shadow.jsonl", "--mix", "gsm8k:1.0",
                    "--n", "40", "--out", "pool.jsonl", "--gates", GATES]) == 0
    pool = read_jsonl(store / "pool.jsonl")
    planted = [{**pool[k], "id": f"planted-{k}", "dialogue": [
        *[t for t in pool[k]["dialogue"] if t["role"] == "system"],
        {"role": "user", "content": r["question"].translate(CAPITALS).translate(DIGITS).translate(LOOKALIKE)}]}
        for k, r in enumerate(shadow)]
    write_jsonl(store / "planted.jsonl", pool + planted)
    capsys.readouterr()
    run_cli(["validate-pool", "planted.jsonl", "--leak-check", "shadow.jsonl", "--mix", "gsm8k:1.0",
             "--report", "out/validation_report.json", "--gates", GATES])
    found = {json.loads(x)["seed_id"] for x in (store / "out" / "leaks.jsonl").read_text().splitlines()}
    assert found == {p["id"] for p in planted}
