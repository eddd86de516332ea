"""Apprise channels: any Apprise URL, kept secret, sent through the same outbox.

A real local receiver stands in for each service (Teams through Apprise's workflows://
schema over HTTPS, Matrix, Mattermost, ntfy) and checks the exact requests Apprise made.
"""

from __future__ import annotations

import io
import logging
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.utils import timezone

from dashboard.clients import apprise_notify
from dashboard.lib.secret_redaction import RedactingFormatter
from dashboard.models import Alert, AlertChannel, AlertKind, AlertMessage, AlertRule, AuditEntry
from dashboard.services import alerts
from tests.alerts.conftest import failed, polled
from tests.support.receivers import MATRIX_ROOM_ID, http_recorder
from tests.support.redis_server import free_port
from tests.support.users import make_user

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

TITLE = "[Lookout] Transfer unit-1 failed at Normalize"
UNIT_URL = "http://127.0.0.1:8000/units/00000000-0000-0000-0000-000000000001/"
WORKFLOW_ID = "a1b2c3d4e5f6"
SIGNATURE = "Sig-Secret_0123456789"
MATRIX_TOKEN = "syt_matrix_secret_token"
MATTERMOST_TOKEN = "mm8hooksecret4token"


@pytest.fixture
def receiver():
    with http_recorder() as recorder:
        yield recorder


def _add(url: str) -> AlertChannel:
    return alerts.alert_channel_add(kind="apprise", target=url, actor_name="test").channel


def _one_failure(now):
    polled(at=now)
    alerts.alerts_evaluate(now=now)
    failed(1, now + timedelta(minutes=1))
    polled(at=now + timedelta(minutes=2))
    alerts.alerts_evaluate(now=now + timedelta(minutes=2))


def _deliver_failure(now) -> None:
    _one_failure(now)
    assert alerts.outbox_deliver_due(now=now + timedelta(minutes=3)).sent == 1


def _body_text(text: str) -> None:
    """The message text Lookout renders, as it reached the service."""
    assert "Failed at Normalize" in text
    assert f"Open in Lookout: {UNIT_URL}" in text
    assert "Silence it: http://127.0.0.1:8000/alerts/silence/" in text


def test_teams_gets_one_adaptive_card_through_a_workflow(tmp_path, now):
    with http_recorder(tls_folder=tmp_path) as teams:
        # Apprise's Teams schema: a Power Automate workflow, always over HTTPS; the
        # receiver's certificate is self-signed, hence verify=no.
        _add(f"workflows://{teams.hostport}/{WORKFLOW_ID}/{SIGNATURE}/?verify=no&image=no")
        _deliver_failure(now)

    [request] = teams.requests
    assert request.method == "POST"
    assert request.path == f"/workflows/{WORKFLOW_ID}/triggers/manual/paths/invoke"
    assert request.query == {
        "api-version": "2016-06-01",
        "sp": "/triggers/manual/run",
        "sv": "1.0",
        "sig": SIGNATURE,
    }
    assert request.headers["Content-Type"] == "application/json"
    body = request.json()
    assert body["type"] == "message"
    [attachment] = body["attachments"]
    assert attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
    card = attachment["content"]
    assert card["type"] == "AdaptiveCard"
    title, text = card["body"]
    assert (title["id"], title["text"]) == ("title", TITLE)
    assert text["id"] == "body"
    _body_text(text["text"])


def test_matrix_joins_the_room_and_sends_one_text_message(receiver, now):
    _add(f"matrix://{MATRIX_TOKEN}@{receiver.hostport}/{MATRIX_ROOM_ID}")
    _deliver_failure(now)

    calls = [(r.method, r.path) for r in receiver.requests]
    assert calls[:2] == [
        ("GET", "/_matrix/client/v3/account/whoami"),
        ("POST", f"/_matrix/client/v3/join/{MATRIX_ROOM_ID}"),
    ]
    sends = [r for r in receiver.requests if "/send/" in r.path]
    assert len(sends) == 1 and sends[0].method == "PUT"
    assert sends[0].path.startswith(f"/_matrix/client/v3/rooms/{MATRIX_ROOM_ID}/send/")
    assert all(r.headers["Authorization"] == f"Bearer {MATRIX_TOKEN}" for r in receiver.requests)
    message = sends[0].json()
    assert message["msgtype"] == "m.text"
    assert message["body"].startswith(f"# {TITLE}\r\n")
    _body_text(message["body"])


def test_mattermost_gets_one_incoming_webhook_post(receiver, now):
    _add(f"mmost://{receiver.hostport}/{MATTERMOST_TOKEN}")
    _deliver_failure(now)

    [request] = receiver.requests
    assert (request.method, request.path) == ("POST", f"/hooks/{MATTERMOST_TOKEN}")
    assert request.headers["Content-Type"] == "application/json"
    body = request.json()
    assert body["text"].startswith(f"{TITLE}\r\n")
    _body_text(body["text"])
    assert body["icon_url"].endswith("-failure-72x72.png")  # marked as a failure


