"""Contract tests: answering decisions through the dashboard, and its job server's outages.

`/mcp/execute/` answers 200 "None" whatever happened; a valid answer moves the unit on
along the chosen chain. While the job server is down the status lists say `mcp: false`
with an empty object, `/status/` and `/mcp/execute/` do not answer, a decision sent
meanwhile takes effect when it comes back, and an approval fails after its wait.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.support.dashboard_session import csrf_header, signed_in
from tests.support.simulator_process import SimulatorProcess

pytestmark = pytest.mark.integration

APPROVE = "6953950b-c101-4f4c-a0c3-0cd0684afe5e"
REJECT = "1b04ec43-055c-43b7-9543-bd03c6a778ba"
WAIT_SECONDS = 0.3


@pytest.fixture
def sim() -> Iterator[SimulatorProcess]:
    with SimulatorProcess(
        units=60, seed=1, speed=0, job_server_wait_seconds=WAIT_SECONDS
    ) as process:
        yield process


@pytest.fixture
def session(sim: SimulatorProcess) -> requests.Session:
    return signed_in(sim)


def transfers(sim: SimulatorProcess, session: requests.Session) -> dict[str, dict[str, Any]]:
    body = session.get(f"{sim.workflow_url}/transfer/status/", timeout=30).json()
    return {unit["uuid"]: unit for unit in body["objects"]}


def waiting_approvals(sim, session) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [
        (unit, unit["jobs"][0])
        for unit in transfers(sim, session).values()
        if unit["jobs"][0]["currentstep"] == 1
        and unit["jobs"][0]["type"] == "Approve standard transfer"
    ]


def execute(
    sim: SimulatorProcess, session: requests.Session, job: str, choice: str, timeout: float = 10
) -> requests.Response:
    return session.post(
        f"{sim.workflow_url}/mcp/execute/",
        data={"uuid": job, "choice": choice},
        headers=csrf_header(session),
        timeout=timeout,
    )


def job_state(sim, session, unit_uuid: str, job_uuid: str) -> int:
    unit = transfers(sim, session)[unit_uuid]
    return next(job["currentstep"] for job in unit["jobs"] if job["uuid"] == job_uuid)


def timed_approve(sim: SimulatorProcess, directory: str) -> tuple[requests.Response, float]:
    """The public API's approve, and how long it took to answer."""
    started = time.monotonic()
    answer = requests.post(
        f"{sim.workflow_url}/api/transfer/approve/",
        data={"type": "standard", "directory": directory},
        headers=sim.auth_header,
        timeout=10,
    )
    return answer, time.monotonic() - started


def set_job_server(sim: SimulatorProcess, **changes: Any) -> dict[str, Any]:
    return sim.control("mcp", changes)


def test_an_answer_is_200_none_and_moves_the_unit_on_along_the_chosen_chain(sim, session):
    unit, job = waiting_approvals(sim, session)[0]

    answer = execute(sim, session, job["uuid"], APPROVE)
    sim.control("advance", {"seconds": 5})
    after = transfers(sim, session)[unit["uuid"]]

    assert (answer.status_code, answer.text) == (200, "None")
    assert answer.headers["Content-Type"].startswith("text/plain")
    decided = next(j for j in after["jobs"] if j["uuid"] == job["uuid"])
    assert decided["currentstep"] == 2 and "choices" not in decided
    newer = after["jobs"][: after["jobs"].index(decided)]
    assert newer and newer[-1]["type"] == "Move to processing directory"


def test_rejecting_at_approval_takes_the_rejection_chain(sim, session):
    unit, job = waiting_approvals(sim, session)[0]

    execute(sim, session, job["uuid"], REJECT)
    sim.control("advance", {"seconds": 30})
    after = transfers(sim, session)[unit["uuid"]]
    status = requests.get(
        f"{sim.workflow_url}/api/transfer/status/{unit['uuid']}/",
        headers=sim.auth_header,
        timeout=10,
    ).json()

    assert after["jobs"][0]["microservicegroup"] == "Reject transfer"
    assert after["active"] is False
    assert status["status"] == "REJECTED"


