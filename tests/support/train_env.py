"""The environment a test's in-process dev `rc1 train` runs in."""

from __future__ import annotations

from pathlib import Path


def dev_train_env(mp, root: Path) -> None:
    """`mp` (a pytest MonkeyPatch) moves into `root` and sets dev mode, the heuristic judge, a judge cache under root
    and one thread, with no MLflow run or store inherited."""
    mp.chdir(root)
    for k in ("MLFLOW_TRACKING_URI", "MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_ID"):
        mp.delenv(k, raising=False)
    for k, v in {"RUN_MODE": "dev", "SCORER_PROVIDER": "heuristic", "REWARD_LIVE_MODE": "0",
                 "RC1_CACHE_DIR": str(root / "cache"), "OMP_NUM_THREADS": "1"}.items():
        mp.setenv(k, v)
