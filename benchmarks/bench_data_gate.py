"""Benchmark of the data gate: build-pool, validate-pool and difficulty at 30k, 300k (and 3M) seeds.

    python benchmarks/bench_data_gate.py                      # configured sources (offline: the bundled sample)
    python benchmarks/bench_data_gate.py --data-dir ../shared/data --sizes 30000,300000
    python benchmarks/bench_data_gate.py --data-dir ../shared/data --sizes 30000,300000,3000000   # ~45 GB of disk

Each stage runs as its own `python -m rc1.cli ...` process (as a user runs it), so its
peak RSS is its own (os.wait4 rusage). Runs go to a throwaway tracking store in the work directory,
with --no-reuse. A stage whose gate fails still counts (exit 2 is a verdict, not a crash).

Bars (issue 2): the whole gate at 30k <= 60 s on 2 cores, peak RSS <= 2 GB, 300k <= 10.5x the 30k time.
Goals (issue 11): the whole gate at 30k <= 20 s; `rc1 --help` <= 0.5 s (timed first, median of 3); at 3M
peak RSS <= 2 GB and 3M <= 10.5x the 300k time. A size whose outputs would not fit on the disk (estimated
from the size before it: pool, balanced pool and metrics, each also copied into the run's artifacts) is
skipped with a line that says so; the large files of a size are deleted once it is timed (--keep-outputs
keeps them). Exit 2 counts as a verdict only when the stage printed "rc1: gate failed"; any other exit 2 is
an error of the benchmark's call and stops it.
Timings depend on what else the machine runs: say so when you quote them. Each stage's CPU seconds
(user + sys of its process) are printed too: they move much less than wall time on a busy machine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BAR_30K_S = 60.0
BAR_RSS_MB = 2048.0
BAR_RATIO = 10.5
HELP_GOAL_S = 0.5


def run_stage(args: list[str], env: dict, log: Path) -> tuple[float, float, int, float]:
    """(wall seconds, peak RSS MB of that process, exit code, CPU seconds user+sys of that process and its
    children: a stage computes in forked processes while it opens its MLflow run)."""
    t0 = time.perf_counter()
    with open(log, "ab") as fh:
        fh.write(f"\n$ rc1 {' '.join(args)}\n".encode())
        fh.flush()
        proc = subprocess.Popen([sys.executable, "-m", "rc1.cli", *args], cwd=REPO, env=env,
                                stdout=fh, stderr=fh)
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - t0, usage.ru_maxrss / 1024.0, proc.returncode, usage.ru_utime + usage.ru_stime


def time_help(env: dict, log: Path, repeat: int = 3) -> tuple[float, float]:
    """Median wall and CPU seconds of `rc1 --help` (a process each time, as a user types it)."""
    runs = sorted(run_stage(["--help"], env, log)[::3] for _ in range(repeat))
    return runs[len(runs) // 2]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=None, help="Directory laid out like ../shared/data (default: configured sources)")
    ap.add_argument("--sizes", default="30000,300000")
    ap.add_argument("--workdir", default=None, help="default: a temporary directory, removed afterwards")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep-outputs", action="store_true", help="Keep each size's pool, balanced pool and metrics")
    opts = ap.parse_args()
    sizes = [int(s) for s in opts.sizes.split(",") if s.strip()]
    work = Path(opts.workdir or tempfile.mkdtemp(prefix="rc1-bench-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    log = work / "bench.log"
    env = {**os.environ, "MLFLOW_TRACKING_URI": f"sqlite:///{work / 'mlflow.db'}", "OMP_NUM_THREADS": "1",
           "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TQDM_DISABLE": "1", "PYTHONHASHSEED": "0"}
    for var in ("MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_ID"):
        env.pop(var, None)
    data = ["--data-dir", opts.data_dir] if opts.data_dir else []
    print(f"rc1 data-gate benchmark: cpus={os.cpu_count()} load={os.getloadavg()[0]:.2f} "
          f"data={opts.data_dir or 'configured sources'} work={work}", flush=True)

    # store creation (db migrations) and the shadow set are set-up, not part of a stage's time; the experiment's
    # artifacts go to the work directory (an sqlite store's default is ./mlruns of the repository)
    subprocess.run([sys.executable, "-c", "import sys, mlflow; from rc1.tracking.store import EXPERIMENT, setup_tracking; "
                    "mlflow.set_tracking_uri(sys.argv[1]); "
                    "mlflow.create_experiment(EXPERIMENT, artifact_location=sys.argv[2]); setup_tracking()",
                    env["MLFLOW_TRACKING_URI"], (work / "artifacts").as_uri()], cwd=REPO, env=env, check=True)
    shadow = work / "shadow.jsonl"
    help_wall, help_cpu = time_help(env, log)
    print(f"  rc1 --help: {help_wall:.2f} s wall, {help_cpu:.2f} s CPU (goal <= {HELP_GOAL_S} s)", flush=True)
    t, rss, rc, _ = run_stage(["materialize-shadow", *data, "--n", "245", "--seed", "20250820", "--stratify",
                            "--materialize", str(shadow), "--dump-manifest", str(work / "shadow_manifest.json"),
                            "--no-reuse"], env, log)
    print(f"  setup materialize-shadow: {t:.1f} s, peak RSS {rss:.0f} MB, exit {rc}", flush=True)
    if rc not in (0, 2):
        print(f"materialize-shadow crashed; see {log}")
        return 1

    rows = []
    totals: dict[int, float] = {}
    cpus: dict[int, float] = {}
    big_bytes: dict[int, int] = {}
    for n in sizes:
        pool = work / f"pool_{n}.jsonl"
        if big_bytes:
            prev = max(big_bytes)
            need = big_bytes[prev] * 2 * n / prev * 1.2
            free = shutil.disk_usage(work).free
            if need > free:
                print(f"  n={n}: skipped, needs about {need / 1e9:.0f} GB of disk ({free / 1e9:.0f} GB free)", flush=True)
                continue
        stages = [
            # a speed benchmark at fixed sizes: items are posed as often as n asks (no data holds 3M seeds at the
            # default 3 poses an item), so these pools measure time, not what one would train on
            ("build", ["build-pool", *data, "--out", str(pool), "--n", str(n), "--seed", str(opts.seed),
                       "--max-poses-per-item", str(10**9), "--shadow", str(shadow), "--no-reuse"]),
            ("validate", ["validate-pool", str(pool), "--leak-check", str(shadow),   # thresholds: gates.yaml's
                          "--report", str(work / f"validation_{n}.json"),
                          "--diversity-report", str(work / f"diversity_{n}.json"), *data, "--no-reuse"]),
            ("difficulty", ["difficulty", "--pool", str(pool), "--out", str(work / f"metrics_{n}.jsonl"),
                            "--balanced", str(work / f"balanced_{n}.jsonl"),   # --target, --by-task: the defaults
                            "--report", str(work / f"difficulty_{n}.json"), "--no-reuse"]),
        ]
        totals[n] = 0.0
        for name, args in stages:
            mark = log.stat().st_size
            t, rss, rc, cpu = run_stage(args, env, log)
            with open(log, "rb") as fh:
                fh.seek(mark)
                said = fh.read().decode("utf-8", "replace")
            totals[n] += t
            cpus[n] = cpus.get(n, 0.0) + cpu
            rows.append((name, n, t, n / t if t else 0.0, rss, rc))
            print(f"  {name:<10} n={n:<7} {t:7.1f} s  {n / t:9.0f} samples/s  CPU {cpu:6.1f} s  peak RSS {rss:7.0f} MB"
                  f"  exit {rc}", flush=True)
            if rc != 0 and not (rc == 2 and "rc1: gate failed" in said):
                print(f"{name} failed to run at n={n} (exit {rc}); see {log}")
                return 1
        outputs = [pool, work / f"balanced_{n}.jsonl", work / f"metrics_{n}.jsonl"]
        big_bytes[n] = sum(p.stat().st_size for p in outputs if p.exists())
        if not opts.keep_outputs:
            for p in outputs:
                p.unlink(missing_ok=True)
            shutil.rmtree(work / "artifacts", ignore_errors=True)
        print(f"  gate total n={n}: {totals[n]:.1f} s wall, {cpus[n]:.1f} s CPU (load {os.getloadavg()[0]:.2f})",
              flush=True)

    peak = max(r[4] for r in rows)
    print("\nbars:")
    ok = True
    if sizes and sizes[0] == 30000:
        b = totals[30000] <= BAR_30K_S
        ok &= b
        print(f"  gate at 30k {totals[30000]:.1f} s <= {BAR_30K_S:.0f} s: {'PASS' if b else 'FAIL'}")
    b = peak <= BAR_RSS_MB
    ok &= b
    print(f"  peak RSS {peak:.0f} MB <= {BAR_RSS_MB:.0f} MB: {'PASS' if b else 'FAIL'}")
    for small, large in ((30000, 300000), (300000, 3000000)):
        if small in totals and large in totals:
            ratio = totals[large] / totals[small]
            cpu_ratio = cpus[large] / cpus[small]
            b = ratio <= BAR_RATIO
            ok &= b
            print(f"  {large // 1000}k / {small // 1000}k time {ratio:.2f} (CPU {cpu_ratio:.2f}) <= {BAR_RATIO}: "
                  f"{'PASS' if b else 'FAIL'}")
    for n in totals:
        print(f"  peak RSS at n={n}: {max(r[4] for r in rows if r[1] == n):.0f} MB")
    if opts.workdir or not ok:
        print(f"log and outputs: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 3


if __name__ == "__main__":
    sys.exit(main())
