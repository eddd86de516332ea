"""Alerts end to end: the simulator fails a unit while Lookout watches; a real SMTP server
(aiosmtpd), a real HTTP receiver and an ntfy receiver (an Apprise channel) each get
exactly one message, the receiver checks the signature, and nothing more arrives on
later polls. A stale service sends "resolved"
when it recovers. /metrics is parsed with prometheus-client's parser and checked against
the API. A daily digest reaches both receivers once."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from contextlib import redirect_stdout

import pytest
from django.core.management import call_command
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from dashboard import tasks
from dashboard.lib import vocabulary
from dashboard.models import Alert, AlertChannel, AlertKind, AlertMessage, AlertRule, Unit
from tests.integration.conftest import point_at
from tests.support.receivers import (
    MESSAGE_ID_HEADER,
    Inbox,
    WebhookReceiver,
    http_recorder,
    smtp_server,
    webhook_receiver,
)
from tests.support.simulator_process import SimulatorProcess
from tests.support.users import make_user

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _add(kind: str, target: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        call_command("alert_channel", "add", kind, target, stdout=out)
    return out.getvalue().strip().splitlines()[-1]


def _cycle(sim: SimulatorProcess, seconds: float) -> None:
    """What beat does: a poll, then the jobs refresh; each evaluates the rules."""
    if seconds:
        sim.control("advance", {"seconds": seconds})
    tasks.poll_pipeline("default")
    tasks.refresh_pipeline_jobs("default")
    tasks.deliver_alerts()


def _only(*kinds: str) -> None:
    AlertRule.objects.exclude(kind__in=kinds).update(enabled=False)
    AlertRule.objects.filter(kind__in=kinds).update(enabled=True)


@pytest.fixture
def receivers(settings) -> Iterator[tuple[Inbox, WebhookReceiver]]:
    """A real SMTP server as Lookout's mail server, and a real webhook receiver."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.LOOKOUT_PUBLIC_URL = "https://lookout.example.org"
    with smtp_server() as (smtp_port, inbox), webhook_receiver() as hook:
        settings.EMAIL_PORT = smtp_port
        yield inbox, hook


