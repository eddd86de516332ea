"""The outbox: claimed by a conditional UPDATE, sent once, retried with backoff."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import timedelta

import pytest
import responses
from django.core import mail
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from dashboard import tasks
from dashboard.clients import notify
from dashboard.models import AlertChannel, AlertMessage
from dashboard.services import alerts
from dashboard.services.locks import lock_acquire
from tests.alerts.conftest import failed, polled

pytestmark = pytest.mark.django_db

HOOK = "https://hooks.example.org/lookout"


def _one_failure(now):
    polled(at=now)
    alerts.alerts_evaluate(now=now)
    failed(1, now + timedelta(minutes=1))
    polled(at=now + timedelta(minutes=2))  # fresh: only the failure is news
    alerts.alerts_evaluate(now=now + timedelta(minutes=2))


@pytest.fixture
def webhook(db):
    return alerts.alert_channel_add(kind="webhook", target=HOOK).channel


def test_a_message_is_sent_once_and_a_second_run_finds_nothing(webhook, sent, now):
    polled(at=now)
    _one_failure(now)
    later = now + timedelta(minutes=3)
    assert alerts.outbox_deliver_due(now=later).sent == 1
    assert alerts.outbox_deliver_due(now=later).sent == 0
    assert len(sent) == 1
    body = json.loads(sent[0]["body"])
    assert body["event"] == "fired"
    assert body["alert"]["title"].startswith("Transfer unit-1 failed at Normalize")
    assert body["alert"]["url"].endswith("/units/00000000-0000-0000-0000-000000000001/")
    assert sent[0]["secret"] == webhook.secret


def test_a_message_claimed_by_another_worker_is_not_sent(webhook, sent, now):
    polled(at=now)
    _one_failure(now)
    message = AlertMessage.objects.get()
    AlertMessage.objects.filter(pk=message.pk).update(
        claim_token="other", claimed_until=now + timedelta(minutes=10)
    )
    assert alerts.message_deliver(message_id=message.pk, now=now + timedelta(minutes=3)) is None
    assert not sent
    # A claim left by a worker that died expires, and the message goes out then.
    assert alerts.message_deliver(message_id=message.pk, now=now + timedelta(minutes=11))
    assert len(sent) == 1


def test_a_failing_channel_is_marked_and_retried_with_backoff(webhook, monkeypatch, now):
    polled(at=now)
    _one_failure(now)

    def refuse(**kwargs):
        raise notify.NotifyError("The webhook answered HTTP 500: boom")

    monkeypatch.setattr("dashboard.clients.notify.webhook_post", refuse)
    start = now + timedelta(minutes=3)
    assert alerts.outbox_deliver_due(now=start).failed == 1
    message = AlertMessage.objects.get()
    assert message.attempts == 1
    assert message.next_attempt_at == start + timedelta(seconds=30)
    channel = AlertChannel.objects.get()
    assert channel.failing and "HTTP 500" in channel.last_error
    # Not due again before its backoff.
    assert alerts.outbox_deliver_due(now=start + timedelta(seconds=10)).failed == 0
    assert alerts.outbox_deliver_due(now=start + timedelta(seconds=31)).failed == 1
    message.refresh_from_db()
    assert message.next_attempt_at == start + timedelta(seconds=31 + 60)


def test_it_gives_up_after_the_last_attempt(webhook, monkeypatch, now):
    polled(at=now)
    _one_failure(now)

    def refuse(**kwargs):
        raise notify.NotifyError("down")

    monkeypatch.setattr("dashboard.clients.notify.webhook_post", refuse)
    AlertMessage.objects.update(attempts=alerts.MAX_ATTEMPTS - 1)
    alerts.outbox_deliver_due(now=now + timedelta(minutes=3))
    assert AlertMessage.objects.get().gave_up_at is not None


def test_a_message_silenced_before_it_is_sent_is_dropped(webhook, sent, now):
    polled(at=now)
    _one_failure(now)
    message = AlertMessage.objects.get()
    alerts.alert_silence(alert_id=message.alert_id, hours=1, actor_name="test", now=now)
    alerts.outbox_deliver_due(now=now + timedelta(minutes=3))
    assert not sent
    assert "Silenced" in AlertMessage.objects.get().last_error


def test_the_silence_link_in_a_message_names_its_alert(webhook, sent, now):
    polled(at=now)
    _one_failure(now)
    alerts.outbox_deliver_due(now=now + timedelta(minutes=3))
    url = json.loads(sent[0]["body"])["alert"]["silence_url"]
    token = url.rstrip("/").rsplit("/", 1)[1]
    assert alerts.silence_token_read(token) == (AlertMessage.objects.get().alert_id, webhook.pk)
    assert alerts.silence_token_read(token + "x") is None


def test_a_message_reads_the_same_whenever_it_is_rendered(webhook, now, monkeypatch):
    polled(at=now)
    _one_failure(now)
    message = AlertMessage.objects.get()
    first = alerts.message_render(message)
    later = message.created_at.timestamp() + 3600
    monkeypatch.setattr("django.core.signing.time.time", lambda: later)
    assert alerts.message_render(message) == first


def test_a_silence_link_expires_counted_from_its_message(webhook, now):
    polled(at=now)
    _one_failure(now)
    message = AlertMessage.objects.get()
    old = timezone.now() - timedelta(seconds=alerts.SILENCE_LINK_MAX_AGE + 60)
    token = alerts.silence_token(alert_id=message.alert_id, channel_id=webhook.pk, signed_at=old)
    assert alerts.silence_token_read(token) is None


@responses.activate
def test_the_webhook_body_is_signed_with_the_channel_secret():
    responses.add(responses.POST, HOOK, status=204)
    notify.webhook_post(url=HOOK, body=b'{"a":1}', secret="s3cret", message_id="lookout-1")
    request = responses.calls[0].request
    expected = hmac.new(b"s3cret", b'{"a":1}', hashlib.sha256).hexdigest()
    assert request.headers["X-Lookout-Signature"] == f"sha256={expected}"
    assert request.headers["X-Lookout-Message-Id"] == "lookout-1"


@responses.activate
def test_a_webhook_refusal_is_an_error_with_the_status():
    responses.add(responses.POST, HOOK, status=410, body="gone")
    with pytest.raises(notify.NotifyError, match="HTTP 410"):
        notify.webhook_post(url=HOOK, body=b"{}")


def test_e_mail_goes_through_django_mail(db, now, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    alerts.alert_channel_add(kind="email", target="ops@example.org")
    polled(at=now)
    _one_failure(now)
    assert alerts.outbox_deliver_due(now=now + timedelta(minutes=3)).sent == 1
    (message,) = mail.outbox
    assert message.to == ["ops@example.org"]
    assert "unit-1 failed at Normalize" in message.subject
    assert "/units/00000000-0000-0000-0000-000000000001/" in message.body


def test_the_shell_command_adds_lists_tests_and_removes(db, settings, capsys):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    call_command("alert_channel", "add", "email", "ops@example.org")
    channel = AlertChannel.objects.get()
    assert channel.rules.count() == 8
    call_command("alert_channel", "test", str(channel.pk))
    assert "Delivered" in capsys.readouterr().out
    assert len(mail.outbox) == 1
    call_command("alert_channel", "list")
    assert "ops@example.org" in capsys.readouterr().out
    call_command("alert_channel", "remove", str(channel.pk))
    assert not AlertChannel.objects.exists()


def test_the_shell_command_says_when_a_test_was_not_delivered(db, monkeypatch):
    def refuse(**kwargs):
        raise notify.NotifyError("Could not reach the webhook")

    monkeypatch.setattr("dashboard.clients.notify.webhook_post", refuse)
    call_command("alert_channel", "add", "webhook", HOOK)
    with pytest.raises(CommandError, match="Not delivered: Could not reach"):
        call_command("alert_channel", "test", str(AlertChannel.objects.get().pk))


def test_the_shell_command_refuses_a_bad_address(db):
    with pytest.raises(CommandError, match="not an e-mail address"):
        call_command("alert_channel", "add", "email", "nobody")


def test_a_claim_outlives_the_sending_task_and_a_run_stops_claiming_in_time(settings):
    settings.LOOKOUT_ALERT_DELIVERY_SECONDS = 60
    settings.LOOKOUT_WEBHOOK_TIMEOUT = 10
    settings.EMAIL_TIMEOUT = 15
    limits = alerts.delivery_limits()
    assert limits.lease == timedelta(seconds=120)
    assert limits.claim_for == 60 - 20  # one more webhook (connect + answer) still fits


def test_a_run_past_its_claiming_time_leaves_the_rest_for_the_next(webhook, sent, now, settings):
    polled(at=now)
    _one_failure(now)
    settings.LOOKOUT_ALERT_DELIVERY_SECONDS = 2
    settings.LOOKOUT_WEBHOOK_TIMEOUT = 1  # nothing left to claim for: one message a run
    settings.EMAIL_TIMEOUT = 1
    alerts.alert_channel_add(kind="email", target="ops@example.org")
    failed(2, now + timedelta(minutes=3), job="Verify")
    polled(at=now + timedelta(minutes=4))
    alerts.alerts_evaluate(now=now + timedelta(minutes=4))
    assert AlertMessage.objects.filter(sent_at__isnull=True).count() == 3
    later = now + timedelta(minutes=5)
    assert alerts.outbox_deliver_due(now=later).sent == 1
    assert alerts.outbox_deliver_due(now=later).sent == 1
    assert AlertMessage.objects.filter(sent_at__isnull=True).count() == 1


def test_a_claim_is_taken_at_its_own_moment_with_the_full_lease(webhook, now, monkeypatch):
    polled(at=now)
    _one_failure(now)
    AlertMessage.objects.update(next_attempt_at=now)
    leases = []

    def record_the_claim(**kwargs):
        leases.append(AlertMessage.objects.get().claimed_until - timezone.now())
        return 204

    monkeypatch.setattr("dashboard.clients.notify.webhook_post", record_the_claim)
    alerts.outbox_deliver_due()  # the real clock, as the task runs it
    lease = alerts.delivery_limits().lease
    assert lease - timedelta(seconds=5) < leases[0] <= lease
    message = AlertMessage.objects.get()
    assert message.sent_at is not None and message.claimed_until is None


def test_it_queues_the_sending_even_while_another_evaluation_holds_the_lock(monkeypatch):
    queued = []
    monkeypatch.setattr("dashboard.tasks.deliver_alerts_enqueue", lambda: queued.append(1))
    lock_acquire("alerts-evaluate", ttl=59)  # left by a worker that died mid-evaluation
    assert "skipped" in tasks.alerts_after_poll()
    assert queued == [1]
