"""docs/prod.md step 5 on a dataset too small for prod: the round's data steps fail, the live judge is not paid for
(its steps are not run, and say so), and the refusal is one line naming pool_size and what to do."""

from __future__ import annotations

import shutil
from pathlib import Path

from rc1_cli import run_cli

REPO = Path(__file__).resolve().parents[2]
BUNDLED = REPO / "rc1" / "data" / "bundled"


def test_a_prod_preflight_on_too_small_a_dataset_refuses_in_one_line_without_judge_calls(
        tmp_path, monkeypatch, capsys, scorer_env, fake_judge_server, prod_key):
    root = tmp_path / "proj"
    for d in ("configs", "templates"):
        shutil.copytree(REPO / d, root / d)
    data = tmp_path / "data"   # a configured dataset in the official layout: the real sample's files, 1.8k records
    for task in ("hotpotqa", "strategyqa", "gsm8k"):
        shutil.copytree(BUNDLED / task, data / task)
    monkeypatch.chdir(root)
    prod_key()
    judge = fake_judge_server()
    for k, v in {"SCORER_PROVIDER": "openai-compatible", "SCORER_BASE_URL": judge.url, "SCORER_MODEL": "judge",
                 "SCORER_API_KEY": "sk-test", "OMP_NUM_THREADS": "1"}.items():
        monkeypatch.setenv(k, v)

    assert run_cli(["preflight", "--mode", "prod", "--data-dir", str(data)]) == 2
    err = capsys.readouterr().err.splitlines()
    for step in ("probe_scorer", "judge_robustness", "assert_not_simulated"):
        assert any(line.startswith(f"[rc1] round 1 · skip {step} (not run: validate_pool") for line in err), err
    assert judge.stats()["requests"] == 0   # nothing billed for a pool the next run replaces
    (line,) = [line for line in err if line.startswith("rc1: ")]
    assert line.startswith("rc1: preflight failed: round 1 did not pass (prod; run ")
    assert "validate_pool.pool_size=" in line and "(needs >= 20000)" in line
    assert "next: the pool follows the data" in line and "point --data-dir at a dataset" in line
    assert "gate failed" not in "\n".join(err)
