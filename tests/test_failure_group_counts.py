"""The failure groups come from kept counts (FailureGroupCount, kept by the triggers of
migration 0020) and an index lookup per group: the same groups as adding up every
visible failed unit, without reading the failed units of the history."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.db import connection
from django.db.models import Count, Max, Value
from django.db.models.functions import Coalesce, NullIf
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dashboard.lib import page_cache
from dashboard.models import FailureGroupCount, Unit
from dashboard.selectors.failures import FailureGroup, failure_groups
from dashboard.services import units as unit_services
from tests.views.seed import seed, unit

pytestmark = pytest.mark.django_db

NORMALIZE = "Normalize for preservation"
VIRUSES = "Scan for viruses"


def _counted_groups(pipeline: str | None = None, limit: int = 10) -> list[FailureGroup]:
    """The groups added up from the units themselves."""
    units = Unit.objects.filter(hidden=False, status="FAILED")
    if pipeline:
        units = units.filter(pipeline=pipeline)
    rows = (
        units.annotate(at_job=Coalesce(NullIf("failed_job", Value("")), "microservice"))
        .order_by()
        .values("at_job")
        .annotate(n=Count("id"), last=Max("failed_at"))
        .order_by("-n", "at_job")[:limit]
    )
    return [FailureGroup(job=r["at_job"], count=r["n"], last_failed_at=r["last"]) for r in rows]


def _kept() -> dict[tuple[str, str], int]:
    kept: Counter[tuple[str, str]] = Counter()
    for row in FailureGroupCount.objects.all():
        kept[row.pipeline, row.job] += row.count
    return {key: n for key, n in kept.items() if n}


def _groups(**kwargs) -> list[FailureGroup]:
    page_cache.bump()  # a fresh generation: computed, not read from the cache
    return failure_groups(**kwargs)


def _history(now):
    seed(
        *(
            unit(n, status="FAILED", failed_job=NORMALIZE, failed_at=now - timedelta(hours=n))
            for n in range(1, 6)
        ),
        unit(6, status="FAILED", failed_job="", microservice=VIRUSES, failed_at=now),
        unit(7, status="FAILED", failed_job="", microservice=VIRUSES),  # no failure time
        unit(8, status="FAILED", failed_job=NORMALIZE, failed_at=now, hidden=True),
        unit(9, status="COMPLETE", failed_job=NORMALIZE, failed_at=now),
        unit(10, status="PROCESSING", microservice=VIRUSES),
        *(
            unit(n, status="FAILED", failed_job=VIRUSES, pipeline="second", failed_at=now)
            for n in range(20, 23)
        ),
        unit(23, status="FAILED", failed_job="Store AIP", pipeline="second"),
    )


def test_the_kept_groups_are_those_of_the_units_on_every_pipeline():
    now = timezone.now()
    _history(now)

    assert _groups() == _counted_groups()
    assert _groups(pipeline="default") == _counted_groups("default")
    assert _groups(pipeline="second") == _counted_groups("second")
    assert _groups(limit=1) == _counted_groups(limit=1)
    assert [(g.job, g.count, g.last_failed_at) for g in _groups()] == [
        (NORMALIZE, 5, now - timedelta(hours=1)),  # a tie: by the job's name
        (VIRUSES, 5, now),
        ("Store AIP", 1, None),
    ]


def test_the_kept_groups_follow_every_change_of_a_failed_unit():
    now = timezone.now()
    _history(now)

    Unit.objects.filter(uuid=unit(1).uuid).update(hidden=True)  # the latest NORMALIZE
    Unit.objects.filter(uuid=unit(8).uuid).update(hidden=False)
    Unit.objects.filter(uuid=unit(2).uuid).update(status="COMPLETE")
    Unit.objects.filter(uuid=unit(10).uuid).update(status="FAILED", failed_at=now)
    Unit.objects.filter(uuid=unit(7).uuid).update(failed_job="Store AIP")
    Unit.objects.filter(uuid=unit(6).uuid).update(microservice="Clean up")  # grouped by it
    Unit.objects.filter(uuid=unit(20).uuid).update(pipeline="default")
    Unit.objects.filter(uuid=unit(21).uuid).delete()
    Unit.objects.filter(uuid=unit(3).uuid).update(last_polled_at=now)  # no group moves

    assert _groups() == _counted_groups()
    assert _groups(pipeline="second") == _counted_groups("second")
    unit_services.unit_status_counts_fold()
    assert _groups() == _counted_groups()
    assert FailureGroupCount.objects.count() == len(_kept())
    assert _kept() == dict(
        Counter(
            (u.pipeline, u.failed_job or u.microservice)
            for u in Unit.objects.filter(hidden=False, status="FAILED")
        )
    )


def test_a_rebuild_puts_lost_counts_right():
    _history(timezone.now())
    FailureGroupCount.objects.all().delete()

    unit_services.unit_status_counts_rebuild()

    assert _groups() == _counted_groups()
    assert _kept()[("default", NORMALIZE)] == 5


def test_no_query_adds_up_the_failed_units():
    now = timezone.now()
    _history(now)
    seed(*(unit(n, status="FAILED", failed_job=NORMALIZE) for n in range(100, 140)))
    page_cache.bump()

    with CaptureQueriesContext(connection) as queries:
        failure_groups()

    read = [q["sql"] for q in queries.captured_queries if 'FROM "dashboard_unit"' in q["sql"]]
    assert read and not [sql for sql in read if "COUNT(" in sql.upper()]
    if connection.vendor == "sqlite":
        for sql in read:
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN QUERY PLAN " + sql)
                steps = [row[-1] for row in cursor.fetchall()]
            assert steps == [
                "SEARCH dashboard_unit USING INDEX unit_failure_group_last "
                "(<expr>=? AND pipeline=? AND failed_at>?)"
            ]
