"""rc1: the release-candidate pipeline (data gate -> reward -> preflight -> GRPO training -> RC1)."""

__version__ = "0.1.0"
