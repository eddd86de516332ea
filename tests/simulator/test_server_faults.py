"""Fault knobs, latency and simulated speed, on a running simulator process."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime
from urllib.error import HTTPError

import pytest
import requests

from tests.support.simulator_process import SimulatorProcess

pytestmark = pytest.mark.integration

SMALL = {"units": 3, "packages": 5}
STORAGE_ERROR = {
    "error_message": "Sorry, this request could not be processed. Please try again later."
}


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorProcess]:
    with SimulatorProcess(**SMALL, speed=0) as process:
        yield process


@pytest.fixture
def faults(sim: SimulatorProcess) -> Iterator[SimulatorProcess]:
    """The module's simulator, with every fault switched off again afterwards."""
    yield sim
    sim.control("faults", {"error_rate": 0, "timeout_rate": 0, "malformed_rate": 0})


def workflow_get(sim: SimulatorProcess, path: str = "/api/transfer/completed") -> requests.Response:
    return requests.get(sim.workflow_url + path, headers=sim.auth_header, timeout=10)


def storage_get(sim: SimulatorProcess) -> requests.Response:
    return requests.get(f"{sim.storage_url}/api/v2/pipeline/", headers=sim.auth_header, timeout=10)


def test_an_error_rate_of_one_answers_each_service_with_its_own_500(
    faults: SimulatorProcess,
) -> None:
    faults.control("faults", {"error_rate": 1})

    workflow = workflow_get(faults)
    storage = storage_get(faults)

    assert workflow.status_code == 500
    assert workflow.headers["Content-Type"].startswith("text/html")
    assert storage.status_code == 500
    assert storage.json() == STORAGE_ERROR


def test_test_control_endpoints_are_never_faulted(faults: SimulatorProcess) -> None:
    faults.control("faults", {"error_rate": 1, "malformed_rate": 1})

    assert "units" in faults.control("state")


def test_a_malformed_answer_is_a_200_whose_json_does_not_parse(faults: SimulatorProcess) -> None:
    faults.control("faults", {"malformed_rate": 1})

    response = workflow_get(faults)

    assert response.status_code == 200
    assert response.headers["Content-Type"] == "application/json"
    with pytest.raises(ValueError):
        response.json()


def test_a_partial_error_rate_fails_some_requests_only(faults: SimulatorProcess) -> None:
    faults.control("faults", {"error_rate": 0.5})

    codes = [workflow_get(faults).status_code for _ in range(40)]

    assert set(codes) == {200, 500}


def test_fetching_levels_can_fail_like_the_access_system(faults: SimulatorProcess) -> None:
    faults.control("faults", {"error_rate": 0.5})
    path = "/api/administration/dips/accessapp/fetch_levels/"

    responses = [workflow_get(faults, path) for _ in range(60)]
    own_failures = [
        r
        for r in responses
        if r.status_code == 500 and r.headers["Content-Type"] == "application/json"
    ]

    assert own_failures
    assert own_failures[0].json()["success"] is False
    assert any(r.status_code == 200 for r in responses)


def test_fault_rates_can_be_read_and_bad_ones_are_refused(faults: SimulatorProcess) -> None:
    settings = faults.control("faults", {"timeout_rate": 0.25})

    assert settings == {"error_rate": 0.0, "timeout_rate": 0.25, "malformed_rate": 0.0}
    with pytest.raises(HTTPError) as refused:
        faults.control("faults", {"error_rate": 2})
    assert refused.value.code == 400


def test_a_timed_out_request_hangs_then_answers_normally() -> None:
    with SimulatorProcess(**SMALL, timeout_rate=1, timeout_seconds=0.6) as sim:
        began = time.monotonic()
        response = workflow_get(sim)
        took = time.monotonic() - began

    assert response.status_code == 200
    assert took >= 0.6


def test_latency_delays_every_request_of_both_services() -> None:
    with SimulatorProcess(**SMALL, latency_ms=300) as sim:
        began = time.monotonic()
        workflow_get(sim)
        storage_get(sim)
        took = time.monotonic() - began

    assert took >= 0.6


def test_faults_given_on_the_command_line_apply_from_the_start() -> None:
    with SimulatorProcess(**SMALL, error_rate=1) as sim:
        assert workflow_get(sim).status_code == 500
        assert sim.control("faults")["error_rate"] == 1.0


def simulated_now(sim: SimulatorProcess) -> datetime:
    return datetime.fromisoformat(sim.control("state")["now"])


def test_speed_runs_simulated_time_faster_than_real_time() -> None:
    with SimulatorProcess(**SMALL, speed=600) as sim:
        first = simulated_now(sim)
        time.sleep(0.5)
        elapsed = (simulated_now(sim) - first).total_seconds()

    assert 150 <= elapsed <= 1200  # about 300 s, with room for a slow machine


def test_speed_zero_freezes_time_and_advance_moves_it(sim: SimulatorProcess) -> None:
    first = simulated_now(sim)
    time.sleep(0.2)
    frozen = simulated_now(sim)
    moved = datetime.fromisoformat(sim.control("advance", {"seconds": 90})["now"])

    assert frozen == first
    assert (moved - first).total_seconds() == 90


def test_a_fixed_start_pins_simulated_time() -> None:
    with SimulatorProcess(**SMALL, speed=0, start="2023-01-02T03:04:05") as sim:
        assert sim.control("state")["now"] == "2023-01-02T03:04:05"
