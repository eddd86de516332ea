from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dashboard.lib import vocabulary
from dashboard.selectors.summary import summary_get
from tests.wall import seeding

pytestmark = pytest.mark.django_db

SECOND = {
    "slug": "second",
    "name": "Second pipeline",
    "url": "http://127.0.0.1:9",
    "user": "u",
    "key": "k",
}


@pytest.fixture(autouse=True)
def _pipelines(settings):
    seeding.use_pipelines(settings)


def _two_pipelines(settings) -> None:
    seeding.use_pipelines(settings, [seeding.PIPELINES[0], SECOND])


def test_it_counts_every_status_zeros_included_in_the_vocabulary_order():
    now = timezone.now()
    seeding.save_units(
        [
            seeding.unit(now=now, name="a"),
            seeding.unit(now=now, name="b"),
            seeding.unit(now=now, name="c", status="COMPLETE"),
        ]
    )

    total = summary_get(now=now).total

    assert [(c.status, c.status_label, c.count) for c in total.status_counts] == [
        (code, term.text, {"PROCESSING": 2, "COMPLETE": 1}.get(code, 0))
        for code, term in vocabulary.UNIT_STATUSES.items()
    ]
    assert total.units == 3
    assert total.count("REJECTED") == 0


def test_hidden_units_are_not_counted_anywhere():
    now = timezone.now()
    hidden = [
        seeding.unit(now=now, name="gone", status="COMPLETE"),
        seeding.failed_unit(now=now, name="gone-failed", failed_ago=timedelta(hours=1)),
        seeding.unit(
            now=now, name="gone-waiting", status="USER_INPUT", waiting_for=timedelta(days=3)
        ),
    ]
    for unit in hidden:
        unit.hidden = True
    seeding.save_units([*hidden, seeding.unit(now=now, name="visible")])

    summary = summary_get(now=now)

    for figures in (summary.total, summary.pipelines[0]):
        assert figures.units == 1
        assert figures.count("COMPLETE") == 0
        assert figures.count("FAILED") == 0
        assert (figures.waiting, figures.oldest_wait, figures.failed_24h) == (0, None, 0)
        assert figures.in_progress == 1


def test_in_progress_is_an_unfinished_status_not_waiting_for_a_decision():
    now = timezone.now()
    finishing = seeding.unit(now=now, name="finishing", status="COMPLETE")
    finishing.awaiting_sip_uuid = True  # counted as the Completed it is on every page
    seeding.save_units(
        [
            seeding.unit(now=now, name="moving"),
            seeding.unit(now=now, name="new", status="PENDING"),
            seeding.unit(now=now, name="unseen", status="UNKNOWN"),
            seeding.unit(
                now=now, name="waits", status="USER_INPUT", waiting_for=timedelta(minutes=1)
            ),
            # Listed as waiting before its status says so: waiting, not in progress.
            seeding.unit(
                now=now, name="listed", status="PROCESSING", waiting_for=timedelta(minutes=1)
            ),
            finishing,
            seeding.failed_unit(now=now, name="broken", failed_ago=timedelta(hours=1)),
        ]
    )

    total = summary_get(now=now).total

    assert total.in_progress == 3
    assert total.waiting == 2


def test_the_oldest_wait_carries_its_time_where_it_comes_from_and_its_decision():
    now = timezone.now()
    upstream = seeding.unit(
        now=now,
        name="approve-me",
        status="USER_INPUT",
        waiting_for=timedelta(hours=3),
        decision="Approve standard transfer",
    )
    upstream.waiting_since_from = "upstream"
    observed = seeding.unit(
        now=now, name="", status="USER_INPUT", waiting_for=timedelta(minutes=20)
    )
    observed.directory = "normalise-me"
    observed.microservice = "Normalize"
    seeding.save_units([upstream, observed])

    oldest = summary_get(now=now).pipelines[0].oldest_wait

    assert oldest is not None
    assert (oldest.uuid, oldest.name, oldest.pipeline) == (upstream.uuid, "approve-me", "default")
    assert oldest.since == upstream.waiting_since
    assert (oldest.times_from, oldest.observed) == ("upstream", False)
    assert oldest.decision == "Approve standard transfer"
    assert oldest.age_seconds == pytest.approx(3 * 3600)

    upstream.delete()
    oldest = summary_get(now=now).pipelines[0].oldest_wait

    assert oldest is not None
    assert (oldest.name, oldest.times_from, oldest.observed) == ("normalise-me", "observed", True)
    # No decision named: the microservice that asks it, as the pages say.
    assert oldest.decision == "Normalize"
    assert oldest.age_seconds == pytest.approx(20 * 60)


