"""What the workflow poll's rollup hook writes, and what it skips in a quiet cycle."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dashboard.models import (
    AnalyticsCoverage,
    DailyThroughput,
    DecisionWait,
    FailureCount,
    MonthlyDecisionWait,
    MonthlyFailureCount,
    MonthlyStageDuration,
    QueueSample,
    StageDuration,
    TimesFrom,
    Unit,
    UnitJobs,
    UnitTally,
)
from dashboard.services import analytics
from tests.analytics.seeding import history_seed

pytestmark = pytest.mark.django_db

FIELDS = ("awaiting_decision", "decision", "waiting_since", "waiting_since_from")


@pytest.fixture(autouse=True)
def _nothing_remembered():
    analytics.coverage_forget()
    yield
    analytics.coverage_forget()


def _unit(status: str = "PROCESSING", *, waiting: bool = False) -> Unit:
    return Unit(pipeline="default", status=status, awaiting_decision=waiting)


def _cycle(now, units=None, before=None):
    analytics.workflow_cycle_record(
        pipeline="default", units=units or {}, before=before or {}, fields=FIELDS, now=now
    )


def _statements(captured, verb: str, table: str) -> int:
    return sum(
        1
        for query in captured.captured_queries
        if query["sql"].startswith(verb) and f'"{table}"' in query["sql"]
    )


def test_the_queue_sample_follows_the_counts_within_the_hour():
    now = timezone.now().replace(minute=5)
    _cycle(now, {"a": _unit(), "b": _unit(waiting=True)})
    _cycle(now + timedelta(minutes=1), {"a": _unit(), "b": _unit()})
    assert QueueSample.objects.values_list("active", "waiting").get() == (2, 0)

    _cycle(now + timedelta(minutes=2), {"a": _unit(waiting=True), "b": _unit(waiting=True)})
    assert QueueSample.objects.values_list("active", "waiting").get() == (0, 2)


def test_a_poll_that_sees_the_same_counts_writes_no_queue_sample():
    now = timezone.now().replace(minute=5)
    units = {"a": _unit(), "b": _unit(waiting=True)}
    _cycle(now, units)

    with CaptureQueriesContext(connection) as captured:
        _cycle(now + timedelta(minutes=1), units)

    assert _statements(captured, "UPDATE", "dashboard_queuesample") == 0
    assert _statements(captured, "INSERT", "dashboard_queuesample") == 0
    assert QueueSample.objects.values_list("active", "waiting").get() == (1, 1)


def test_a_new_hour_gets_its_own_sample():
    now = timezone.now().replace(minute=59)
    _cycle(now, {"a": _unit()})
    _cycle(now + timedelta(minutes=2), {"a": _unit()})
    assert QueueSample.objects.count() == 2


def test_a_covered_pipeline_is_not_looked_up_again_once_committed(
    django_capture_on_commit_callbacks,
):
    now = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        _cycle(now)

    with CaptureQueriesContext(connection) as captured:
        _cycle(now + timedelta(minutes=1))

    assert _statements(captured, "SELECT", "dashboard_analyticscoverage") == 0
    assert AnalyticsCoverage.objects.get().watching_since == now


def test_coverage_rolled_back_is_not_remembered():
    now = timezone.now()
    with pytest.raises(RuntimeError), transaction.atomic():
        _cycle(now)
        raise RuntimeError("the poll's transaction fails")

    later = now + timedelta(minutes=1)
    _cycle(later)
    assert AnalyticsCoverage.objects.get().watching_since == later


def test_coverage_is_recorded_again_after_its_rows_are_deleted(
    django_capture_on_commit_callbacks,
):
    now = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        _cycle(now)
    AnalyticsCoverage.objects.all().delete()

    later = now + timedelta(minutes=1)
    _cycle(later)
    assert AnalyticsCoverage.objects.get().watching_since == later


def test_coverage_is_recorded_after_a_rebuild_that_found_no_history(
    django_capture_on_commit_callbacks,
):
    now = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        _cycle(now)
    with connection.cursor() as cursor:  # as a restore of the data without it: no signal
        cursor.execute("DELETE FROM dashboard_analyticscoverage")
    call_command("analytics_backfill")  # nothing in the record: no coverage made
    assert not AnalyticsCoverage.objects.exists()

    later = now + timedelta(minutes=1)
    _cycle(later)
    assert AnalyticsCoverage.objects.get().watching_since == later


def _waits_ended(now, waits):
    """One cycle in which these (decision, minutes waited, observed) waits ended."""
    units, before = {}, {}
    for n, (decision, minutes, observed) in enumerate(waits):
        uuid = f"unit-{n}"
        units[uuid] = _unit()
        from_ = TimesFrom.OBSERVED if observed else TimesFrom.UPSTREAM
        before[uuid] = (True, decision, now - timedelta(minutes=minutes), from_)
    _cycle(now, units, before)


def _wait_rows():
    columns = [
        field.attname
        for field in DecisionWait._meta.concrete_fields
        if field.attname not in ("id", "day")
    ]
    daily = sorted(DecisionWait.objects.values_list(*columns, "day"))
    monthly = sorted(MonthlyDecisionWait.objects.values_list(*columns, "month"))
    return daily, monthly


FIRST = [("Approve", 1, True), ("Normalize", 30, False), ("Store", 600, True)]
SECOND = [
    ("Approve", 2, False),
    ("Approve", 3000, True),
    ("Normalize", 0.1, True),
    ("Store", 600, True),
    ("Reingest", 45, True),
]


def test_waits_added_to_several_rows_at_once_give_the_figures_of_one_write():
    now = timezone.now()
    _waits_ended(now, FIRST + SECOND)
    in_one_write = _wait_rows()
    DecisionWait.objects.all().delete()
    MonthlyDecisionWait.objects.all().delete()

    _waits_ended(now, FIRST)
    with CaptureQueriesContext(connection) as captured:
        _waits_ended(now, SECOND)

    assert _wait_rows() == in_one_write
    assert len(in_one_write[0]) == 4
    # Three existing rows grew by different amounts: one UPDATE for them per table.
    assert _statements(captured, "UPDATE", "dashboard_decisionwait") == 1
    assert _statements(captured, "UPDATE", "dashboard_monthlydecisionwait") == 1


def _unit_rollups():
    def rows(model, *names):
        columns = [
            field.attname
            for field in model._meta.concrete_fields
            if field.attname not in ("id", "total_seconds", *names)
        ]
        return sorted(
            (*values, round(total, 6))
            for *values, total in model.objects.values_list(*columns, "total_seconds")
        )

    def counts(model):
        return sorted(model.objects.values_list("pipeline", "group", "job", "runs", "failures"))

    started = sorted(
        DailyThroughput.objects.filter(pipeline__in=("default", "east")).values_list(
            "pipeline", "day", "transfers_started", "sips_started", "started_observed"
        )
    )
    return (
        rows(StageDuration),
        rows(MonthlyStageDuration),
        counts(FailureCount),
        counts(MonthlyFailureCount),
        started,
    )


def test_finished_units_added_to_existing_rows_give_the_figures_of_the_back_fill():
    history_seed(pipelines=("default", "east"), days=4, per_day=5)
    call_command("analytics_backfill")
    built = _unit_rollups()
    for model in (StageDuration, MonthlyStageDuration, FailureCount, MonthlyFailureCount):
        model.objects.all().delete()
    DailyThroughput.objects.update(transfers_started=0, sips_started=0, started_observed=0)
    UnitTally.objects.all().delete()

    entries = [(e.unit, e.jobs) for e in UnitJobs.objects.select_related("unit").order_by("pk")]
    analytics.units_jobs_record(entries=entries[::2], time_zone="UTC")  # every day
    with CaptureQueriesContext(connection) as captured:
        analytics.units_jobs_record(entries=entries[1::2], time_zone="UTC")

    assert _unit_rollups() == built
    assert all(built)
    # The second half grew many existing rows, each by its own amounts, in one UPDATE
    # per table.
    for table in ("stageduration", "failurecount", "monthlyfailurecount", "dailythroughput"):
        assert _statements(captured, "UPDATE", f"dashboard_{table}") == 1
