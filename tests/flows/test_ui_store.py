"""What a user of the MLflow UI meets, through a real `mlflow server`'s REST API: the experiment's view tag, the
README's search strings (each finds the runs it promises), a refused promotion as a FAILED run, and the UI links
rc1 prints. The runs are written by rc1's own stage_run (no training: the end-to-end numbers are in
test_pipeline.py)."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import mlflow
import pytest

from rc1.core.errors import CheckFailed
from rc1.tracking import stage_run
from rc1.tracking.ui import ui_url
from mlflow_server import mlflow_server, rest

REPO = Path(__file__).resolve().parents[2]


def readme_searches() -> list[tuple[str, str]]:
    """(filter, what it finds) from the README's "Finding runs" block."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"### Finding runs\n.*?```text\n(.*?)```", text, re.S)
    assert block, "README.md has no '### Finding runs' block of search strings"
    rows = [line.split("  #", 1) for line in block.group(1).splitlines() if line.strip()]
    return [(f.strip(), what.strip()) for f, what in rows]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("ui")
    with pytest.MonkeyPatch.context() as mp, mlflow_server(root / "server") as uri:
        mp.chdir(root)
        for var in ("MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_ID", "RUN_MODE"):
            mp.delenv(var, raising=False)
        mp.setenv("MLFLOW_TRACKING_URI", uri)
        runs = _store()
        yield uri, runs
        mlflow.set_tracking_uri(None)


def _store() -> dict[str, str]:
    """A dev chain whose evaluation failed (and the promotion it refused), a prod gate that passed."""
    ids = {}
    with stage_run("preflight", params={}, reuse=False, tags={"rc1.mode": "dev"}) as pf:
        pf.set_tags({"rc1.round2_pass": "true"})
    ids["preflight"] = pf.run_id
    for mode, verdict in (("dev", 0.0), ("prod", 1.0)):
        with stage_run("gate", params={}, reuse=False, tags={"rc1.mode": mode}) as g:
            for seed in (1, 2):
                with stage_run("train", params={"rc1.seed": seed}, reuse=False, tags={"rc1.seed": seed}) as t:
                    t.log_metrics({"reward": 0.3}, step=1)
                g.log_metrics({f"heldout_reward.seed_{seed}": 0.3})
            with contextlib.suppress(CheckFailed), stage_run("evaluate", params={}, reuse=False) as ev:
                ev.verdict([{"name": "hard_success_gain_pp", "value": 5.0 * verdict, "threshold": ">= 5",
                             "pass": bool(verdict)}])
            g.log_metrics({"rc1_verdict": verdict})
        ids[f"gate.{mode}"], ids[f"train.{mode}"] = g.run_id, t.run_id
    with contextlib.suppress(CheckFailed), stage_run("promote", params={}, reuse=False, refusal_fails=True) as p:
        p.verdict([{"name": "link.evaluate", "value": "failed the RC1 gates", "threshold": "holds", "pass": False}])
    ids["promote"] = p.run_id
    return ids


def _search(uri: str, filter_string: str) -> list[dict]:
    exp_ids = [e["experiment_id"] for e in rest(uri, "experiments/search", max_results=100)["experiments"]]
    return rest(uri, "runs/search", {"experiment_ids": exp_ids, "filter": filter_string,
                                     "max_results": 1000}).get("runs", [])


def _tags(run: dict) -> dict[str, str]:
    return {t["key"]: t["value"] for t in run["data"].get("tags", [])}


def test_the_experiment_carries_the_model_training_kind(server):
    uri, ids = server
    run = rest(uri, "runs/get", run_id=ids["gate.dev"])["run"]
    exp = rest(uri, "experiments/get", experiment_id=run["info"]["experiment_id"])["experiment"]
    assert {t["key"]: t["value"] for t in exp["tags"]}["mlflow.experimentKind"] == "custom_model_development"


def test_ui_links_open_the_run_in_the_model_training_view(server):
    uri, ids = server
    exp = rest(uri, "runs/get", run_id=ids["gate.dev"])["run"]["info"]["experiment_id"]
    assert ui_url(ids["gate.dev"]) == f"{uri}/#/experiments/{exp}/runs/{ids['gate.dev']}?workflowType=machine_learning"


@pytest.mark.parametrize("filter_string, what", readme_searches())
def test_every_readme_search_finds_what_it_promises(server, filter_string, what):
    uri, ids = server
    found = _search(uri, filter_string)
    assert found, f"{filter_string!r} ({what}) found no run"
    stage = re.search(r"tags\.`rc1\.stage` = '(\w+)'", filter_string)
    if stage:
        assert {_tags(r)["rc1.stage"] for r in found} == {stage.group(1)}
    mode = re.search(r"tags\.`rc1\.mode` = '(\w+)'", filter_string)
    if mode:
        assert {_tags(r)["rc1.mode"] for r in found} == {mode.group(1)}
    verdict = re.search(r"metrics\.rc1_verdict = (\d)", filter_string)
    if verdict:
        assert {r["info"]["run_id"] for r in found} == {ids["gate.dev" if verdict.group(1) == "0" else "gate.prod"]}


def test_a_refused_promotion_is_a_failed_run_holding_its_checks(server):
    uri, ids = server
    (run,) = [r for r in _search(uri, "attributes.status = 'FAILED'") if r["info"]["run_id"] == ids["promote"]]
    assert _tags(run)["rc1.passed"] == "false"
    files = {f["path"] for f in rest(uri, "artifacts/list", run_id=ids["promote"]).get("files", [])}
    assert "checks.json" in files


def test_the_mlflow_ui_opens_rc1_links_on_the_runs_table(server):
    """In headless Chromium against the real server: MLflow 3.17's UI shows an experiment by the browser's workflow
    type, GenAI by default (its Overview page, "Detect Issues"), whatever the experiment's kind tag says; the links rc1
    prints (?workflowType=machine_learning) open the runs table, which lists the runs."""
    from headless_browser import dump_url

    uri, ids = server
    exp = rest(uri, "runs/get", run_id=ids["gate.dev"])["run"]["info"]["experiment_id"]
    link = ui_url(experiment_id=exp)
    assert link == f"{uri}/#/experiments/{exp}/runs?workflowType=machine_learning"
    runs_view = dump_url(link)
    assert re.search(r">\s*(gate|preflight|promote)\s*<", runs_view), "the runs table lists no rc1 run"
    assert "Detect Issues" not in runs_view
    default_view = dump_url(f"{uri}/#/experiments/{exp}")
    assert "Detect Issues" in default_view or "Overview" in default_view   # what a bare link opens on 3.17

