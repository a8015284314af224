"""Shared pytest fixtures (several helpers append here: add fixtures, don't replace the file)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# tests/ mirrors the layout (unit, stages, flows) and support/ holds the fake servers; each imports as a
# top-level module, as the tests share their helpers
for _part in ("support", "unit", "stages", "flows"):
    sys.path.insert(0, str(Path(__file__).parent / _part))


# ---------------------------------------------------------------- scoring: fake OpenAI-compatible judge server
@pytest.fixture
def fake_judge_server():
    """Factory: fake_judge_server(**faults) -> a started FakeJudgeServer on 127.0.0.1 (stopped after the test)."""
    from fake_openai_server import FakeJudgeServer

    started: list[FakeJudgeServer] = []

    def start(**kwargs) -> FakeJudgeServer:
        kwargs.setdefault("max_lifetime_s", 120.0)
        srv = FakeJudgeServer(**kwargs).start()
        started.append(srv)
        return srv

    yield start
    for srv in started:
        srv.stop()


@pytest.fixture
def scorer_env(monkeypatch, tmp_path):
    """A clean scorer environment: judge cache in tmp, no scorer variables inherited, MLFLOW_TRACKING_URI unset
    (chdir to the returned tmp path for an MLflow store there)."""
    for var in ("SCORER_PROVIDER", "SCORER_BASE_URL", "SCORER_API_KEY", "SCORER_MODEL", "REWARD_LIVE_MODE",
                "RUN_MODE", "SCORER_RATE", "SCORER_BURST", "SCORER_TIMEOUT_S", "SCORER_JSON_MODE", "SCORER_TPM",
                "SCORER_MAX_CONCURRENCY", "SCORER_SAMPLES",
                "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "GEMINI_API_KEY", "MLFLOW_TRACKING_URI"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("RC1_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path
