"""What rc1 shows while it works. On a terminal: a progress bar per long stage, redrawn in place. Without one (a CI
log, `| tee`, a file): no bars, whose redraws land as fragments run together, but one line per finished stage.
RC1_PROGRESS=1 shows the bars anyway, RC1_PROGRESS=0 never; `rc1 --verbose` (RC1_VERBOSE=1) adds the long tables
(the attack suite's per-kind rates) and the libraries' own output."""

from __future__ import annotations

import os
import sys

PROGRESS_ENV = "RC1_PROGRESS"
VERBOSE_ENV = "RC1_VERBOSE"
_YES, _NO = ("1", "true", "yes"), ("0", "false", "no")


def verbose() -> bool:
    return os.environ.get(VERBOSE_ENV, "").lower() in _YES


def bars() -> bool:
    """Whether progress bars are shown: on a terminal, unless RC1_PROGRESS says otherwise."""
    forced = os.environ.get(PROGRESS_ENV, "").lower()
    if forced in _YES or forced in _NO:
        return forced in _YES
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):   # a replaced or closed stream
        return False


def no_bar(progress: bool = True) -> bool:
    """tqdm's `disable` for a bar the caller would show (`progress`)."""
    return not (progress and bars())
