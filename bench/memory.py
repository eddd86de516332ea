"""A process's resident memory as the benchmarks report it (Linux `/proc`).

The peak is the process's own high-water mark (`VmHWM`), not `ru_maxrss`: Linux carries
`ru_maxrss` across `exec`, so a worker started by a parent that once held 600 MB reports
the parent's peak as its own.
"""

from __future__ import annotations

import os
from pathlib import Path

MB = 2**20


def _status_kb(field: str, pid: int | str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return float(line.split()[1])
    return float("nan")


def peak_rss_mb(pid: int | str = "self") -> float:
    """The highest resident memory the process has had so far, in MiB."""
    return _status_kb("VmHWM", pid) * 1024 / MB


def rss_mb(pid: int | str = "self") -> float:
    """The process's resident memory now, in MiB."""
    with open(f"/proc/{pid}/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / MB
