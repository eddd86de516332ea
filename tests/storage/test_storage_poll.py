from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from dashboard.models import StoragePackage
from dashboard.selectors import freshness
from dashboard.selectors import storage as storage_selectors
from dashboard.services import storage as storage_services
from dashboard.services.storage import package_sync_state_load, packages_sync, storage_poll
from tests.storage.fakes import (
    AIP_STORE,
    BACKLOG,
    BASE_DATE,
    DIP_STORE,
    PIPELINE,
    make_package,
    package_uuid,
)

pytestmark = pytest.mark.django_db


def _mirrored() -> set[str]:
    return set(StoragePackage.objects.values_list("uuid", flat=True))


def test_it_caches_pipelines_spaces_locations_and_counts(fake):
    fake.add(make_package(1), make_package(2, package_type="DIP", location=DIP_STORE))

    summary = storage_poll()

    assert summary.ok
    cached = storage_selectors.storage_summary()
    assert {p["uuid"] for p in cached["pipelines"]} == {p.uuid for p in fake.pipelines}
    assert {s["uuid"] for s in cached["spaces"]} == {s.uuid for s in fake.spaces}
    assert {loc["uuid"] for loc in cached["locations"]} == {loc.uuid for loc in fake.locations}
    assert cached["package_counts"]["AIP"] == 1
    assert cached["package_counts"]["DIP"] == 1


def test_the_poll_line_counts_new_and_changed_packages(fake):
    fake.add(*(make_package(n) for n in range(1, 4)))

    first = storage_poll()
    fake.set_status(package_uuid(2), "DEL_REQ")
    fake.add(make_package(4, package_type="transfer", location=BACKLOG))
    second = storage_poll()
    third = storage_poll()

    assert (first.discovered, first.changed) == (3, 0)
    assert "3 discovered" in first.line()
    assert (second.discovered, second.changed) == (1, 1)
    assert "1 discovered" in second.line() and "1 changed" in second.line()
    assert (third.discovered, third.changed) == (0, 0)
    assert third.refreshed > 0


def test_the_first_poll_mirrors_every_package(fake):
    fake.add(*(make_package(n) for n in range(1, 2501)))

    storage_poll()

    assert StoragePackage.objects.count() == 2500
    assert package_sync_state_load().last_full_sync_at is not None


def test_mirror_rows_carry_the_fields_the_pages_need(fake):
    aip = make_package(1, name="board-minutes-007", size=4096, related=(package_uuid(2),))
    fake.add(aip, make_package(2, package_type="DIP", location=DIP_STORE, name="board-minutes-007"))

    storage_poll()

    row = StoragePackage.objects.get(uuid=aip.uuid)
    assert row.name == "board-minutes-007"
    assert row.package_type == "AIP"
    assert row.size == 4096
    assert row.current_location_uuid == AIP_STORE
    assert row.origin_pipeline_uuid == PIPELINE
    assert row.related_uuids == [package_uuid(2)]
    assert row.stored_date == aip.stored_date.replace(tzinfo=UTC)


def test_stored_dates_are_read_in_the_storage_servers_time_zone(fake, settings):
    settings.LOOKOUT_STORAGE_TIME_ZONE = "America/Los_Angeles"
    fake.add(make_package(1, stored_date=datetime(2026, 11, 21, 20, 31, 57)))

    storage_poll()

    stored = StoragePackage.objects.get().stored_date
    assert stored == datetime(2026, 11, 22, 4, 31, 57, tzinfo=UTC)


def test_an_incremental_cycle_does_not_fetch_every_package_again(fake):
    fake.add(*(make_package(n) for n in range(1, 3001)))
    storage_poll()
    fake.calls.clear()

    storage_poll()

    pages = [kwargs for name, _, kwargs in fake.calls if name == "list_packages_page"]
    # The counts (limit=1) and one tail read near the end of the list.
    assert all(kw["limit"] == 1 or kw["offset"] >= 3000 - 50 for kw in pages)


def test_a_new_stored_package_shows_up_on_the_next_cycle(fake):
    fake.add(*(make_package(n) for n in range(1, 11)))
    storage_poll()
    newest = make_package(11, stored_date=BASE_DATE + timedelta(days=1))
    fake.add(newest)

    storage_poll()

    assert newest.uuid in _mirrored()


