"""The simulator's own records for the soak: every operation that took effect, and every
unit's status, read through `/_simulator/actions` and `/_simulator/units`."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.support.simulator_process import SimulatorProcess

pytestmark = pytest.mark.integration


@pytest.fixture
def sim() -> Iterator[SimulatorProcess]:
    # A fresh process per test: the record starts empty.
    with SimulatorProcess(units=6, packages=20, seed=5, speed=0) as process:
        yield process


def call(sim: SimulatorProcess, method: str, url: str, **kwargs: Any) -> requests.Response:
    return requests.request(method, url, headers=sim.auth_header, timeout=10, **kwargs)


def waiting_transfer(sim: SimulatorProcess, name: str) -> str:
    """Start a transfer that waits for approval; returns its UUID."""
    location, path = sim.control("state")["transfer_sources"][0]
    encoded = base64.b64encode(f"{location}:{path}".encode()).decode()
    form = {"name": name, "type": "standard", "paths[]": [encoded], "row_ids[]": [""]}
    started = call(sim, "POST", f"{sim.workflow_url}/api/transfer/start_transfer/", data=form)
    assert started.status_code == 200
    unapproved = call(sim, "GET", f"{sim.workflow_url}/api/transfer/unapproved").json()
    return next(e["uuid"] for e in unapproved["results"] if e["directory"] == name)


def approve(sim: SimulatorProcess, name: str) -> requests.Response:
    return call(
        sim,
        "POST",
        f"{sim.workflow_url}/api/transfer/approve",
        data={"type": "standard", "directory": name},
    )


def recorded(sim: SimulatorProcess) -> list[tuple[str, str]]:
    return [(a["action"], a["target"]) for a in sim.control("actions")["actions"]]


def an_aip(sim: SimulatorProcess) -> str:
    listed = call(
        sim,
        "GET",
        f"{sim.storage_url}/api/v2/file/",
        params={"package_type": "AIP", "status": "UPLOADED"},
    ).json()
    return listed["objects"][0]["uuid"]


def test_it_records_an_approval_once_and_not_the_refused_second_one(sim):
    uuid = waiting_transfer(sim, "Once")

    assert approve(sim, "Once").status_code == 200
    assert approve(sim, "Once").status_code == 500

    assert recorded(sim) == [("transfer_approve", uuid)]


def test_it_records_nothing_for_an_injected_500_and_the_action_for_a_garbled_answer(sim):
    uuid = waiting_transfer(sim, "Garbled")

    sim.control("faults", {"error_rate": 1})
    assert approve(sim, "Garbled").status_code == 500
    assert recorded(sim) == []

    sim.control("faults", {"error_rate": 0, "malformed_rate": 1})
    garbled = approve(sim, "Garbled")
    sim.control("faults", {"malformed_rate": 0})

    assert garbled.status_code == 200
    with pytest.raises(ValueError):
        garbled.json()
    assert recorded(sim) == [("transfer_approve", uuid)]


def test_it_records_every_fixity_check_as_one_more(sim):
    aip = an_aip(sim)
    url = f"{sim.storage_url}/api/v2/file/{aip}/check_fixity/"

    for _ in range(2):
        assert call(sim, "GET", url).status_code == 200

    assert recorded(sim) == [("package_fixity_check", aip)] * 2


def test_it_lists_each_unit_with_the_status_its_status_call_gives(sim):
    listed = sim.control("units")["units"]

    assert listed
    for unit in listed:
        kind = "transfer" if unit["kind"] == "transfer" else "ingest"
        status = call(sim, "GET", f"{sim.workflow_url}/api/{kind}/status/{unit['uuid']}/")
        assert status.json()["status"] == unit["status"]
