"""Contract tests: the dashboard's transfer and ingest status lists, as the notes record.

Every unit that is not hidden, whatever its state, each job with its creation time as a
string, the unit's time stamp with its fraction counted twice, choices only on a job
awaiting a decision; `/status/` counts the waiting decisions.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
import requests

from tests.support.dashboard_session import signed_in
from tests.support.simulator_process import SimulatorProcess

pytestmark = pytest.mark.integration

JOB_TIMESTAMP = re.compile(r"^\d{10}\.\d{10}$")
CLEAN_UP_GROUPS = {"Failed transfer", "Failed SIP"}
APPROVE_STANDARD = {
    "6953950b-c101-4f4c-a0c3-0cd0684afe5e": "Approve transfer",
    "1b04ec43-055c-43b7-9543-bd03c6a778ba": "Reject transfer",
}


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorProcess]:
    with SimulatorProcess(units=60, seed=1, speed=0) as process:
        yield process


@pytest.fixture(scope="module")
def session(sim: SimulatorProcess) -> requests.Session:
    return signed_in(sim)


def status_list(sim: SimulatorProcess, session: requests.Session, kind: str) -> dict[str, Any]:
    response = session.get(f"{sim.workflow_url}/{kind}/status/", timeout=30)
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "application/json"
    return response.json()


def api(sim: SimulatorProcess, method: str, path: str, **kwargs: Any) -> requests.Response:
    return requests.request(
        method, sim.workflow_url + path, headers=sim.auth_header, timeout=10, **kwargs
    )


def encoded_source(sim: SimulatorProcess) -> str:
    """A transfer source as the start calls take it: base64 of `<location>:<path>`."""
    location, path = sim.control("state")["transfer_sources"][0]
    return base64.b64encode(f"{location}:{path}".encode()).decode()


def all_units(sim, session) -> list[dict[str, Any]]:
    return (
        status_list(sim, session, "transfer")["objects"]
        + status_list(sim, session, "ingest")["objects"]
    )


def failed_job_index(unit: dict[str, Any]) -> int | None:
    return next((i for i, job in enumerate(unit["jobs"]) if job["currentstep"] == 4), None)


@pytest.mark.parametrize("kind", ["transfer", "ingest"])
def test_a_list_is_an_objects_list_with_mcp_true(sim, session, kind):
    body = status_list(sim, session, kind)

    assert set(body) == {"objects", "mcp"}
    assert body["mcp"] is True
    assert isinstance(body["objects"], list) and body["objects"]


def test_each_unit_has_the_recorded_fields_and_types(sim, session):
    transfers = status_list(sim, session, "transfer")["objects"]
    sips = status_list(sim, session, "ingest")["objects"]

    for unit in transfers + sips:
        assert unit["uuid"] == unit["id"]
        assert isinstance(unit["directory"], str) and unit["directory"]
        assert isinstance(unit["active"], bool)
        assert isinstance(unit["timestamp"], float)
        assert isinstance(unit["jobs"], list) and unit["jobs"]
    assert all("access_system_id" not in unit for unit in transfers)
    assert all(isinstance(unit["access_system_id"], str) for unit in sips)
    assert any(unit["access_system_id"] == "" for unit in sips)


def test_each_job_has_the_recorded_fields_and_types(sim, session):
    for unit in all_units(sim, session):
        for job in unit["jobs"]:
            assert set(job) - {"choices"} == {
                "uuid",
                "link_id",
                "type",
                "microservicegroup",
                "currentstep",
                "timestamp",
            }
            assert job["currentstep"] in {1, 2, 3, 4}
            assert isinstance(job["timestamp"], str) and JOB_TIMESTAMP.match(job["timestamp"])


def test_choices_are_only_on_a_job_awaiting_a_decision(sim, session):
    jobs = [job for unit in all_units(sim, session) for job in unit["jobs"]]
    waiting = [job for job in jobs if job["currentstep"] == 1]

    assert waiting
    assert all(isinstance(job["choices"], dict) and job["choices"] for job in waiting)
    assert all("choices" not in job for job in jobs if job["currentstep"] != 1)


def test_a_transfer_awaiting_approval_carries_the_approval_choices(sim, session):
    transfers = status_list(sim, session, "transfer")["objects"]
    approvals = [
        job
        for unit in transfers
        for job in unit["jobs"]
        if job["currentstep"] == 1 and job["type"] == "Approve standard transfer"
    ]

    assert approvals
    for job in approvals:
        assert job["microservicegroup"] == "Approve transfer"
        assert job["link_id"] == "0c94e6b5-4714-4bec-82c8-e187e0c04d77"
        assert job["choices"] == APPROVE_STANDARD


def test_every_approval_carries_the_real_workflows_link_and_choices(sim, session):
    encoded = encoded_source(sim)
    started = api(
        sim,
        "POST",
        "/api/transfer/start_transfer/",
        data={"name": "Dataset", "type": "research_data", "paths[]": [encoded]},
    )
    units = status_list(sim, session, "transfer")["objects"]
    unit = next(unit for unit in units if unit["directory"] == "Dataset")

    assert started.status_code == 200
    assert unit["jobs"][0]["type"] == "Approve research data transfer"
    assert unit["jobs"][0]["link_id"] == "246943e4-d203-48e1-ac84-4865520e7c30"
    assert unit["jobs"][0]["choices"] == {
        "1b04ec43-055c-43b7-9543-bd03c6a778ba": "Reject transfer",
        "10c00bc8-8fc2-419f-b593-cf5518695186": "Approve research data transfer",
    }


def test_jobs_are_listed_newest_first(sim, session):
    for unit in all_units(sim, session):
        times = [Decimal(job["timestamp"]) for job in unit["jobs"]]
        assert times == sorted(times, reverse=True), unit["uuid"]


def test_the_unit_timestamp_counts_the_newest_jobs_fraction_twice(sim, session):
    for unit in all_units(sim, session):
        newest = Decimal(unit["jobs"][0]["timestamp"])
        whole = int(newest)
        assert unit["timestamp"] == pytest.approx(float(whole + 2 * (newest - whole)), abs=1e-6)
        assert 0 <= Decimal(str(unit["timestamp"])) - newest < 1


def test_a_failed_transfer_shows_its_failed_job_then_the_clean_up_jobs(sim, session):
    failed = [
        unit
        for unit in status_list(sim, session, "transfer")["objects"]
        if failed_job_index(unit) is not None
    ]

    assert failed
    for unit in failed:
        index = failed_job_index(unit)
        assert index is not None and index > 0
        newer = unit["jobs"][:index]
        assert {job["microservicegroup"] for job in newer} == {"Failed transfer"}
        assert unit["jobs"][index]["microservicegroup"] not in CLEAN_UP_GROUPS
        assert unit["active"] is False


def test_a_sip_that_failed_is_listed_though_no_public_list_has_it(sim, session):
    sips = status_list(sim, session, "ingest")["objects"]
    failed = [unit for unit in sips if failed_job_index(unit) is not None]
    completed = set(api(sim, "GET", "/api/ingest/completed/").json()["results"])
    waiting_list = api(sim, "GET", "/api/ingest/waiting").json()["results"]
    waiting = {entry["sip_uuid"] for entry in waiting_list}

    assert failed
    for unit in failed:
        index = failed_job_index(unit)
        assert {job["microservicegroup"] for job in unit["jobs"][:index]} == {"Failed SIP"}
        assert unit["uuid"] not in completed and unit["uuid"] not in waiting


def test_a_transfer_started_with_automatic_approval_is_listed_without_an_approval_job(sim, session):
    encoded = encoded_source(sim)
    created = api(
        sim,
        "POST",
        "/api/v2beta/package/",
        json={"name": "Scripted", "path": encoded, "auto_approve": True},
    )
    unit_uuid = created.json()["id"]
    sim.control("advance", {"seconds": 60})

    listed = {unit["uuid"]: unit for unit in status_list(sim, session, "transfer")["objects"]}
    unapproved = api(sim, "GET", "/api/transfer/unapproved/").json()["results"]

    assert created.status_code == 202
    assert unit_uuid in listed
    assert listed[unit_uuid]["active"] is True
    assert all(job["microservicegroup"] != "Approve transfer" for job in listed[unit_uuid]["jobs"])
    assert unit_uuid not in {entry["uuid"] for entry in unapproved}


def test_a_hidden_unit_is_left_out_of_the_status_list(sim, session):
    completed = api(sim, "GET", "/api/transfer/completed/").json()["results"]
    target = completed[0]
    before = {unit["uuid"] for unit in status_list(sim, session, "transfer")["objects"]}

    hidden = api(sim, "DELETE", f"/api/transfer/{target}/delete/")
    after = {unit["uuid"] for unit in status_list(sim, session, "transfer")["objects"]}
    completed_after = api(sim, "GET", "/api/transfer/completed/").json()["results"]

    assert hidden.json() == {"removed": True}
    assert target in before
    assert target not in after
    assert target not in completed_after


def test_status_counts_the_decisions_waiting_in_the_lists(sim, session):
    counts = session.get(f"{sim.workflow_url}/status/", timeout=10).json()

    def waiting(kind: str) -> int:
        units = status_list(sim, session, kind)["objects"]
        return sum(1 for unit in units for job in unit["jobs"] if job["currentstep"] == 1)

    assert set(counts) == {"sip", "transfer", "dip"}
    assert counts["transfer"] == waiting("transfer") and counts["transfer"] > 0
    assert counts["sip"] == waiting("ingest")
    assert counts["dip"] == 0


def test_the_processing_configuration_list_names_the_services_configurations(sim):
    response = api(sim, "GET", "/api/processing-configuration/")

    assert response.status_code == 200
    assert response.json() == {"processing_configurations": ["automated", "default"]}
