#!/usr/bin/env bash
# The checks only a GPU can make, as one prepared script for a lent GPU machine (../shared/GPU.md): run from the
# project root, with the packages that machine lacks in .gpu/gpu-site.tar.xz (bash ../shared/gpu/make-site.sh .gpu).
# make-site.sh (2026-11-26) leaves out lazy-importer, which its importlib-metadata imports: add it unpacked, e.g.
#   pip download -q --no-deps lazy-importer -d /tmp/li && python3 -m zipfile -e /tmp/li/lazy_importer-*.whl .gpu/extra
# and send .gpu (device tool: carry [".gpu"]).
#
#   bash benchmarks/gpu_check.sh [rollout|train|all]      # results under $OUT (default out/gpu_check)
#
#   rollout  bench_rollout at the qwen3-4b shape: transformers vs vLLM at 128 new tokens (--backends, one summary
#            line), then 512 new tokens, every rollout backend installed, side by side
#   train    one `rc1 train` step per RL strategy at the qwen3-4b shape (QLoRA), then the dev main job with QLoRA
#            on CUDA (preflight, gate: 3 trainings, evaluate)
# Each part writes its own files as it goes and gpu_check.json sums up what exists, so a part cut short by the
# time limit still reports what it measured. GPU_CHECK_BUDGET (seconds, default 540) bounds the whole run: a step
# that would start with too little time left is skipped, and says so.
set -u
part=${1:-all}
out=${OUT:-out/gpu_check}
mkdir -p "$out"
out=$(cd "$out" && pwd)
root=$(pwd)
deadline=$(( $(date +%s) + ${GPU_CHECK_BUDGET:-540} ))
shape=${GPU_CHECK_SHAPE:-qwen3-4b}          # tiny: the same script on a CPU, as a smoke test
new_tokens=${GPU_CHECK_NEW_TOKENS:-512}
finetune=${GPU_CHECK_FINETUNE:-qlora}
work=/tmp/rc1-gpu-check
mkdir -p "$work"
log() { echo "[gpu_check $(date +%H:%M:%S)] $*" | tee -a "$out/gpu_check.log"; }

# ---------------------------------------------------------------- packages (once per machine)
if [ -f .gpu/gpu-site.tar.xz ] && python3 -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))'; then
  [ -d /tmp/devsite ] || tar -C /tmp -xJf .gpu/gpu-site.tar.xz   # the lent machine's missing packages (GPU.md)
  export PYTHONPATH=/tmp/devsite
  # packages make-site.sh leaves out (lazy-importer: importlib-metadata's new dependency), unpacked wheels
  [ -d .gpu/extra ] && export PYTHONPATH=$root/.gpu/extra:$PYTHONPATH
fi
export PYTHONPATH=$root${PYTHONPATH:+:$PYTHONPATH}
python3 -c "import rc1" 2>/dev/null || python3 -m pip install -q --no-deps --no-build-isolation --no-index -e . \
  >"$out/pip.log" 2>&1
export TRL_EXPERIMENTAL_SILENCE=1 TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >"$out/gpu.txt" 2>&1
python3 - >"$out/env.json" 2>&1 <<'EOF'
import importlib, json
v = {}
for m in ("torch", "transformers", "trl", "peft", "accelerate", "bitsandbytes", "mlflow", "vllm"):
    try:
        v[m] = importlib.import_module(m).__version__
    except Exception as e:
        v[m] = f"not installed ({type(e).__name__})"
import torch
v["cuda"] = torch.version.cuda
v["device"] = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
print(json.dumps(v))
EOF
log "env: $(cat "$out/env.json")"
if ! python3 -c "import mlflow, trl, datasets, peft, rc1.train.engine" >"$out/imports.log" 2>&1; then
  log "imports failed: $(tail -1 "$out/imports.log")"; exit 3   # fail in seconds, not after every step
fi

# step NAME MIN_SECONDS CMD...: run CMD with what is left of the budget, if at least MIN_SECONDS are left
step() {
  local name=$1 need=$2; shift 2
  local left=$(( deadline - $(date +%s) ))
  if [ "$left" -lt "$need" ]; then
    log "$name: skipped ($left s left of the budget, needs $need)"; echo "skipped" >"$out/$name.rc"; return
  fi
  log "$name: start ($left s left)"
  local t0=$(date +%s)
  timeout "$left" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  echo "$rc" >"$out/$name.rc"
  log "$name: exit $rc after $(( $(date +%s) - t0 )) s"
}

