"""Rules evaluated against stored units, services, storage and fixity results."""

from __future__ import annotations

from datetime import timedelta

import pytest

from dashboard.models import Alert, AlertKind, AlertMessage, AlertRule, FixityCheck, Unit
from dashboard.services import alerts
from dashboard.services import storage as storage_services
from tests.alerts.conftest import T0, failed, polled, unit

pytestmark = pytest.mark.django_db


def _channel(*, stale_rule: bool = False):
    channel = alerts.alert_channel_add(kind="email", target="ops@example.org").channel
    if not stale_rule:
        # The tests move the clock without polling: keep the freshness rule out of them.
        AlertRule.objects.filter(kind=AlertKind.SERVICE_STALE).update(enabled=False)
    return channel


def _fired(kind: str = "fired") -> list[AlertMessage]:
    return list(AlertMessage.objects.filter(kind=kind))


def test_it_makes_the_default_rules_once():
    alerts.alert_rules_ensure_defaults()
    alerts.alert_rules_ensure_defaults()
    kinds = set(AlertRule.objects.values_list("kind", flat=True))
    assert kinds == set(AlertKind.values)
    assert AlertRule.objects.count() == len(AlertKind.values)


def test_a_channel_added_receives_every_default_rule():
    channel = alerts.alert_channel_add(kind="email", target="ops@example.org").channel
    assert channel.rules.count() == len(AlertKind.values)


def test_nothing_is_evaluated_for_a_pipeline_never_polled():
    _channel()
    failed(1, T0)
    alerts.alerts_evaluate(now=T0)
    assert not Alert.objects.exists()


def test_failures_already_there_at_the_first_evaluation_are_baseline_and_not_sent():
    _channel()
    polled()
    failed(1, T0 - timedelta(hours=3))
    summary = alerts.alerts_evaluate(now=T0)
    alert = Alert.objects.get()
    assert alert.baseline and alert.state == "open"
    assert summary.baseline == 1
    assert not _fired()


def test_a_new_failure_fires_once_however_often_it_is_evaluated():
    _channel()
    polled()
    alerts.alerts_evaluate(now=T0)
    failed(2, T0 + timedelta(minutes=1))
    for minute in (2, 3, 4):
        alerts.alerts_evaluate(now=T0 + timedelta(minutes=minute))
    alert = Alert.objects.get()
    assert not alert.baseline
    assert alert.opened_at == T0 + timedelta(minutes=1)  # the upstream time
    assert len(_fired()) == 1


def test_an_old_failure_found_later_by_the_backfill_is_baseline():
    _channel()
    polled()
    alerts.alerts_evaluate(now=T0)
    failed(3, T0 - timedelta(days=2))
    alerts.alerts_evaluate(now=T0 + timedelta(minutes=1))
    assert Alert.objects.get().baseline
    assert not _fired()


def test_failures_at_the_same_job_within_minutes_make_one_message():
    _channel()
    polled()
    alerts.alerts_evaluate(now=T0)
    failed(4, T0 + timedelta(minutes=1))
    failed(5, T0 + timedelta(minutes=3))
    failed(6, T0 + timedelta(minutes=2), job="Virus scan")
    alerts.alerts_evaluate(now=T0 + timedelta(minutes=4))
    assert Alert.objects.count() == 3
    assert len(_fired()) == 2
    leader = Alert.objects.get(subject__endswith="000000000004")
    assert [m.subject for m in leader.members.all()] == [
        "unit:default:00000000-0000-0000-0000-000000000005"
    ]


def test_a_hidden_failed_unit_resolves_its_alert_without_a_message():
    _channel()
    polled()
    alerts.alerts_evaluate(now=T0)
    broken = failed(7, T0 + timedelta(minutes=1))
    alerts.alerts_evaluate(now=T0 + timedelta(minutes=2))
    Unit.objects.filter(pk=broken.pk).update(hidden=True)
    alerts.alerts_evaluate(now=T0 + timedelta(minutes=3))
    assert Alert.objects.get().state == "resolved"
    assert not _fired("resolved")


def test_a_long_wait_fires_from_the_upstream_waiting_time_and_resolves_when_decided():
    _channel()
    polled()
    alerts.alerts_evaluate(now=T0)
    waiting = unit(
        8,
        status="USER_INPUT",
        awaiting_decision=True,
        waiting_since=T0 - timedelta(hours=23),
        waiting_since_from="upstream",
    )
    alerts.alerts_evaluate(now=T0 + timedelta(minutes=30))
    assert not Alert.objects.exists()
    alerts.alerts_evaluate(now=T0 + timedelta(hours=1, minutes=1))
    alert = Alert.objects.get()
    assert alert.kind == AlertKind.UNIT_WAITING
    assert alert.opened_at == T0 + timedelta(hours=1)
    assert len(_fired()) == 1
    Unit.objects.filter(pk=waiting.pk).update(awaiting_decision=False, status="PROCESSING")
    alerts.alerts_evaluate(now=T0 + timedelta(hours=2))
    alert.refresh_from_db()
    assert alert.state == "resolved"
    assert len(_fired("resolved")) == 1