def test_failures_count_by_when_they_failed_not_when_lookout_saw_them():
    now = timezone.now()
    seeding.save_units(
        [
            seeding.failed_unit(now=now, name="in", failed_ago=timedelta(hours=23, minutes=59)),
            # First seen by Lookout a minute ago (updated_at is now), failed a day ago.
            seeding.failed_unit(now=now, name="out", failed_ago=timedelta(hours=24, minutes=1)),
            seeding.failed_unit(now=now, name="recent", failed_ago=timedelta(minutes=5)),
        ]
    )

    summary = summary_get(now=now)

    assert summary.total.failed_24h == 2
    assert summary.pipelines[0].failed_24h == 2
    # The status count is every failed unit, however old.
    assert summary.total.count("FAILED") == 3


def test_two_pipelines_side_by_side_and_their_total(settings):
    _two_pipelines(settings)
    now = timezone.now()
    seeding.save_units(
        [
            seeding.unit(now=now, name="d-moving"),
            seeding.unit(now=now, name="d-done", status="COMPLETE"),
            seeding.unit(
                now=now, name="d-waits", status="USER_INPUT", waiting_for=timedelta(hours=1)
            ),
            seeding.failed_unit(now=now, name="d-broken", failed_ago=timedelta(hours=2)),
        ]
    )
    seeding.save_units(
        [
            seeding.unit(now=now, name="s-moving", pipeline="second"),
            seeding.unit(now=now, name="s-moving-2", pipeline="second"),
            seeding.unit(
                now=now,
                name="s-waits-longer",
                pipeline="second",
                status="USER_INPUT",
                waiting_for=timedelta(hours=5),
            ),
        ],
        pipeline="second",
    )
    # A pipeline no longer configured is not counted.
    seeding.save_units([seeding.unit(now=now, name="gone", pipeline="old")], pipeline="old")

    summary = summary_get(now=now)
    default, second = summary.pipelines

    assert [(p.slug, p.name) for p in summary.pipelines] == [
        ("default", "Default pipeline"),
        ("second", "Second pipeline"),
    ]
    assert (default.units, default.in_progress, default.waiting, default.failed_24h) == (4, 1, 1, 1)
    assert (second.units, second.in_progress, second.waiting, second.failed_24h) == (3, 2, 1, 0)
    assert default.oldest_wait is not None and default.oldest_wait.name == "d-waits"
    assert second.oldest_wait is not None and second.oldest_wait.name == "s-waits-longer"

    total = summary.total
    assert (total.units, total.in_progress, total.waiting, total.failed_24h) == (7, 3, 2, 1)
    assert [c.count for c in total.status_counts] == [
        a.count + b.count for a, b in zip(default.status_counts, second.status_counts, strict=True)
    ]
    assert total.oldest_wait == second.oldest_wait
    assert summary.pipeline("second") is second


def test_each_service_has_its_freshness_and_a_pipeline_its_workflow_services(settings):
    _two_pipelines(settings)
    now = timezone.now()
    seeding.fresh("workflow:default", at=now - timedelta(seconds=4))
    seeding.failing_since(
        "storage", last_success=now - timedelta(minutes=12), now=now, error="connection refused"
    )

    summary = summary_get(now=now)

    services = {h.service: h for h in summary.services}
    assert list(services) == ["workflow:default", "workflow:second", "storage"]
    storage = services["storage"]
    assert (storage.last_attempt_at, storage.last_success_at) == (now, now - timedelta(minutes=12))
    assert (storage.last_error, storage.age_seconds, storage.stale) == (
        "connection refused",
        12 * 60,
        True,
    )
    default, second = summary.pipelines
    assert default.freshness == services["workflow:default"]
    assert (default.freshness.age_seconds, default.freshness.stale) == (4, False)
    assert (second.freshness.last_success_at, second.freshness.stale) == (None, True)


def test_the_number_of_queries_does_not_grow_with_the_pipelines(settings):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            summary_get()
        return len(captured)

    one = queries()
    seeding.use_pipelines(
        settings,
        [seeding.PIPELINES[0], *({**SECOND, "slug": f"p{n}"} for n in range(5))],
    )

    assert queries() == one


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's query plans")
def test_every_unit_query_is_an_index_search_on_visible_units():
    """SQLite keeps no statistics: the shape of a query alone picks its index. The counts
    by status come from the kept counts (no unit query at all); the other queries look
    up only waiting and recently failed units, never walking the finished ones."""
    with CaptureQueriesContext(connection) as captured:
        summary_get()
    used = set()
    with connection.cursor() as cursor:
        for query in captured:
            if '"dashboard_unit"' not in query["sql"]:
                continue  # not a unit query (the kept counts are dashboard_unitstatuscount)
            cursor.execute(f"EXPLAIN QUERY PLAN {query['sql']}")
            steps = [row[-1] for row in cursor.fetchall() if "dashboard_unit" in row[-1]]
            assert steps, query["sql"]
            assert all(s.startswith("SEARCH dashboard_unit USING INDEX unit_") for s in steps), (
                steps
            )
            used.update(step.split(" USING INDEX ")[1].split()[0] for step in steps)

    assert used == {
        "unit_waiting",
        "unit_failed_at",
        "unit_pipeline_waiting",
    }
