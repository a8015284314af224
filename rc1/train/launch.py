"""How the gate starts one seed's training under a distributed launcher (ppo config `launcher: accelerate`).

The accelerate config (configs/accelerate/*.yaml) is read by accelerate's own loader, so a file `accelerate launch`
would reject is refused here first, as one line naming the ppo config's key and the file. The command is
`accelerate launch --config_file F -m rc1.cli train ...`: `rc1 train` itself, unchanged, in every process.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import yaml

from rc1.core.io import why_not_a_file
from rc1.core.errors import Rc1Error

# keys an accelerate config must state itself (accelerate's loader would default them, and any YAML would pass)
REQUIRED_KEYS = ("distributed_type", "num_processes")
# accelerate config keys that point at further files (settings preflight's sha256 of this file would not cover)
FILE_KEYS = ("deepspeed_config_file", "deepspeed_hostfile")


@dataclass(frozen=True)
class AccelerateSpec:
    path: Path
    distributed_type: str      # NO, MULTI_GPU (DDP; also the CPU/gloo config), DEEPSPEED, FSDP, ...
    num_processes: int


def read_accelerate_config(path: str | Path, owner: str | Path) -> AccelerateSpec:
    """The accelerate config `owner` (a ppo config) names as `accelerate_config`, validated; else Rc1Error."""
    where = f"{owner}: key 'accelerate_config': {path}"
    p = Path(path)
    if p.is_dir():
        raise Rc1Error(f"{where}: is a directory, not an accelerate config")
    if why_not_a_file(p):
        raise Rc1Error(f"{where}: {why_not_a_file(p)}")
    try:
        raw = yaml.safe_load(p.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError):
        raise Rc1Error(f"{where}: not valid YAML") from None
    if not isinstance(raw, dict):
        raise Rc1Error(f"{where}: not an accelerate config (expected a mapping)")
    missing = [k for k in REQUIRED_KEYS if k not in raw]
    if missing:
        raise Rc1Error(f"{where}: not an accelerate config (no '{missing[0]}')")
    from accelerate.commands.config.config_args import ClusterConfig, load_config_from_file

    try:
        cfg = load_config_from_file(str(p))
    except (ValueError, TypeError, KeyError) as e:
        first = (str(e).splitlines() or [type(e).__name__])[0]
        raise Rc1Error(f"{where}: not an accelerate config ({first})") from None
    if not isinstance(cfg, ClusterConfig):
        raise Rc1Error(f"{where}: a SageMaker config; rc1 launches on this machine "
                       f"(compute_environment: LOCAL_MACHINE)")
    machines = cfg.num_machines
    if machines != 1:   # the gate starts every process itself and waits: other machines would never join
        raise Rc1Error(f"{where}: num_machines must be 1 (the gate launches on this machine), got {machines!r}")
    ds = cfg.deepspeed_config or {}
    outside = next((k for k in FILE_KEYS if ds.get(k) not in (None, "", "none")), None)
    if outside:   # preflight hashes this file only: settings read from another file would train unchecked
        raise Rc1Error(f"{where}: deepspeed_config.{outside} names another file, which preflight does not hash; "
                       f"write its settings in deepspeed_config itself")
    n = cfg.num_processes
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise Rc1Error(f"{where}: num_processes must be a whole number >= 1, got {n!r}")
    return AccelerateSpec(p, str(getattr(cfg.distributed_type, "value", cfg.distributed_type)), n)


def accelerate_command(spec: AccelerateSpec, train_args: Sequence[str]) -> list[str]:
    """`accelerate launch --config_file F -m rc1.cli train ARGS` with this interpreter."""
    return [sys.executable, "-m", "accelerate.commands.launch", "--config_file", str(spec.path),
            "-m", "rc1.cli", "train", *train_args]


def launch_train(spec: AccelerateSpec, cfg: Any, *, env: dict[str, str]) -> dict:
    """Train one seed through `accelerate launch`: `rc1 train` with `cfg` (an rc1.stages.train.Config, as its
    command line: rc1.cli.options.argv) in every process, under the gate that `env` names
    (rc1.tracking.gate_launch.gate_launch_env). Returns the main process's result (what `rc1.stages.train.run` returned there,
    through train's hidden --result-out); a refusal in the launched run is this function's Rc1Error, a crash a
    RuntimeError."""
    import dataclasses
    import os
    import tempfile
    import time

    import click

    from rc1.cli.options import argv
    from rc1.core.io import read_json
    from rc1.core.proc import run_tree
    from rc1.tracking.gate_launch import LAUNCH_GATE_ENV, fail_orphaned_runs

    seed = cfg.seed
    started_ms = int(time.time() * 1000)
    with tempfile.TemporaryDirectory() as d:
        result = Path(d) / "result.json"
        args = argv(dataclasses.replace(cfg, result_out=str(result)))
        child_env = {k: v for k, v in os.environ.items() if k != "MLFLOW_RUN_ID"} | env
        click.echo(f"[rc1] train seed={seed}: accelerate launch --config_file {spec.path} "
                   f"({spec.num_processes} process(es), {spec.distributed_type})", err=True)
        try:
            code = run_tree(accelerate_command(spec, args), child_env)   # stopping the gate stops every process
        except BaseException:
            if env.get(LAUNCH_GATE_ENV):
                fail_orphaned_runs(env[LAUNCH_GATE_ENV], "train")   # the stopped launch left its run RUNNING
            raise
        out = read_json(result) if result.is_file() else {}
    if (code != 0 or "run_id" not in out) and env.get(LAUNCH_GATE_ENV):
        fail_orphaned_runs(env[LAUNCH_GATE_ENV], "train", since_ms=started_ms)   # left RUNNING, or KILLED by torchrun
    if "refused" in out:
        raise Rc1Error(f"train seed={seed} (accelerate launch): {out['refused']}")
    if code != 0 or "run_id" not in out:
        raise RuntimeError(f"train seed={seed}: `accelerate launch` exited {code} without a result "
                           f"(its processes' output is above)")
    return out
