"""Start a real `mlflow server` (sqlite or any backend store URI, proxied artifacts) on 127.0.0.1 for a test."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator

from ports import free_port


@contextlib.contextmanager
def serving(cmd: list[str], ready_url: str, log_path: Path, timeout: float, **popen) -> Iterator[None]:
    """Start `cmd` (a server), wait until `ready_url` answers 200, and stop it (terminate, then kill) afterwards."""
    log = open(log_path, "w")
    env = dict(popen.pop("env", None) or os.environ)   # the interpreter's scripts (uvicorn, ...) on PATH, venv or not
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, **popen)
    try:
        deadline = time.time() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"{cmd[:4]} exited: {log_path.read_text()[-3000:]}")
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(ready_url, timeout=2) as r:
                    if r.status == 200:
                        break
            if time.time() > deadline:
                raise RuntimeError(f"{cmd[:4]} did not start in {timeout:.0f} s: {log_path.read_text()[-3000:]}")
            time.sleep(0.5)
        yield
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=15)
        if proc.poll() is None:
            proc.kill()
        log.close()


@contextlib.contextmanager
def mlflow_server(root: Path, timeout: float = 600.0, backend_store_uri: str | None = None,
                  env: dict[str, str] | None = None):
    """Yield the server's URI; its artifacts (proxied: clients upload and download through the server) live in
    root/artifacts, its runs in `backend_store_uri` (default: sqlite in root); `env`: the server's own settings
    (MLFLOW_WEBHOOK_*), where the test's MLFLOW_ variables are not passed on. Creating MLflow's tables on a fresh
    PostgreSQL database took 96 s on a loaded 2-core machine, hence the generous timeout."""
    root.mkdir(parents=True, exist_ok=True)
    port = free_port()
    # MLflow 3's job execution (GenAI scorers, prompt optimization, trace rollups: nothing rc1 calls) starts a job
    # runner and seven huey consumers beside the server, each a Python process importing mlflow (measured: 10
    # processes and 13-19 CPU s to ready with it, 3 and 12 CPU s without); the tracking and registry API is the same
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")},
           "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false", **(env or {})}
    uri = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "mlflow", "server", "--host", "127.0.0.1", "--port", str(port),
           "--backend-store-uri", backend_store_uri or f"sqlite:///{root / 'server.db'}",
           "--artifacts-destination", (root / "artifacts").as_uri(), "--workers", "1"]
    with serving(cmd, f"{uri}/health", root / "server.log", timeout, env=env, cwd=root):
        yield uri

def rest(uri: str, endpoint: str, body: dict | None = None, **query) -> dict:
    """One call to the server's REST API (GET with `query`, POST with `body`), as the UI makes it: the JSON reply."""
    import json
    import urllib.parse

    url = f"{uri}/api/2.0/mlflow/{endpoint}"
    if body is None:
        req = urllib.request.Request(f"{url}?{urllib.parse.urlencode(query)}")
    else:
        req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())
