"""Review: stage reuse trusts only what a run signed. A teammate who can write the tracking store (MlflowClient) edits
a finished run that a later stage would reuse: a passing report and a poisoned balanced pool logged over its own,
their sha256 tags reset, rc1.passed=true. Reused, the preflight would go on with the forged verdict and sign the
poisoned pool as what the gate trains on; the run's statement says otherwise, so it is computed again."""

from __future__ import annotations

import json

from mlflow.tracking import MlflowClient

from rc1.core.io import read_json, sha256_file, write_json, write_jsonl
from test_difficulty import graded_pool
from test_difficulty_cli import _cmd, store  # noqa: F401 - store is a fixture
from rc1_cli import run_cli


def test_a_run_edited_in_the_store_is_never_reused(store, capsys):
    pool = graded_pool(10)
    for s in pool:
        s["context"] = []            # no evidence: the difficulty gate fails (exit 2)
    write_jsonl(store / "pool.jsonl", pool)
    assert run_cli(_cmd(str(store / "pool.jsonl"))) == 2
    report = read_json(store / "out" / "difficulty_report.json")
    run_id = report["run_id"]

    forged = store / "forged"
    forged.mkdir()
    passing = {**report, "passed": True, "checks": [{**c, "pass": True} for c in report["checks"]]}
    poisoned = [{**pool[0], "id": "poisoned", "difficulty": "hard"}]
    client = MlflowClient()
    for path in (write_json(forged / "difficulty_report.json", passing), forged / "balanced.jsonl"):
        if path.suffix == ".jsonl":
            write_jsonl(path, poisoned)
        client.log_artifact(run_id, str(path))
        client.set_tag(run_id, f"sha256.{path.name}", sha256_file(path))
    client.set_tag(run_id, "rc1.passed", "true")

    capsys.readouterr()
    assert run_cli(_cmd(str(store / "pool.jsonl"))) == 2        # computed again: the gate still fails
    err = capsys.readouterr()
    assert "reusing finished run" not in err.out + err.err
    balanced = [json.loads(line) for line in (store / "out" / "balanced.jsonl").read_text().splitlines()]
    assert "poisoned" not in {s["id"] for s in balanced}
    assert read_json(store / "out" / "difficulty_report.json")["run_id"] != run_id
