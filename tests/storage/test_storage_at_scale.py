"""The storage pages and API against the simulator holding 100,000 packages.

One simulator and one full sync serve the whole module; each test reads what that
sync stored (the mirror table, plus the cached summary put back before each test).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from django.urls import reverse
from rest_framework.test import APIClient

from dashboard import tasks
from dashboard.clients.storage import StorageClient
from dashboard.forms.storage import encode_browse_path
from dashboard.models import (
    DailyThroughput,
    PackageDetails,
    PackageSync,
    ServicePoll,
    StoragePackage,
    StorageSummary,
)
from dashboard.selectors import storage as storage_selectors
from dashboard.services import storage as storage_services
from tests.support.simulator_process import SimulatorProcess

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

# How fast these pages answer is measured by bench/storage_sync.py, not asserted here.
PACKAGES = 100_000


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorProcess]:
    with SimulatorProcess(packages=PACKAGES, seed=11) as process:
        yield process


@pytest.fixture(scope="module")
def synced(sim, django_db_setup, django_db_blocker) -> Iterator[dict[str, Any]]:
    """One full sync of every package, kept for the module and removed after it."""
    client = StorageClient(sim.storage_url, sim.user, sim.key)
    with django_db_blocker.unblock():
        started = time.monotonic()
        summary = storage_services.storage_poll(client=client, budget_seconds=float("inf"))
        took = time.monotonic() - started
        assert summary.ok, summary.line()
        kept = {
            "summary": storage_selectors.storage_summary(),
            "sync": storage_services.package_sync_state_load(),
            "requests": summary.requests,
            "seconds": took,
        }
        yield kept
        # Committed outside any test's transaction: remove all the sync wrote.
        # The AIPs stored per day too: the sync counts them into the analytics rollup, and
        # a later test in this process would find them added to its own.
        for model in (
            StoragePackage,
            StorageSummary,
            PackageSync,
            PackageDetails,
            ServicePoll,
            DailyThroughput,
        ):
            model.objects.all().delete()


@pytest.fixture(autouse=True)
def restored(synced, settings, sim) -> dict[str, Any]:
    """Put the module's cached summary and sync state back (each test starts empty)."""
    settings.LOOKOUT_STORAGE = {"url": sim.storage_url, "user": sim.user, "key": sim.key}
    storage_services.storage_summary_save(synced["summary"])
    storage_services.package_sync_state_save(synced["sync"])
    return synced


def _upstream_state(sim) -> dict[str, Any]:
    return requests.get(f"{sim.storage_url}/_simulator/state", timeout=10).json()


def test_one_full_sync_mirrors_every_package_in_pages_of_a_thousand(sim, synced):
    upstream = _upstream_state(sim)

    assert StoragePackage.objects.count() == upstream["packages"] >= PACKAGES
    # Summary calls plus one request per 1,000 packages, not one per package.
    assert synced["requests"] <= upstream["packages"] // 1000 + 20


def test_counts_by_type_and_status_match_the_storage_service(sim):
    upstream = _upstream_state(sim)

    for package_type, count in upstream["packages_by_type"].items():
        assert StoragePackage.objects.filter(package_type=package_type).count() == count
    for status, count in upstream["packages_by_status"].items():
        assert StoragePackage.objects.filter(status=status).count() == count


def test_an_incremental_cycle_after_the_full_sync_is_a_handful_of_requests(sim):
    client = StorageClient(sim.storage_url, sim.user, sim.key)

    outcome = storage_services.packages_sync(client=client, budget_seconds=30)

    assert not outcome.full_sync_finished  # no full pass was due
    # stored-date window, transitional statuses (a few pages), a few by UUID, the tail.
    assert outcome.requests < 20
    assert StoragePackage.objects.count() == _upstream_state(sim)["packages"]


@pytest.mark.parametrize(
    "query",
    [
        "",
        "?page=2000",
        "?package_type=AIP&sort=-size",
        "?status=DEL_REQ",
        "?sort=name&page=500",
        "?q=board-minutes",
    ],
)
def test_the_package_page_answers_typical_queries(client, operator, query):
    client.force_login(operator)

    response = client.get(reverse("dashboard:storage-package-list") + query)

    assert response.status_code == 200
    assert "Page " in response.content.decode()


def test_the_package_page_shows_the_full_count_and_the_last_page(client, operator):
    client.force_login(operator)
    total = StoragePackage.objects.count()
    last = -(-total // 50)

    body = client.get(reverse("dashboard:storage-package-list") + f"?page={last}").content.decode()

    assert f"Page {last} of {last} ({total} in all)" in body


def test_filtering_by_location_matches_the_storage_service(client, operator, sim, restored):
    aip_store = next(loc for loc in restored["summary"]["locations"] if loc["purpose"] == "AS")
    upstream = requests.get(
        f"{sim.storage_url}/api/v2/file/?limit=1&current_location__uuid={aip_store['uuid']}",
        headers=sim.auth_header,
        timeout=30,
    ).json()["meta"]["total_count"]
    client.force_login(operator)

    response = client.get(
        reverse("dashboard:storage-package-list") + f"?location={aip_store['uuid']}"
    )

    assert f"({upstream} in all)" in response.content.decode()


def test_the_api_pages_through_every_package(operator):
    api = APIClient()
    api.force_authenticate(operator)
    total = StoragePackage.objects.count()

    first = api.get("/api/v1/packages/?limit=1000").json()
    last = api.get(f"/api/v1/packages/?limit=1000&offset={total - 10}").json()

    assert first["count"] == total and len(first["results"]) == 1000
    assert len(last["results"]) == 10 and last["next"] is None


def test_the_api_filters_packages_like_the_page(operator, sim):
    api = APIClient()
    api.force_authenticate(operator)
    upstream = _upstream_state(sim)

    body = api.get("/api/v1/packages/?status=DEL_REQ&limit=1").json()

    assert body["count"] == upstream["packages_by_status"]["DEL_REQ"]


def test_browsing_the_transfer_source_lists_odd_names_and_capped_counts(
    client, operator, restored, queued
):
    source = next(
        loc
        for loc in restored["summary"]["locations"]
        if loc["purpose"] == "TS" and loc["description"] == "Default transfer source"
    )
    client.force_login(operator)
    url = reverse("dashboard:storage-location", args=[source["uuid"]])

    def browse(path: bytes) -> str:
        """Open the folder, run the fetch it queued as the worker would, open it again."""
        page = url + ("?path=" + encode_browse_path(path) if path else "")
        assert "Loading…" in client.get(page).content.decode()
        name, args = queued.pop()
        assert name == "dashboard.tasks.fetch_location_listing"
        assert tasks.fetch_location_listing.run(*args) == "fetched"
        return client.get(page).content.decode()

    top = browse(b"")
    legacy = browse(b"legacy-encodings/objects")
    spaced = browse(b"dir with space/objects")

    assert "large-image-series" in top and "5000+ objects" in top
    assert "dir with space" in top and "\u00dcn\u00efc\u00f6d\u00e9-transfer" in top
    assert r"caf\xe9-menu-1962.txt" in legacy and "ordinary.txt" in legacy
    assert "\u00e9-file.txt" in spaced and "data with spaces.csv" in spaced
