"""A real Celery worker (with embedded beat) as a subprocess of an integration test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def worker_start(
    env: dict[str, str], log_path: Path, schedule: Path, *, own_group: bool = False
) -> subprocess.Popen[bytes]:
    """Start `celery worker -B -c 2` logging to `log_path`. With `own_group`, the worker
    and its pool processes form a process group of their own, so a test can kill them all
    at once as a crash would."""
    with log_path.open("a") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "-B", "-c", "2"]
            + ["-l", "info", "--without-gossip", "--without-mingle", "-s", str(schedule)],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=own_group,
        )
