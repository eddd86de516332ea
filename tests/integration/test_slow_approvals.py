"""Approvals against the simulator: slow ones, and research data transfers.

The service waits for its job server before it answers an approval.

Lookout allows for that wait (its own approve timeout); an approval that still times out
is settled by a later poll: done when the transfer moved on, not done when it still
waits. The simulator's job server is made slow or taken down; delays are short here.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Iterator

import pytest
import requests

from dashboard.lib.pipelines import pipeline_list
from dashboard.models import AuditEntry, Unit
from dashboard.services import actions
from dashboard.services import units as unit_services
from tests.integration.conftest import point_at
from tests.support.simulator_process import SimulatorProcess
from tests.support.users import make_user

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
CLIENT_WAIT = 1.0  # Lookout's approve timeout in these tests
JOB_SERVER_DELAY = 2.5  # longer than that: the approval times out


@pytest.fixture
def sim(settings) -> Iterator[SimulatorProcess]:
    with SimulatorProcess(units=40, seed=1, speed=0) as process:
        point_at(settings, process)
        settings.LOOKOUT_HTTP_TIMEOUT = (3.05, CLIENT_WAIT)
        settings.LOOKOUT_WORKFLOW_APPROVE_TIMEOUT = CLIENT_WAIT
        yield process


def awaiting_transfer(sim: SimulatorProcess) -> Unit:
    unit_services.workflow_poll(pipeline=pipeline_list()[0])
    unit = Unit.objects.filter(awaiting_approval=True).order_by("uuid").first()
    assert unit is not None, "seed 1 leaves transfers waiting for approval"
    return unit


def approve(unit: Unit, key: str) -> AuditEntry:
    operator = make_user("otto", "operator")
    return actions.transfer_approve(user=operator, unit=unit, idempotency_key=key * 32).entry


def approved_upstream(sim: SimulatorProcess, unit_uuid: str) -> bool:
    actions_taken = sim.control("actions")["actions"]
    return any(
        a["action"] == "transfer_approve" and a["target"] == unit_uuid for a in actions_taken
    )


def test_an_approval_waits_longer_than_the_usual_read_timeout(sim, settings):
    settings.LOOKOUT_WORKFLOW_APPROVE_TIMEOUT = JOB_SERVER_DELAY + 2
    unit = awaiting_transfer(sim)
    sim.control("mcp", {"slow_seconds": JOB_SERVER_DELAY})

    entry = approve(unit, "w")

    assert entry.outcome == "done"
    assert approved_upstream(sim, unit.uuid)


def test_a_timed_out_approval_the_service_carried_out_is_settled_as_done(sim):
    unit = awaiting_transfer(sim)
    sim.control("mcp", {"slow_seconds": JOB_SERVER_DELAY})

    entry = approve(unit, "s")
    first = entry.outcome
    deadline = time.monotonic() + 10
    while not approved_upstream(sim, unit.uuid) and time.monotonic() < deadline:
        time.sleep(0.2)
    sim.control("mcp", {"slow_seconds": 0})
    unit_services.workflow_poll(pipeline=pipeline_list()[0])
    settled = actions.timed_out_approvals_settle(pipeline="default")
    entry.refresh_from_db()

    assert first == "timed_out"
    assert settled == 1
    assert entry.outcome == "done"
    assert entry.upstream_message.startswith("Done: the service did not answer in time")


def test_a_timed_out_approval_the_service_did_not_take_is_settled_as_not_done(sim):
    unit = awaiting_transfer(sim)
    sim.control("mcp", {"up": False, "wait_seconds": JOB_SERVER_DELAY})

    entry = approve(unit, "n")
    first = entry.outcome
    before_any_poll = actions.timed_out_approvals_settle(pipeline="default")
    time.sleep(JOB_SERVER_DELAY)  # the service gives up on its job server meanwhile
    sim.control("mcp", {"up": True})
    unit_services.workflow_poll(pipeline=pipeline_list()[0])
    settled = actions.timed_out_approvals_settle(pipeline="default")
    entry.refresh_from_db()

    assert first == "timed_out"
    assert before_any_poll == 0  # nothing is known until a poll after the timeout
    assert settled == 1
    assert entry.outcome == "not_done"
    assert "still saw the transfer waiting for approval" in entry.upstream_message
    assert not approved_upstream(sim, unit.uuid)


def test_a_research_data_transfer_is_approved_through_the_service(sim):
    location, path = sim.control("state")["transfer_sources"][0]
    encoded = base64.b64encode(f"{location}:{path}".encode()).decode()
    requests.post(
        f"{sim.workflow_url}/api/transfer/start_transfer/",
        data={"name": "Dataset", "type": "research_data", "paths[]": [encoded]},
        headers=sim.auth_header,
        timeout=10,
    ).raise_for_status()
    unit_services.workflow_poll(pipeline=pipeline_list()[0])
    unit = Unit.objects.get(name="Dataset")

    entry = approve(unit, "r")

    assert not unit.awaiting_approval and unit.approvable  # not in the unapproved list
    assert entry.outcome == "done"
    assert approved_upstream(sim, unit.uuid)
