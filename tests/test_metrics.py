"""/metrics: refused without the token, Prometheus text with it, figures from the database."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from dashboard.models import ServicePoll, StatusChange, Unit
from dashboard.selectors.metrics import metrics_snapshot
from dashboard.services import storage as storage_services
from dashboard.services.freshness import service_poll_record
from tests.alerts.conftest import unit

pytestmark = pytest.mark.django_db
TOKEN = "metrics-token-for-tests"


def _samples(body: str) -> dict[tuple[str, tuple], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(body)
        for sample in family.samples
    }


def test_without_a_configured_token_there_is_no_endpoint(client, settings):
    settings.LOOKOUT_METRICS_TOKEN = ""
    assert client.get("/metrics").status_code == 404


def test_a_missing_token_is_401_and_a_wrong_one_403(client, settings):
    settings.LOOKOUT_METRICS_TOKEN = TOKEN
    missing = client.get("/metrics")
    assert missing.status_code == 401 and missing["WWW-Authenticate"].startswith("Bearer")
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer nope").status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"Basic {TOKEN}").status_code == 401


def test_the_figures_come_from_the_database(client, settings):
    settings.LOOKOUT_METRICS_TOKEN = TOKEN
    now = timezone.now()
    unit(1, status="PROCESSING")
    unit(2, status="FAILED")
    unit(3, status="FAILED", hidden=True)
    unit(4, status="USER_INPUT", awaiting_decision=True, waiting_since=now - timedelta(hours=2))
    StatusChange.objects.create(
        pipeline="default",
        unit_uuid="00000000-0000-0000-0000-000000000002",
        unit_kind="transfer",
        from_status="PROCESSING",
        to_status="FAILED",
        at=now,
    )
    service_poll_record(
        service="storage", started_at=now, ok=False, error="down", duration_ms=1500, requests=1
    )
    service_poll_record(
        service="storage", started_at=now, ok=True, error="", duration_ms=250, requests=1
    )
    storage_services.storage_summary_save(
        {
            "fetched_at": now,
            "spaces": [{"uuid": "s1", "path": "/aips", "used": 70, "size": 100}],
            "locations": [],
        }
    )
    answer = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert answer.status_code == 200
    samples = _samples(answer.content.decode())
    assert samples[("lookout_units", (("pipeline", "default"), ("status", "FAILED")))] == 1
    assert samples[("lookout_units", (("pipeline", "default"), ("status", "PROCESSING")))] == 1
    assert samples[("lookout_units_waiting", (("pipeline", "default"),))] == 1
    assert samples[("lookout_oldest_wait_seconds", (("pipeline", "default"),))] >= 7200
    assert samples[("lookout_failures_total", (("pipeline", "default"),))] == 1
    assert samples[("lookout_poll_errors_total", (("service", "storage"),))] == 1
    assert samples[("lookout_polls_total", (("service", "storage"),))] == 2
    assert samples[("lookout_poll_duration_seconds", (("service", "storage"),))] == 0.25
    assert samples[
        ("lookout_last_success_timestamp_seconds", (("service", "storage"),))
    ] == pytest.approx(now.timestamp())
    assert samples[("lookout_storage_used_bytes", (("name", "/aips"), ("space", "s1")))] == 70
    assert samples[("lookout_storage_capacity_bytes", (("name", "/aips"), ("space", "s1")))] == 100
    assert ServicePoll.objects.get().error_count == 1


def _plans(queries: list[dict[str, str]]) -> list[str]:
    """SQLite's plan, step by step, of each query that reads the unit table."""
    steps = []
    for query in queries:
        if 'FROM "dashboard_unit"' in query["sql"]:
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN QUERY PLAN " + query["sql"])
                steps += [row[-1] for row in cursor.fetchall()]
    return steps


def test_the_unit_figures_are_those_of_a_count_over_the_visible_units():
    now = timezone.now()
    for n, (pipeline, status, hidden) in enumerate(
        [
            ("default", "COMPLETE", False),
            ("default", "COMPLETE", False),
            ("default", "COMPLETE", True),
            ("default", "FAILED", False),
            ("default", "FAILED", True),
            ("default", "REJECTED", False),
            ("default", "PROCESSING", False),
            ("second", "COMPLETE", False),
            ("second", "FAILED", False),
            ("second", "PENDING", True),
            ("retired", "COMPLETE", False),
        ],
        start=1,
    ):
        unit(n, pipeline=pipeline, status=status, hidden=hidden)
    for n, (pipeline, hours, hidden) in enumerate(
        [("default", 2, False), ("default", 5, True), ("second", 1, False), ("second", 3, False)],
        start=20,
    ):
        unit(
            n,
            pipeline=pipeline,
            status="USER_INPUT",
            awaiting_decision=True,
            waiting_since=now - timedelta(hours=hours),
            hidden=hidden,
        )
    unit(30, status="COMPLETE", sent_to_backlog=True)  # counted as COMPLETE, as upstream says
    Unit.objects.filter(pk=unit(31, status="FAILED").pk).delete()
    Unit.objects.filter(uuid__endswith="01").update(status="FAILED")

    snapshot = metrics_snapshot(now=now)

    visible = Unit.objects.filter(hidden=False)
    assert snapshot.units == dict(Counter(visible.values_list("pipeline", "status")))
    assert snapshot.units[("default", "COMPLETE")] == 2
    assert snapshot.units[("second", "USER_INPUT")] == 2
    assert ("second", "PENDING") not in snapshot.units
    assert snapshot.waiting == {"default": 1, "second": 2}
    assert snapshot.oldest_wait_seconds == {
        "default": pytest.approx(2 * 3600),
        "second": pytest.approx(3 * 3600),
    }


def test_no_query_of_the_snapshot_reads_the_finished_units():
    now = timezone.now()
    for n in range(1, 30):
        unit(n, status="COMPLETE" if n % 3 else "FAILED")
    unit(40, status="USER_INPUT", awaiting_decision=True, waiting_since=now)

    with CaptureQueriesContext(connection) as queries:
        metrics_snapshot(now=now)

    read = [q["sql"] for q in queries.captured_queries if 'FROM "dashboard_unit"' in q["sql"]]
    assert read and all('"awaiting_decision" IN' in sql for sql in read)
    if connection.vendor == "sqlite":
        plans = _plans(queries.captured_queries)
        assert any("USING INDEX unit_waiting" in step for step in plans)
        assert not any(step.startswith("SCAN dashboard_unit") for step in plans)
