"""Open a local HTML file in Debian's headless Chromium: the DOM after scripts ran, and a screenshot."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


def chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        pytest.skip("chromium is not installed (.ci/run installs Debian's chromium)")
    return exe


def _run(args: list[str], page: Path | str, timeout: float = 90.0, budget_ms: int = 5000) -> subprocess.CompletedProcess:
    base = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", f"--virtual-time-budget={budget_ms}", "--allow-file-access-from-files"]
    target = page if isinstance(page, str) else page.resolve().as_uri()
    return subprocess.run(base + args + [target], capture_output=True, text=True, timeout=timeout)


def dump_dom(page: Path) -> str:
    res = _run(["--dump-dom"], page)
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout


def dump_url(url: str, budget_ms: int = 20000) -> str:
    """The DOM of a live page (a single-page app such as the MLflow UI) once its scripts had `budget_ms` to run."""
    res = _run(["--dump-dom"], url, timeout=180.0, budget_ms=budget_ms)
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout


def screenshot(page: Path, out: Path, size: str = "1100,2400") -> Path:
    res = _run([f"--screenshot={out}", f"--window-size={size}"], page)
    assert res.returncode == 0 and out.is_file(), res.stderr[-2000:]
    return out