def test_ntfy_gets_one_message_on_its_topic(receiver, now):
    _add(f"ntfy://{receiver.hostport}/lookout-alerts")
    _deliver_failure(now)

    [request] = receiver.requests
    assert (request.method, request.path) == ("POST", "/")
    body = request.json()
    assert (body["topic"], body["title"]) == ("lookout-alerts", TITLE)
    _body_text(body["message"])


def test_a_refusal_is_retried_after_its_backoff_and_then_delivered_once(receiver, now, caplog):
    channel = _add(f"mmost://{receiver.hostport}/{MATTERMOST_TOKEN}")
    receiver.statuses = [500]
    _one_failure(now)
    start = now + timedelta(minutes=3)

    with caplog.at_level(logging.DEBUG):
        assert alerts.outbox_deliver_due(now=start).failed == 1
    message = AlertMessage.objects.get()
    assert message.attempts == 1 and message.sent_at is None
    assert message.next_attempt_at == start + timedelta(seconds=30)
    channel.refresh_from_db()
    assert channel.failing
    assert "Mattermost" in channel.last_error and "500" in channel.last_error
    assert MATTERMOST_TOKEN not in channel.last_error + message.last_error
    assert MATTERMOST_TOKEN not in caplog.text
    assert "not sent" in caplog.text  # the failure itself is logged, without the URL

    assert alerts.outbox_deliver_due(now=start + timedelta(seconds=10)).failed == 0  # not due
    assert alerts.outbox_deliver_due(now=start + timedelta(seconds=31)).sent == 1
    assert alerts.outbox_deliver_due(now=start + timedelta(minutes=5)).sent == 0
    assert len(receiver.requests) == 2
    assert receiver.requests[0].body == receiver.requests[1].body
    channel.refresh_from_db()
    assert not channel.failing


def test_a_failure_and_its_resolution_arrive_exactly_once_each(receiver, settings):
    """The acceptance: through the outbox, whatever later evaluations and runs do."""
    _add(f"ntfy://{receiver.hostport}/lookout-alerts")
    AlertRule.objects.exclude(kind=AlertKind.SERVICE_STALE).update(enabled=False)
    settings.LOOKOUT_WORKFLOW_POLL_INTERVAL = 10
    t0 = timezone.now()
    polled(at=t0)
    alerts.alerts_evaluate(now=t0)
    for seconds in (31, 35, 39):  # stale, and still stale
        alerts.alerts_evaluate(now=t0 + timedelta(seconds=seconds))
        alerts.outbox_deliver_due(now=t0 + timedelta(seconds=seconds))
    polled(at=t0 + timedelta(seconds=40))
    for seconds in (41, 45, 50):  # recovered, and still fine
        alerts.alerts_evaluate(now=t0 + timedelta(seconds=seconds))
        alerts.outbox_deliver_due(now=t0 + timedelta(seconds=seconds))

    alert = Alert.objects.get(kind=AlertKind.SERVICE_STALE)
    assert alert.state == "resolved"
    titles = [request.json()["title"] for request in receiver.requests]
    assert titles == [f"[Lookout] {alert.title}", f"[Lookout] Resolved: {alert.title}"]
    assert AlertMessage.objects.filter(sent_at__isnull=False).count() == 2


def test_the_url_is_kept_whole_but_shown_and_audited_masked(receiver):
    url = f"mmost://{receiver.hostport}/{MATTERMOST_TOKEN}"
    added = alerts.alert_channel_add(kind="apprise", target=url, actor_name="test")

    channel = AlertChannel.objects.get()
    assert channel.secret == url
    assert added.secret == ""  # nothing to show once: the URL is never shown back
    assert channel.target == f"mmost://{receiver.hostport}/m...n/"
    assert MATTERMOST_TOKEN not in str(channel)
    audit = AuditEntry.objects.get(action="alert_channel_add")
    assert MATTERMOST_TOKEN not in audit.target_label + str(audit.parameters)


def test_a_user_name_or_token_before_the_host_is_masked_too():
    shown = apprise_notify.apprise_url_check("ntfys://tk_ntfysecret@ntfy.example.org/alerts")
    assert shown.masked == "ntfys://****@ntfy.example.org/alerts"
    assert shown.service == "ntfy"


