"""Data-quality checks of a seed pool: diversity, duplicates, leaks against the shadow set, task mix.

Names are imported on first use (PEP 562): datasketch and scipy cost about a second to import, and
every `rc1` command imports the entry point modules that refer to this package.
"""

import importlib

_EXPORTS = {
    "DuplicateFinder": "rc1.quality.dedup",
    "ShadowIndex": "rc1.quality.leak",
    "ValidationResult": "rc1.quality.validate",
    "validate_pool": "rc1.quality.validate",
    "distinct_n": "rc1.quality.diversity",
    "kl_divergence": "rc1.quality.diversity",
    "ngram_counts": "rc1.quality.diversity",
    "type_token_ratio": "rc1.quality.diversity",
    "zipf_slope": "rc1.quality.diversity",
    "mix_deviation": "rc1.quality.mix",
    "iter_seed_lines": "rc1.quality.reader",
    "iter_seeds": "rc1.quality.reader",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'rc1.quality' has no attribute {name!r}")
