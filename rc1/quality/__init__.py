"""Data-quality checks of a pool: diversity, duplicates (dedup), leaks against the shadow set (leak), task mix
(mix), the pack_v1 baseline (baseline), and the validate-pool gate over them (validate)."""