def test_the_command_adds_and_lists_an_apprise_channel_masked(receiver):
    url = f"mmost://{receiver.hostport}/{MATTERMOST_TOKEN}"
    out, err = io.StringIO(), io.StringIO()
    call_command("alert_channel", "add", "apprise", url, stdout=out, stderr=err)
    call_command("alert_channel", "list", stdout=out, stderr=err)
    call_command("alert_channel", "test", str(AlertChannel.objects.get().pk), stdout=out)

    printed = out.getvalue() + err.getvalue()
    assert MATTERMOST_TOKEN not in printed
    assert f"mmost://{receiver.hostport}/m...n/" in printed
    assert "Delivered a test message" in printed
    assert receiver.requests[0].path == f"/hooks/{MATTERMOST_TOKEN}"


def test_the_command_refuses_what_apprise_cannot_use(db):
    with pytest.raises(CommandError, match="Apprise has no service for nosuch://"):
        call_command("alert_channel", "add", "apprise", "nosuch://host/x")
    with pytest.raises(CommandError, match="workflows:// URL is incomplete or malformed"):
        call_command("alert_channel", "add", "apprise", "workflows://host/only-one-part")
    with pytest.raises(CommandError, match="at most 2000 characters"):
        call_command("alert_channel", "add", "apprise", "json://host/" + "x" * 2000)
    assert not AlertChannel.objects.exists()


def test_the_settings_page_adds_an_apprise_channel_and_never_shows_its_url(receiver):
    client = Client()
    client.force_login(make_user("ada", "admin"))
    url = f"mmost://{receiver.hostport}/{MATTERMOST_TOKEN}"

    answer = client.post("/alerts/settings/channels/", {"kind": "apprise", "target": url})
    assert answer.status_code == 200
    page = answer.content.decode() + client.get("/alerts/settings/").content.decode()
    assert MATTERMOST_TOKEN not in page
    assert f"mmost://{receiver.hostport}/m...n/" in page
    assert AlertChannel.objects.get().secret == url

    refused = client.post("/alerts/settings/channels/", {"kind": "apprise", "target": "nosuch://x"})
    assert refused.status_code == 400
    assert "Apprise has no service for nosuch://" in refused.content.decode()


def test_the_client_raises_its_own_error_with_the_secret_redacted(receiver):
    receiver.statuses = [500]
    url = f"mmost://{receiver.hostport}/{MATTERMOST_TOKEN}"
    with pytest.raises(apprise_notify.AppriseError) as raised:
        apprise_notify.apprise_send(url=url, title="t", body="b", timeout=2)
    assert isinstance(raised.value, alerts.notify.NotifyError)  # the outbox retries it
    assert "error=500" in str(raised.value)
    assert MATTERMOST_TOKEN not in str(raised.value)


def test_an_unreachable_service_is_an_error(db):
    url = f"mmost://127.0.0.1:{free_port()}/{MATTERMOST_TOKEN}"  # nothing listens there
    with pytest.raises(apprise_notify.AppriseError, match="Connection error") as raised:
        apprise_notify.apprise_send(url=url, title="t", body="b", timeout=1)
    assert MATTERMOST_TOKEN not in str(raised.value)


def test_a_teams_workflow_address_is_taken_as_teams_gives_it():
    native = (
        "https://prod-161.westeurope.logic.azure.com:443/workflows/643e69f83c8944438d68119179a10a64"
        "/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun"
        "&sv=1.0&sig=KODuebWbDGYFr0z0eu-6Rj8aUKz7108W3wrNJZxFE5A"
    )
    shown = apprise_notify.apprise_url_check(native)
    assert shown.masked == "workflow://prod-161.westeurope.logic.azure.com:443/6...4/K...A/"
    assert "KODuebWbDGYFr0z0eu" not in shown.masked and "643e69f83c89" not in shown.masked


def test_a_plain_https_address_is_pointed_to_json_or_the_webhook_kind():
    with pytest.raises(apprise_notify.AppriseUrlError, match="json://"):
        apprise_notify.apprise_url_check("https://chat.example.org/hooks/abc123")


@pytest.fixture
def lookout_log():
    """What Lookout's own log handler (LOGGING's "console", on the root logger) writes."""
    [console] = [
        handler
        for handler in logging.getLogger().handlers
        if isinstance(handler.formatter, RedactingFormatter)
    ]
    written = io.StringIO()
    previous = console.setStream(written)
    try:
        yield written
    finally:
        console.setStream(previous)


def test_apprise_s_own_log_lines_never_reach_lookout_s_log(lookout_log):
    # Apprise logs a token it finds malformed, in full, as a warning.
    with pytest.raises(apprise_notify.AppriseUrlError):
        apprise_notify.apprise_url_check("workflows://host.example.org/WF123/bad!Secret!sig")
    logging.getLogger("dashboard").warning("a line of Lookout's own")

    assert "a line of Lookout's own" in lookout_log.getvalue()
    assert "bad!Secret!sig" not in lookout_log.getvalue()
    assert "Signature" not in lookout_log.getvalue()
