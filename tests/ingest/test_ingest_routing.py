"""Routing within one cycle: the least loaded pipeline by Lookout's live counts first,
never past the cap, and the run says why a pipeline receives nothing."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dashboard.models import (
    IN_FLIGHT_STATES,
    DailyThroughput,
    IngestItem,
    IngestRun,
    UnitStatusCount,
)
from dashboard.selectors import ingest as ingest_selectors
from dashboard.services import ingest_cycle

pytestmark = pytest.mark.django_db
S = IngestItem.State


@pytest.fixture
def two_pipelines(settings):
    settings.LOOKOUT_PIPELINES = [
        {"slug": slug, "name": slug, "url": f"http://{slug}.invalid", "user": "u", "key": "k"}
        for slug in ("east", "west")
    ]


@pytest.fixture
def started(monkeypatch) -> list[tuple[str, str]]:
    """The starts a cycle makes, recorded instead of sent."""
    calls: list[tuple[str, str]] = []

    def start(run, item, pipeline, now, clients):
        calls.append((pipeline.slug, item.name))
        return "started"

    monkeypatch.setattr(ingest_cycle, "_start", start)
    return calls


def _run(queued: int, **fields) -> IngestRun:
    now = timezone.now()
    run = IngestRun.objects.create(
        name="r", source_location="0" * 36, path=b"b", path_shown="b",
        pipelines=["east", "west"], status=IngestRun.Status.RUNNING, created_at=now,
        scanned_at=now, **fields,
    )  # fmt: skip
    for number in range(1, queued + 1):
        IngestItem.objects.create(
            run=run, path=f"i{number}".encode(), path_shown=f"i{number}", name=f"i{number}",
            number=number,
        )  # fmt: skip
    return run


def test_items_go_to_the_least_loaded_pipeline_counting_units_lookout_did_not_start(
    two_pipelines, started
):
    # East already runs 3 units someone else started; west runs 1.
    UnitStatusCount.objects.create(pipeline="east", status="PROCESSING", count=3)
    UnitStatusCount.objects.create(pipeline="west", status="USER_INPUT", count=1)
    run = _run(6, max_in_flight=3)

    ingest_cycle._route(run, blocked={}, loads=ingest_cycle._live_loads({"east", "west"}),
                        now=timezone.now())  # fmt: skip

    # West first until it is as loaded as east, then turn about; each capped at 3.
    assert [slug for slug, _ in started] == ["west", "west", "east", "west", "east", "east"]
    assert Counter(slug for slug, _ in started) == {"east": 3, "west": 3}
    assert [name for _, name in started] == [f"i{n}" for n in range(1, 7)]


def test_a_full_or_blocked_pipeline_receives_nothing_and_the_run_says_why(two_pipelines, started):
    run = _run(5, max_in_flight=2)

    ingest_cycle._route(
        run, blocked={"east": "Its workflow service is stale."}, loads=Counter(),
        now=timezone.now(),
    )  # fmt: skip
    ingest_cycle._route(run, blocked={"east": "Its workflow service is stale."},
                        loads=Counter(), now=timezone.now())  # fmt: skip

    assert [slug for slug, _ in started] == ["west", "west"]
    run.refresh_from_db()
    assert run.waits["east"] == "Its workflow service is stale."
    assert "All 2 slots are in use" in run.waits["west"]
    assert IngestItem.objects.filter(pipeline="west", state=S.STARTING).count() == 2
    assert IngestItem.objects.filter(state=S.QUEUED).count() == 3


def test_a_paused_run_claims_nothing(two_pipelines, started):
    run = _run(2)
    IngestRun.objects.filter(pk=run.pk).update(status=IngestRun.Status.PAUSED)

    ingest_cycle._route(run, blocked={}, loads=Counter(), now=timezone.now())

    assert started == []
    assert IngestItem.objects.filter(state=S.QUEUED).count() == 2


def test_the_eta_follows_the_pipelines_measured_rate_or_the_runs_own(two_pipelines):
    now = timezone.now()
    run = _run(10, started_at=now - timedelta(hours=1))
    # 7 days of 24 AIPs a day on east: one an hour. 10 items left: 10 hours.
    for day in range(7):
        DailyThroughput.objects.create(
            pipeline="east", day=(now - timedelta(days=day)).date(), aips_stored=24
        )
    eta = ingest_selectors.ingest_run_summary(run, now=now).eta
    assert eta is not None and abs((eta - now) - timedelta(hours=10)) < timedelta(minutes=1)

    # The run stored 5 in its first hour: faster than the pipelines' history.
    IngestItem.objects.filter(number__lte=5).update(state=S.STORED)
    eta = ingest_selectors.ingest_run_summary(run, now=now).eta
    assert eta is not None and abs((eta - now) - timedelta(hours=1)) < timedelta(minutes=1)

    IngestItem.objects.update(state=S.STORED)
    assert ingest_selectors.ingest_run_summary(run, now=now).eta is None


def test_a_claim_of_several_slots_at_once_never_passes_the_cap(two_pipelines):
    run = _run(10, max_in_flight=3)
    # One item of the run already in flight on east: two slots left there.
    IngestItem.objects.filter(number=10).update(state=S.PROCESSING, pipeline="east")

    claimed = ingest_cycle._claim(run, ["east", "west"], Counter(), timezone.now(), most=99)

    assert Counter(item.pipeline for item in claimed) == {"east": 2, "west": 3}
    for slug in ("east", "west"):
        in_flight = IngestItem.objects.filter(pipeline=slug, state__in=IN_FLIGHT_STATES).count()
        assert in_flight == 3
    assert all(item.state == S.STARTING and item.attempts == 1 for item in claimed)
    assert all(item.started_at is not None for item in claimed)


def test_a_claim_gives_each_item_in_order_to_the_least_loaded_pipeline(two_pipelines):
    run = _run(8, max_in_flight=3)

    claimed = ingest_cycle._claim(
        run, ["east", "west"], Counter({"east": 2, "west": 0}), timezone.now(), most=99
    )

    # West until as loaded as east, a tie goes to the first in the run's order (east),
    # then each takes its turn until both are full.
    assert [(item.name, item.pipeline) for item in claimed] == [
        ("i1", "west"), ("i2", "west"), ("i3", "east"),
        ("i4", "west"), ("i5", "east"), ("i6", "east"),
    ]  # fmt: skip
    assert IngestItem.objects.filter(state=S.QUEUED).count() == 2


def test_two_claims_in_a_row_never_claim_an_item_twice(two_pipelines):
    run = _run(6, max_in_flight=2)
    now = timezone.now()

    first = ingest_cycle._claim(run, ["east"], Counter(), now, most=99)
    second = ingest_cycle._claim(run, ["east", "west"], Counter(), now, most=2)
    third = ingest_cycle._claim(run, ["east", "west"], Counter(), now, most=99)

    assert [item.name for item in first] == ["i1", "i2"]
    assert [item.name for item in second] == ["i3", "i4"]
    assert third == []
    assert list(IngestItem.objects.order_by("number").values_list("attempts", flat=True)) == [
        1, 1, 1, 1, 0, 0,
    ]  # fmt: skip


def test_an_item_waiting_for_its_retry_time_is_not_claimed_before_it(two_pipelines):
    run = _run(2, max_in_flight=2)
    now = timezone.now()
    IngestItem.objects.filter(number=1).update(retry_at=now + timedelta(seconds=30), attempts=1)

    claimed = ingest_cycle._claim(run, ["east"], Counter(), now)
    later = ingest_cycle._claim(run, ["east"], Counter(), now + timedelta(seconds=30))

    assert [item.name for item in claimed] == ["i2"]
    assert [(item.name, item.attempts, item.retry_at) for item in later] == [("i1", 2, None)]


def test_claiming_many_items_costs_as_many_queries_as_claiming_one(two_pipelines):
    def queries_to_claim(n_per_pipeline: int) -> int:
        IngestRun.objects.all().delete()
        run = _run(2 * n_per_pipeline, max_in_flight=n_per_pipeline)
        with CaptureQueriesContext(connection) as queries:
            claimed = ingest_cycle._claim(run, ["east", "west"], Counter(), timezone.now(), most=99)
        assert len(claimed) == 2 * n_per_pipeline
        return len(queries)

    assert queries_to_claim(1) == queries_to_claim(5) == queries_to_claim(25)


def test_the_scheduler_claims_each_item_right_before_its_start(two_pipelines, monkeypatch):
    # A worker killed after a claim strands only the item it was about to start.
    run = _run(6, max_in_flight=2)
    seen: list[list[str]] = []

    def start(run, item, pipeline, now, clients):
        seen.append(
            sorted(IngestItem.objects.filter(state=S.STARTING).values_list("name", flat=True))
        )
        IngestItem.objects.filter(pk=item.pk).update(state=S.PROCESSING)
        return "started"

    monkeypatch.setattr(ingest_cycle, "_start", start)

    started = ingest_cycle._route(run, {}, Counter(), timezone.now())

    assert started == 4
    assert seen == [["i1"], ["i2"], ["i3"], ["i4"]]


def test_the_cycle_summary_counts_only_what_happened():
    summary = ingest_cycle.CycleSummary()
    summary.add("")  # an item followed with nothing new
    assert summary.line() == "ingest: nothing to do"
    summary.add("started", 2)
    summary.add("stored")
    assert summary.line() == "ingest: 2 started, 1 stored"
