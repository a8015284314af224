"""benchmarks/bench_rollout.py on this CPU, the tiny shape: it times rollouts through rc1's trainer, prints tokens/s,
ms per decode step and the fraction of the weights-bandwidth bound, and says why a backend it cannot run is skipped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench_module import bench_module

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_bench_rollout_smoke_on_cpu(tmp_path):
    out = tmp_path / "rollout.json"
    proc = subprocess.run([sys.executable, str(REPO / "benchmarks" / "bench_rollout.py"), "--new-tokens", "8",
                           "--prompts", "2", "--group", "2", "--workdir", str(tmp_path / "models"), "--json", str(out),
                           "--variants", "transformers,transformers+merged,transformers+budget,continuous_batching"],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = {line.split()[0]: line for line in proc.stdout.splitlines() if line.split()}
    assert "tokens/s" in lines["transformers"] and "of it)" in lines["transformers"]
    assert "skipped: ppo.rollout_backend=continuous_batching but CUDA missing" in lines["continuous_batching"]
    assert "best without vllm:" in proc.stdout
    results = {r["variant"]: r for r in json.loads(out.read_text())["results"]}
    for name in ("transformers", "transformers+merged", "transformers+budget"):
        r = results[name]
        assert r["completions"] == 4 and 0 < r["tokens"] <= 4 * 8
        assert r["bandwidth_source"] == "cpu (measured copy)" and 0 < r["fraction_of_bound"] < 1
        assert r["weight_gb"] > 0 and r["ms_per_step"] > 0


def test_the_backends_comparison_ends_with_the_issue_s_line():
    """`--backends transformers,vllm` ends with one line: each variant's tokens/s and vLLM's speed-up over float32
    transformers (a variant without a figure says so)."""
    import argparse

    bench = bench_module("bench_rollout")
    args = argparse.Namespace(shape="smollm2", prompts=8, group=4, new_tokens=128)
    ran = [{"variant": "transformers+fp32", "backend": "transformers", "dtype": "float32", "tokens_per_s": 38.2},
           {"variant": "transformers+bf16", "backend": "transformers", "dtype": "bfloat16", "tokens_per_s": 140.4},
           {"variant": "vllm", "backend": "vllm", "dtype": "bfloat16", "tokens_per_s": 430.0}]
    assert bench.summary(args, "cpu", ran) == ("rollouts (smollm2, cpu, 8x4x128): transformers fp32 38 tok/s, "
                                               "transformers bf16 140 tok/s, vllm 430 tok/s (11.3x over fp32)")
    failed = ran[:2] + [{"variant": "vllm", "error": "boom"}]
    assert bench.summary(args, "cpu", failed).endswith("transformers bf16 140 tok/s, vllm failed")
    assert bench.backend_variants(["transformers", "vllm"], cuda=True) == ["transformers", "vllm"]


def test_rounds_give_medians_and_the_median_of_neighbour_ratios():
    """With --repeats each figure is the median over the rounds, and vLLM's speed-up the median of its ratio to
    float32 within each round (not a ratio of medians: a round slowed by a neighbour slows both of its figures)."""
    import argparse

    bench = bench_module("bench_rollout")
    args = argparse.Namespace(shape="smollm2", prompts=8, group=4, new_tokens=128)
    tps = [(100, 450), (60, 330), (120, 500)]   # a slow middle round: 5.5x, the others 4.5x and 4.2x
    results = [r for i, (t, v) in enumerate(tps) for r in (
        {"variant": "transformers+fp32", "backend": "transformers", "dtype": "float32", "tokens_per_s": t, "round": i},
        {"variant": "vllm", "backend": "vllm", "dtype": "bfloat16", "tokens_per_s": v, "round": i})]
    assert bench.summary(args, "cpu", results) == ("rollouts (smollm2, cpu, 8x4x128): transformers fp32 100 tok/s, "
                                                   "vllm 450 tok/s (4.5x over fp32)")
    assert bench.detail_lines(results) == ["vllm over transformers fp32 by round: 4.5x, 5.5x, 4.2x (median 4.5x)"]
    # a profiled variant's kernel floor, vLLM's against float32's median
    results[1] |= {"kernel_gemm_ms_per_step": 67.0, "kernel_attention_ms_per_step": 12.0,
                   "kernel_sampling_ms_per_step": 8.0, "kernel_rest_ms_per_step": 36.0,
                   "kernel_floor_tokens_per_s": 300.0}
    assert bench.detail_lines(results)[1] == ("vllm per decode step, profiled (ms): gemm 67, attention 12, sampling 8, "
                                              "rest 36; its kernels alone, as profiled (the profiler slows each op a "
                                              "little): 300 tok/s, 3.0x over transformers fp32")
    # float32 failed in the first round: its figure says from how many rounds, the ratio pairs only rounds with both,
    # and the per-round line compares with the same variant as the summary (not bf16, whose one figure came first)
    results[0] = {"variant": "transformers+fp32", "error": "boom", "round": 0}
    results.insert(1, {"variant": "transformers+bf16", "backend": "transformers", "dtype": "bfloat16",
                       "tokens_per_s": 200, "round": 0})
    assert bench.summary(args, "cpu", results) == ("rollouts (smollm2, cpu, 8x4x128): transformers fp32 90 tok/s (2 of 3 "
                                                   "rounds), transformers bf16 200 tok/s (1 of 3 rounds), vllm 450 tok/s "
                                                   "(4.8x over fp32)")
    assert bench.detail_lines(results)[0] == "vllm over transformers fp32 by round: 5.5x, 4.2x (median 4.8x)"


def test_the_kernel_split_counts_a_real_matmul_as_gemm():
    """kernel_split profiles a generation: a matmul-heavy stand-in spends its kernel time in gemm."""
    import torch

    bench = bench_module("bench_rollout")
    w = torch.randn(256, 256)

    def generate():
        x = torch.randn(32, 256)
        for _ in range(20):
            x = torch.mm(x, w).softmax(-1)
        return [[0] * 4] * 2

    split = bench.kernel_split(generate)
    assert split["kernel_gemm_ms_per_step"] > 0 and split["kernel_sampling_ms_per_step"] > 0
    assert split["kernel_floor_tokens_per_s"] > 0