def test_a_unit_without_progress_is_stuck():
    _channel()
    polled()
    alerts.alerts_evaluate(now=T0)
    unit(9, status_since=T0 - timedelta(hours=5, minutes=59), microservice="Normalize")
    alerts.alerts_evaluate(now=T0 + timedelta(minutes=2))
    alert = Alert.objects.get(kind=AlertKind.UNIT_STUCK)
    assert not alert.baseline
    assert "no progress" in alert.title


def test_a_stale_service_fires_and_its_recovery_is_sent(settings):
    _channel(stale_rule=True)
    settings.LOOKOUT_WORKFLOW_POLL_INTERVAL = 10
    polled(at=T0)
    alerts.alerts_evaluate(now=T0)
    alerts.alerts_evaluate(now=T0 + timedelta(seconds=31))
    alert = Alert.objects.get(kind=AlertKind.SERVICE_STALE)
    assert alert.subject == "service:workflow:default"
    assert alert.opened_at == T0 + timedelta(seconds=30)
    polled(at=T0 + timedelta(seconds=40))
    alerts.alerts_evaluate(now=T0 + timedelta(seconds=41))
    alert.refresh_from_db()
    assert alert.state == "resolved"
    assert len(_fired("resolved")) == 1


def test_a_nearly_full_space_fires_and_resolves():
    _channel()
    summary = {
        "fetched_at": T0,
        "spaces": [{"uuid": "s1", "path": "/var/aips", "used": 50, "size": 100}],
        "locations": [
            {"uuid": "l1", "purpose": "AS", "description": "AIPs", "used": 10, "quota": 100}
        ],
    }
    storage_services.storage_summary_save(summary)
    alerts.alerts_evaluate(now=T0)
    summary["spaces"][0]["used"] = 95
    summary["fetched_at"] = T0 + timedelta(minutes=1)
    storage_services.storage_summary_save(summary)
    alerts.alerts_evaluate(now=T0 + timedelta(minutes=1))
    alert = Alert.objects.get(kind=AlertKind.STORAGE_FULL)
    assert alert.title == "Space /var/aips is 95 % full"
    assert len(_fired()) == 1
    summary["spaces"][0]["used"] = 60
    storage_services.storage_summary_save(summary)
    alerts.alerts_evaluate(now=T0 + timedelta(minutes=2))
    alert.refresh_from_db()
    assert alert.state == "resolved"


def test_a_failed_fixity_check_fires_and_a_later_pass_resolves_it():
    _channel()
    alerts.alerts_evaluate(now=T0)
    package = "11111111-1111-1111-1111-111111111111"
    FixityCheck.objects.create(
        package_uuid=package, requested_at=T0, checked_at=T0 + timedelta(minutes=1), success=False
    )
    alerts.alerts_evaluate(now=T0 + timedelta(minutes=2))
    alert = Alert.objects.get(kind=AlertKind.FIXITY_FAILED)
    assert not alert.baseline
    FixityCheck.objects.create(
        package_uuid=package, requested_at=T0, checked_at=T0 + timedelta(minutes=5), success=True
    )
    alerts.alerts_evaluate(now=T0 + timedelta(minutes=6))
    alert.refresh_from_db()
    assert alert.state == "resolved"


def test_a_rule_for_one_pipeline_only_looks_at_that_pipeline(settings):
    settings.LOOKOUT_PIPELINES = [
        {"slug": "default", "name": "Default", "url": "http://x", "user": "u", "key": "k"},
        {"slug": "east", "name": "East", "url": "http://y", "user": "u", "key": "k"},
    ]
    alerts.alert_rules_ensure_defaults()
    AlertRule.objects.filter(kind=AlertKind.UNIT_FAILED).update(enabled=False)
    alerts.alert_rule_add(kind=AlertKind.UNIT_FAILED, pipeline="east", threshold=5)
    polled("workflow:default")
    polled("workflow:east")
    alerts.alerts_evaluate(now=T0)
    failed(10, T0 + timedelta(minutes=1))
    Unit.objects.filter(pk=failed(11, T0 + timedelta(minutes=1)).pk).update(pipeline="east")
    alerts.alerts_evaluate(now=T0 + timedelta(minutes=2))
    failures = Alert.objects.filter(kind=AlertKind.UNIT_FAILED)
    assert list(failures.values_list("pipeline", flat=True)) == ["east"]


def test_a_silenced_alert_sends_nothing_more():
    _channel()
    polled()
    alerts.alerts_evaluate(now=T0)
    waiting = unit(
        12, awaiting_decision=True, waiting_since=T0 - timedelta(hours=25), status="USER_INPUT"
    )
    # Waiting already when the rule first looked: baseline. A new wait after that fires.
    Unit.objects.filter(pk=waiting.pk).update(waiting_since=T0 - timedelta(hours=23, minutes=59))
    alerts.alerts_evaluate(now=T0 + timedelta(minutes=2))
    alert = Alert.objects.get()
    AlertMessage.objects.all().delete()
    alerts.alert_silence(alert_id=alert.pk, hours=4, actor_name="test", now=T0)
    Unit.objects.filter(pk=waiting.pk).update(awaiting_decision=False)
    alerts.alerts_evaluate(now=T0 + timedelta(minutes=3))
    alert.refresh_from_db()
    assert alert.state == "resolved"
    assert not AlertMessage.objects.exists()
