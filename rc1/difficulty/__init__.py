"""Difficulty of seeds: per-sample metrics, easy/medium/hard buckets, resampling to a target mix,
and the checks of the difficulty gate. Pure functions; rc1/stages/difficulty.py does the IO and MLflow.

Names are imported on first use (PEP 562), so `rc1 --help` does not pay for scipy.
"""

import importlib

_EXPORTS = {
    "BUCKETS": "rc1.difficulty.bucket",
    "CRITERIA": "rc1.difficulty.bucket",
    "assign_buckets": "rc1.difficulty.bucket",
    "bucket_sizes": "rc1.difficulty.bucket",
    "resample": "rc1.difficulty.bucket",
    "METRICS": "rc1.difficulty.metrics",
    "seed_metrics": "rc1.difficulty.metrics",
    "support_text": "rc1.difficulty.metrics",
    "difficulty_checks": "rc1.difficulty.report",
    "difficulty_report": "rc1.difficulty.report",
    "DEFINITIONS": "rc1.difficulty.report",
    "MetricTable": "rc1.difficulty.table",
    "build_table": "rc1.difficulty.table",
    "concat_tables": "rc1.difficulty.table",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'rc1.difficulty' has no attribute {name!r}")