def test_a_new_transfer_without_a_stored_date_shows_up_on_the_next_cycle(fake):
    fake.add(*(make_package(n) for n in range(1, 11)))
    storage_poll()
    transfer = make_package(11, package_type="transfer", location=BACKLOG)
    assert transfer.stored_date is None
    fake.add(transfer)

    storage_poll()

    assert transfer.uuid in _mirrored()


def test_a_deletion_request_and_its_approval_are_followed(fake):
    fake.add(*(make_package(n) for n in range(1, 6)))
    storage_poll()

    fake.set_status(package_uuid(3), "DEL_REQ")
    storage_poll()
    assert StoragePackage.objects.get(uuid=package_uuid(3)).status == "DEL_REQ"

    fake.set_status(package_uuid(3), "DELETED")
    storage_poll()
    assert StoragePackage.objects.get(uuid=package_uuid(3)).status == "DELETED"


def test_a_package_that_vanished_upstream_leaves_the_mirror_at_the_next_full_resync(fake):
    fake.add(*(make_package(n) for n in range(1, 6)))
    storage_poll()
    del fake.packages[package_uuid(2)]

    storage_poll()  # the counts differ: a full resync is requested and runs
    assert package_uuid(2) not in _mirrored()
    assert len(_mirrored()) == 4


def test_a_full_resync_runs_again_once_its_interval_passed(fake, settings):
    settings.LOOKOUT_STORAGE_FULL_SYNC_INTERVAL = 3600
    fake.add(*(make_package(n) for n in range(1, 6)))
    now = timezone.now()
    storage_poll(now=now)

    storage_poll(now=now + timedelta(minutes=30))
    assert package_sync_state_load().last_full_sync_at == now

    storage_poll(now=now + timedelta(minutes=61))
    assert package_sync_state_load().last_full_sync_at == now + timedelta(minutes=61)


def test_a_full_resync_that_runs_out_of_time_continues_on_the_next_cycle(fake):
    fake.add(*(make_package(n) for n in range(1, 2501)))

    first = packages_sync(client=fake, budget_seconds=0)
    assert not first.full_sync_finished
    assert package_sync_state_load().full_sync_offset == 1000
    assert StoragePackage.objects.count() == 1000

    packages_sync(client=fake, budget_seconds=0)
    last = packages_sync(client=fake, budget_seconds=0)

    assert last.full_sync_finished
    assert StoragePackage.objects.count() == 2500
    assert package_sync_state_load().full_sync_started_at is None


def test_a_failed_poll_keeps_the_last_state_and_records_the_error(fake):
    fake.add(make_package(1))
    storage_poll()
    fake.down = True

    summary = storage_poll()

    assert not summary.ok
    assert StoragePackage.objects.count() == 1
    assert storage_selectors.storage_summary() is not None
    health = next(h for h in freshness.service_health_list() if h.service == "storage")
    assert "could not connect" in health.last_error
    assert health.last_success_at is not None


def test_a_successful_poll_records_freshness(fake):
    now = timezone.now()

    storage_poll(now=now)

    health = next(h for h in freshness.service_health_list(now=now) if h.service == "storage")
    assert health.last_success_at == now
    assert not health.stale


def test_the_package_name_drops_the_uuid_and_the_archive_extension():
    aip = make_package(1, name="maps-series-004")
    dip = make_package(2, package_type="DIP", name="maps-series-004")

    assert storage_services.package_name(aip) == "maps-series-004"
    assert storage_services.package_name(dip) == "maps-series-004"


def test_refreshing_one_package_updates_its_row(fake):
    fake.add(make_package(1))
    storage_poll()
    fake.set_status(package_uuid(1), "DEL_REQ")

    row = storage_services.package_refresh(uuid=package_uuid(1), client=fake)

    assert row is not None and row.status == "DEL_REQ"


def test_refreshing_a_package_the_service_no_longer_knows_removes_it(fake):
    fake.add(make_package(1))
    storage_poll()
    del fake.packages[package_uuid(1)]

    assert storage_services.package_refresh(uuid=package_uuid(1), client=fake) is None
    assert not StoragePackage.objects.exists()


def test_a_resync_spread_over_cycles_does_not_ask_for_another_when_it_ends(fake):
    fake.add(*(make_package(n) for n in range(1, 2501)))
    storage_poll(budget_seconds=float("inf"))
    for number in range(1, 6):
        del fake.packages[package_uuid(number)]

    cycles = 1
    while not packages_sync(client=fake, budget_seconds=0).full_sync_finished:
        cycles += 1

    assert cycles == 3
    assert StoragePackage.objects.count() == 2495
    assert not package_sync_state_load().full_sync_requested
