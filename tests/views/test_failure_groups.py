"""Failures grouped by the job that failed, on the overview and the failed-units list."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dashboard.lib import page_cache
from dashboard.models import Unit
from dashboard.selectors.failures import failure_groups
from tests.views.seed import seed, unit

pytestmark = pytest.mark.django_db


def _failures():
    now = timezone.now()
    units = [
        unit(n, status="FAILED", failed_job="Normalize for preservation", failed_at=now)
        for n in range(1, 11)
    ]
    units.append(
        unit(20, status="FAILED", failed_job="", microservice="Scan for viruses", failed_at=now)
    )
    units.append(unit(21, status="FAILED", failed_job="Normalize for preservation", hidden=True))
    units.append(unit(22, status="PROCESSING"))
    seed(*units)


def test_failures_are_grouped_by_job_largest_group_first():
    _failures()
    groups = failure_groups()
    assert [(g.job, g.count) for g in groups] == [
        ("Normalize for preservation", 10),
        ("Scan for viruses", 1),
    ]


def test_the_overview_reads_ten_failures_at_one_job_as_one_problem(viewer):
    _failures()
    page = viewer.get("/").content.decode()
    assert "10 units failed at Normalize for preservation" in page
    assert "1 unit failed at Scan for viruses" in page


def test_the_failed_list_shows_the_job_and_when_and_filters_by_job(viewer):
    _failures()
    response = viewer.get("/units/?status=FAILED")
    page = response.content.decode()
    assert "10 units failed at Normalize for preservation" in page
    assert "Failed job" in page
    assert "?status=FAILED&amp;failed_job=Normalize%20for%20preservation" in page
    response = viewer.get("/units/?status=FAILED&failed_job=Scan+for+viruses")
    assert [u.name for u in response.context["page"].object_list] == ["unit-20"]


def test_an_observed_failure_time_in_the_list_says_at_least(viewer):
    seed(unit(1, status="FAILED", failed_at=timezone.now() - timedelta(minutes=5)))
    assert "at least 5 min ago" in viewer.get("/units/?status=FAILED").content.decode()


def test_the_groups_are_added_up_once_per_change_of_the_data():
    _failures()
    assert failure_groups()[0].count == 10
    with CaptureQueriesContext(connection) as queries:
        assert failure_groups()[0].count == 10
    assert not [q for q in queries if "GROUP BY" in q["sql"]]

    seed(unit(30, status="FAILED", failed_job="Normalize for preservation"))  # a save: new data
    assert failure_groups()[0].count == 11
    Unit.objects.filter(uuid=unit(30).uuid).update(hidden=True)  # no signal: a bulk write
    page_cache.bump()  # as every service's bulk write does
    assert failure_groups()[0].count == 10
