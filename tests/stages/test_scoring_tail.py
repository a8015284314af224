"""Throughput through a long tail, through the real command: replies that stall far past the recent latency are
abandoned after the adaptive timeout (p95 x 3, bounded) and sent again, instead of holding a slot for the whole
stall; every call the server received is counted (calls, abandoned), and each sample is cached once."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from rc1_cli import run_cli

pytestmark = pytest.mark.timeout(240)
REPO = Path(__file__).resolve().parents[2]


def test_stalled_replies_are_abandoned_and_sent_again(scorer_env, monkeypatch, fake_judge_server):
    monkeypatch.chdir(scorer_env)
    stalls = {45: "stall", 46: "stall", 52: "stall"}   # well after 20 replies: the timeout is known by then
    srv = fake_judge_server(delay_s=0.01, schedule=stalls, stall_s=40.0)
    for k, v in {"SCORER_PROVIDER": "openai-compatible", "SCORER_BASE_URL": srv.url, "SCORER_MODEL": "fake",
                 "SCORER_API_KEY": "sk-test", "RUN_MODE": "prod", "SCORER_RATE": "200", "SCORER_BURST": "10"}.items():
        monkeypatch.setenv(k, v)   # SCORER_TIMEOUT_S unset: 60 s, longer than the stalls
    t0 = time.monotonic()
    assert run_cli(["probe-scorer", "--n", "20", "--live", "--gates", str(REPO / "configs" / "gates.yaml")]) == 0
    assert time.monotonic() - t0 < 25, "a stalled reply held the run for the whole stall"
    client = MlflowClient()
    (run,) = client.search_runs([client.get_experiment_by_name("rc1").experiment_id],
                                "tags.`rc1.stage` = 'probe_scorer'")
    m = run.data.metrics
    assert m["abandoned"] >= 3 and m["failed"] == 0 and m["answered"] == 60   # (>: a loaded machine's slow reply)
    assert m["calls"] == srv.stats()["requests"]          # nothing sent that is not counted
    with sqlite3.connect(scorer_env / "cache" / "judge_cache.sqlite") as con:
        assert con.execute("SELECT COUNT(*) FROM samples").fetchone()[0] == 60   # each sample cached once
