"""The dashboard client against the service's recorded behaviour (docs/service-account.md):
sign-in by the login form, expiry, the streamed status lists and their quirks, the
decision endpoint's 200-on-anything. HTTP is mocked here and only here."""

from __future__ import annotations

import json
import logging
import tracemalloc
import uuid
from datetime import UTC, datetime
from urllib.parse import parse_qs

import pytest
import requests
import responses

from dashboard.clients.workflow_dashboard import (
    DashboardResponseError,
    DashboardUnavailable,
    DashboardUnit,
    JobServerDown,
    JobStep,
    MemorySessionStore,
    SessionCookies,
    SignInRefused,
    UnitListKind,
    WorkflowDashboardClient,
)
from dashboard.lib.redaction import redact

URL = "http://workflow.test"
LOGIN = f"{URL}/administration/accounts/login/"
PASSWORD = "pa55-never-in-logs-91c2"
FORM = (
    '<form method="post"><input type="hidden" name="csrfmiddlewaretoken" '
    'value="form-token-1"><input name="username"><input name="password"></form>'
)


def job(step: int, name: str, group: str, stamp: str = "1795807416.1239790000", **more):
    return {
        "uuid": str(uuid.uuid4()),
        "link_id": str(uuid.uuid4()),
        "type": name,
        "microservicegroup": group,
        "currentstep": step,
        "timestamp": stamp,
        **more,
    }


def unit(jobs, *, active=True, directory="a-transfer", unit_uuid=None):
    unit_uuid = unit_uuid or str(uuid.uuid4())
    return {
        "id": unit_uuid,
        "uuid": unit_uuid,
        "timestamp": 1795807416.247958,  # the fraction counted twice: never used
        "active": active,
        "directory": directory,
        "jobs": jobs,
    }


def status_list(objects, mcp=True) -> str:
    return json.dumps({"objects": objects, "mcp": mcp})


@pytest.fixture
def store():
    return MemorySessionStore()


@pytest.fixture
def client(store):
    return WorkflowDashboardClient(URL, "lookout", PASSWORD, store=store)


def add_login(mocked, *, accept=True, session="sess-abc-123"):
    mocked.get(
        LOGIN,
        body=FORM,
        content_type="text/html",
        headers={"Set-Cookie": "csrftoken=cookie-token-1; Path=/"},
    )
    if accept:
        mocked.post(
            LOGIN,
            status=302,
            headers={
                "Location": "/",
                "Set-Cookie": f"sessionid={session}; Path=/; HttpOnly",
            },
        )
    else:
        mocked.post(LOGIN, status=200, body=FORM, content_type="text/html")


def add_list(mocked, kind="transfer", body=None, status=200):
    mocked.get(
        f"{URL}/{kind}/status/",
        body=status_list([]) if body is None else body,
        status=status,
        content_type="application/json",
    )


def to_login(mocked, path):
    mocked.get(
        f"{URL}{path}",
        status=302,
        headers={"Location": f"/administration/accounts/login/?next={path}"},
    )


# --- sign-in


def test_it_signs_in_as_the_login_form_does(mocked, client, store):
    add_login(mocked)
    add_list(mocked)
    assert client.status_list("transfer") == ()
    get_form, post, listing = mocked.calls
    fields = parse_qs(post.request.body)
    assert fields == {
        "username": ["lookout"],
        "password": [PASSWORD],
        "csrfmiddlewaretoken": ["form-token-1"],
    }
    assert "csrftoken=cookie-token-1" in post.request.headers["Cookie"]
    assert "sessionid=sess-abc-123" in listing.request.headers["Cookie"]
    assert "Authorization" not in listing.request.headers  # an API key is not a session
    assert store.load() == SessionCookies("sess-abc-123", "cookie-token-1")


def test_it_reuses_the_stored_session_without_signing_in(mocked, client, store):
    store.save(SessionCookies("kept-session", "kept-csrf"))
    add_list(mocked)
    client.status_list("transfer")
    assert len(mocked.calls) == 1
    assert "sessionid=kept-session" in mocked.calls[0].request.headers["Cookie"]


def test_it_signs_in_again_once_when_the_session_expired(mocked, client, store):
    store.save(SessionCookies("expired", "old-csrf"))
    to_login(mocked, "/transfer/status/")
    add_login(mocked, session="fresh")
    add_list(mocked)
    client.status_list("transfer")
    paths = [(c.request.method, c.request.url.replace(URL, "")) for c in mocked.calls]
    assert paths == [
        ("GET", "/transfer/status/"),
        ("GET", "/administration/accounts/login/"),
        ("POST", "/administration/accounts/login/"),
        ("GET", "/transfer/status/"),
    ]
    assert store.load().sessionid == "fresh"


