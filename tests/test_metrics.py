"""/metrics: refused without the token, Prometheus text with it, figures from the database."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from dashboard.models import ServicePoll, StatusChange
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
