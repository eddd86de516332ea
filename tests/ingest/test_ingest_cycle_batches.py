"""The scheduler reads in batches what it used to read per item: the package mirror for
every completed SIP of a batch."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dashboard.models import IngestItem, IngestRun, StoragePackage, Unit
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