def test_it_gives_up_without_a_loop_when_a_fresh_session_is_sent_to_login(mocked, client):
    add_login(mocked)
    to_login(mocked, "/ingest/status/")
    with pytest.raises(SignInRefused):
        client.status_list("ingest")
    assert len(mocked.calls) == 3  # form, sign-in, one request: no second round


def test_a_refused_sign_in_raises_and_never_shows_the_password(mocked, client, store, caplog):
    caplog.set_level(logging.DEBUG)
    add_login(mocked, accept=False)
    with pytest.raises(SignInRefused) as raised:
        client.status_list("transfer")
    assert "lookout" in str(raised.value)
    assert PASSWORD not in str(raised.value) + raised.value.body + caplog.text
    assert store.load() is None
    assert not any(c.request.url.endswith("/status/") for c in mocked.calls)


def test_an_unreachable_service_is_unavailable(mocked, client):
    mocked.get(LOGIN, body=requests.ConnectionError("refused"))
    with pytest.raises(DashboardUnavailable):
        client.status_list("transfer")


def test_session_cookies_are_redacted_from_text():
    line = "Cookie: csrftoken=abc123; sessionid=s3cr3t-session"
    assert "s3cr3t-session" not in redact(line)
    assert "abc123" not in redact(line)


# --- status lists


def test_it_reads_units_and_jobs_with_their_own_creation_times(mocked, client, store):
    store.save(SessionCookies("s", "c"))
    choices = {str(uuid.uuid4()): "Approve transfer", str(uuid.uuid4()): "Reject transfer"}
    waiting = job(1, "Approve standard transfer", "Approve transfer", choices=choices)
    add_list(mocked, body=status_list([unit([waiting], directory="real-approval")]))
    (found,) = client.status_list("transfer")
    assert found.kind is UnitListKind.TRANSFER
    assert (found.directory, found.active) == ("real-approval", True)
    (decision,) = found.awaiting_jobs
    assert decision.step is JobStep.AWAITING
    assert decision.name == "Approve standard transfer"
    assert decision.group == "Approve transfer"
    assert decision.choices == choices
    # Exact, from the job's string, not the unit's float (whose fraction is doubled).
    assert decision.created_at == datetime(2026, 11, 27, 19, 23, 36, 123979, tzinfo=UTC)


def test_the_failed_job_is_the_one_before_the_clean_up_groups(mocked, client, store):
    store.save(SessionCookies("s", "c"))
    jobs = [
        job(2, "Move to the failed directory", "Failed transfer", "1795815866.9"),
        job(4, "Cleanup failed Transfer", "Failed transfer", "1795815866.5"),
        job(4, "Scan for viruses in directories", "Scan for viruses", "1795815866.1"),
        job(2, "Assign file UUIDs", "Assign file UUIDs", "1795815800.0"),
    ]
    add_list(mocked, body=status_list([unit(jobs, active=False)]))
    (found,) = client.status_list("transfer")
    assert found.failed_job.name == "Scan for viruses in directories"
    assert found.failed_job.created_at == datetime.fromtimestamp(1795815866.1, UTC)
    assert found.latest_job.name == "Move to the failed directory"
    assert found.awaiting_jobs == ()


def test_a_job_server_down_answer_raises_job_server_down(mocked, client, store):
    store.save(SessionCookies("s", "c"))
    add_list(mocked, kind="ingest", body=json.dumps({"objects": {}, "mcp": False}))
    with pytest.raises(JobServerDown):
        client.status_list("ingest")


def test_malformed_units_and_jobs_are_skipped_with_a_log_line(mocked, client, store, caplog):
    store.save(SessionCookies("s", "c"))
    good = job(3, "Normalize for preservation", "Normalize")
    bad_job = job(9, "What step", "Odd")
    objects = [
        {"uuid": "not-a-uuid", "jobs": []},
        "not an object",
        unit([bad_job, good], directory="kept"),
        unit([job(2, "x", "y", stamp="yesterday")], directory="no-time"),
    ]
    add_list(mocked, body=status_list(objects))
    found = client.status_list("transfer")
    assert [u.directory for u in found] == ["kept", "no-time"]
    assert [j.name for j in found[0].jobs] == ["Normalize for preservation"]
    assert found[1].jobs == ()
    assert caplog.text.count("skipped malformed") == 4


def test_an_answer_that_is_not_json_is_a_response_error(mocked, client, store):
    store.save(SessionCookies("s", "c"))
    add_list(mocked, body='{"objects": [{"uuid": ')
    with pytest.raises(DashboardResponseError):
        client.status_list("transfer")


def test_a_gateway_error_is_unavailable_and_a_server_error_a_response_error(mocked, client, store):
    store.save(SessionCookies("s", "c"))
    add_list(mocked, status=503, body="busy")
    add_list(mocked, kind="ingest", status=500, body="<html>boom</html>")
    with pytest.raises(DashboardUnavailable):
        client.status_list("transfer")
    with pytest.raises(DashboardResponseError):
        client.status_list("ingest")


