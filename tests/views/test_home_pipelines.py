"""The overview's pipelines side by side, when more than one pipeline is configured."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from dashboard.models import Unit
from dashboard.selectors.summary import summary_get
from tests.views import seed

pytestmark = pytest.mark.django_db


@pytest.fixture
def three_pipelines(settings):
    base = settings.LOOKOUT_PIPELINES[0]
    settings.LOOKOUT_PIPELINES = [
        base,
        {**base, "slug": "east", "name": "East pipeline"},
        {**base, "slug": "west", "name": "West pipeline"},
    ]


def test_each_pipeline_row_matches_a_direct_count(three_pipelines):
    now = timezone.now()
    units = [
        seed.unit(1),
        seed.unit(2, pipeline="east"),
        seed.unit(3, pipeline="east", status="FAILED", failed_at=now - timedelta(hours=2)),
        seed.unit(4, pipeline="east", status="FAILED", failed_at=now - timedelta(days=3)),
        seed.waiting_unit(5, pipeline="west", minutes_waiting=30),
        seed.waiting_unit(6, pipeline="west", minutes_waiting=5),
    ]
    Unit.objects.bulk_create(units)
    rows = {r.slug: r for r in summary_get(now=now).pipelines}
    assert list(rows) == ["default", "east", "west"]
    assert {s: n for s, n in rows["east"].by_status.items() if n} == {"PROCESSING": 1, "FAILED": 2}
    assert rows["east"].failed_24h == 1
    assert rows["west"].waiting == 2
    assert rows["west"].oldest_wait is not None
    assert rows["west"].oldest_wait.age_seconds == pytest.approx(30 * 60, abs=5)
    assert rows["default"].waiting == 0 and rows["default"].oldest_wait is None


def test_the_overview_shows_them_with_links(viewer, three_pipelines):
    html = viewer.get("/").content.decode()
    assert "Pipelines side by side" in html
    assert "/units/?pipeline=east&amp;status=FAILED" in html
    assert "/analytics/?pipeline=west" in html


def test_one_pipeline_shows_no_side_by_side(viewer):
    assert "Pipelines side by side" not in viewer.get("/").content.decode()
