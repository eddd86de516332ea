"""The storage pages in headless Chromium, against the simulator's storage service."""

from __future__ import annotations

import queue
import re
import threading
from collections.abc import Iterator

import pytest
import requests

from dashboard import tasks
from dashboard.lib import vocabulary
from dashboard.models import AuditEntry, StoragePackage
from dashboard.selectors import storage as storage_selectors
from dashboard.services import storage as storage_services
from tests.browser.conftest import screenshot
from tests.support.simulator_process import SimulatorProcess
from tests.support.users import PASSWORD, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class ListingWorker:
    """Runs queued folder listings in a thread of its own, as the Celery worker would,
    so the page shows "Loading…" until the listing is stored. `hold()` keeps them queued."""

    def __init__(self) -> None:
        self.jobs: queue.Queue[tuple | None] = queue.Queue()
        self.open = threading.Event()
        self.open.set()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def delay(self, *args: object) -> None:
        self.jobs.put(args)

    def hold(self) -> None:
        self.open.clear()

    def release(self) -> None:
        self.open.set()

    def stop(self) -> None:
        self.open.set()
        self.jobs.put(None)
        self.thread.join(timeout=10)

    def _run(self) -> None:
        while (args := self.jobs.get()) is not None:
            self.open.wait()
            tasks.fetch_location_listing.run(*args)


@pytest.fixture
def simulator() -> Iterator[SimulatorProcess]:
    """The simulator in its default mode: it answers as storage service 0.23.0 does."""
    with SimulatorProcess(packages=300, units=5, seed=31) as sim:
        yield sim


@pytest.fixture
def listing_worker(monkeypatch) -> Iterator[ListingWorker]:
    worker = ListingWorker()
    monkeypatch.setattr(tasks.fetch_location_listing, "delay", worker.delay)
    yield worker
    worker.stop()


@pytest.fixture
def lookout(settings, live_server, monkeypatch, listing_worker, simulator) -> Iterator[str]:
    """Lookout on a live server after one storage poll of a running simulator."""
    # No Celery worker here: queued tasks run at once, in the server's thread, except
    # folder listings, which a thread runs as a worker would.
    monkeypatch.setattr(tasks.check_package_fixity, "delay", tasks.check_package_fixity.run)
    monkeypatch.setattr(tasks.fetch_package_details, "delay", tasks.fetch_package_details.run)
    monkeypatch.setattr("dashboard.tasks.poll_storage_enqueue", lambda: None)
    sim = simulator
    settings.LOOKOUT_STORAGE = {"url": sim.storage_url, "user": sim.user, "key": sim.key}
    assert storage_services.storage_poll().ok
    yield live_server.url


def log_in(page, base_url: str, username: str) -> None:
    make_user(username, "operator", email=f"{username}@example.org")
    page.goto(f"{base_url}/accounts/login/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base_url}/")


def test_an_operator_browses_storage_and_checks_a_package(page, lookout):
    log_in(page, lookout, "sofia")

    page.goto(f"{lookout}/storage/")
    assert page.get_by_role("heading", name=re.compile("AIP storage")).is_visible()
    assert page.locator("meter").count() > 0
    screenshot(page, "storage-overview")

    # Browse the default transfer source into a folder with a name that is not UTF-8.
    page.get_by_role("link", name="Default transfer source").click()
    page.get_by_role("link", name="legacy-encodings").click()
    page.get_by_role("link", name="objects").click()
    page.wait_for_url(re.compile(r"\?path="))
    listing = page.locator("#browse-listing")
    listing.get_by_text("Not a UTF-8 name").wait_for()
    assert "caf\\xe9-menu-1962.txt" in listing.inner_text()
    assert "legacy-encodings" in page.locator(".path-crumbs").inner_text()
    screenshot(page, "storage-browse")

    # A damaged ?path= says so, and offers the top folder instead of showing it.
    page.goto(page.url.split("?")[0] + "?path=not*base64")
    listing.get_by_text("The folder in the address (?path=…) is not valid").wait_for()
    assert "legacy-encodings" not in listing.inner_text()
    screenshot(page, "storage-browse-bad-path")
    listing.get_by_role("link", name="Browse from the top of this location").click()
    listing.get_by_role("link", name="legacy-encodings").wait_for()

    # Filter the package list down to AIPs that are stored.
    page.goto(f"{lookout}/storage/packages/")
    page.get_by_label("Type").select_option("AIP")
    page.get_by_label("Status").select_option("UPLOADED")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url(re.compile(r"package_type=AIP"))
    expected = StoragePackage.objects.filter(package_type="AIP", status="UPLOADED").count()
    matches = vocabulary.plural(expected, "matches", "match")
    page.get_by_text(
        f"{vocabulary.count_noun(expected, 'package')} {matches} the filters"
    ).wait_for()
    # Words from the one vocabulary: status labels and 1024-based sizes.
    assert page.locator("table.packages").get_by_text("Uploaded").count() > 0
    assert re.search(r"\d\.\d (KiB|MiB|GiB)", page.locator("table.packages").inner_text())
    screenshot(page, "storage-packages")

    # Open one and run a fixity check; the result lands in its history.
    page.locator("table.packages tbody th a").first.click()
    page.get_by_role("heading", name="Fixity history").wait_for()
    page.get_by_role("link", name="Check fixity…").click()
    page.get_by_role("button", name="Check fixity").click()
    page.get_by_text("Queued; the result appears").wait_for()
    page.locator("table.fixity").get_by_text(re.compile("Passed|Failed")).wait_for()
    page.get_by_text("Pointer file").first.wait_for()
    screenshot(page, "storage-package-detail")


