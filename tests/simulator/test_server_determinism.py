"""Two runs with the same seed serve the same data; another seed serves other data."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from tests.support.simulator_process import SimulatorProcess

pytestmark = pytest.mark.integration

START = "2024-06-03T09:00:00"


def snapshot(seed: int) -> dict[str, Any]:
    with SimulatorProcess(units=15, packages=10, seed=seed, speed=0, start=START) as sim:

        def get(path: str) -> Any:
            response = requests.get(sim.workflow_url + path, headers=sim.auth_header, timeout=10)
            return response.json()

        completed = get("/api/transfer/completed")["results"]
        return {
            "completed": completed,
            "waiting": get("/api/ingest/waiting")["results"],
            "statuses": [get(f"/api/transfer/status/{uuid}") for uuid in completed],
            "jobs": get(f"/api/v2beta/jobs/{completed[0]}?detailed"),
        }


def test_the_same_seed_serves_the_same_data_and_another_seed_does_not() -> None:
    first = snapshot(seed=11)

    assert snapshot(seed=11) == first
    assert snapshot(seed=12)["completed"] != first["completed"]
