from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from dashboard.selectors.wall import (
    CapacityRow,
    capacity_rows,
    pipeline_history,
    wall_state,
)
from tests.wall import seeding
from tests.wall.seeding import GIB

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _pipelines(settings):
    seeding.use_pipelines(settings)


def test_a_tile_counts_moving_and_waiting_units_and_ages_the_oldest_wait():
    now = timezone.now()
    seeding.busy_wall(now)

    tile = wall_state(now=now).pipelines[0]

    assert tile.slug == "default"
    assert tile.in_progress == 3
    assert tile.awaiting == 2
    assert tile.oldest_waiting_name == "approve-me"
    assert tile.oldest_waiting_decision == "Approve standard transfer"
    assert tile.oldest_waiting_seconds == pytest.approx(3 * 3600)
    assert tile.oldest_waiting_label == "3 h"


def test_failures_count_units_that_failed_upstream_within_24_hours():
    now = timezone.now()
    seeding.save_units(
        [
            seeding.failed_unit(now=now, name="a", failed_ago=timedelta(minutes=5)),
            seeding.failed_unit(now=now, name="b", failed_ago=timedelta(hours=23, minutes=59)),
            # Lookout may have first seen it a minute ago: the failure itself is older.
            seeding.failed_unit(now=now, name="c", failed_ago=timedelta(hours=24, minutes=1)),
            seeding.unit(now=now, name="d", status="REJECTED"),
        ]
    )
    seeding.save_units(
        [seeding.failed_unit(now=now, name="e", failed_ago=timedelta(hours=1), pipeline="other")],
        pipeline="other",
    )

    assert wall_state(now=now).pipelines[0].failed_24h == 2


def test_completed_today_starts_at_local_midnight(settings):
    settings.TIME_ZONE = "Europe/Madrid"
    # 08:30 in Madrid (UTC+1 in January) is 07:30 UTC; local midnight is 23:00 UTC.
    now = datetime(2026, 1, 15, 7, 30, tzinfo=UTC)
    seeding.change(at=datetime(2026, 1, 14, 23, 5, tzinfo=UTC), to_status="COMPLETE")
    seeding.change(at=datetime(2026, 1, 15, 7, 0, tzinfo=UTC), to_status="COMPLETE")
    seeding.change(at=datetime(2026, 1, 14, 22, 55, tzinfo=UTC), to_status="COMPLETE")
    seeding.change(at=datetime(2026, 1, 15, 7, 10, tzinfo=UTC), to_status="FAILED")

    assert pipeline_history(pipeline="default", now=now).completed_today == 2


def test_throughput_has_24_hourly_buckets_ending_now_oldest_first():
    now = timezone.now()
    seeding.change(at=now - timedelta(hours=23, minutes=50), to_status="COMPLETE")
    seeding.change(at=now - timedelta(hours=5, minutes=10), to_status="COMPLETE")
    seeding.change(at=now - timedelta(hours=5, minutes=40), to_status="COMPLETE")
    seeding.change(at=now - timedelta(minutes=1), to_status="COMPLETE")
    seeding.change(at=now - timedelta(hours=25), to_status="COMPLETE")  # outside the window
    seeding.change(at=now - timedelta(minutes=2), to_status="FAILED")  # not a completion

    throughput = pipeline_history(pipeline="default", now=now).throughput

    expected = [0] * 24
    expected[0] = 1
    expected[18] = 2
    expected[23] = 1
    assert list(throughput) == expected


def test_a_unit_completing_twice_in_an_hour_counts_once_there():
    now = timezone.now()
    same = str(uuid.uuid4())
    seeding.change(at=now - timedelta(minutes=20), to_status="COMPLETE", unit_uuid=same)
    seeding.change(at=now - timedelta(minutes=10), to_status="COMPLETE", unit_uuid=same)

    assert pipeline_history(pipeline="default", now=now).throughput[-1] == 1


def test_a_completed_transfer_is_not_counted_until_its_sip_completes():
    now = timezone.localtime().replace(hour=12, minute=0)
    seeding.change(at=now - timedelta(minutes=30), to_status="COMPLETE", unit_kind="transfer")
    history = pipeline_history(pipeline="default", now=now)
    assert history.completed_today == 0

    seeding.change(at=now - timedelta(minutes=5), to_status="COMPLETE", unit_kind="sip")
    history = pipeline_history(pipeline="default", now=now)
    assert history.completed_today == 1
    assert history.throughput[-1] == 1


def test_the_tile_sparkline_is_built_from_the_throughput():
    now = timezone.now()
    seeding.busy_wall(now)

    tile = wall_state(now=now).pipelines[0]

    assert list(tile.throughput) == [hour % 5 for hour in range(24)]
    assert f"{sum(hour % 5 for hour in range(24))} completions" in tile.chart.text
    assert "<svg" in tile.chart.svg


