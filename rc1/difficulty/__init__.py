"""Difficulty of pool items: per-item metrics (metrics, table), easy/medium/hard buckets and resampling to a target mix
(bucket), and the checks of the difficulty gate (report). Pure functions; rc1/stages/difficulty.py does the IO and
MLflow."""
