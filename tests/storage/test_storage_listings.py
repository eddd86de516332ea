"""Browse listings: the service that fetches one directory into the cache, and the
selector that reads it back with its age."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.core.cache import cache
from django.utils import timezone

from dashboard.clients.storage import StorageNotFound, StorageResponseError, StorageUnavailable
from dashboard.selectors import storage as storage_selectors
from dashboard.services import storage as storage_services
from tests.storage.fakes import TRANSFER_SOURCE

pytestmark = pytest.mark.django_db


def _fetch(path: bytes = b"") -> dict:
    return storage_services.location_listing_fetch(location_uuid=TRANSFER_SOURCE, path=path)


def _get(path: bytes = b"", **kwargs) -> storage_selectors.StoredListing | None:
    return storage_selectors.location_listing_get(
        location_uuid=TRANSFER_SOURCE, path=path, **kwargs
    )


# --------------------------------------------------------------------------- the service


def test_a_fetch_stores_the_entries_with_decoded_names_and_the_fetch_time(browsable):
    before = timezone.now()

    stored = _fetch()

    assert cache.get(storage_services.listing_key(TRANSFER_SOURCE, b"")) == stored
    by_name = {entry["name"]: entry for entry in stored["entries"]}
    assert by_name["transfer-1"]["is_directory"] and by_name["transfer-1"]["object_count"] == 3
    assert by_name["readme.txt"]["size"] == 2048 and not by_name["readme.txt"]["is_directory"]
    assert stored["error"] == ""
    assert before <= stored["listed_at"] <= stored["fetched_at"] <= timezone.now()
    assert browsable.calls[-1] == ("browse_location", (TRANSFER_SOURCE, b""), {})


def test_a_capped_count_is_stored_as_the_service_said_it(browsable):
    stored = _fetch()

    series = next(e for e in stored["entries"] if e["name"] == "large-image-series")
    assert series["object_count_display"] == "5000+" and series["object_count"] == 5000


def test_a_name_that_is_not_utf8_keeps_its_raw_bytes(browsable):
    stored = _fetch(b"legacy")

    odd = next(e for e in stored["entries"] if not e["name_is_valid_utf8"])
    assert odd["name"] == "caf\ufffd-menu.txt"
    assert odd["raw_name"] == b"caf\xe9-menu.txt"


def test_each_directory_is_stored_apart(browsable):
    _fetch(b"")
    _fetch(b"transfer-1")

    top = cache.get(storage_services.listing_key(TRANSFER_SOURCE, b""))
    sub = cache.get(storage_services.listing_key(TRANSFER_SOURCE, b"transfer-1"))
    assert [e["name"] for e in sub["entries"]] == ["objects"]
    assert len(top["entries"]) == 5


def test_an_unreachable_service_is_stored_as_an_error_in_words(browsable):
    browsable.failures["browse_location"] = StorageUnavailable("timed out", service="storage")

    stored = _fetch()

    assert "did not answer in time" in stored["error"]
    assert stored["entries"] is None and stored["listed_at"] is None
    assert stored["fetched_at"] is not None


def test_an_unknown_location_is_stored_as_such(browsable):
    browsable.failures["browse_location"] = StorageNotFound("404", service="storage", status=404)

    assert "does not know this location" in _fetch()["error"]


def test_the_service_s_own_explanation_is_stored_redacted(browsable):
    browsable.failures["browse_location"] = StorageResponseError(
        "storage service answered 500",
        service="storage",
        status=500,
        upstream_message="cannot read /mnt/x?api_key=s3cr3t-value",
    )

    error = _fetch()["error"]

    assert error.startswith("The storage service could not list this directory: cannot read")
    assert "s3cr3t-value" not in error and "[redacted]" in error


def test_a_failed_fetch_keeps_the_last_listing_that_worked(browsable):
    first = _fetch()
    browsable.down = True

    second = _fetch()

    assert second["entries"] == first["entries"]
    assert second["listed_at"] == first["listed_at"]
    assert second["fetched_at"] >= first["fetched_at"]
    assert "did not answer in time" in second["error"]


def test_a_listing_lives_in_the_cache_for_a_limited_time(browsable):
    _fetch()
    key = storage_services.listing_key(TRANSFER_SOURCE, b"")
    start = timezone.now()

    with time_machine.travel(start + timedelta(seconds=storage_services.LISTING_TTL - 60)):
        assert cache.get(key) is not None
    with time_machine.travel(start + timedelta(seconds=storage_services.LISTING_TTL + 60)):
        assert cache.get(key) is None


# --------------------------------------------------------------------------- the selector


def test_nothing_stored_reads_as_none(browsable):
    assert _get() is None


def test_a_stored_listing_reads_back_with_its_age(browsable):
    stored = _fetch()

    listing = _get(now=stored["fetched_at"] + timedelta(seconds=90))

    assert listing.listed and len(listing.entries) == 5
    assert listing.age == timedelta(seconds=90)
    assert listing.listed_at == stored["listed_at"]
    assert not listing.stale and not listing.refreshing and listing.error == ""


def test_a_listing_older_than_a_few_minutes_is_stale(browsable):
    stored = _fetch()

    later = stored["fetched_at"] + storage_selectors.LISTING_MAX_AGE + timedelta(seconds=1)
    assert _get(now=later).stale


def test_a_fetch_under_way_reads_as_refreshing_until_it_is_stored(browsable):
    _fetch()

    assert storage_services.location_listing_request(location_uuid=TRANSFER_SOURCE, path=b"")
    assert _get().refreshing

    _fetch()

    assert not _get().refreshing


def test_one_fetch_per_directory_is_under_way_at_a_time(browsable):
    request = storage_services.location_listing_request

    assert request(location_uuid=TRANSFER_SOURCE, path=b"")
    assert not request(location_uuid=TRANSFER_SOURCE, path=b"")
    assert request(location_uuid=TRANSFER_SOURCE, path=b"transfer-1")
    _fetch()
    assert request(location_uuid=TRANSFER_SOURCE, path=b"")


def test_a_fetch_that_could_not_be_queued_is_not_waited_for(browsable):
    _fetch()
    storage_services.location_listing_request(location_uuid=TRANSFER_SOURCE, path=b"")
    storage_services.location_listing_request_dropped(location_uuid=TRANSFER_SOURCE, path=b"")

    assert not _get().refreshing


def test_a_lost_fetch_is_not_waited_for_for_ever(browsable):
    _fetch()
    storage_services.location_listing_request(location_uuid=TRANSFER_SOURCE, path=b"")

    later = timezone.now() + timedelta(seconds=storage_services.LISTING_REQUEST_TTL + 1)
    with time_machine.travel(later):
        assert not _get().refreshing


def test_an_error_reads_back_without_entries(browsable):
    browsable.down = True
    _fetch()

    listing = _get()

    assert not listing.listed and listing.entries is None
    assert "did not answer in time" in listing.error


def test_browse_rows_put_folders_first_with_their_raw_paths(browsable):
    stored = _fetch(b"legacy")

    rows = storage_selectors.browse_rows(entries=stored["entries"], path=b"legacy")

    assert [row.raw_path for row in rows] == [b"legacy/caf\xe9-menu.txt", b"legacy/ordinary.txt"]
    assert rows[0].escaped_name == r"caf\xe9-menu.txt" and rows[1].escaped_name == ""
