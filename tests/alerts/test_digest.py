"""The daily digest: opted in per channel, queued with the evaluation once its hour has
come, once a day whatever restarts, and saying what waits, what failed and how full the
spaces are."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.core.management.base import CommandError

from dashboard.models import AlertChannel, AlertMessage, AuditEntry
from dashboard.services import alerts
from dashboard.services import storage as storage_services
from tests.alerts.conftest import T0, failed, polled, unit

pytestmark = pytest.mark.django_db

# T0 is 12:00 UTC; the tests run with TIME_ZONE = UTC.
HOUR = 8


@pytest.fixture
def channel(settings):
    settings.TIME_ZONE = "UTC"
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.LOOKOUT_PUBLIC_URL = "https://lookout.example.org"
    added = alerts.alert_channel_add(kind="email", target="ops@example.org").channel
    return alerts.alert_channel_digest_set(channel_id=added.pk, hour=HOUR, actor_name="test")


def _digests() -> list[AlertMessage]:
    return list(AlertMessage.objects.filter(kind=AlertMessage.Kind.DIGEST).order_by("id"))


def _morning(days: int = 0, hour: int = HOUR, minute: int = 0):
    return T0.replace(hour=hour, minute=minute) + timedelta(days=days)


def test_it_queues_nothing_for_a_channel_that_did_not_opt_in(settings):
    settings.TIME_ZONE = "UTC"
    alerts.alert_channel_add(kind="email", target="ops@example.org")
    assert alerts.digests_queue(now=_morning(hour=23)) == 0
    assert not _digests()


def test_it_queues_one_digest_a_day_once_its_hour_has_come(channel):
    assert alerts.digests_queue(now=_morning(hour=HOUR - 1, minute=59)) == 0
    assert alerts.digests_queue(now=_morning()) == 1
    # Every later evaluation that day, a restarted worker's too, finds it queued.
    assert alerts.digests_queue(now=_morning(minute=1)) == 0
    assert alerts.digests_queue(now=_morning(hour=23, minute=59)) == 0
    # The next day, again at the hour and not before.
    assert alerts.digests_queue(now=_morning(days=1, hour=HOUR - 1)) == 0
    assert alerts.digests_queue(now=_morning(days=1)) == 1
    days = [message.digest_day for message in _digests()]
    assert days == [_morning().date(), _morning(days=1).date()]


def test_a_lookout_down_at_the_hour_sends_it_at_its_first_poll_that_day(channel):
    assert alerts.digests_queue(now=_morning(hour=HOUR + 3, minute=17)) == 1
    assert len(_digests()) == 1


def test_the_hour_is_read_in_the_configured_time_zone(channel, settings):
    settings.TIME_ZONE = "America/New_York"  # 08:00 there is 13:00 UTC in January
    assert alerts.digests_queue(now=T0.replace(hour=12, minute=59)) == 0
    assert alerts.digests_queue(now=T0.replace(hour=13)) == 1


def test_the_evaluation_after_each_poll_queues_it(channel):
    polled(at=_morning())
    summary = alerts.alerts_evaluate(now=_morning())
    assert summary.digests == 1
    assert "1 daily digests queued" in summary.line()


def test_a_digest_goes_through_the_outbox_once(channel):
    alerts.digests_queue(now=_morning())
    assert alerts.outbox_deliver_due(now=_morning(minute=1)).sent == 1
    assert alerts.outbox_deliver_due(now=_morning(minute=2)).sent == 0
    assert len(mail.outbox) == 1


def test_the_digest_says_what_waits_what_failed_today_and_how_full_the_spaces_are(channel):
    now = _morning()
    unit(
        1,
        name="old-wait",
        awaiting_decision=True,
        decision="Approve normalization",
        waiting_since=now - timedelta(days=2, hours=3),
        waiting_since_from="upstream",
    )
    unit(2, name="new-wait", awaiting_decision=True, waiting_since=now - timedelta(hours=1))
    failed(3, now - timedelta(hours=2), job="Normalize")
    failed(4, now - timedelta(hours=5), job="Normalize")
    failed(5, now - timedelta(hours=6), job="Verify checksums")
    failed(6, now - timedelta(days=2), job="Old failure")  # not of the day
    storage_services.storage_summary_save(
        {
            "fetched_at": now,
            "spaces": [{"uuid": "s1", "path": "/var/aips", "used": 93, "size": 100}],
            "locations": [],
        }
    )
    alerts.digests_queue(now=now)
    alerts.outbox_deliver_due(now=now)

    text = mail.outbox[0].body
    assert mail.outbox[0].subject == "[Lookout] Daily digest 2030-01-01: 2 waiting, 3 failed"
    assert "Waiting for a decision: 2 units" in text
    assert "Transfer old-wait (default) has waited 2 days 3 h" in text
    assert "(workflow service's time): Approve normalization" in text
    assert "https://lookout.example.org/units/00000000-0000-0000-0000-000000000001/" in text
    assert "Failures in the last 24 hours: 3 units" in text
    assert "- Default pipeline: 2 at Normalize" in text
    assert "- Default pipeline: 1 at Verify checksums" in text
    assert "Old failure" not in text
    assert "- /var/aips: " in text and "93" in text


def test_a_webhook_digest_is_json_with_the_same_figures(settings, monkeypatch):
    settings.TIME_ZONE = "UTC"
    posted = []
    monkeypatch.setattr(
        "dashboard.clients.notify.webhook_post", lambda **kw: posted.append(kw) or 204
    )
    hook = alerts.alert_channel_add(kind="webhook", target="https://hooks.example.org/x")
    alerts.alert_channel_digest_set(channel_id=hook.channel.pk, hour=HOUR)
    failed(1, _morning() - timedelta(hours=1))
    alerts.digests_queue(now=_morning())
    alerts.outbox_deliver_due(now=_morning())
    body = json.loads(posted[0]["body"])
    assert body["event"] == "digest" and body["day"] == "2030-01-01"
    assert body["digest"]["failures"][0]["count"] == 1
    assert body["digest"]["waiting"] == {"count": 0, "oldest": None}
    assert body["id"] == posted[0]["message_id"]


def test_opting_in_and_out_is_audited_and_checks_the_hour(channel):
    with pytest.raises(alerts.AlertError, match="0 to 23"):
        alerts.alert_channel_digest_set(channel_id=channel.pk, hour=24)
    alerts.alert_channel_digest_set(channel_id=channel.pk, hour=None, actor_name="ops")
    assert AlertChannel.objects.get().digest_hour is None
    entry = AuditEntry.objects.filter(action="alert_channel_digest").latest("id")
    assert entry.parameters == {"before": {"digest_hour": HOUR}, "after": {"digest_hour": None}}
    assert entry.actor_name == "ops"


def test_the_shell_command_opts_a_channel_in_and_out(settings, capsys):
    call_command("alert_channel", "add", "email", "ops@example.org", "--digest-hour", "7")
    channel = AlertChannel.objects.get()
    assert channel.digest_hour == 7
    assert "daily digest at 07:00" in capsys.readouterr().out
    call_command("alert_channel", "list")
    assert "digest 07:00" in capsys.readouterr().out
    call_command("alert_channel", "digest", str(channel.pk), "off")
    assert AlertChannel.objects.get().digest_hour is None
    with pytest.raises(CommandError, match="not an hour"):
        call_command("alert_channel", "digest", str(channel.pk), "25")
