"""Behaviour shared by both clients: headers, timeouts, retries, redaction, decoding."""

from __future__ import annotations

import logging
from datetime import datetime

import pytest
import requests
import responses

from dashboard.clients.base import (
    USER_AGENT,
    MalformedPayload,
    UpstreamAuthError,
    UpstreamConfigError,
    UpstreamError,
    UpstreamNotFound,
    UpstreamResponseError,
    UpstreamUnavailable,
    normalise_uuid,
    parse_timestamp,
    to_int,
    uuid_from_uri,
)
from dashboard.clients.storage import (
    StorageClient,
    StorageConfigError,
    StorageResponseError,
    StorageUnavailable,
)
from dashboard.clients.workflow import (
    APPROVE_READ_TIMEOUT,
    WorkflowAuthError,
    WorkflowClient,
    WorkflowConfigError,
    WorkflowError,
    WorkflowNotFound,
    WorkflowResponseError,
    WorkflowUnavailable,
)
from dashboard.lib.redaction import redact
from tests.clients.conftest import KEY, STORAGE_URL, USER, WORKFLOW_URL

WAITING_URL = f"{WORKFLOW_URL}/api/ingest/waiting/"
APPROVE_URL = f"{WORKFLOW_URL}/api/transfer/approve/"
PACKAGE_UUID = "0a1b2c3d-0000-4000-8000-000000000001"
PACKAGE_URL = f"{STORAGE_URL}/api/v2/file/{PACKAGE_UUID}/"
EMPTY_WAITING = {"message": "Fetched units successfully.", "results": []}


# --- headers and timeouts


def test_it_sends_the_api_key_header_and_a_lookout_user_agent(mocked, workflow):
    mocked.get(WAITING_URL, json=EMPTY_WAITING)

    workflow.list_waiting()

    headers = mocked.calls[0].request.headers
    assert headers["Authorization"] == f"ApiKey {USER}:{KEY}"
    assert headers["User-Agent"] == USER_AGENT
    assert USER_AGENT.startswith("Lookout/")


def test_it_passes_the_connect_and_read_timeouts_on_every_call(mocked):
    client = WorkflowClient(WORKFLOW_URL, USER, KEY, timeout=(1.5, 7))
    mocked.get(WAITING_URL, json=EMPTY_WAITING)
    mocked.post(APPROVE_URL, json={"message": "Approval successful.", "uuid": PACKAGE_UUID})

    client.list_waiting()
    client.approve_transfer(directory="t1")

    timeouts = [call.request.req_kwargs["timeout"] for call in mocked.calls]
    # The approval waits for the service's own 30 s wait on its job server, and more.
    assert timeouts == [(1.5, 7.0), (1.5, APPROVE_READ_TIMEOUT)]
    assert APPROVE_READ_TIMEOUT > 30


def test_an_approvals_read_timeout_is_its_own_setting_never_below_the_usual(mocked):
    mocked.post(APPROVE_URL, json={"message": "Approval successful.", "uuid": PACKAGE_UUID})
    longer = WorkflowClient(WORKFLOW_URL, USER, KEY, timeout=(1.5, 7), approve_timeout=60)
    shorter = WorkflowClient(WORKFLOW_URL, USER, KEY, timeout=(1.5, 7), approve_timeout=2)

    longer.approve_transfer(directory="t1")
    shorter.approve_transfer(directory="t1")

    assert [call.request.req_kwargs["timeout"] for call in mocked.calls] == [(1.5, 60), (1.5, 7)]


def test_it_leaves_a_shared_session_without_credentials(mocked):
    session = requests.Session()
    client = WorkflowClient(WORKFLOW_URL, USER, KEY, session=session)
    mocked.get(WAITING_URL, json=EMPTY_WAITING)

    client.list_waiting()

    assert "Authorization" not in session.headers
    assert mocked.calls[0].request.headers["Authorization"] == f"ApiKey {USER}:{KEY}"


def test_a_plain_get_sends_what_a_session_request_would(mocked):
    # Plain GETs (status calls) skip Session.request; a hook sends them the usual way.
    usual = requests.Session()
    usual.hooks["response"].append(lambda response, **kwargs: response)
    mocked.get(WAITING_URL, json=EMPTY_WAITING)

    WorkflowClient(WORKFLOW_URL, USER, KEY).list_waiting()
    WorkflowClient(WORKFLOW_URL, USER, KEY, session=usual).list_waiting()

    fast, slow = (call.request for call in mocked.calls)
    assert fast.url == slow.url == WAITING_URL
    assert dict(fast.headers) == dict(slow.headers)
    assert fast.req_kwargs["timeout"] == slow.req_kwargs["timeout"]


