"""What TRL's own calls make transformers say, and an rc1 user cannot act on."""

from __future__ import annotations

import contextlib
import warnings
from typing import Iterator


@contextlib.contextmanager
def quiet_trl_deprecations() -> Iterator[None]:
    """Hide the FutureWarnings that TRL's trainer and helpers trigger inside transformers 5.x (the
    gradient_checkpointing -> activation_checkpointing renames): TRL's calls, nothing an rc1 user can act on."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"`\w*gradient_checkpointing\w*` is deprecated", category=FutureWarning)
        yield
