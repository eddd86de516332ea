from __future__ import annotations

from collections import Counter, defaultdict
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from dashboard.clients.workflow import UnitKind, UnitStatusValue
from dashboard.lib import histogram
from dashboard.lib.pipelines import pipeline_list
from dashboard.models import (
    AnalyticsCoverage,
    DailyThroughput,
    DecisionWait,
    FailureCount,
    QueueSample,
    StageDuration,
    Unit,
    UnitJobs,
    UnitTally,
)
from dashboard.services import analytics
from dashboard.services import units as unit_services
from tests.analytics.seeding import history_seed
from tests.fakes import FakeUnit, FakeWorkflowClient, uuid_for

pytestmark = pytest.mark.django_db


def _stage_totals():
    totals = defaultdict(lambda: [0, 0.0])
    for row in StageDuration.objects.all():
        totals[(row.pipeline, row.group)][0] += row.count
        totals[(row.pipeline, row.group)][1] += row.total_seconds
        assert sum(row.histogram) == row.count
    return totals


def test_backfill_counts_every_group_job_start_and_aip_once():
    seeded = history_seed(pipelines=("default", "east"), days=5, per_day=6)

    call_command("analytics_backfill")

    expected = defaultdict(lambda: [0, 0.0])
    for unit in seeded.units:
        for group, seconds in unit.groups.items():
            expected[(unit.pipeline, group)][0] += 1
            expected[(unit.pipeline, group)][1] += seconds
    totals = _stage_totals()
    assert set(totals) == set(expected)
    for key, (count, seconds) in expected.items():
        assert totals[key][0] == count
        assert totals[key][1] == pytest.approx(seconds, abs=0.01)

    failures = Counter(
        (u.pipeline, u.failed_group, u.failed_job) for u in seeded.units if u.failed_group
    )
    rows = FailureCount.objects.exclude(job="").filter(failures__gt=0)
    counted = Counter()
    for row in rows:
        counted[(row.pipeline, row.group, row.job)] += row.failures
    assert counted == failures
    runs = Counter((u.pipeline, g) for u in seeded.units for g in u.groups)
    group_rows = defaultdict(int)
    for row in FailureCount.objects.filter(job=""):
        group_rows[(row.pipeline, row.group)] += row.runs
    assert dict(group_rows) == dict(runs)

    starts = Counter((u.pipeline, timezone.localdate(u.start), u.kind) for u in seeded.units)
    for row in DailyThroughput.objects.exclude(pipeline=""):
        assert row.transfers_started == starts[(row.pipeline, row.day, "transfer")]
        assert row.sips_started == starts[(row.pipeline, row.day, "sip")]
        assert row.started_observed == 0
    assert sum(r.aips_stored for r in DailyThroughput.objects.all()) == sum(
        1 for u in seeded.units if u.stored_at
    )
    assert sum(r.bytes_stored for r in DailyThroughput.objects.all()) == sum(
        u.aip_size for u in seeded.units
    )
    assert sum(r.count for r in DecisionWait.objects.all()) == len(seeded.waits)
    assert AnalyticsCoverage.objects.get(pipeline="east").watching_since == min(
        min(u.start for u in seeded.units if u.pipeline == "east"),
        min(u.start + timedelta(seconds=30) for u in seeded.units if u.pipeline == "east"),
    )


def test_backfill_twice_and_the_jobs_hook_after_it_count_nothing_twice():
    history_seed(days=3, per_day=4)
    call_command("analytics_backfill")
    first = _stage_totals()
    call_command("analytics_backfill")
    assert _stage_totals() == first

    for entry in UnitJobs.objects.select_related("unit"):
        analytics.unit_jobs_record(unit=entry.unit, jobs=entry.jobs, time_zone="UTC")
    assert _stage_totals() == first


def test_the_jobs_hook_counts_a_unit_when_it_finishes_and_only_then():
    seeded = history_seed(days=1, per_day=2, failure_rate=0)
    entry = UnitJobs.objects.select_related("unit").first()
    unit = entry.unit
    unit.status = "PROCESSING"
    analytics.unit_jobs_record(unit=unit, jobs=entry.jobs, time_zone="UTC")
    assert StageDuration.objects.count() == 0
    assert UnitTally.objects.get(unit=unit).started

    unit.status = "COMPLETE"
    analytics.unit_jobs_record(unit=unit, jobs=entry.jobs, time_zone="UTC")
    analytics.unit_jobs_record(unit=unit, jobs=entry.jobs, time_zone="UTC")
    record = next(u for u in seeded.units if u.uuid == unit.uuid)
    totals = _stage_totals()
    assert {g: c for (_, g), (c, _) in totals.items()} == dict.fromkeys(record.groups, 1)
    start_rows = DailyThroughput.objects.get(pipeline="default")
    assert start_rows.transfers_started + start_rows.sips_started == 1


def test_histogram_percentiles_land_in_the_right_bucket():
    values = [0.5, 3, 3, 40, 200, 1500, 1500, 1500, 86400, 90000]
    buckets = histogram.empty()
    for value in values:
        histogram.add(buckets, value)
    ordered = sorted(values)
    median = histogram.percentile(buckets, 0.5)
    low, high = histogram.bucket_bounds(histogram.bucket_of(ordered[4]))
    assert low <= median <= high
    assert histogram.percentile(histogram.empty(), 0.5) is None


def test_the_workflow_poll_records_waits_that_ended_and_the_queue():
    pipeline = pipeline_list()[0]
    client = FakeWorkflowClient()
    waiting = client.add(
        FakeUnit(
            uuid_for(1),
            kind=UnitKind.SIP,
            status=UnitStatusValue.USER_INPUT,
            microservice="Normalize",
        )
    )
    client.add(FakeUnit(uuid_for(2), kind=UnitKind.SIP))
    unit_services.unit_register(pipeline=pipeline.slug, uuid=uuid_for(2), kind="sip")
    now = timezone.now()
    unit_services.workflow_poll(pipeline=pipeline, client=client, now=now)
    sample = QueueSample.objects.get(pipeline=pipeline.slug)
    assert (sample.active, sample.waiting) == (1, 1)
    assert AnalyticsCoverage.objects.get(pipeline=pipeline.slug).watching_since == now

    waiting.status = UnitStatusValue.PROCESSING
    later = now + timedelta(minutes=10)
    Unit.objects.filter(uuid=uuid_for(1)).update(next_poll_at=later)
    unit_services.workflow_poll(pipeline=pipeline, client=client, now=later)
    wait = DecisionWait.objects.get()
    assert (wait.decision, wait.count, wait.observed_count) == ("Normalize", 1, 1)
    assert wait.total_seconds == pytest.approx(600)
    unit_services.workflow_poll(pipeline=pipeline, client=client, now=later + timedelta(seconds=10))
    assert DecisionWait.objects.get().count == 1
