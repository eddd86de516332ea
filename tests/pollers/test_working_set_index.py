"""A poll cycle reads its working set through the partial index on the same condition,
so a long finished history costs it nothing."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from dashboard.models import WORKING_SET, Unit
from dashboard.services import units as unit_services
from tests.views.seed import seed, unit, waiting_unit

pytestmark = pytest.mark.django_db


def _working_set() -> tuple[set[str], str]:
    with CaptureQueriesContext(connection) as captured:
        units = unit_services._working_set("default")
    (query,) = captured.captured_queries
    return set(units), query["sql"]


def test_the_working_set_is_every_unfinished_waiting_or_undetailed_unit():
    seed(
        unit(1, status="PROCESSING"),
        unit(2, status="COMPLETE"),
        unit(3, status="COMPLETE", awaiting_sip_uuid=True),
        unit(4, status="FAILED", needs_details=True),
        waiting_unit(5),
        unit(6, status="REJECTED"),
        unit(7, status="UNKNOWN"),
        unit(8, status="PROCESSING", pipeline="second"),
    )

    uuids, _ = _working_set()

    expected = Unit.objects.filter(WORKING_SET, pipeline="default")
    assert uuids == {u.uuid for u in expected}
    assert {u.name for u in expected} == {"unit-1", "unit-3", "unit-4", "unit-5", "unit-7"}


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's query plans")
def test_sqlite_reads_the_working_set_through_its_partial_index():
    seed(unit(1), unit(2, status="COMPLETE"))
    _, sql = _working_set()

    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {sql}")
        steps = [row[-1] for row in cursor.fetchall()]

    assert steps == ["SEARCH dashboard_unit USING INDEX unit_working_set (pipeline=?)"]


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's query plans")
def test_sqlite_looks_for_units_left_out_of_the_lists_through_their_partial_index():
    from datetime import timedelta

    from django.utils import timezone

    from dashboard.services.dashboard_discovery import DashboardListing, hidden_upstream_mark

    seed(unit(1), unit(2, status="COMPLETE", hidden_upstream_at=timezone.now()))
    listing = DashboardListing(complete=True, read_started_at=timezone.now() + timedelta(hours=1))
    with CaptureQueriesContext(connection) as captured:
        hidden_upstream_mark(pipeline="default", listing=listing)
    (candidates,) = [q["sql"] for q in captured.captured_queries if "first_seen_at" in q["sql"]]

    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {candidates}")
        steps = [row[-1] for row in cursor.fetchall()]

    assert steps == [
        "SEARCH dashboard_unit USING INDEX unit_listed_upstream (pipeline=? AND first_seen_at<?)"
    ]


def test_the_schedule_holds_the_working_set_and_all_a_due_check_reads():
    from datetime import timedelta

    from django.utils import timezone

    from dashboard.services.dashboard_discovery import DashboardListing

    now = timezone.now()
    seed(
        unit(1, status="PROCESSING"),
        unit(2, status="COMPLETE"),
        unit(3, status="COMPLETE", awaiting_sip_uuid=True),
        unit(4, status="PROCESSING", next_poll_at=now + timedelta(minutes=5)),
        unit(5, status="PROCESSING", listed_progress="abc"),
        waiting_unit(6),
        unit(7, status="UNKNOWN"),
    )
    listing = DashboardListing(covered_until=now + timedelta(minutes=1))
    full = unit_services._working_set("default")

    with CaptureQueriesContext(connection) as captured:
        schedule = unit_services._schedule("default")
        due = {u.uuid for u in schedule if unit_services._due(u, listing, now, set())}
        kinds = {u.uuid: u.kind for u in schedule}
    # One query: nothing a due check or a status read reads was left out of it.
    assert len(captured.captured_queries) == 1
    assert {u.uuid for u in schedule} == set(full)
    assert due == {u.uuid for u in full.values() if unit_services._due(u, listing, now, set())}
    assert kinds == {uuid: u.kind for uuid, u in full.items()}
    assert due == {
        full_unit.uuid
        for full_unit in full.values()
        if full_unit.name in {"unit-1", "unit-3", "unit-6", "unit-7"}
    }