if [ "$part" = rollout ] || [ "$part" = all ]; then
  # the CPU's side-by-side comparison (bench_rollout --model smollm2 --backends transformers,vllm) at the 4B shape:
  # transformers generate (bf16 on CUDA) against vLLM colocated as rc1 trains with it, 8 x 4 x 128, one summary line
  # (vLLM is reported skipped where it is not installed: its wheels do not fit a device call, ../shared/GPU.md)
  step bench_backends 90 python3 benchmarks/bench_rollout.py --shape "$shape" --new-tokens 128 --prompts 8 --group 4 \
    --workdir "$work/models" --timeout 150 --json "$out/bench_backends.json" --backends transformers,vllm --repeats 1
  # the variants in order of what they tell: today's path first (the baseline), then the ones not measured yet (the
  # compiled decode on a static cache: the candidate for the 5x bar; the last H200 run's budget ended before it; then
  # the thinking budget's logits processor on today's path, what prod trains with), then the ones measured before
  # (benchmarks/results: transformers+merged 1.63x, continuous batching + graphs 1.40x)
  step bench_rollout 120 python3 benchmarks/bench_rollout.py --shape "$shape" --new-tokens "$new_tokens" --prompts 8 --group 4 \
    --workdir "$work/models" --timeout 150 --json "$out/bench_rollout.json" \
    --variants transformers,transformers+merged+compile,transformers+compile,transformers+budget,vllm,transformers+merged,continuous_batching+graphs+merged,continuous_batching+graphs,continuous_batching
fi

if [ "$part" = train ] || [ "$part" = all ]; then
  base="$work/models/$shape"
  [ "$shape" = tiny ] && base=tiny
  if [ "$base" != tiny ] && [ ! -f "$base/config.json" ]; then
    step build_base 60 python3 -c "import sys; sys.path.insert(0, 'benchmarks'); from pathlib import Path; \
from bench_rollout import build_base; build_base('$shape', Path('$work/models'))"
  fi
  step bench_strategies 90 python3 benchmarks/bench_strategies.py --base "$base" --finetune "$finetune" --prompts 4 --group 2 \
    --new-tokens 64 --json "$out/bench_strategies.json"
  # the README's main job in dev mode, with QLoRA on CUDA (ppo_dev.yaml and the dev override of config_check.finetune)
  rm -rf "$work/mainjob" && mkdir -p "$work/mainjob" && cp -r configs templates "$work/mainjob/"
  sed -i "s/^  finetune: lora .*/  finetune: $finetune/" "$work/mainjob/configs/ppo_dev.yaml"
  sed -i "s/^    config_check.finetune: lora/    config_check.finetune: $finetune/" "$work/mainjob/configs/gates.yaml"
  export MLFLOW_TRACKING_URI="sqlite:///$work/mainjob/mlruns/mlflow.db"
  mkdir -p "$work/mainjob/mlruns"
  (cd "$work/mainjob" && step preflight 100 python3 -m rc1.cli preflight --mode dev)
  (cd "$work/mainjob" && step gate 60 python3 -m rc1.cli gate --mode dev)
  python3 - >"$out/main_job.json" 2>&1 <<'EOF'
import json, mlflow
rows = [r for stage in ("gate", "train", "evaluate") for r in mlflow.search_runs(
    search_all_experiments=True, output_format="list", filter_string=f"tags.`rc1.stage` = '{stage}'")]
keep = ("rc1.stage", "rc1.finetune_effective", "rc1.device", "rc1.dtype", "rc1.strategy", "rc1.rollout_backend_effective",
        "rc1.rc1_verdict")
print(json.dumps([{"status": r.info.status, **{k: r.data.tags[k] for k in keep if k in r.data.tags},
                   "metrics": {k: v for k, v in r.data.metrics.items()
                               if k.startswith(("rc1.projected", "rc1.measured", "rc1.sec_per_step_mean",
                                                "rc1.eval_items"))}} for r in rows], indent=1))
EOF
  unset MLFLOW_TRACKING_URI
fi

# ---------------------------------------------------------------- summary of whatever exists
python3 - "$out" <<'EOF'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
summary = {}
for f in ("env.json", "bench_backends.json", "bench_rollout.json", "bench_strategies.json", "main_job.json"):
    p = out / f
    if p.is_file():
        try:
            summary[f[:-5]] = json.loads(p.read_text())
        except ValueError:
            summary[f[:-5]] = {"unreadable": p.read_text()[-2000:]}
summary["gpu"] = (out / "gpu.txt").read_text().strip() if (out / "gpu.txt").is_file() else None
summary["exit"] = {p.stem: p.read_text().strip() for p in sorted(out.glob("*.rc"))}
(out / "gpu_check.json").write_text(json.dumps(summary, indent=1))
print(json.dumps(summary["exit"]))
EOF
