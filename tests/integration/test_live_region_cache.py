"""The overview's and the wall's cached live regions (dashboard.lib.page_cache) over real
Redis: a poll's changes show at once, and ages and stale banners move on with the clock
when nothing is polled any more."""

from __future__ import annotations

import re
from collections import Counter
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from dashboard.lib.pipelines import pipeline_list
from dashboard.models import Unit
from dashboard.selectors.summary import summary_get
from dashboard.services import units as unit_services
from dashboard.views import units as unit_views
from tests.integration.conftest import point_at
from tests.support.simulator_process import SimulatorProcess
from tests.support.users import make_user
from tests.views.seed import mark_polled, seed, unit, waiting_unit
from tests.wall import seeding

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

HX = {"HTTP_HX_REQUEST": "true"}
COUNT = re.compile(r'\?status=(\w+)"><span class="count">(\d+)</span>')
IN_PROGRESS = re.compile(r'data-metric="in-progress">\s*<span class="metric-value">(\d+)<')


@pytest.fixture
def viewer(redis_cache) -> Client:
    client = Client()
    client.force_login(make_user("vera", "viewer"))
    return client


def _page_counts(page: str) -> dict[str, int]:
    return {status: int(n) for status, n in COUNT.findall(page) if int(n)}


def _stored_counts() -> dict[str, int]:
    return dict(Counter(Unit.objects.filter(hidden=False).values_list("status", flat=True)))


def test_a_poll_that_changes_units_shows_at_once_on_the_cached_overview_and_wall(
    settings, viewer, monkeypatch
):
    # Buckets far longer than the test: only the poll's new generation can renew a region.
    monkeypatch.setattr(unit_views, "LIVE_SECONDS", 10**6)
    settings.LOOKOUT_WALL_REFRESH_SECONDS = 10**6
    with SimulatorProcess(units=30, seed=11, speed=0) as sim:
        point_at(settings, sim)
        pipeline = pipeline_list()[0]
        unit_services.workflow_poll(pipeline=pipeline)
        before = _stored_counts()
        home = viewer.get("/", **HX).text
        assert _page_counts(home) == before
        assert viewer.get("/", **HX).text == home  # kept
        viewer.get("/wall/", **HX)

        sim.control("advance", {"seconds": 6 * 3600})
        unit_services.workflow_poll(pipeline=pipeline, now=timezone.now() + timedelta(hours=1))

        after = _stored_counts()
        assert after != before, "the scenario should move units on"
        assert _page_counts(viewer.get("/", **HX).text) == after
        wall = viewer.get("/wall/", **HX).text
        assert IN_PROGRESS.findall(wall) == [str(summary_get().pipelines[0].in_progress)]


def test_ages_and_stale_banners_move_on_when_the_poller_stops(viewer):
    seed(unit(1, name="busy-one"), waiting_unit(2, name="needs-approval", minutes_waiting=42))
    mark_polled()
    seeding.fresh("storage", at=timezone.now())
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        home = viewer.get("/", **HX).text
        wall = viewer.get("/wall/", **HX).text
    assert "Workflow data updated just now" in home and "Stale data" not in home
    assert "42 min" in home
    assert 'class="stale-banner"' not in wall

    # Nothing is written: the generation stands still, and only the clock moves on. The
    # Redis entries are far from expiring in real time.
    with time_machine.travel(start + timedelta(minutes=10), tick=False):
        home = viewer.get("/", **HX).text
        wall = viewer.get("/wall/", **HX).text
    assert "Stale data" in home
    assert "52 min" in home
    assert 'class="stale-banner"' in wall
