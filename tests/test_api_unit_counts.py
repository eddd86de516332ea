"""/api/v1/units/ takes its total from the kept counts (UnitStatusCount) when filtered by
pipeline and status alone, and gives the same `count`, `next` and `previous` as a COUNT."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from dashboard.models import Unit
from tests.support.users import make_user
from tests.views.seed import seed, unit, waiting_unit
from tests.wall import seeding

pytestmark = pytest.mark.django_db

SECOND = {**seeding.PIPELINES[0], "slug": "second", "name": "Second pipeline"}


@pytest.fixture
def api(settings) -> APIClient:
    seeding.use_pipelines(settings, [seeding.PIPELINES[0], SECOND])
    seed(
        *(unit(n, status="COMPLETE") for n in range(1, 8)),
        unit(8, status="COMPLETE", hidden=True),
        unit(9, status="FAILED"),
        unit(10, status="FAILED", hidden=True),
        waiting_unit(11),
        unit(12, status="PROCESSING", kind="sip"),
        *(unit(n, status="COMPLETE", pipeline="second") for n in range(20, 24)),
        unit(24, status="FAILED", pipeline="second"),
        unit(25, status="FAILED", pipeline="second", hidden=True),
        unit(26, status="PROCESSING", pipeline="second"),
        # Of a pipeline no longer configured: the list leaves it out of a pipeline's
        # total but not of the whole list's.
        unit(30, status="COMPLETE", pipeline="retired"),
    )
    client = APIClient()
    client.force_authenticate(make_user("reader", "viewer"))
    return client


def _counted(**filters: str) -> int:
    return Unit.objects.filter(hidden=False, **filters).count()


def _unit_counts(queries: list[dict[str, str]]) -> list[str]:
    return [
        query["sql"]
        for query in queries
        if "COUNT(" in query["sql"].upper() and 'FROM "dashboard_unit"' in query["sql"]
    ]


@pytest.mark.parametrize(
    ("query", "filters"),
    [
        ("", {}),
        ("pipeline=default", {"pipeline": "default"}),
        ("pipeline=second", {"pipeline": "second"}),
        ("status=COMPLETE", {"status": "COMPLETE"}),
        ("status=failed", {"status": "FAILED"}),
        ("pipeline=second&status=FAILED", {"pipeline": "second", "status": "FAILED"}),
        ("pipeline=default&status=USER_INPUT", {"pipeline": "default", "status": "USER_INPUT"}),
        ("status=REJECTED", {"status": "REJECTED"}),
    ],
)
def test_the_kept_total_is_the_number_of_visible_units_the_filters_give(api, query, filters):
    with CaptureQueriesContext(connection) as queries:
        answer = api.get(f"/api/v1/units/?{query}").json()

    assert answer["count"] == _counted(**filters)
    assert len(answer["results"]) == answer["count"]
    assert _unit_counts(queries.captured_queries) == []


def test_a_page_of_the_kept_total_links_to_its_neighbours_as_a_counted_one_does(api):
    kept = api.get("/api/v1/units/?status=COMPLETE&limit=3&offset=3").json()
    counted = api.get("/api/v1/units/?status=COMPLETE&kind=transfer&limit=3&offset=3").json()

    assert kept["count"] == counted["count"] == _counted(status="COMPLETE") == 12
    assert kept["next"] == "http://testserver/api/v1/units/?limit=3&offset=6&status=COMPLETE"
    assert kept["previous"] == "http://testserver/api/v1/units/?limit=3&status=COMPLETE"
    last = api.get("/api/v1/units/?status=COMPLETE&limit=3&offset=9").json()
    assert last["next"] is None
    assert [r["uuid"] for r in kept["results"]] == [r["uuid"] for r in counted["results"]]


def test_an_unknown_pipeline_finds_none_without_counting(api):
    with CaptureQueriesContext(connection) as queries:
        answer = api.get("/api/v1/units/?pipeline=retired").json()

    assert answer == {"count": 0, "next": None, "previous": None, "results": []}
    assert _unit_counts(queries.captured_queries) == []


def test_other_filters_are_counted(api):
    with CaptureQueriesContext(connection) as queries:
        answer = api.get("/api/v1/units/?kind=sip").json()

    assert answer["count"] == _counted(kind="sip") == 1
    assert len(_unit_counts(queries.captured_queries)) == 1