def test_a_folder_shows_loading_then_its_listing_and_can_be_refreshed(
    page, lookout, listing_worker
):
    log_in(page, lookout, "lena")
    page.goto(f"{lookout}/storage/")

    # The worker is busy: the page says it is loading and polls.
    listing_worker.hold()
    page.get_by_role("link", name="Default transfer source").click()
    listing = page.locator("#browse-listing")
    loading = listing.get_by_text("Loading…")
    loading.wait_for()
    assert listing.get_attribute("aria-busy") == "true"
    assert page.locator(".path-crumbs").inner_text().strip() == "Default transfer source"
    screenshot(page, "storage-browse-loading")

    # The fetch runs; the listing replaces "Loading…" without a reload.
    page.evaluate("window.sameDocument = true")
    listing_worker.release()
    listing.get_by_role("link", name="legacy-encodings").wait_for()
    assert loading.count() == 0
    assert page.evaluate("window.sameDocument === true")
    assert "5000+ objects" in listing.inner_text()
    assert re.search(r"Listed (< 1 s|\d+ s) ago", listing.inner_text())
    assert listing.get_attribute("aria-busy") == "false"
    screenshot(page, "storage-browse-listed")

    # Refresh queues a fresh fetch and shows the result when it is stored.
    address = page.url
    listing_worker.hold()
    listing.get_by_role("button", name="Refresh").click()
    listing.get_by_text("refreshing…").wait_for()
    assert "large-image-series" in listing.inner_text()
    screenshot(page, "storage-browse-refreshing")
    listing_worker.release()
    listing.get_by_text("refreshing…").wait_for(state="detached")
    assert "Listed" in listing.inner_text() and "large-image-series" in listing.inner_text()
    # A refresh is no new page in the history.
    assert page.url == address


