"""A real Celery worker (with beat) polls the simulator into its database and a real Redis."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.integration.conftest import point_at
from tests.support.simulator_process import SimulatorProcess

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def stack_env(tmp_path: Path, sim, redis_url: str) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "REDIS_URL": redis_url,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'worker.sqlite3'}",
        "LOOKOUT_VAR_DIR": str(tmp_path),
        "LOOKOUT_WORKFLOW_URL": sim.workflow_url,
        "LOOKOUT_STORAGE_URL": sim.storage_url,
        "LOOKOUT_WORKFLOW_POLL_INTERVAL": "1",
        "LOOKOUT_JOBS_POLL_INTERVAL": "1",
        "LOOKOUT_STORAGE_POLL_INTERVAL": "5",
    }


def _worker_db(tmp_path: Path, query: str) -> int:
    try:
        with sqlite3.connect(tmp_path / "worker.sqlite3") as db:
            return int(db.execute(query).fetchone()[0])
    except sqlite3.OperationalError:  # locked by the worker for a moment
        return 0


def test_a_real_worker_and_beat_poll_the_simulator_into_redis(tmp_path, settings, redis_cache):
    with SimulatorProcess(units=30, packages=40, seed=11, speed=20) as sim:
        point_at(settings, sim)
        env = stack_env(tmp_path, sim, redis_cache)
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=env,
            check=True,
            timeout=120,
        )
        log_path = tmp_path / "worker.log"
        with log_path.open("w") as log:
            worker = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "config",
                    "worker",
                    "-B",
                    "-c",
                    "2",
                    "-l",
                    "info",
                    "--without-gossip",
                    "--without-mingle",
                    "-s",
                    str(tmp_path / "beat-schedule"),
                ],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                polled = _worker_db(
                    tmp_path,
                    "SELECT COUNT(*) FROM dashboard_servicepoll "
                    "WHERE last_success_at IS NOT NULL "
                    "AND service IN ('workflow:default', 'storage')",
                )
                units = _worker_db(tmp_path, "SELECT COUNT(*) FROM dashboard_unit")
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

    assert _worker_db(tmp_path, "SELECT COUNT(*) FROM dashboard_unit") >= 10
    assert _worker_db(tmp_path, "SELECT COUNT(*) FROM dashboard_storagesummary") == 1
    with sqlite3.connect(tmp_path / "worker.sqlite3") as db:
        rows = db.execute("SELECT COUNT(*) FROM dashboard_statuschange").fetchone()[0]
        repeated = db.execute(
            "SELECT COUNT(*) FROM (SELECT unit_uuid, to_status, microservice, at "
            "FROM dashboard_statuschange GROUP BY unit_uuid, at HAVING COUNT(*) > 1)"
        ).fetchone()[0]
    assert rows > 0
    assert repeated == 0