def test_a_big_list_is_parsed_in_bounded_memory(mocked, client, store):
    store.save(SessionCookies("s", "c"))
    jobs = [job(2, f"Job {n}", "Group", f"17958{n:05d}.5") for n in range(45)]
    objects = [unit(jobs, directory=f"t{n}") for n in range(300)]
    body = status_list(objects).encode()
    del objects
    assert len(body) > 2_500_000
    add_list(mocked, body=body)
    tracemalloc.start()
    try:
        count = sum(1 for _ in client.iter_status_list("transfer"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 300
    assert peak < 1_000_000  # a unit and a chunk at a time, not the 2.7 MB answer


# --- /status/ and decisions


def _progress(data, steps=frozenset({JobStep.AWAITING, JobStep.FAILED})) -> str:
    return DashboardUnit.from_api(data, kind=UnitListKind.TRANSFER, steps=steps).progress


def test_a_units_progress_changes_when_it_moves_and_only_then():
    first = job(2, "Move to processing directory", "Verify transfer compliance")
    waiting = job(1, "Approve standard transfer", "Approve transfer")
    listed = unit([waiting, first])
    same = json.loads(json.dumps(listed))
    answered = json.loads(json.dumps(listed))
    answered["jobs"][0]["currentstep"] = 2
    next_job = unit([job(3, "Extract packages", "Extract packages"), waiting, first])
    next_job["uuid"] = next_job["id"] = listed["uuid"]

    assert _progress(listed) == _progress(same)
    assert len({_progress(listed), _progress(answered), _progress(next_job)}) == 3
    assert _progress(listed) != _progress({**listed, "active": False})


def test_it_reads_the_decision_counts(mocked, client, store):
    store.save(SessionCookies("s", "c"))
    mocked.get(f"{URL}/status/", json={"sip": 2, "transfer": 1, "dip": 0})
    counts = client.decision_counts()
    assert (counts.transfer, counts.sip, counts.dip) == (1, 2, 0)


def test_an_answer_is_sent_as_the_dashboard_sends_it(mocked, client, store):
    store.save(SessionCookies("s", "csrf-value"))
    mocked.post(f"{URL}/mcp/execute/", body="None", content_type="text/plain")
    job_uuid = str(uuid.uuid4())
    assert client.answer_decision(job_uuid, "1b04ec43-055c-43b7-9543-bd03c6a778ba") is None
    (call,) = mocked.calls
    assert parse_qs(call.request.body) == {
        "uuid": [job_uuid],
        "choice": ["1b04ec43-055c-43b7-9543-bd03c6a778ba"],
    }
    assert call.request.headers["X-CSRFToken"] == "csrf-value"
    assert "sessionid=s" in call.request.headers["Cookie"]


def test_an_answer_is_sent_once_even_when_the_service_does_not_answer(mocked, client, store):
    store.save(SessionCookies("s", "c"))
    mocked.post(f"{URL}/mcp/execute/", body=requests.ReadTimeout("no answer"))
    with pytest.raises(DashboardUnavailable):
        client.answer_decision(str(uuid.uuid4()), "0")
    assert len(mocked.calls) == 1


def test_an_answer_needs_a_job_uuid(client):
    with pytest.raises(ValueError):
        client.answer_decision("job-1", "0")


def test_the_client_has_explicit_timeouts(mocked, client, store):
    store.save(SessionCookies("s", "c"))
    add_list(mocked)
    client.status_list("transfer")
    assert client.list_timeout[0] < 5 < client.list_timeout[1]


def test_mocked_http_only(mocked):
    # The mock is strict: nothing here reaches a network.
    assert isinstance(mocked, responses.RequestsMock)


def test_a_list_read_for_some_steps_keeps_only_those_jobs(mocked, client, store, caplog):
    store.save(SessionCookies("s", "c"))
    jobs = [
        job(1, "Approve standard transfer", "Approve transfer"),
        job(2, "Assign file UUIDs", "Assign file UUIDs"),
        job(3, "Scan for viruses", "Scan for viruses"),
        job(4, "Check transfer directory", "Verify transfer compliance"),
        job(9, "A step nobody knows", "Unknown"),
    ]
    add_list(mocked, body=status_list([unit(jobs)]))
    steps = frozenset({JobStep.AWAITING, JobStep.FAILED})
    with caplog.at_level(logging.WARNING):
        (found,) = client.iter_status_list("transfer", steps=steps)
    assert [j.step for j in found.jobs] == [JobStep.AWAITING, JobStep.FAILED]
    assert found.awaiting_jobs[0].name == "Approve standard transfer"
    assert found.failed_job.name == "Check transfer directory"
    # A job at a step it does not know is still read, so still reported as malformed.
    assert "unknown job step 9" in caplog.text
