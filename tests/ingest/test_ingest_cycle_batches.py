"""The scheduler reads in batches what it used to read per item (or several times a
cycle): the package mirror for every completed SIP of a batch, the names that exist
already for every new item, the storage summary once."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dashboard.models import IngestItem, IngestRun, StoragePackage, StorageSummary, Unit
from dashboard.selectors import ingest as ingest_selectors
from dashboard.services import ingest_cycle

pytestmark = pytest.mark.django_db
S = IngestItem.State


def _uuid(kind: str, n: int) -> str:
    return f"{n:08x}-0000-4000-8000-{kind * 12}"


def _run(**fields) -> IngestRun:
    now = timezone.now()
    return IngestRun.objects.create(
        name="r", source_location="0" * 36, path=b"b", path_shown="b", pipelines=["east"],
        status=IngestRun.Status.RUNNING, created_at=now, **{"scanned_at": now, **fields},
    )  # fmt: skip


def _completed_items(run: IngestRun, count: int, *, mirrored: int) -> None:
    """`count` items in flight whose SIP completed (as a cycle saw it already); the mirror
    holds the AIP of the first `mirrored`."""
    now = timezone.now()
    for n in range(1, count + 1):
        transfer, sip = _uuid("a", n), _uuid("b", n)
        Unit.objects.create(
            pipeline="east", uuid=transfer, kind="transfer", name=f"i{n}", status="COMPLETE",
            sip_uuid=sip, first_seen_at=now, updated_at=now,
        )  # fmt: skip
        Unit.objects.create(
            pipeline="east", uuid=sip, kind="ingest", name=f"i{n}", status="COMPLETE",
            transfer_uuid=transfer, first_seen_at=now, updated_at=now,
        )  # fmt: skip
        IngestItem.objects.create(
            run=run, path=f"i{n}".encode(), path_shown=f"i{n}", name=f"i{n}", number=n,
            state=S.PROCESSING, pipeline="east", transfer_uuid=transfer, sip_uuid=sip,
            started_at=now,
        )  # fmt: skip
        if n <= mirrored:
            StoragePackage.objects.create(
                uuid=sip, name=f"i{n}", package_type="AIP", status="UPLOADED",
                current_location_uuid=_uuid("c", 1), first_seen_at=now, seen_at=now,
            )  # fmt: skip


def _follow() -> None:
    ingest_cycle.follow_in_flight(now=timezone.now(), summary=ingest_cycle.CycleSummary())


def test_items_whose_aip_the_mirror_holds_are_stored_and_the_others_wait(monkeypatch):
    # No upstream look-up in this test: what the mirror lacks waits for the next cycle.
    monkeypatch.setattr(ingest_cycle, "AIP_LOOKUPS_PER_CYCLE", 0)
    _completed_items(_run(), 5, mirrored=3)

    _follow()

    stored = IngestItem.objects.filter(state=S.STORED).order_by("number")
    assert [(i.name, i.aip_uuid, i.aip_location) for i in stored] == [
        (f"i{n}", _uuid("b", n), _uuid("c", 1)) for n in (1, 2, 3)
    ]
    assert IngestItem.objects.filter(state=S.PROCESSING).count() == 2


def test_the_mirror_is_read_once_for_a_batch_however_many_sips_completed(monkeypatch):
    monkeypatch.setattr(ingest_cycle, "AIP_LOOKUPS_PER_CYCLE", 0)
    run = _run()
    _completed_items(run, 2, mirrored=0)
    with CaptureQueriesContext(connection) as few:
        _follow()
    IngestItem.objects.all().delete()
    Unit.objects.all().delete()
    _completed_items(run, 20, mirrored=0)
    with CaptureQueriesContext(connection) as many:
        _follow()

    assert len(many) == len(few)
    assert sum("dashboard_storagepackage" in q["sql"] for q in many.captured_queries) == 1


def _queue_names(run: IngestRun, names: list[str]) -> dict[str, str]:
    children = [ingest_cycle.Child(name.encode(), name.encode(), "1:1") for name in names]
    ingest_cycle._queue(run, children, timezone.now())
    return dict(IngestItem.objects.filter(run=run).values_list("name", "reason"))


def test_names_already_stored_or_known_as_transfers_are_skipped_among_many():
    now = timezone.now()
    # More names than one `IN` may hold on SQLite, with hits in the first and last chunk.
    names = [f"item-{n:04}" for n in range(1, 2001)]
    for n in (1, 1999):
        StoragePackage.objects.create(
            uuid=_uuid("d", n), name=f"item-{n:04}", package_type="AIP", status="UPLOADED",
            first_seen_at=now, seen_at=now,
        )  # fmt: skip
    for n in (2, 2000):
        Unit.objects.create(
            pipeline="east", uuid=_uuid("e", n), kind="transfer", name=f"item-{n:04}",
            status="COMPLETE", first_seen_at=now, updated_at=now,
        )  # fmt: skip
    # Same names but not an AIP, and not a transfer: not a reason to skip.
    StoragePackage.objects.create(
        uuid=_uuid("f", 3), name="item-0003", package_type="DIP", status="UPLOADED",
        first_seen_at=now, seen_at=now,
    )  # fmt: skip
    Unit.objects.create(
        pipeline="east", uuid=_uuid("f", 4), kind="ingest", name="item-0004",
        status="COMPLETE", first_seen_at=now, updated_at=now,
    )  # fmt: skip

    with CaptureQueriesContext(connection) as queries:
        reasons = _queue_names(_run(skip_existing=True, scanned_at=None), names)

    assert {name: reason for name, reason in reasons.items() if reason} == {
        "item-0001": "An AIP named item-0001 is already stored.",
        "item-1999": "An AIP named item-1999 is already stored.",
        "item-0002": "A transfer named item-0002 is already known to Lookout.",
        "item-2000": "A transfer named item-2000 is already known to Lookout.",
    }
    assert IngestItem.objects.filter(state=S.SKIPPED).count() == 4
    # Two look-ups per 900 names (the bound SQLite puts on an `IN`), not two per name.
    tables = ('FROM "dashboard_storagepackage"', 'FROM "dashboard_unit"')
    lookups = [q for q in queries.captured_queries if any(t in q["sql"] for t in tables)]
    assert len(lookups) == 2 * 3


def test_existing_names_are_queued_when_the_run_does_not_skip_them():
    now = timezone.now()
    StoragePackage.objects.create(
        uuid=_uuid("d", 1), name="item-0001", package_type="AIP", status="UPLOADED",
        first_seen_at=now, seen_at=now,
    )  # fmt: skip

    reasons = _queue_names(_run(skip_existing=False), ["item-0001", "item-0002"])

    assert reasons == {"item-0001": "", "item-0002": ""}


def test_a_pipeline_whose_processing_location_is_full_is_found_from_one_read_of_the_summary():
    def location(n: int, pipeline: str, used: int) -> dict[str, object]:
        return {
            "uuid": _uuid("c", n), "purpose": "CP", "description": f"cp-{n}", "enabled": True,
            "used": used, "quota": 100, "pipeline_uuids": [pipeline],
        }  # fmt: skip

    east, west = _uuid("e", 1), _uuid("e", 2)
    StorageSummary.objects.create(
        pk=1,
        fetched_at=timezone.now(),
        data={
            "pipelines": [
                {"uuid": east, "description": "East", "remote_name": "east.example.org"},
                {"uuid": west, "description": "West", "remote_name": "west.example.org"},
            ],
            "locations": [location(1, east, 99), location(2, west, 10)],
        },
    )

    with CaptureQueriesContext(connection) as queries:
        full = ingest_selectors.processing_locations_full(
            pipeline_urls=["https://east.example.org", "https://west.example.org"]
        )

    assert full == {"https://east.example.org": ["cp-1"], "https://west.example.org": []}
    assert len(queries) == 1
