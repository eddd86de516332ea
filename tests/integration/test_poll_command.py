from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.simulator_process import SimulatorProcess

pytestmark = [pytest.mark.integration, pytest.mark.database]
ROOT = Path(__file__).resolve().parents[2]


def run_poll(
    tmp_path: Path, database_url: str, workflow_url: str, storage_url: str
) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url,
        "LOOKOUT_VAR_DIR": str(tmp_path),
        "LOOKOUT_WORKFLOW_URL": workflow_url,
        "LOOKOUT_STORAGE_URL": storage_url,
        "LOOKOUT_HTTP_CONNECT_TIMEOUT": "0.5",
    }
    env.pop("REDIS_URL", None)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
    )
    return subprocess.run(
        [sys.executable, "manage.py", "poll", "--once"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_poll_once_prints_one_line_per_service_and_exits_0_when_all_answer(
    tmp_path, scratch_database_url
):
    with SimulatorProcess(units=15, packages=10, seed=2) as sim:
        result = run_poll(tmp_path, scratch_database_url, sim.workflow_url, sim.storage_url)

    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == ["workflow", "storage", "alerts"]
    assert all(" ok;" in line for line in lines[:2])


def test_poll_once_ends_with_the_alert_evaluation_of_what_it_stored(
    tmp_path, scratch_database_url
):
    # Seed 2's 15 transfers include failed ones: each opens a failure alert.
    with SimulatorProcess(units=15, packages=10, seed=2) as sim:
        result = run_poll(tmp_path, scratch_database_url, sim.workflow_url, sim.storage_url)

    assert result.returncode == 0, result.stderr
    evaluation = re.search(r"^alerts: (\d+) opened \((\d+) baseline\)", result.stdout, re.M)
    assert evaluation is not None, result.stdout
    assert int(evaluation.group(1)) > 0


def test_poll_once_exits_non_zero_naming_the_service_that_did_not_answer(
    tmp_path, scratch_database_url
):
    with SimulatorProcess(units=5, packages=5, seed=2) as sim:
        storage_url = sim.storage_url
        workflow_url = sim.workflow_url
    # Both are gone now; point the storage at the dead port, keep nothing running.
    result = run_poll(tmp_path, scratch_database_url, workflow_url, storage_url)

    assert result.returncode != 0
    assert "FAILED" in result.stdout
    assert "workflow:default" in result.stderr and "storage" in result.stderr
