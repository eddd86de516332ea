"""The analytics page: every figure matches a direct count from the seeded records."""

from __future__ import annotations

import csv
import io
import re
from collections import Counter, defaultdict
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from dashboard.lib import histogram
from tests.analytics.seeding import history_seed

pytestmark = pytest.mark.django_db
URL = "/analytics/"


def _csv(client, table: str, **params) -> list[dict[str, str]]:
    response = client.get(URL, {**params, "csv": table})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(response.content.decode())))


@pytest.fixture
def seeded(db):
    records = history_seed(pipelines=("default",), days=12, per_day=5)
    call_command("analytics_backfill")
    return records


def test_it_sends_anonymous_users_to_login(client):
    response = client.get(URL)
    assert response.status_code == 302
    assert "/login" in response["Location"]


def test_it_refuses_a_user_without_a_role(no_role):
    assert no_role.get(URL).status_code == 403


def test_it_shows_every_section_with_a_table_and_a_csv_link(viewer, seeded):
    response = viewer.get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    for heading in ("Throughput", "Time per stage", "Waiting for people", "Failures", "Queue"):
        assert heading in html
    assert html.count('role="img"') >= 5
    assert "csv=throughput" in html and "csv=queue" in html
    assert " style=" not in html and "<script>" not in html


def test_the_period_picker_shows_the_period_the_page_reads_by_default(viewer, seeded):
    html = viewer.get(URL).content.decode()
    assert re.search(r'<option value="30d" selected>Last 30 days</option>', html)
    assert "Last 30 days (" in html


def test_throughput_matches_the_seeded_units_and_aips(viewer, seeded):
    rows = _csv(viewer, "throughput", period="30d")
    today = timezone.localdate()
    first = today - timedelta(days=30)
    transfers = Counter(
        timezone.localdate(u.start).isoformat() for u in seeded.units if u.kind == "transfer"
    )
    aips = Counter(timezone.localdate(u.stored_at).isoformat() for u in seeded.units if u.stored_at)
    by_label = {r["period"]: r for r in rows}
    assert rows[0]["period"] == first.isoformat() and rows[-1]["period"] == today.isoformat()
    for day, count in transfers.items():
        assert int(by_label[day]["transfers_started"]) == count
    for day, count in aips.items():
        assert int(by_label[day]["aips_stored"]) == count
    assert sum(int(r["bytes_stored"]) for r in rows) == sum(u.aip_size for u in seeded.units)
    watched = min(u.start for u in seeded.units)
    before = [r for r in rows if r["period"] < timezone.localdate(watched).isoformat()]
    assert before and all(r["transfers_started"] == "not covered" for r in before)


def test_time_per_stage_matches_the_task_times(viewer, seeded):
    rows = {r["group"]: r for r in _csv(viewer, "stages", period="30d")}
    durations = defaultdict(list)
    for unit in seeded.units:
        for group, seconds in unit.groups.items():
            durations[group].append(seconds)
    assert list(rows) == [g for g in rows]  # workflow order is checked below
    assert list(rows)[:2] == ["Verify transfer compliance", "Scan for viruses"]
    for group, values in durations.items():
        assert int(rows[group]["units"]) == len(values)
        ordered = sorted(values)
        for fraction, column in ((0.5, "median_seconds"), (0.9, "p90_seconds")):
            true_value = ordered[max(0, int(fraction * len(ordered) + 0.999999) - 1)]
            low, high = histogram.bucket_bounds(histogram.bucket_of(true_value))
            assert low - 1 <= float(rows[group][column]) <= high + 1
    assert sum(r["slowest"] == "True" for r in rows.values()) == 3


def test_failures_match_the_failed_units(viewer, seeded):
    groups = {r["group"]: r for r in _csv(viewer, "failures", period="30d")}
    jobs = {(r["group"], r["job"]): r for r in _csv(viewer, "failed-jobs", period="30d")}
    ran = Counter(g for u in seeded.units for g in u.groups)
    failed = Counter(u.failed_group for u in seeded.units if u.failed_group)
    failed_jobs = Counter((u.failed_group, u.failed_job) for u in seeded.units if u.failed_group)
    assert {g: int(r["runs"]) for g, r in groups.items()} == dict(ran)
    assert {g: int(r["failures"]) for g, r in groups.items() if int(r["failures"])} == dict(failed)
    assert {k: int(r["failures"]) for k, r in jobs.items()} == dict(failed_jobs)
    html = viewer.get(URL).content.decode()
    assert "/units/?status=FAILED" in html


def test_waits_match_the_history(viewer, seeded):
    rows = {r["decision"]: r for r in _csv(viewer, "waits", period="30d")}
    counts = Counter(w.decision for w in seeded.waits)
    assert {d: int(r["waits_ended"]) for d, r in rows.items()} == dict(counts)
    approvals = _csv(viewer, "approvals", period="30d")
    expected = Counter(
        timezone.localdate(w.end).isoformat()
        for w in seeded.waits
        if w.decision.startswith("Approve")
    )
    got = {r["period"]: int(r["approvals"]) for r in approvals if r["approvals"] != "not covered"}
    assert {d: c for d, c in got.items() if c} == dict(expected)


def test_one_pipeline_filter_keeps_to_that_pipeline(viewer, settings):
    settings.LOOKOUT_PIPELINES = [
        *settings.LOOKOUT_PIPELINES,
        {**settings.LOOKOUT_PIPELINES[0], "slug": "east", "name": "East"},
    ]
    seeded = history_seed(pipelines=("default", "east"), days=3, per_day=4)
    call_command("analytics_backfill")
    rows = _csv(viewer, "stages", period="7d", pipeline="east")
    east = sum(1 for u in seeded.units if u.pipeline == "east" and "Scan for viruses" in u.groups)
    assert int(next(r for r in rows if r["group"] == "Scan for viruses")["units"]) == east


def test_a_bad_custom_period_says_so_and_falls_back(viewer, seeded):
    response = viewer.get(URL, {"period": "custom", "start": "2026-01-10", "end": "2026-01-01"})
    assert response.status_code == 200
    assert "The end date is before the start date." in response.content.decode()
    week = viewer.get(URL, {"period": "12m"}).content.decode()
    assert "week of" in week


def test_a_custom_period_is_counted_by_its_own_days(viewer, seeded):
    day = timezone.localdate(seeded.units[0].start)
    rows = _csv(viewer, "throughput", period="custom", start=day.isoformat(), end=day.isoformat())
    expected = sum(
        1 for u in seeded.units if u.kind == "transfer" and timezone.localdate(u.start) == day
    )
    assert [r["period"] for r in rows] == [day.isoformat()]
    assert int(rows[0]["transfers_started"]) == expected
