from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from dashboard.clients.workflow import UnitKind, UnitStatusValue
from dashboard.lib.pipelines import pipeline_list
from dashboard.services import units as unit_services
from tests.fakes import FakeUnit, FakeWorkflowClient, uuid_for
from tests.support.api_tokens import api_token_for
from tests.support.records import poll_record
from tests.support.users import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def api() -> APIClient:
    client = APIClient()
    client.force_authenticate(make_user("reader", "viewer"))
    return client


@pytest.fixture
def seeded() -> FakeWorkflowClient:
    pipeline = pipeline_list()[0]
    fake = FakeWorkflowClient()
    fake.add(
        FakeUnit(
            uuid_for(1),
            name="approve-me",
            status=UnitStatusValue.USER_INPUT,
            microservice="Approve standard transfer",
            awaiting_approval=True,
        )
    )
    fake.add(
        FakeUnit(
            uuid_for(2),
            kind=UnitKind.SIP,
            name="normalise-me",
            status=UnitStatusValue.USER_INPUT,
            microservice="Normalize",
        )
    )
    fake.add(
        FakeUnit(
            uuid_for(3),
            kind=UnitKind.SIP,
            name="stored",
            status=UnitStatusValue.COMPLETE,
            microservice="Remove the processing directory",
        )
    )
    now = timezone.now()
    unit_services.workflow_poll(pipeline=pipeline, client=fake, now=now - timedelta(minutes=5))
    fake.add(
        FakeUnit(
            uuid_for(4),
            kind=UnitKind.SIP,
            name="later",
            status=UnitStatusValue.USER_INPUT,
            microservice="Store AIP",
        )
    )
    unit_services.workflow_poll(pipeline=pipeline, client=fake, now=now)
    unit_services.jobs_refresh(pipeline=pipeline, client=fake, now=now)
    return fake


def test_the_units_endpoint_needs_authentication():
    response = APIClient().get("/api/v1/units/")

    assert response.status_code in (401, 403)


def test_a_token_opens_the_api():
    user = make_user("robot", "viewer")
    token = api_token_for(user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")

    assert client.get("/api/v1/units/").status_code == 200


def test_it_lists_units_with_the_documented_fields(api, seeded):
    response = api.get("/api/v1/units/")

    assert response.status_code == 200
    results = response.json()["results"]
    assert {r["uuid"] for r in results} == {uuid_for(n) for n in range(1, 5)}
    assert set(results[0]) >= {
        "uuid",
        "name",
        "kind",
        "status",
        "microservice",
        "sip_uuid",
        "awaiting_decision",
        "path",
        "updated_at",
    }
    assert {r["kind"] for r in results} == {"transfer", "sip"}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("status=COMPLETE", {3}),
        ("kind=transfer", {1}),
        ("q=normalise", {2}),
        ("status=USER_INPUT&kind=sip", {2, 4}),
    ],
)
def test_it_filters_units(api, seeded, query, expected):
    response = api.get(f"/api/v1/units/?{query}")

    assert {r["uuid"] for r in response.json()["results"]} == {uuid_for(n) for n in expected}


def test_an_invalid_filter_gets_a_400_that_names_it(api, seeded):
    response = api.get("/api/v1/units/?status=SLEEPING")

    assert response.status_code == 400
    assert "status" in response.json()


def test_unit_detail_carries_its_jobs_and_task_exit_codes(api, seeded):
    response = api.get(f"/api/v1/units/{uuid_for(2)}/")

    assert response.status_code == 200
    body = response.json()
    assert body["name"] == "normalise-me"
    assert body["jobs"][0]["tasks"][0]["exit_code"] == 0
    assert body["jobs_fetched_at"]


def test_unit_detail_of_an_unknown_unit_is_404(api, seeded):
    assert api.get(f"/api/v1/units/{uuid_for(99)}/").status_code == 404


def test_waiting_lists_units_awaiting_a_decision_oldest_first(api, seeded):
    response = api.get("/api/v1/waiting/")

    uuids = [r["uuid"] for r in response.json()]
    assert uuids[-1] == uuid_for(4)
    assert set(uuids) == {uuid_for(1), uuid_for(2), uuid_for(4)}
    assert next(r for r in response.json() if r["uuid"] == uuid_for(1))["awaiting_approval"]


def test_health_reports_freshness_per_service(api, seeded):
    response = api.get("/api/v1/health/")

    services_seen = {entry["service"]: entry for entry in response.json()}
    assert services_seen["workflow:default"]["stale"] is False
    assert services_seen["storage"]["stale"] is True


def test_the_openapi_schema_describes_the_units_endpoint(api):
    response = api.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")

    assert response.status_code == 200
    assert b"/api/v1/units/" in response.content


def test_a_stale_cache_is_still_served_when_the_service_is_down(api, seeded):
    seeded.down = True
    unit_services.workflow_poll(pipeline=pipeline_list()[0], client=seeded)

    response = api.get("/api/v1/units/")

    assert response.status_code == 200
    assert len(response.json()["results"]) == 4
    assert poll_record("workflow:default").last_error
