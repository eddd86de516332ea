"""The wall, the overview and /api/v1/summary/ report the same numbers for the same units."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from dashboard.selectors.units import overview_get
from dashboard.selectors.wall import wall_state
from tests.support.users import make_user
from tests.views import seed as views_seed
from tests.wall import seeding

pytestmark = pytest.mark.django_db

SECOND = {
    "slug": "second",
    "name": "Second pipeline",
    "url": "http://127.0.0.1:9",
    "user": "u",
    "key": "k",
}


@pytest.fixture
def viewer() -> Client:
    client = Client()
    client.force_login(make_user("vera", "viewer"))
    return client


@pytest.fixture(autouse=True)
def _units(settings) -> None:
    seeding.use_pipelines(settings, [seeding.PIPELINES[0], SECOND])
    now = timezone.now()
    seeding.save_units(
        [
            seeding.unit(now=now, name="s-moving", pipeline="second"),
            seeding.unit(
                now=now,
                name="s-waits",
                pipeline="second",
                status="USER_INPUT",
                waiting_for=timedelta(hours=6),
                decision="Select normalization path",
            ),
            seeding.failed_unit(
                now=now, name="s-failed", failed_ago=timedelta(hours=3), pipeline="second"
            ),
            seeding.failed_unit(
                now=now, name="s-failed-long-ago", failed_ago=timedelta(days=3), pipeline="second"
            ),
        ],
        pipeline="second",
    )
    views_seed.seed(
        views_seed.unit(1, name="moving", microservice="Scan for viruses"),
        views_seed.unit(2, name="new", status="PENDING"),
        views_seed.unit(3, name="stored", status="COMPLETE"),
        views_seed.unit(4, name="hidden", status="COMPLETE", hidden=True),
        views_seed.unit(
            5, name="broken", status="FAILED", failed_at=now - timedelta(hours=23, minutes=59)
        ),
        views_seed.unit(6, name="hidden-broken", status="FAILED", failed_at=now, hidden=True),
        views_seed.waiting_unit(7, name="needs-approval", minutes_waiting=42),
        views_seed.waiting_unit(8, name="needs-a-choice", approval=False, minutes_waiting=5),
    )
    views_seed.mark_polled()
    seeding.fresh("workflow:second", at=now)
    seeding.fresh("storage", at=now)


def test_the_wall_the_overview_and_the_api_agree(viewer):
    # The pages keep their rendered regions (dashboard.lib.page_cache): read what they render.
    assert viewer.get("/wall/").status_code == viewer.get("/").status_code == 200
    wall = wall_state()
    overview = overview_get()
    api = viewer.get("/api/v1/summary/").json()

    # The wall's tiles and the API's pipelines.
    pipelines = {p["slug"]: p for p in api["pipelines"]}
    assert [tile.slug for tile in wall.pipelines] == list(pipelines) == ["default", "second"]
    for tile in wall.pipelines:
        figures = pipelines[tile.slug]
        assert tile.in_progress == figures["in_progress"]
        assert tile.awaiting == figures["waiting"]
        assert tile.failed_24h == figures["failed_24h"]
        assert tile.oldest_waiting_name == figures["oldest_wait"]["name"]
        assert tile.oldest_waiting_decision == figures["oldest_wait"]["decision"]
        assert tile.oldest_waiting_seconds == pytest.approx(
            figures["oldest_wait"]["age_seconds"], abs=5
        )
        assert tile.health.stale is figures["freshness"]["stale"] is False
    assert [(t.in_progress, t.awaiting, t.failed_24h) for t in wall.pipelines] == [
        (2, 2, 1),
        (1, 1, 1),
    ]

    # The overview's counts and the API's total.
    total = api["total"]
    assert [(c.status, c.count) for c in overview.status_counts] == [
        (c["status"], c["count"]) for c in total["status_counts"]
    ]
    assert overview.total == total["units"] == 10
    assert overview.waiting_count == total["waiting"] == wall.awaiting_total == 3
    assert overview.failure_count == next(
        c["count"] for c in total["status_counts"] if c["status"] == "FAILED"
    )
    assert overview.failure_count == 3
    assert wall.failed_total == total["failed_24h"] == 2
    assert total["oldest_wait"]["name"] == "s-waits"
