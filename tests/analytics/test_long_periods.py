"""Long periods are drawn by week (up to about two years) or by month: every row still
matches a direct count of the seeded records, and the "not covered" marks hold per row."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from datetime import date, timedelta

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from dashboard.models import QueueSample
from dashboard.selectors.analytics import CUSTOM, analytics_get, period_get
from tests.analytics.seeding import history_seed
from tests.support.users import make_user

pytestmark = pytest.mark.django_db
API = "/api/v1/analytics/"


def _week_of(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _month_of(day: date) -> date:
    return day.replace(day=1)


def _three_years() -> dict[str, str]:
    today = timezone.localdate()
    first = today.replace(year=today.year - 3)
    return {"period": CUSTOM, "start": first.isoformat(), "end": today.isoformat()}


def test_a_year_is_drawn_by_week_and_three_years_by_month():
    today = timezone.localdate()
    assert period_get("30d").bucket == "day"
    assert period_get("12m").bucket == "week"
    assert period_get(CUSTOM, first=today - timedelta(days=3 * 365), last=today).bucket == "month"

    year = analytics_get(period=period_get("12m"))
    three_years = analytics_get(
        period=period_get(CUSTOM, first=today - timedelta(days=3 * 365), last=today)
    )

    assert 53 <= len(year.throughput) <= 54
    assert len(year.approvals) == len(year.queue) == len(year.throughput)
    assert 36 <= len(three_years.throughput) <= 37
    assert len(three_years.queue) == len(three_years.throughput)
    assert three_years.throughput[0].label.startswith("month of ")
    assert three_years.queue_by.startswith("month")


def test_weekly_throughput_and_approvals_match_the_records():
    _throughput_and_approvals_match({"period": "12m"}, _week_of, "week")


def test_monthly_throughput_and_approvals_match_the_records():
    _throughput_and_approvals_match(_three_years(), _month_of, "month")


def _throughput_and_approvals_match(params, bucket_of, bucket):
    seeded = history_seed(days=70, per_day=3)
    call_command("analytics_backfill")

    client = Client()
    client.force_login(make_user("vera", "viewer"))
    body = client.get(API, params).json()

    assert body["period"]["bucket"] == bucket
    transfers = Counter(
        bucket_of(timezone.localdate(u.start)).isoformat()
        for u in seeded.units
        if u.kind == "transfer"
    )
    approvals = Counter(
        bucket_of(timezone.localdate(w.end)).isoformat()
        for w in seeded.waits
        if w.decision.startswith("Approve")
    )
    watched = timezone.localdate(min(u.start for u in seeded.units))
    for row in body["throughput"]:
        covered = bucket_of(watched).isoformat() <= row["first_day"]
        assert row["covered"] == covered
        expected = transfers.get(row["first_day"], 0)
        assert row["transfers_started"] == (expected if covered else None)
    assert sum(transfers.values()) == sum(r["transfers_started"] or 0 for r in body["throughput"])
    got = {r["first_day"]: r["count"] for r in body["approvals"] if r["count"]}
    assert got == dict(approvals)
    assert all(r["label"].startswith(f"{bucket} of ") for r in body["approvals"])


def _samples(pipelines: tuple[str, ...], days: int) -> list[QueueSample]:
    """Hourly samples for the last `days`, with a gap of hours nobody polled."""
    rng = random.Random(3)
    now = timezone.now().replace(minute=0, second=0, microsecond=0)
    samples = [
        QueueSample(
            pipeline=p,
            hour=now - timedelta(hours=h),
            active=rng.randint(0, 90),
            waiting=rng.randint(0, 30),
        )
        for p in pipelines
        for h in range(days * 24)
        if not 200 <= h < 300 or p == pipelines[0]
    ]
    QueueSample.objects.bulk_create(samples)
    return samples


def _peaks(samples, period, bucket_of, pipeline=None) -> dict[date, tuple[int, int]]:
    totals: dict = defaultdict(lambda: [0, 0])
    for s in samples:
        if period.start <= s.hour < period.end and pipeline in (None, s.pipeline):
            totals[s.hour][0] += s.active
            totals[s.hour][1] += s.waiting
    peaks: dict[date, tuple[int, int]] = {}
    for hour, (active, waiting) in totals.items():
        start = bucket_of(timezone.localdate(hour))
        old = peaks.get(start, (0, 0))
        peaks[start] = (max(old[0], active), max(old[1], waiting))
    return peaks


@pytest.mark.parametrize("pipeline", [None, "east"])
def test_the_queue_of_a_year_is_each_weeks_peak_of_the_hourly_totals(pipeline):
    samples = _samples(("default", "east"), days=60)
    period = period_get("12m")

    queue = analytics_get(period=period, pipeline=pipeline).queue

    expected = _peaks(samples, period, _week_of, pipeline)
    got = {timezone.localdate(r.moment): (r.active, r.waiting) for r in queue if r.covered}
    assert got == expected
    # the weeks sampled; the others are marked not covered, not zero
    assert all(r.active is None for r in queue if not r.covered)
    assert sum(r.covered for r in queue) == len(expected) < len(queue)


def test_the_queue_of_three_years_is_each_months_peak_with_one_pipeline():
    samples = _samples(("default",), days=70)
    period = period_get(CUSTOM, **_dates(_three_years()))

    queue = analytics_get(period=period).queue

    expected = _peaks(samples, period, _month_of)
    assert {timezone.localdate(r.moment): (r.active, r.waiting) for r in queue if r.covered} == (
        expected
    )
    assert [r.label for r in queue if r.covered][-1] == f"month of {timezone.localdate():%Y-%m}"


def _dates(params: dict[str, str]) -> dict[str, date]:
    return {"first": date.fromisoformat(params["start"]), "last": date.fromisoformat(params["end"])}
