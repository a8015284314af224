"""`rc1 train` refuses what preflight would refuse (weights, pool, --fresh rows: exit 2, one line naming
file and line) before any model is loaded, and a NaN reward counts as a failed one."""

import json
import math
import shutil
from pathlib import Path

import pytest
from rc1_cli import run_cli

from rc1.core.config import DIMENSIONS
from rc1.core.errors import Rc1Error
from rc1.scoring.reward import RewardModel, RewardParams
from rc1.scoring.base import JudgeResult

ROOT = Path(__file__).resolve().parents[2]
POOL_ITEM = {"id": "hotpotqa:1", "task": "hotpotqa", "source_id": "1", "template_id": "t", "role": "r", "style": "s",
        "dialogue": [{"role": "user", "content": "Which city is on the Seine?"}], "needs_clarification": False,
        "hidden_info": None, "tools": ["wiki"], "expected_tool_calls": [], "answer": "Paris",
        "context": [["Paris", ["Paris is on the Seine."]]]}
TASK = {"id": "gsm8k:9", "task": "gsm8k", "question": "What is 2 + 2?", "answer": "4"}


@pytest.fixture
def ws(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.setenv("RUN_MODE", "dev")
    shutil.copytree(ROOT / "configs", tmp_path / "configs")
    # enough seeds for a held-out slice (training refuses a pool without one), all valid
    (tmp_path / "pool.jsonl").write_text("".join(json.dumps({**POOL_ITEM, "id": f"hotpotqa:{i}", "source_id": str(i)})
                                                 + "\n" for i in range(40)))
    return tmp_path


def train(*extra):
    return run_cli(["train", "--config", "configs/ppo_dev.yaml", "--pool", "pool.jsonl", "--max-steps", "1", *extra])


def refused(capsys, *needles):
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for n in needles:
        assert n in err, err


def write_weights(ws, **over):
    w = json.loads((ws / "configs" / "weights.json").read_text())
    w.update(over)
    (ws / "w.json").write_text(json.dumps(w))
    return "w.json"


def test_weights_preflight_would_refuse(ws, capsys):
    w = json.loads((ws / "configs" / "weights.json").read_text())
    assert train("--weights", write_weights(ws, correctness=w["correctness"] + 0.1)) == 2
    refused(capsys, "w.json", "sum_to_one")
    (ws / "nan.json").write_text(json.dumps({**w, "reasoning": float("nan")}))   # json.dumps writes NaN
    assert train("--weights", "nan.json") == 2
    refused(capsys, "nan.json", "reasoning")


@pytest.mark.parametrize("context, why", [
    ([["Paris"]], "context[0] must be [title, [sentences]]"),
    ("Paris is on the Seine.", "context must be a list"),
    ([["Paris", [1, 2]]], "context[0] sentences must be strings"),
])
def test_pool_with_malformed_context(ws, capsys, context, why):
    (ws / "pool.jsonl").write_text(json.dumps(POOL_ITEM) + "\n" + json.dumps({**POOL_ITEM, "context": context}) + "\n")
    assert train() == 2
    refused(capsys, "pool.jsonl: record 2", why)


def test_fresh_rows_are_checked_like_the_pool(ws, capsys):
    fresh = ws / "fresh.jsonl"
    fresh.write_text(json.dumps(TASK) + "\n" + json.dumps({**TASK, "dialogue": "hi"}) + "\n")
    assert train("--fresh", str(fresh)) == 2
    refused(capsys, "fresh.jsonl: record 2", "seed: missing key(s)")   # a task record with a dialogue key
    fresh.write_text(json.dumps({**TASK, "question": ""}) + "\n")
    assert train("--fresh", str(fresh)) == 2
    refused(capsys, "fresh.jsonl: record 1", "question must be a non-empty string")
    fresh.write_text(json.dumps({**TASK, "task": "chess"}) + "\n")
    assert train("--fresh", str(fresh)) == 2
    refused(capsys, "fresh.jsonl: record 1", "task 'chess'")


class _NaNJudge:
    """A Judge (rc1.scoring.base.Judge protocol) whose scores hold a NaN for every other request."""

    provider, live = "nan-judge", False

    def score_many(self, requests, progress=True):
        out = []
        for i, r in enumerate(requests):
            s = {d: 0.5 for d in DIMENSIONS}
            if i % 2 == 0:
                s["reasoning"] = math.nan
            out.append(JudgeResult(r, s, samples=[s]))
        return out

    def stats(self):
        return {}


def test_a_nan_reward_is_a_failed_one():
    pool_item = {**POOL_ITEM, "difficulty": "medium"}
    dialogue = pool_item["dialogue"] + [{"role": "assistant", "content": "Answer: Paris"}]
    rm = RewardModel(_NaNJudge(), {d: 1 / 7 for d in DIMENSIONS}, RewardParams(beta=0.05))
    assert rm.score([pool_item] * 2, [dialogue] * 2)[0] is None and rm.stats()["reward_failed"] == 1
    with pytest.raises(Rc1Error, match="judge failed on 2 of 3"):        # the > 50% stop fires
        rm.score([pool_item] * 3, [dialogue] * 3)
    with pytest.raises(Rc1Error, match="not a finite number"):
        RewardModel(_NaNJudge(), {**{d: 1 / 7 for d in DIMENSIONS}, "tool_use": math.nan})



def test_a_prod_config_trains_under_prod_rules(ws, monkeypatch, capsys):
    """Without --mode or $RUN_MODE, train follows its ppo config's run_mode, and so does all under it: a config
    saying prod refuses the heuristic judge, as `--mode prod` does (the one run-mode rule, rc1.core.settings)."""
    monkeypatch.delenv("RUN_MODE")
    dev = (ws / "configs" / "ppo_dev.yaml").read_text()
    (ws / "configs" / "ppo_prod_cpu.yaml").write_text(dev.replace("run_mode: dev", "run_mode: prod", 1))
    code = run_cli(["train", "--config", "configs/ppo_prod_cpu.yaml", "--pool", "pool.jsonl", "--max-steps", "1"])
    assert code == 2
    refused(capsys, "no judge provider", "prod mode")
