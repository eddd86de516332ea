"""The kept counts' triggers survive every migration (SQLite drops a table's triggers when
a migration rebuilds it: a new unit column must be nullable, or restore them)."""

from __future__ import annotations

import pytest
from django.db import connection

from dashboard.models import FailureGroupCount, Unit, UnitStatusCount
from tests.views.seed import seed, unit

pytestmark = pytest.mark.django_db


def _unit_triggers() -> set[str]:
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute(
                "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = %s",
                ["dashboard_unit"],
            )
        else:
            cursor.execute(
                "SELECT DISTINCT trigger_name FROM information_schema.triggers "
                "WHERE event_object_table = %s",
                ["dashboard_unit"],
            )
        return {row[0] for row in cursor.fetchall()}


def test_the_unit_table_keeps_its_count_triggers_after_all_migrations():
    names = _unit_triggers()

    assert {name for name in names if name.startswith("unit_counts_")}
    assert {name for name in names if name.startswith("unit_failure_groups_")}


def test_a_new_failed_unit_is_counted_by_status_and_failure_group():
    seed(unit(1, status="FAILED", failed_job="Scan for viruses"))

    assert sum(c.count for c in UnitStatusCount.objects.filter(status="FAILED")) == 1
    assert sum(c.count for c in FailureGroupCount.objects.filter(job="Scan for viruses")) == 1
    assert Unit.objects.count() == 1
