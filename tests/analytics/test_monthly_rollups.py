"""Long periods read whole months from the monthly rollups: the same figures as the days."""

from __future__ import annotations

import importlib
from datetime import timedelta

import pytest
from django.apps import apps
from django.core.management import call_command
from django.utils import timezone

from dashboard.models import (
    DecisionWait,
    FailureCount,
    MonthlyDecisionWait,
    MonthlyFailureCount,
    MonthlyStageDuration,
    StageDuration,
    TimesFrom,
    Unit,
    UnitJobs,
)
from dashboard.selectors.analytics import CUSTOM, analytics_get, period_get
from dashboard.services import analytics
from tests.analytics.seeding import history_seed

pytestmark = pytest.mark.django_db


def _figures(answer):
    stages = [(r.group, r.count, r.median_seconds, r.p90_seconds, r.slowest) for r in answer.stages]
    groups = [(r.group, r.runs, r.failures) for r in answer.failure_groups]
    jobs = [(r.group, r.job, r.runs, r.failures) for r in answer.failure_jobs]
    waits = [
        (r.decision, r.count, r.observed_count, r.median_seconds, r.p90_seconds)
        for r in answer.waits
    ]
    return stages, groups, jobs, waits


def _long_period():
    """From mid-month to mid-month: days at both ends, whole months between."""
    today = timezone.localdate()
    return period_get(CUSTOM, first=today - timedelta(days=100), last=today - timedelta(days=3))


def _whole_months(period):
    first = (period.first_day.replace(day=1) + timedelta(days=32)).replace(day=1)
    last = period.last_day.replace(day=1)
    return first, last  # from `first` up to, not including, `last`


def test_a_long_period_reads_the_same_figures_from_months_as_from_days():
    history_seed(pipelines=("default", "east"), days=110, per_day=2)
    call_command("analytics_backfill")
    period = _long_period()

    by_day = _figures(analytics_get(period=period, by_month=False))
    by_month = _figures(analytics_get(period=period))

    assert all(by_day)
    assert by_month == by_day

    # The whole months really come from the monthly rows: without their daily rows the
    # monthly reading is unchanged, the daily one is not.
    first, last = _whole_months(period)
    for model in (StageDuration, FailureCount, DecisionWait):
        model.objects.filter(day__gte=first, day__lt=last).delete()
    assert _figures(analytics_get(period=period)) == by_day
    assert _figures(analytics_get(period=period, by_month=False)) != by_day


def test_the_poll_hooks_keep_the_months_as_the_back_fill_does():
    history_seed(days=70, per_day=2)
    call_command("analytics_backfill")
    built = _rows()
    for model in (MonthlyStageDuration, MonthlyFailureCount, StageDuration, FailureCount):
        model.objects.all().delete()
    analytics.UnitTally.objects.all().delete()

    for entry in UnitJobs.objects.select_related("unit"):
        analytics.unit_jobs_record(unit=entry.unit, jobs=entry.jobs, time_zone="UTC")

    assert _rows() == built
    assert len(built[0]) > 2  # several months


def test_the_migration_builds_the_months_of_an_existing_install():
    history_seed(days=70, per_day=2)
    call_command("analytics_backfill")
    built = _rows()
    MonthlyStageDuration.objects.all().delete()
    MonthlyFailureCount.objects.all().delete()

    migration = importlib.import_module("dashboard.migrations.0016_analytics_history_and_months")
    migration.months_from_days(apps, None)

    assert _rows() == built


def _rows():
    stages = sorted(
        (r.pipeline, r.group, r.month, r.count, round(r.total_seconds, 6), tuple(r.histogram))
        for r in MonthlyStageDuration.objects.all()
    )
    failures = sorted(
        (r.pipeline, r.group, r.job, r.month, r.runs, r.failures)
        for r in MonthlyFailureCount.objects.all()
    )
    return {s[2] for s in stages}, stages, failures


def test_the_monthly_waits_read_the_same_as_the_days_for_each_part_of_a_period():
    history_seed(pipelines=("default", "east"), days=110, per_day=2)
    call_command("analytics_backfill")
    period = _long_period()

    waits = _figures(analytics_get(period=period))[3]

    assert waits == _figures(analytics_get(period=period, by_month=False))[3]
    assert {r.decision for r in DecisionWait.objects.all()} == {w[0] for w in waits}
    # Only the days around the whole months were read from the daily rows.
    first, last = _whole_months(period)
    DecisionWait.objects.filter(day__gte=first, day__lt=last).delete()
    assert _figures(analytics_get(period=period))[3] == waits


def test_the_workflow_poll_keeps_the_monthly_waits_as_the_back_fill_does():
    seeded = history_seed(days=70, per_day=2)
    call_command("analytics_backfill")
    built = _wait_rows()
    MonthlyDecisionWait.objects.all().delete()
    DecisionWait.objects.all().delete()

    # Each wait ends in a poll that sees the unit move on.
    fields = ("awaiting_decision", "waiting_since", "decision", "waiting_since_from")
    for wait in seeded.waits:
        unit = Unit(pipeline=wait.pipeline, uuid="u", status="PROCESSING")
        analytics.workflow_cycle_record(
            pipeline=wait.pipeline,
            units={"u": unit},
            before={"u": (True, wait.start, wait.decision, TimesFrom.OBSERVED)},
            fields=fields,
            now=wait.end,
        )

    assert _wait_rows() == built
    assert len({row[2] for row in built}) > 2  # several months


def test_the_migration_builds_the_monthly_waits_of_an_existing_install():
    history_seed(days=70, per_day=2)
    call_command("analytics_backfill")
    built = _wait_rows()
    MonthlyDecisionWait.objects.all().delete()

    migration = importlib.import_module("dashboard.migrations.0019_monthly_decision_waits")
    migration.wait_months_from_days(apps, None)

    assert _wait_rows() == built


def _wait_rows():
    return sorted(
        (
            r.pipeline,
            r.decision,
            r.month,
            r.count,
            r.observed_count,
            round(r.total_seconds, 6),
            tuple(r.histogram),
        )
        for r in MonthlyDecisionWait.objects.all()
    )
