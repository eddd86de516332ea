"""The "ingest run finished" and "ingest run stalled" alert rules, and the ingest
metrics on /metrics."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from dashboard.models import Alert, AlertChannel, AlertKind, AlertRule, IngestItem, IngestRun
from dashboard.services import alerts as alert_services

pytestmark = pytest.mark.django_db
TOKEN = "metrics-token-for-tests"


def _run(name: str, states: list[str], **fields) -> IngestRun:
    now = timezone.now()
    run = IngestRun.objects.create(
        name=name, source_location="0" * 36, path=b"batch", path_shown="batch",
        pipelines=["default"], created_at=now - timedelta(days=1),
        started_at=now - timedelta(days=1), **fields,
    )  # fmt: skip
    for number, state in enumerate(states, start=1):
        IngestItem.objects.create(
            run=run, path=f"{name}-{number}".encode(), path_shown=f"{name}-{number}",
            name=f"{name}-{number}", number=number, state=state,
            pipeline="" if state == "queued" else "default",
        )  # fmt: skip
    return run


def test_a_finished_run_is_announced_once_with_its_summary():
    alert_services.alerts_evaluate()  # the rules' baseline: nothing yet
    channel = AlertChannel.objects.create(kind="email", target="ops@example.org")
    AlertRule.objects.get(kind=AlertKind.INGEST_FINISHED).channels.add(channel)
    _run("backlog", ["stored", "stored", "failed", "skipped"],
         status=IngestRun.Status.FINISHED, finished_at=timezone.now())  # fmt: skip

    alert_services.alerts_evaluate()
    alert_services.alerts_evaluate()

    alert = Alert.objects.get(kind=AlertKind.INGEST_FINISHED)
    assert alert.title == "Ingest run backlog finished: 2 stored, 1 failed, 1 skipped"
    assert not alert.baseline
    assert alert.messages.count() == 1


def test_a_run_with_queued_items_and_no_progress_for_hours_is_stalled_until_it_moves():
    alert_services.alerts_evaluate()
    rule = AlertRule.objects.get(kind=AlertKind.INGEST_STALLED)
    assert rule.threshold == 6
    run = _run(
        "stuck", ["queued", "queued", "processing"], status=IngestRun.Status.RUNNING,
        last_progress_at=timezone.now() - timedelta(hours=7),
        waits={"default": "Its workflow service is stale."},
    )  # fmt: skip
    _run("fine", ["queued"], status=IngestRun.Status.RUNNING,
         last_progress_at=timezone.now() - timedelta(hours=1))  # fmt: skip

    alert_services.alerts_evaluate()
    stalled = Alert.objects.get(kind=AlertKind.INGEST_STALLED)
    assert stalled.subject == f"ingest-run:{run.pk}:stalled"
    assert "stale" in stalled.detail
    assert stalled.state == Alert.State.OPEN

    IngestRun.objects.filter(pk=run.pk).update(last_progress_at=timezone.now())
    alert_services.alerts_evaluate()
    stalled.refresh_from_db()
    assert stalled.state == Alert.State.RESOLVED


def test_an_install_with_the_older_defaults_gains_the_ingest_rules_with_its_channels():
    for kind in ("unit_failed", "service_stale"):
        AlertRule.objects.create(kind=kind, pipeline="", threshold=3, is_default=True)
    channel = AlertChannel.objects.create(kind="email", target="ops@example.org")

    alert_services.alert_rules_ensure_defaults()

    added = AlertRule.objects.filter(kind__in=["ingest_finished", "ingest_stalled"])
    assert added.count() == 2
    assert all(channel in rule.channels.all() for rule in added)


def test_metrics_give_items_by_run_and_state_and_in_flight_by_pipeline(client, settings):
    settings.LOOKOUT_METRICS_TOKEN = TOKEN
    run = _run("m", ["queued", "processing", "waiting", "stored", "stored"])

    body = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").content.decode()

    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(body)
        for sample in family.samples
    }
    assert samples[("lookout_ingest_items", (("run", str(run.pk)), ("state", "stored")))] == 2
    assert samples[("lookout_ingest_items", (("run", str(run.pk)), ("state", "queued")))] == 1
    assert samples[("lookout_ingest_in_flight", (("pipeline", "default"),))] == 2