def test_a_failure_while_watching_sends_one_mail_and_one_signed_webhook(
    settings, redis_cache, receivers
):
    inbox, hook = receivers
    with SimulatorProcess(units=200, seed=11, speed=0) as sim, http_recorder() as ntfy:
        point_at(settings, sim)
        _add("email", "ops@example.org")
        hook.secret = _add("webhook", hook.url)
        _add("apprise", f"ntfy://{ntfy.hostport}/lookout-alerts")
        received = hook.received
        _only(AlertKind.UNIT_FAILED)

        _cycle(sim, 0)  # the first look: what has failed already is baseline
        assert Alert.objects.filter(baseline=True).exists()
        assert not inbox.messages and not received

        deadline = time.monotonic() + 150
        while not Alert.objects.filter(baseline=False, kind=AlertKind.UNIT_FAILED).exists():
            assert time.monotonic() < deadline, "no unit failed while Lookout watched"
            _cycle(sim, 600)
        for _ in range(3):  # later polls (and a redelivered task) send nothing more
            _cycle(sim, 60)
            tasks.deliver_alerts()

        new = Alert.objects.filter(baseline=False, group_leader__isnull=True).get()
        assert len(inbox.messages) == 1
        assert len(received) == 1
        mail = inbox.messages[0]
        text = mail.get_payload(decode=True).decode()
        unit_uuid = new.subject.rsplit(":", 1)[1]
        assert mail["To"] == "ops@example.org"
        assert new.title in " ".join(mail["Subject"].split())  # unfolded
        failed_unit = Unit.objects.get(uuid=unit_uuid)
        assert failed_unit.failed_job and failed_unit.failed_job in new.title
        assert "failed directory" not in new.title  # the job, not the clean-up after it
        assert f"https://lookout.example.org/units/{unit_uuid}/" in text
        assert vocabulary.moment(new.opened_at) in text  # the upstream time, in English
        hook = received[0]
        assert hook["event"] == "fired" and hook["alert"]["title"] == new.title
        assert hook["alert"]["url"] == f"https://lookout.example.org/units/{unit_uuid}/"
        assert AlertMessage.objects.filter(sent_at__isnull=True).count() == 0

        # A stale service, then its recovery: one "fired" and one "resolved" each.
        settings.LOOKOUT_WORKFLOW_POLL_INTERVAL = 1
        _only(AlertKind.SERVICE_STALE)
        _cycle(sim, 0)
        sim.control("faults", {"error_rate": 1.0})
        time.sleep(3.5)
        _cycle(sim, 0)
        sim.control("faults", {"error_rate": 0.0})
        _cycle(sim, 0)
        _cycle(sim, 0)
        events = [(h["event"], h["alert"]["kind"]) for h in received[1:]]
        assert events == [("fired", "service_stale"), ("resolved", "service_stale")]
        assert len(inbox.messages) == 3
        assert inbox.messages[2]["Subject"].startswith("[Lookout] Resolved:")
        # The Apprise channel: the failure, the stale service and its recovery, once each.
        stale = Alert.objects.get(kind=AlertKind.SERVICE_STALE)
        titles = [request.json()["title"] for request in ntfy.requests]
        assert len(titles) == 3
        assert titles[0].startswith(f"[Lookout] {new.title}")  # "(and n more…)" may follow
        assert titles[1:] == [f"[Lookout] {stale.title}", f"[Lookout] Resolved: {stale.title}"]

        # /metrics against the API's counts.
        settings.LOOKOUT_METRICS_TOKEN = "scrape-token"
        client = Client()
        assert client.get("/metrics").status_code == 401
        assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
        body = client.get("/metrics", HTTP_AUTHORIZATION="Bearer scrape-token").content.decode()
        units = {
            sample.labels["status"]: sample.value
            for family in text_string_to_metric_families(body)
            for sample in family.samples
            if sample.name == "lookout_units"
        }
        client.force_login(make_user("vera", "viewer"))
        total = client.get("/api/v1/units/").json()["count"]
        assert sum(units.values()) == total
        for status, count in units.items():
            listed = client.get("/api/v1/units/", {"status": status}).json()["count"]
            assert listed == count, status


def test_a_daily_digest_reaches_a_real_mail_server_and_webhook_once(
    settings, redis_cache, receivers
):
    inbox, hook = receivers
    with SimulatorProcess(units=60, packages=10, seed=11, speed=0) as sim:
        point_at(settings, sim)
        _add("email", "ops@example.org")
        hook.secret = _add("webhook", hook.url)
        _only()  # no rule: only the digest speaks
        tasks.poll_storage()
        _cycle(sim, 0)
        assert not inbox.messages and not hook.arrivals  # nobody opted in yet
        # Midnight has always passed: the digest is due at the next poll.
        for channel in AlertChannel.objects.values_list("pk", flat=True):
            call_command("alert_channel", "digest", str(channel), "0", stdout=io.StringIO())
        for _ in range(3):  # later polls the same day send nothing more
            _cycle(sim, 60)

        assert len(inbox.messages) == 1 and len(hook.received) == 1
        assert len(hook.arrivals) == 1  # signed: the receiver accepted it
        waiting = Unit.objects.filter(hidden=False, awaiting_decision=True).count()
        failed = hook.received[0]["digest"]["failures"]
        mail = inbox.messages[0]
        text = mail.get_payload(decode=True).decode()
        assert f"Waiting for a decision: {waiting} unit" in text
        assert "Storage spaces:" in text and "none known yet" not in text
        assert hook.received[0]["event"] == "digest"
        assert hook.received[0]["digest"]["waiting"]["count"] == waiting
        assert hook.received[0]["digest"]["spaces"]
        assert mail["Subject"].endswith(
            f"{waiting} waiting, {sum(g['count'] for g in failed)} failed"
        )
        assert mail[MESSAGE_ID_HEADER] != hook.arrivals[0]  # one outbox row per channel
        assert AlertMessage.objects.filter(kind="digest", sent_at__isnull=False).count() == 2
