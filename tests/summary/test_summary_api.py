from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from dashboard.lib import vocabulary
from dashboard.models import Unit
from tests.support.users import make_user
from tests.wall import seeding

pytestmark = pytest.mark.django_db

URL = "/api/v1/summary/"
FIGURES = {"units", "status_counts", "in_progress", "waiting", "oldest_wait", "failed_24h"}
FRESHNESS = {
    "service",
    "interval_seconds",
    "last_attempt_at",
    "last_success_at",
    "last_error",
    "age_seconds",
    "stale",
}


@pytest.fixture(autouse=True)
def _pipelines(settings):
    seeding.use_pipelines(settings)


@pytest.fixture
def api() -> APIClient:
    client = APIClient()
    client.force_authenticate(make_user("reader", "viewer"))
    return client


def test_anonymous_callers_are_refused():
    assert Client().get(URL).status_code in (401, 403)


def test_a_user_without_a_role_is_refused():
    client = Client()
    client.force_login(make_user("nora"))

    assert client.get(URL).status_code == 403


def test_a_viewer_gets_the_figures_per_pipeline_and_in_total(api):
    now = timezone.now()
    seeding.busy_wall(now)
    Unit.objects.filter(name="approve-me").update(waiting_since_from="upstream")

    response = api.get(URL)

    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"generated_at", "failure_window_hours", "total", "pipelines", "services"}
    assert body["failure_window_hours"] == 24
    assert set(body["total"]) == FIGURES
    [pipeline] = body["pipelines"]
    assert set(pipeline) == FIGURES | {"slug", "name", "freshness", "mode"}
    assert pipeline["mode"] == "api_only"
    assert (pipeline["slug"], pipeline["name"]) == ("default", "Default pipeline")
    assert (pipeline["in_progress"], pipeline["waiting"], pipeline["failed_24h"]) == (3, 2, 1)
    assert pipeline["status_counts"] == [
        {
            "status": code,
            "status_label": term.text,
            "count": {"PROCESSING": 3, "USER_INPUT": 2, "COMPLETE": 1, "FAILED": 1}.get(code, 0),
        }
        for code, term in vocabulary.UNIT_STATUSES.items()
    ]
    oldest = pipeline["oldest_wait"]
    assert set(oldest) == {
        "pipeline",
        "uuid",
        "name",
        "since",
        "times_from",
        "decision",
        "age_seconds",
    }
    assert (oldest["pipeline"], oldest["name"]) == ("default", "approve-me")
    assert oldest["decision"] == "Approve standard transfer"
    assert oldest["times_from"] == "upstream"
    assert oldest["age_seconds"] >= 3 * 3600
    assert body["total"]["oldest_wait"] == oldest
    assert set(pipeline["freshness"]) == FRESHNESS
    assert pipeline["freshness"]["service"] == "workflow:default"
    assert pipeline["freshness"]["stale"] is False
    assert [s["service"] for s in body["services"]] == ["workflow:default", "storage"]


def test_no_waiting_unit_gives_a_null_oldest_wait(api):
    body = api.get(URL).json()

    assert body["total"]["oldest_wait"] is None
    assert body["pipelines"][0]["oldest_wait"] is None
    assert body["pipelines"][0]["freshness"]["age_seconds"] is None


def test_the_schema_describes_the_summary_with_nested_pipelines(api):
    response = api.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")

    assert response.status_code == 200
    schema = response.json()
    assert "/api/v1/summary/" in schema["paths"]
    components = schema["components"]["schemas"]
    assert components["Summary"]["properties"]["pipelines"]["items"] == {
        "$ref": "#/components/schemas/SummaryPipeline"
    }
    wait = components["SummaryOldestWait"]["properties"]["times_from"]
    assert wait["allOf"] == [{"$ref": "#/components/schemas/TimesFromEnum"}]
    assert "status_label" in components["SummaryStatusCount"]["properties"]


def test_the_whole_schema_validates_without_warnings(tmp_path):
    call_command("spectacular", validate=True, fail_on_warn=True, file=str(tmp_path / "s.yaml"))