def test_a_session_with_hooks_or_cookies_is_used_as_it_is(mocked):
    session = requests.Session()
    seen = []
    session.hooks["response"].append(lambda response, **kwargs: seen.append(response.url))
    session.cookies.set("routing", "b")
    mocked.get(WAITING_URL, json=EMPTY_WAITING)

    WorkflowClient(WORKFLOW_URL, USER, KEY, session=session).list_waiting()

    assert seen == [WAITING_URL]
    assert mocked.calls[0].request.headers["Cookie"] == "routing=b"


def test_a_netrc_entry_cannot_replace_the_api_key_header(mocked, workflow, tmp_path, monkeypatch):
    netrc = tmp_path / "netrc"
    netrc.write_text("machine workflow.test login someone password other\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    mocked.get(WAITING_URL, json=EMPTY_WAITING)

    workflow.list_waiting()

    assert mocked.calls[0].request.headers["Authorization"] == f"ApiKey {USER}:{KEY}"


def test_its_repr_does_not_show_the_key(workflow):
    assert KEY not in repr(workflow)
    assert WORKFLOW_URL in repr(workflow)


@pytest.mark.parametrize(
    ("url", "user", "key"),
    [
        ("", USER, KEY),
        ("ftp://workflow.test", USER, KEY),
        (WORKFLOW_URL, "", KEY),
        (WORKFLOW_URL, USER, ""),
    ],
)
def test_it_raises_config_error_for_a_missing_url_or_credentials(url, user, key):
    with pytest.raises(WorkflowConfigError) as caught:
        WorkflowClient(url, user, key)
    assert isinstance(caught.value, UpstreamConfigError)
    assert KEY not in str(caught.value)


def test_storage_client_raises_its_own_config_error():
    with pytest.raises(StorageConfigError):
        StorageClient(STORAGE_URL, USER, "")


# --- retries


def test_it_retries_a_get_after_a_503_and_returns_the_next_answer(mocked, workflow, sleeps):
    mocked.get(WAITING_URL, status=503)
    mocked.get(WAITING_URL, json=EMPTY_WAITING)

    assert workflow.list_waiting() == ()
    assert len(mocked.calls) == 2
    assert sleeps == [0.2]


def test_it_gives_up_after_three_tries_with_exponential_backoff(mocked, workflow, sleeps):
    mocked.get(WAITING_URL, status=502)

    with pytest.raises(WorkflowUnavailable) as caught:
        workflow.list_waiting()

    assert len(mocked.calls) == 3
    assert sleeps == [0.2, 0.4]
    assert caught.value.status == 502


def test_it_retries_a_get_after_a_refused_connection(mocked, workflow):
    mocked.get(WAITING_URL, body=requests.ConnectionError("Connection refused"))
    mocked.get(WAITING_URL, json=EMPTY_WAITING)

    assert workflow.list_waiting() == ()
    assert len(mocked.calls) == 2


def test_it_honours_the_retries_setting(mocked, sleeps):
    client = WorkflowClient(WORKFLOW_URL, USER, KEY, retries=1)
    mocked.get(WAITING_URL, status=504)

    with pytest.raises(WorkflowUnavailable):
        client.list_waiting()

    assert len(mocked.calls) == 1
    assert sleeps == []


def test_it_never_retries_a_post_after_a_503(mocked, workflow, sleeps):
    mocked.post(APPROVE_URL, status=503)

    with pytest.raises(WorkflowUnavailable):
        workflow.approve_transfer(directory="t1")

    assert len(mocked.calls) == 1
    assert sleeps == []


def test_it_never_retries_a_post_after_a_timeout(mocked, workflow):
    mocked.post(APPROVE_URL, body=requests.ReadTimeout("read timed out"))

    with pytest.raises(WorkflowUnavailable):
        workflow.approve_transfer(directory="t1")

    assert len(mocked.calls) == 1


def test_it_never_retries_a_fixity_check_after_a_timeout(mocked, storage):
    # A GET that acts: the service records each check, so a retry would check twice.
    mocked.get(f"{PACKAGE_URL}check_fixity/", body=requests.ReadTimeout("read timed out"))

    with pytest.raises(StorageUnavailable, match="timed out"):
        storage.check_fixity(PACKAGE_UUID)

    assert len(mocked.calls) == 1


def test_it_does_not_retry_a_get_after_a_500(mocked, workflow):
    mocked.get(WAITING_URL, status=500, body="<html>Server Error</html>", content_type="text/html")

    with pytest.raises(WorkflowResponseError):
        workflow.list_waiting()

    assert len(mocked.calls) == 1


# --- unreachable services


def test_it_raises_unavailable_when_the_connection_is_refused(mocked, storage):
    mocked.get(PACKAGE_URL, body=requests.ConnectionError("[Errno 111] Connection refused"))

    with pytest.raises(StorageUnavailable) as caught:
        storage.get_package(PACKAGE_UUID)

    assert "could not connect" in str(caught.value)
    assert isinstance(caught.value, UpstreamUnavailable)
    assert caught.value.__cause__ is None


def test_it_raises_unavailable_when_the_read_times_out(mocked, storage):
    mocked.get(PACKAGE_URL, body=requests.ReadTimeout("read timed out"))

    with pytest.raises(StorageUnavailable, match="timed out"):
        storage.get_package(PACKAGE_UUID)


def test_it_raises_unavailable_when_connecting_times_out(mocked, workflow):
    mocked.get(WAITING_URL, body=requests.ConnectTimeout("connect timed out"))

    with pytest.raises(WorkflowUnavailable, match="timed out"):
        workflow.list_waiting()


def test_it_wraps_any_other_requests_error(mocked, workflow):
    mocked.get(WAITING_URL, body=requests.exceptions.InvalidHeader("bad header"))

    with pytest.raises(WorkflowResponseError):
        workflow.list_waiting()


# --- redirects and decoding


def test_it_does_not_follow_a_redirect_to_another_host(mocked, storage):
    mocked.get(
        PACKAGE_URL,
        status=301,
        headers={"Location": f"http://elsewhere.test:62081/api/v2/file/{PACKAGE_UUID}/"},
    )
    mocked.get(f"http://elsewhere.test:62081/api/v2/file/{PACKAGE_UUID}/", json={})

    with pytest.raises(StorageResponseError, match="redirect to http://elsewhere.test"):
        storage.get_package(PACKAGE_UUID)

    assert len(mocked.calls) == 1


def test_it_raises_response_error_for_a_success_without_content_type(mocked, workflow):
    mocked.add(responses.Response("GET", WAITING_URL, body=b'{"results": []}', content_type=None))

    with pytest.raises(WorkflowResponseError, match="no Content-Type"):
        workflow.list_waiting()


def test_it_maps_an_error_without_content_type_by_its_status(mocked, workflow):
    mocked.add(responses.Response("GET", WAITING_URL, status=501, body=b"", content_type=None))

    with pytest.raises(WorkflowResponseError) as caught:
        workflow.list_waiting()

    assert caught.value.status == 501


def test_it_refuses_to_decode_an_html_page_answered_with_200(mocked, workflow):
    mocked.get(WAITING_URL, body="<html><form>Log in</form></html>", content_type="text/html")

    with pytest.raises(WorkflowResponseError, match="expected JSON, got text/html"):
        workflow.list_waiting()


def test_it_raises_response_error_for_truncated_json(mocked, workflow):
    mocked.get(WAITING_URL, body='{"results": [{"sip_uu', content_type="application/json")

    with pytest.raises(WorkflowResponseError, match="not valid JSON"):
        workflow.list_waiting()


def test_a_garbled_answer_to_an_approval_says_it_was_accepted(mocked, workflow):
    # 200 and a body cut short: the service took the request, whatever it then said.
    mocked.post(APPROVE_URL, body='{"message": "Approval succ', content_type="application/json")

    with pytest.raises(WorkflowResponseError) as caught:
        workflow.approve_transfer(directory="t1")

    assert caught.value.accepted and caught.value.status == 200


def test_a_200_that_says_error_is_a_refusal_not_an_accepted_request(mocked, workflow):
    mocked.post(APPROVE_URL, json={"error": True, "message": "Unable to start the transfer."})

    with pytest.raises(WorkflowResponseError) as caught:
        workflow.approve_transfer(directory="t1")

    assert not caught.value.accepted


# --- redaction


def test_the_key_never_reaches_logs_or_exceptions(mocked, workflow, caplog):
    caplog.set_level(logging.DEBUG)
    echoed = f'{{"message": "key {KEY} refused for ?api_key={KEY}", "error": true}}'
    mocked.get(WAITING_URL, body=requests.ConnectionError(f"refused: /x?api_key={KEY}"))
    mocked.get(WAITING_URL, status=503, body=f"proxy saw ApiKey demo:{KEY}")
    mocked.get(WAITING_URL, status=400, body=echoed, content_type="application/json")

    with pytest.raises(WorkflowError) as caught:
        workflow.list_waiting()

    error = caught.value
    assert caplog.records  # the retries were logged
    for text in (
        caplog.text,
        str(error),
        repr(error),
        error.body,
        error.url or "",
        error.upstream_message or "",
    ):
        assert KEY not in text
    assert "[redacted]" in error.body


def test_redact_hides_keys_in_urls_json_and_headers():
    text = (
        "/api/v2/file/?username=demo&api_key=abc123&limit=2 "
        '{"api_key": "abc123", "description": "x"} '
        "Authorization: ApiKey demo:abc123"
    )

    redacted = redact(text)

    assert "abc123" not in redacted
    assert "limit=2" in redacted
    assert '"description": "x"' in redacted


def test_redact_hides_a_known_secret_anywhere():
    assert redact(f"echo {KEY} back", [KEY]) == "echo [redacted] back"


def test_an_upstream_error_redacts_and_truncates_what_it_carries():
    error = UpstreamError(
        "failed ?api_key=abc123",
        url="http://x.test/?api_key=abc123",
        body="api_key=abc123 " + "x" * 5000,
        upstream_message="api_key=abc123",
    )

    for text in (str(error), error.url or "", error.body, error.upstream_message or ""):
        assert "abc123" not in text
    assert len(error.body) <= 2000


def test_workflow_errors_belong_to_both_families():
    assert issubclass(WorkflowAuthError, UpstreamAuthError)
    assert issubclass(WorkflowNotFound, UpstreamNotFound)
    assert issubclass(WorkflowResponseError, UpstreamResponseError)
    assert issubclass(WorkflowUnavailable, WorkflowError)


# --- payload readers


@pytest.mark.parametrize(
    ("value", "expected"),
    [(5, 5), ("186549173", 186549173), (" 7 ", 7), (None, None), ("", None), (3.0, 3)],
)
def test_numbers_may_come_as_ints_or_numeric_strings(value, expected):
    assert to_int(value, "n") == expected


@pytest.mark.parametrize("value", [True, "12abc", [1], 2.5])
def test_a_number_that_is_not_one_is_malformed(value):
    with pytest.raises(MalformedPayload):
        to_int(value, "n")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-11-21 20:31:57", datetime(2026, 11, 21, 20, 31, 57)),
        ("2026-11-21T20:31:57", datetime(2026, 11, 21, 20, 31, 57)),
        ("2026-11-21T20:31:57.250200", datetime(2026, 11, 21, 20, 31, 57, 250200)),
        ("2026-11-21T20:31:57+02:00", datetime(2026, 11, 21, 18, 31, 57)),
        (None, None),
        ("", None),
    ],
)
def test_timestamps_parse_to_naive_datetimes(value, expected):
    parsed = parse_timestamp(value, "t")
    assert parsed == expected
    assert parsed is None or parsed.tzinfo is None


def test_uuids_are_taken_from_resource_uris():
    uri = "/api/v2/location/C5E5562A-0000-4000-8000-000000000009/"
    assert uuid_from_uri(uri) == "c5e5562a-0000-4000-8000-000000000009"
    assert uuid_from_uri("/api/v2/location/default/AS/") is None
    assert uuid_from_uri(None) is None


def test_proxy_and_ca_settings_from_the_environment_are_read_once_at_construction(monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example.org:3128")
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", "/etc/ssl/institution.pem")

    client = WorkflowClient(WORKFLOW_URL, USER, KEY)

    assert client.session.trust_env is False
    assert client.session.proxies.get("http") == "http://proxy.example.org:3128"
    assert client.session.verify == "/etc/ssl/institution.pem"


def test_a_uuid_is_returned_in_its_canonical_form_whatever_form_it_came_in():
    canonical = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
    assert normalise_uuid(canonical) == canonical
    assert normalise_uuid(canonical.upper()) == canonical
    assert normalise_uuid(" {" + canonical + "} ") == canonical
    assert normalise_uuid(canonical.replace("-", "")) == canonical
    assert normalise_uuid("0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4z") is None
    assert normalise_uuid(canonical + "\n") == canonical
    assert normalise_uuid(None) is None
