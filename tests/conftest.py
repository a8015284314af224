"""Shared pytest fixtures (several helpers append here: add fixtures, don't replace the file)."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

# tests/ mirrors the layout (unit, stages, flows) and support/ holds the fake servers; each imports as a
# top-level module, as the tests share their helpers
for _part in ("support", "unit", "stages", "flows"):
    sys.path.insert(0, str(Path(__file__).parent / _part))

# rc1 signs its evidence (rc1.trust): the dev key it creates on first use lives in a throwaway config dir for
# the whole session (subprocesses inherit it), never in the developer's ~/.config/rc1; no signing key or trust file
# comes in from the environment (a prod test makes its own: the `prod_key` fixture)
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="rc1-test-config-")

# one torch/BLAS thread in this process too, as the rc1 CLI sets for its own (rc1.cli.main): the test modules import
# torch at collection, before any in-process `rc1` command could set it, and torch then trained the tiny model in
# every in-process test with one thread per core, spinning against the servers and subprocesses a test runs beside it
os.environ.setdefault("OMP_NUM_THREADS", "1")
if "torch" in sys.modules:   # imported by a plugin before this file: its thread pool is already sized
    sys.modules["torch"].set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
for _var in ("RC1_SIGNING_KEY", "RC1_TRUST"):
    os.environ.pop(_var, None)


def pytest_xdist_auto_num_workers(config) -> int:
    """`-n auto` (pyproject's addopts): one worker per core this process may use, at most 4 (each worker's tests start
    servers, vLLM engines and training processes of their own: memory, not cores, bounds more)."""
    return max(1, min(len(os.sched_getaffinity(0)), 4))


def pytest_collection_modifyitems(config, items) -> None:
    """The files holding a slow test first, in their order, then the rest: under xdist's --dist loadfile the workers
    take files in this order, so the long ones start early and no worker is left with one at the end."""
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow)


@pytest.fixture
def prod_key(monkeypatch, tmp_path):
    """A prod signing key (RC1_SIGNING_KEY) whose public key ./configs/trust.yaml lists for prod, that file made the
    trust root (RC1_TRUST); call it once the test is in its project directory. Returns the key file."""
    import yaml
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from rc1.trust.keys import public_b64

    def make(name: str = "test-release", modes: tuple[str, ...] = ("prod",)) -> Path:
        key = Ed25519PrivateKey.generate()
        path = tmp_path / f"{name}.pem"
        path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
        trust = Path("configs/trust.yaml")
        doc = yaml.safe_load(trust.read_text()) or {}
        doc["keys"] = [*(doc.get("keys") or []), {"name": name, "public_key": public_b64(key.public_key()),
                                                   "modes": list(modes)}]
        trust.write_text(yaml.safe_dump(doc))
        monkeypatch.setenv("RC1_SIGNING_KEY", str(path))
        monkeypatch.setenv("RC1_TRUST", str(trust.resolve()))   # the trust root is explicit (never the cwd's)
        return path

    return make


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