@pytest.mark.parametrize("case", ["already decided", "wrong choice", "unknown job"])
def test_an_answer_not_taken_is_200_none_all_the_same(sim, session, case):
    unit, job = waiting_approvals(sim, session)[0]
    job_uuid, choice = job["uuid"], REJECT
    if case == "already decided":
        execute(sim, session, job["uuid"], APPROVE)
    elif case == "wrong choice":
        choice = "not-a-choice"
    else:
        job_uuid = "9b2e4f3c-1d5a-4c6b-8e7f-0a1b2c3d4e5f"
    before = transfers(sim, session)[unit["uuid"]]["jobs"]

    answer = execute(sim, session, job_uuid, choice)
    after = transfers(sim, session)[unit["uuid"]]["jobs"]

    assert (answer.status_code, answer.text) == (200, "None")
    assert after == before  # nothing happened: no rejection, no other job
    if case != "already decided":
        assert job_state(sim, session, unit["uuid"], job["uuid"]) == 1


@pytest.mark.parametrize("kind", ["transfer", "ingest"])
def test_while_the_job_server_is_down_the_lists_say_mcp_false_after_a_delay(sim, session, kind):
    set_job_server(sim, up=False)

    started = time.monotonic()
    answer = session.get(f"{sim.workflow_url}/{kind}/status/", timeout=10)
    elapsed = time.monotonic() - started

    assert answer.status_code == 200
    assert answer.json() == {"objects": {}, "mcp": False}
    assert elapsed >= WAIT_SECONDS


@pytest.mark.parametrize("path", ["/status/", "/mcp/execute/"])
def test_while_the_job_server_is_down_status_and_execute_do_not_answer(sim, session, path):
    set_job_server(sim, up=False, hang_seconds=3)

    with pytest.raises(requests.Timeout):
        if path == "/status/":
            session.get(sim.workflow_url + path, timeout=1)
        else:
            execute(sim, session, "9b2e4f3c-1d5a-4c6b-8e7f-0a1b2c3d4e5f", "0", timeout=1)


def test_a_decision_sent_while_down_takes_effect_when_the_job_server_is_back(sim, session):
    unit, job = waiting_approvals(sim, session)[0]
    set_job_server(sim, up=False)
    answers: list[requests.Response] = []
    sender = threading.Thread(
        target=lambda: answers.append(execute(sim, session, job["uuid"], APPROVE))
    )

    sender.start()
    time.sleep(0.5)
    queued = set_job_server(sim)["queued"]
    still_waiting_while_down = sim.control("actions")["actions"]
    set_job_server(sim, up=True)
    sender.join(timeout=10)

    assert queued == 1
    assert not any(a["action"] == "decision" for a in still_waiting_while_down)
    assert [(a.status_code, a.text) for a in answers] == [(200, "None")]
    assert job_state(sim, session, unit["uuid"], job["uuid"]) == 2


def test_an_approval_while_the_job_server_is_down_fails_after_its_wait(sim, session):
    unit, job = waiting_approvals(sim, session)[0]
    set_job_server(sim, up=False)

    answer, elapsed = timed_approve(sim, unit["directory"])
    set_job_server(sim, up=True)

    assert answer.status_code == 500
    assert answer.json() == {"error": True, "message": "Unable to start the transfer."}
    assert elapsed >= WAIT_SECONDS
    assert job_state(sim, session, unit["uuid"], job["uuid"]) == 1


def test_an_approval_through_a_slow_job_server_succeeds_late(sim, session):
    unit, job = waiting_approvals(sim, session)[0]
    set_job_server(sim, slow_seconds=0.6)

    answer, elapsed = timed_approve(sim, unit["directory"])

    assert answer.status_code == 200
    assert elapsed >= 0.6
    assert job_state(sim, session, unit["uuid"], job["uuid"]) == 2
