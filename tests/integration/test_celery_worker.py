"""A real Celery worker (with beat) polls the simulator into its database and a real Redis.

The worker gets a database of its own: a SQLite file, or on the PostgreSQL pass a fresh
database on the private server, so two worker processes and beat write to PostgreSQL.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.integration.conftest import point_at
from tests.support.celery_worker import worker_start
from tests.support.databases import scalar
from tests.support.simulator_process import SimulatorProcess

pytestmark = [pytest.mark.integration, pytest.mark.database]
ROOT = Path(__file__).resolve().parents[2]


def stack_env(tmp_path: Path, sim, redis_url: str, database_url: str) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "REDIS_URL": redis_url,
        "DATABASE_URL": database_url,
        "LOOKOUT_VAR_DIR": str(tmp_path),
        "LOOKOUT_WORKFLOW_URL": sim.workflow_url,
        "LOOKOUT_STORAGE_URL": sim.storage_url,
        "LOOKOUT_WORKFLOW_POLL_INTERVAL": "1",
        "LOOKOUT_JOBS_POLL_INTERVAL": "1",
        "LOOKOUT_STORAGE_POLL_INTERVAL": "5",
    }


def _worker_db(database_url: str, query: str) -> int:
    try:
        return int(scalar(database_url, query))
    except sqlite3.OperationalError:  # SQLite: locked by the worker for a moment
        return 0


def test_a_real_worker_and_beat_poll_the_simulator_into_redis(
    tmp_path, settings, redis_cache, scratch_database_url
):
    with SimulatorProcess(units=30, packages=40, seed=11, speed=20) as sim:
        point_at(settings, sim)
        env = stack_env(tmp_path, sim, redis_cache, scratch_database_url)
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=env,
            check=True,
            timeout=120,
        )
        log_path = tmp_path / "worker.log"
        worker = worker_start(env, log_path, tmp_path / "beat-schedule")
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                polled = _worker_db(
                    scratch_database_url,
                    "SELECT COUNT(*) FROM dashboard_servicepoll "
                    "WHERE last_success_at IS NOT NULL "
                    "AND service IN ('workflow:default', 'storage')",
                )
                units = _worker_db(scratch_database_url, "SELECT COUNT(*) FROM dashboard_unit")
                if polled == 2 and units:
                    break
                time.sleep(0.5)
            else:
                pytest.fail(
                    f"the worker never polled both services:\n{log_path.read_text()[-3000:]}"
                )
            # Let a few more cycles run: units move at 20x speed, history accumulates.
            time.sleep(4)
        finally:
            worker.terminate()
            worker.wait(timeout=30)

    assert _worker_db(scratch_database_url, "SELECT COUNT(*) FROM dashboard_unit") >= 10
    assert _worker_db(scratch_database_url, "SELECT COUNT(*) FROM dashboard_storagesummary") == 1
    rows = scalar(scratch_database_url, "SELECT COUNT(*) FROM dashboard_statuschange")
    repeated = scalar(
        scratch_database_url,
        "SELECT COUNT(*) FROM (SELECT unit_uuid, at FROM dashboard_statuschange "
        "GROUP BY unit_uuid, at HAVING COUNT(*) > 1) AS repeated",
    )
    assert rows > 0
    assert repeated == 0
