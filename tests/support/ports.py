"""A free TCP port on 127.0.0.1 for a server a test starts, below the kernel's ephemeral range: a port from bind(0)
is free only until the server binds it, and the other worker's client connections take their local ports from that
same range (a `rc1 serve` started on one failed: address already in use)."""

from __future__ import annotations

import random
import socket
from pathlib import Path

LOWEST = 10000


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768   # Linux's default range starts here


def free_port() -> int:
    """A port nobody listens on, outside the range outgoing connections draw from (bind(0) where there is none)."""
    low = _ephemeral_low()
    candidates = random.sample(range(LOWEST, low), min(200, low - LOWEST)) if low > LOWEST else []
    for port in candidates:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
