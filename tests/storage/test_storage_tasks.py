from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.core.cache import cache

from dashboard import tasks
from dashboard.lib import cache_state
from dashboard.models import FixityCheck, PackageDetails
from dashboard.selectors import storage as storage_selectors
from dashboard.services import storage as storage_services
from dashboard.services.locks import task_lock
from tests.storage.fakes import TRANSFER_SOURCE, package_uuid

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def test_fetching_details_stores_contents_and_pointer_file(polled):
    assert tasks.fetch_package_details.run(package_uuid(1)) == "fetched"

    details = PackageDetails.objects.get(package_uuid=package_uuid(1))
    assert details.files[0]["name"] == "objects/report.pdf"
    assert "premis" in details.pointer


def test_fetching_details_without_a_configured_storage_service_reports_the_error(settings):
    settings.LOOKOUT_STORAGE = {"url": "", "user": "", "key": ""}

    result = tasks.fetch_package_details.run(package_uuid(1))

    assert result.startswith("error: ") and "LOOKOUT_STORAGE has no url" in result
    assert not PackageDetails.objects.filter(package_uuid=package_uuid(1)).exists()


def test_a_second_fetch_of_the_same_package_waits_for_the_first(polled):
    with task_lock(f"package-details:{package_uuid(1)}", ttl=30):
        assert tasks.fetch_package_details.run(package_uuid(1)) == "skipped"
    assert polled.count("get_package_contents") == 0


def test_a_package_page_queues_its_details_once_a_minute(polled, queued):
    assert tasks.package_details_enqueue(package_uuid(1))
    assert not tasks.package_details_enqueue(package_uuid(1))

    assert [name for name, _ in queued].count("dashboard.tasks.fetch_package_details") == 1


def test_fetching_a_listing_stores_it_for_the_browse_page(browsable):
    path_b64 = base64.b64encode(b"legacy").decode()

    assert tasks.fetch_location_listing.run(TRANSFER_SOURCE, path_b64) == "fetched"

    stored = cache.get(storage_services.listing_key(TRANSFER_SOURCE, b"legacy"))
    assert {entry["raw_name"] for entry in stored["entries"]} == {
        b"caf\xe9-menu.txt",
        b"ordinary.txt",
    }
    assert browsable.calls[-1] == ("browse_location", (TRANSFER_SOURCE, b"legacy"), {})


def test_a_listing_that_fails_is_stored_and_reported(browsable):
    browsable.down = True

    result = tasks.fetch_location_listing.run(TRANSFER_SOURCE, "")

    assert result.startswith("error: The storage service did not answer in time")
    assert cache.get(storage_services.listing_key(TRANSFER_SOURCE, b""))["error"]


def test_a_second_fetch_of_the_same_directory_waits_for_the_first(browsable):
    lock = f"location-listing:{cache_state.listing_id(TRANSFER_SOURCE, b'legacy')}"
    with task_lock(lock, ttl=30):
        assert tasks.fetch_location_listing.run(TRANSFER_SOURCE, "bGVnYWN5") == "skipped"
        # Another directory of the same location is not held up.
        assert tasks.fetch_location_listing.run(TRANSFER_SOURCE, "") == "fetched"
    assert browsable.calls[-1] == ("browse_location", (TRANSFER_SOURCE, b""), {})


def test_a_browse_page_queues_one_listing_at_a_time_per_directory(browsable, queued):
    assert tasks.location_listing_enqueue(TRANSFER_SOURCE, b"caf\xe9")
    # Polls and clicks meanwhile queue nothing more.
    assert not tasks.location_listing_enqueue(TRANSFER_SOURCE, b"caf\xe9")
    # Another directory is fetched apart.
    assert tasks.location_listing_enqueue(TRANSFER_SOURCE, b"")

    assert queued == [
        ("dashboard.tasks.fetch_location_listing", (TRANSFER_SOURCE, "Y2Fm6Q==")),
        ("dashboard.tasks.fetch_location_listing", (TRANSFER_SOURCE, "")),
    ]
    # Once the fetch has answered, a Refresh queues a new one.
    tasks.fetch_location_listing.run(TRANSFER_SOURCE, "Y2Fm6Q==")
    assert tasks.location_listing_enqueue(TRANSFER_SOURCE, b"caf\xe9")


def test_a_queued_listing_is_waited_for_until_it_is_stored(browsable):
    storage_services.location_listing_fetch(location_uuid=TRANSFER_SOURCE, path=b"")

    tasks.location_listing_enqueue(TRANSFER_SOURCE, b"")

    assert storage_selectors.location_listing_get(
        location_uuid=TRANSFER_SOURCE, path=b""
    ).refreshing


def test_a_listing_the_broker_refuses_is_not_waited_for_and_can_be_queued_again(
    browsable, monkeypatch
):
    from kombu.exceptions import OperationalError

    storage_services.location_listing_fetch(location_uuid=TRANSFER_SOURCE, path=b"")

    def refuse(*args):
        raise OperationalError("broker down")

    monkeypatch.setattr(tasks.fetch_location_listing, "delay", refuse)

    assert not tasks.location_listing_enqueue(TRANSFER_SOURCE, b"")
    assert not storage_selectors.location_listing_get(
        location_uuid=TRANSFER_SOURCE, path=b""
    ).refreshing
    # Nothing is under way: the next page load may try again.
    monkeypatch.setattr(tasks.fetch_location_listing, "delay", lambda *args: None)
    assert tasks.location_listing_enqueue(TRANSFER_SOURCE, b"")


def test_a_fixity_check_that_runs_out_of_time_is_recorded(polled, monkeypatch):
    check = storage_services.fixity_check_create(package_uuid=package_uuid(1), requested_by="otto")

    def too_slow(**kwargs):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(storage_services, "fixity_check_run", too_slow)

    assert tasks.check_package_fixity.run(check.pk) == "timed out"
    check.refresh_from_db()
    assert "No answer within" in check.error and check.checked_at is not None


def test_a_fresh_worker_registers_the_storage_tasks():
    # In a new process, as the worker starts: only what autodiscovery imports counts.
    script = (
        "import django; django.setup(); from config.celery import app; "
        "app.loader.import_default_modules(); "
        "print(sorted(n for n in app.tasks if n.startswith('dashboard.tasks.')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"},
    )

    assert "dashboard.tasks.check_package_fixity" in done.stdout, (
        "the worker must know the storage tasks; " + done.stderr
    )
    assert "dashboard.tasks.fetch_package_details" in done.stdout
    assert "dashboard.tasks.fetch_location_listing" in done.stdout


def test_a_missing_pointer_file_is_shown_as_such(polled):
    from dashboard.clients.storage import StorageNotFound

    polled.failures["get_pointer_file"] = StorageNotFound(
        "404",
        service="storage",
        status=404,
        upstream_message=f"Resource with UUID {package_uuid(3)} does not have a pointer file",
    )

    details = storage_services.package_details_refresh(uuid=package_uuid(3))

    assert details["pointer"] is None
    assert "does not have a pointer file" in details["pointer_error"]
    assert FixityCheck.objects.count() == 0