def test_capacity_rows_show_the_fullest_first_and_skip_locations_without_quota():
    rows = capacity_rows(
        {
            "spaces": [
                {"path": "/big", "size": None, "used": 5 * GIB},
                {"path": "/nearly-full", "size": 100, "used": 95},
            ],
            "locations": [
                {"purpose": "AS", "description": "AIPs", "quota": 100, "used": 50},
                {"purpose": "TS", "description": "No quota", "quota": None, "used": 10},
                {
                    "purpose": "DS",
                    "description": "Disabled",
                    "quota": 100,
                    "used": 99,
                    "enabled": False,
                },
            ],
        }
    )

    assert [(r.kind, r.label, r.level) for r in rows] == [
        ("Space", "/nearly-full", "critical"),
        ("AIP storage", "AIPs", "ok"),
        ("Space", "/big", "unlimited"),
    ]


@pytest.mark.parametrize(
    ("used", "total", "level", "label"),
    [
        (79, 100, "ok", "OK"),
        (80, 100, "warning", "Filling up"),
        (90, 100, "critical", "Nearly full"),
        (130, 100, "critical", "Nearly full"),
        (5, None, "unlimited", "No limit set"),
    ],
)
def test_capacity_levels_are_named_in_words(used, total, level, label):
    row = CapacityRow(kind="Space", label="/x", used=used, total=total)

    assert (row.level, row.level_label) == (level, label)
    assert row.bar_percent <= 100


def test_no_storage_summary_yet_gives_no_rows():
    assert capacity_rows(None) == []
    assert wall_state().capacity == ()


def test_a_service_that_stopped_answering_is_listed_as_stale_with_its_age():
    now = timezone.now()
    seeding.fresh("workflow:default", at=now)
    seeding.failing_since(
        "storage", last_success=now - timedelta(minutes=12), now=now, error="connection refused"
    )

    state = wall_state(now=now)

    assert [(s.service, s.label, s.age_label, s.last_error) for s in state.stale_services] == [
        ("storage", "Storage service", "no fresh data for 12 min", "connection refused"),
    ]
    assert not state.pipelines[0].health.stale
    assert "1 service not answering" in state.attention_items


def test_a_service_never_reached_says_so():
    now = timezone.now()
    for service in ("workflow:default", "storage"):
        seeding.failing_since(service, last_success=None, now=now, error="connection refused")

    state = wall_state(now=now)

    labels = {s.service: s.age_label for s in state.stale_services}
    assert labels == {"workflow:default": "has never answered", "storage": "has never answered"}
    assert state.pipelines[0].stale_label == "has never answered"
    assert not state.starting


def test_a_first_start_is_not_an_outage():
    state = wall_state()

    labels = {s.service: s.age_label for s in state.stale_services}
    assert labels == {"workflow:default": "not asked yet", "storage": "not asked yet"}
    assert state.starting


def test_the_first_start_lasts_until_every_service_was_asked():
    now = timezone.now()
    seeding.fresh("storage", at=now)
    assert wall_state(now=now).starting

    seeding.failing_since("workflow:default", last_success=None, now=now, error="refused")
    assert not wall_state(now=now).starting


def test_a_quiet_fresh_wall_needs_no_attention():
    now = timezone.now()
    seeding.save_units([seeding.unit(now=now, name="moving")])
    seeding.fresh("workflow:default", at=now)
    seeding.fresh("storage", at=now)
    seeding.storage(
        now=now,
        spaces=[],
        locations=[
            {"purpose": "AS", "description": "AIPs", "quota": 100, "used": 10},
        ],
    )

    state = wall_state(now=now)

    assert state.attention_items == ()
    assert not state.needs_attention


def test_attention_items_name_what_needs_a_person():
    now = timezone.now()
    seeding.busy_wall(now)

    assert wall_state(now=now).attention_items == (
        "2 decisions waiting",
        "1 failure in 24 h",
        "1 store nearly full",
    )


def test_one_tile_per_configured_pipeline(settings):
    seeding.use_pipelines(
        settings,
        [
            {**seeding.PIPELINES[0]},
            {
                "slug": "second",
                "name": "Second pipeline",
                "url": "http://127.0.0.1:9",
                "user": "u",
                "key": "k",
            },
        ],
    )
    now = timezone.now()
    seeding.save_units([seeding.unit(now=now, name="b", pipeline="second")], pipeline="second")

    tiles = wall_state(now=now).pipelines

    assert [(t.slug, t.name, t.in_progress) for t in tiles] == [
        ("default", "Default pipeline", 0),
        ("second", "Second pipeline", 1),
    ]
