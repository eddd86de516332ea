"""The list endpoints still answer with a pipeline of 5000 transfers."""

from __future__ import annotations

import pytest
import requests

from tests.support.simulator_process import SimulatorProcess

pytestmark = pytest.mark.integration

LISTS = (
    "/api/transfer/completed",
    "/api/ingest/completed",
    "/api/transfer/unapproved",
    "/api/ingest/waiting",
)


def test_list_endpoints_answer_at_5000_units() -> None:
    with SimulatorProcess(units=5000, speed=0) as sim:
        counts = {}
        for path in LISTS:
            response = requests.get(sim.workflow_url + path, headers=sim.auth_header, timeout=10)
            assert response.status_code == 200
            counts[path] = len(response.json()["results"])
        sip = requests.get(sim.workflow_url + LISTS[1], headers=sim.auth_header, timeout=10).json()[
            "results"
        ][-1]
        jobs = requests.get(
            f"{sim.workflow_url}/api/v2beta/jobs/{sip}?detailed",
            headers=sim.auth_header,
            timeout=10,
        )

    assert counts["/api/transfer/completed"] > 2500
    assert counts["/api/ingest/completed"] > 2000
    assert counts["/api/transfer/unapproved"] > 0 and counts["/api/ingest/waiting"] > 0
    assert jobs.status_code == 200 and len(jobs.json()) >= 94