def test_the_storage_pages_fit_a_phone_screen(browser, lookout):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone = context.new_page()
    try:
        log_in(phone, lookout, "pia")
        package = StoragePackage.objects.filter(package_type="AIP").first()
        for path, name in (
            ("/storage/", "phone-storage"),
            ("/storage/packages/", "phone-packages"),
            (f"/storage/packages/{package.uuid}/", "phone-package"),
        ):
            phone.goto(f"{lookout}{path}")
            overflow = phone.evaluate(
                "document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            screenshot(phone, name)
            assert overflow <= 0, f"{path} scrolls sideways on a phone by {overflow}px"
        # A folder once its listing is there, with its age and Refresh button.
        phone.goto(f"{lookout}/storage/")
        phone.get_by_role("link", name="Default transfer source").click()
        phone.get_by_role("button", name="Refresh").wait_for()
        overflow = phone.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        screenshot(phone, "phone-browse")
        assert overflow <= 0, f"the browse page scrolls sideways on a phone by {overflow}px"
    finally:
        context.close()


# --- operations, as the storage service carries them out --------------------------------------


def upstream_package(sim: SimulatorProcess, uuid: str) -> dict:
    response = requests.get(
        f"{sim.storage_url}/api/v2/file/{uuid}/", headers=sim.auth_header, timeout=10
    )
    return response.json()


def reingestable_aip() -> StoragePackage:
    """An uploaded AIP of the simulated pipeline (the one that answers reingests)."""
    main = next(
        p.uuid for p in storage_selectors.pipeline_list() if p.label == "Simulated pipeline"
    )
    return next(
        package
        for package in StoragePackage.objects.filter(
            package_type="AIP", status="UPLOADED", origin_pipeline_uuid=main
        ).order_by("uuid")
        if not (package.misc_attributes or {}).get("reingest_pipeline")
    )


def test_an_operator_requests_the_recovery_of_an_aip(page, lookout, simulator):
    log_in(page, lookout, "rosa")
    aip = reingestable_aip()

    page.goto(f"{lookout}/storage/packages/{aip.uuid}/")
    page.get_by_role("link", name="Request recovery…").click()
    page.get_by_label("Reason").fill("The copy in the AIP store fails its checksums")
    screenshot(page, "storage-recovery-confirm")
    page.get_by_role("button", name="Request recovery").click()

    page.get_by_text("Recover request created successfully").wait_for()
    page.locator("#package-live").get_by_text("Recovery requested").wait_for()
    screenshot(page, "storage-recovery-requested")
    assert upstream_package(simulator, aip.uuid)["status"] == "RECOVER_REQ"
    entry = AuditEntry.objects.get(action="package_recovery_request")
    assert entry.outcome == AuditEntry.Outcome.DONE and entry.upstream_status == 202


def test_an_operator_reingests_only_the_metadata_of_an_aip(page, lookout, simulator):
    log_in(page, lookout, "ines")
    aip = reingestable_aip()

    page.goto(f"{lookout}/storage/packages/{aip.uuid}/")
    page.get_by_role("link", name="Reingest…").click()
    page.get_by_label("Reingest type").select_option(
        label="Metadata only (keep the objects, rebuild the metadata)"
    )
    screenshot(page, "storage-reingest-confirm")
    page.get_by_role("button", name="Start reingest").click()

    page.get_by_text("sent to pipeline").wait_for()
    screenshot(page, "storage-reingest-started")
    state = requests.get(f"{simulator.storage_url}/_simulator/state/", timeout=10).json()
    # What the storage service sent to the pipeline: the metadata, not just the METS.
    assert state["reingests"][-1]["package"] == aip.uuid
    assert state["reingests"][-1]["sent"] == "metadata"


def test_operations_the_service_would_refuse_are_not_offered_nor_done(page, lookout, simulator):
    log_in(page, lookout, "noor")
    dip = StoragePackage.objects.filter(package_type="DIP").order_by("uuid").first()
    deleted = StoragePackage.objects.filter(package_type="AIP", status="DELETED").first()

    page.goto(f"{lookout}/storage/packages/{dip.uuid}/")
    operations = page.locator("ul.operations")
    assert operations.get_by_role("link", name="Request deletion…").count() == 0
    operations.get_by_text("The storage service deletes AIPs, AICs and transfers only.").wait_for()
    assert operations.get_by_role("link", name="Request recovery…").count() == 0
    screenshot(page, "storage-dip-operations")

    page.goto(f"{lookout}/storage/packages/{deleted.uuid}/")
    for name in ("Check fixity…", "Download…", "Reingest…"):
        assert page.locator("ul.operations").get_by_role("link", name=name).count() == 0
    page.locator("ul.operations").get_by_text("The package is deleted").first.wait_for()
    screenshot(page, "storage-deleted-operations")

    # A crafted POST of the deletion form for the DIP, with a valid CSRF token.
    csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    response = page.request.post(
        f"{lookout}/storage/packages/{dip.uuid}/delete/",
        form={
            "csrfmiddlewaretoken": csrf,
            "idempotency_key": "crafted-in-the-browser-0001",
            "reason": "Crafted",
            "pipeline": dip.origin_pipeline_uuid,
        },
    )
    assert response.ok
    entry = AuditEntry.objects.get(action="package_deletion_request")
    assert entry.outcome == AuditEntry.Outcome.REFUSED
    assert "deletes AIPs, AICs and transfers only" in entry.upstream_message
    assert upstream_package(simulator, dip.uuid)["status"] == dip.status

    page.goto(f"{lookout}/audit/")
    page.get_by_text("deletes AIPs, AICs and transfers only").first.wait_for()
    screenshot(page, "storage-refusal-audited")


def test_a_moved_package_says_moving_until_it_has_arrived(page, lookout, simulator):
    log_in(page, lookout, "mika")
    aip = next(
        package
        for package in StoragePackage.objects.filter(package_type="AIP", status="UPLOADED")
        if storage_selectors.location_get(uuid=package.current_location_uuid).purpose == "AS"
    )
    destination = storage_selectors.move_destinations(package=aip)[0]

    page.goto(f"{lookout}/storage/packages/{aip.uuid}/move/")
    page.get_by_label("Move to").select_option(destination.uuid)
    page.get_by_role("button", name="Move package").click()

    status = page.locator("#package-live dl.facts").first
    status.get_by_text(f"Moving to {destination.label}").wait_for()
    assert "Moved to" not in page.content()
    screenshot(page, "storage-package-moving")

    simulator.control("advance", {"seconds": 5})
    assert storage_services.storage_poll().ok
    page.reload()
    status.get_by_text(f"Moved to {destination.label}").wait_for()
    assert StoragePackage.objects.get(uuid=aip.uuid).current_location_uuid == destination.uuid
    screenshot(page, "storage-package-moved")
