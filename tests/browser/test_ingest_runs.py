"""An ingest run from the form to its report, in headless Chromium, against two simulated
pipelines and the storage service over real sockets.

The scheduling cycles and polls run in the test's thread between steps (as the beat
would); the page follows them by itself (htmx). Screenshots: the form (also with a
mistake), the run running, paused, finished with failures, on a phone and at 4K.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from dashboard import tasks
from dashboard.models import IngestItem, IngestRun
from dashboard.services import storage as storage_services
from tests.browser.conftest import csp_violations, screenshot
from tests.browser.test_storage_pages import ListingWorker
from tests.browser.test_unit_pages import log_in
from tests.ingest.conftest import Driver
from tests.support.ingest_simulator import IngestSimulator

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ITEMS = 12
FINAL = {IngestItem.State.STORED, IngestItem.State.FAILED}
PHONE = {"width": 390, "height": 844}
UHD = {"width": 3840, "height": 2160}


@pytest.fixture
def sim(settings, live_server, monkeypatch) -> Iterator[IngestSimulator]:
    monkeypatch.setattr("dashboard.tasks.poll_pipeline_enqueue", lambda pipeline: None)
    worker = ListingWorker()
    monkeypatch.setattr(tasks.fetch_location_listing, "delay", worker.delay)
    with IngestSimulator(pipelines=2, speed=150, seed=11) as simulator:
        simulator.add_items(b"batch", ITEMS, zips=2)
        settings.LOOKOUT_PIPELINES = simulator.pipelines_setting()
        settings.LOOKOUT_STORAGE = simulator.storage_setting()
        assert storage_services.storage_poll().ok
        try:
            yield simulator
        finally:
            worker.stop()


def _live(page):
    return page.locator("#run-live")


def _create_run_through_the_form(page, base: str) -> IngestRun:
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Ingest runs").click()
    page.get_by_role("heading", name="Ingest runs").wait_for()
    page.get_by_role("link", name="New ingest run").click()
    page.get_by_label("Transfer source").select_option(index=0)
    page.get_by_role("button", name="Browse its folders").click()
    page.locator("#pick-listing").get_by_role("button", name="Use batch").wait_for()
    screenshot(page, "ingest-form-folder")
    page.locator("#pick-listing").get_by_role("button", name="Use batch").click()

    page.get_by_role("heading", name="New ingest run: settings").wait_for()
    assert page.get_by_label("Run name").input_value() == "batch"
    assert page.get_by_label("Most transfers in flight per pipeline").input_value() == "2"
    assert page.get_by_label("Approve each transfer automatically").is_checked()
    page.get_by_label("Run name").fill("Backlog “2026” <batch>")
    page.get_by_label("Accession number pattern").fill("2026-{n:04}")
    page.get_by_label("Most transfers in flight per pipeline").fill("3")
    page.get_by_label("Processing configuration on Pipeline p1").select_option("automated")
    page.get_by_label("Processing configuration on Pipeline p2").select_option("automated")
    # A mistake first: the form says what is wrong and keeps the rest.
    page.get_by_label("Time window").fill("7pm to 7am")
    page.get_by_role("button", name="Continue to the summary").click()
    page.get_by_text("Give the window as HH:MM-HH:MM").wait_for()
    assert page.get_by_label("Run name").input_value() == "Backlog “2026” <batch>"
    assert page.get_by_label("Accession number pattern").input_value() == "2026-{n:04}"
    screenshot(page, "ingest-form-invalid")

    page.get_by_label("Time window").fill("")
    screenshot(page, "ingest-form")
    page.get_by_role("button", name="Continue to the summary").click()
    page.get_by_role("heading", name="New ingest run: confirm").wait_for()
    assert page.locator(".run-name").inner_text() == "Backlog “2026” <batch>"
    screenshot(page, "ingest-form-confirm")
    page.get_by_role("button", name="Create the run").click()

    page.wait_for_url(re.compile(r"/ingest-runs/\d+/$"))
    page.get_by_text("Ingest run created").wait_for()
    return IngestRun.objects.get()


def _confirm(page, button: str, confirm: str) -> None:
    _live(page).get_by_role("link", name=f"{button}…").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_role("button", name=confirm).wait_for()
    screenshot(page, f"ingest-run-confirm-{button.lower()}", full_page=False)
    dialog.get_by_role("button", name=confirm).click()


def test_an_operator_runs_a_folder_through_two_pipelines_from_the_form(page, sim, live_server):
    base = live_server.url
    violations = csp_violations(page)
    log_in(page, base, "olga")
    run = _create_run_through_the_form(page, base)
    assert run.max_in_flight == 3 and run.accession == "2026-{n:04}"
    driver = Driver(cap=3)

    # Running: the page follows the cycles by itself.
    driver.until(lambda: IngestItem.objects.filter(state="processing").count() >= 4, seconds=60)
    _live(page).get_by_text(re.compile(r"of 12 done")).wait_for()
    _live(page).locator(".ingest-counts").get_by_text("Processing").wait_for()
    page.wait_for_function(
        "() => /Processing/.test(document.querySelector('.ingest-items')?.innerText || '')"
    )
    # Both pipelines are at the cap of 3: the page says why nothing more starts.
    _live(page).get_by_text("Not receiving items now:").wait_for()
    screenshot(page, "ingest-run-running")

    _confirm(page, "Pause", "Pause")
    page.get_by_text("Ingest run paused").wait_for()
    run.refresh_from_db()
    assert run.status == IngestRun.Status.PAUSED
    _live(page).get_by_role("link", name="Resume…").wait_for()
    screenshot(page, "ingest-run-paused")

    page.set_viewport_size(PHONE)
    screenshot(page, "ingest-run-phone", full_page=False)
    page.locator(".ingest-items").scroll_into_view_if_needed()
    screenshot(page, "ingest-run-phone-items", full_page=False)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.set_viewport_size({"width": 1366, "height": 768})

    _confirm(page, "Resume", "Resume")
    page.get_by_text("Ingest run resumed").wait_for()
    driver.until(
        lambda: (
            IngestItem.objects.count() == ITEMS
            and set(IngestItem.objects.values_list("state", flat=True)) <= FINAL
        ),
        seconds=180,
    )
    driver.cycle()
    run.refresh_from_db()
    assert run.status == IngestRun.Status.FINISHED
    failed = IngestItem.objects.filter(state=IngestItem.State.FAILED).count()
    assert failed > 0, "the simulator fails some transfers with this seed"
    page.reload()
    assert _live(page).get_by_text("Finished with failures").is_visible()
    assert _live(page).get_by_role("link", name="Retry failed items…").is_visible()
    assert _live(page).get_by_text(f"{ITEMS} of {ITEMS} done (100 %)").is_visible()
    screenshot(page, "ingest-run-finished-with-failures")

    page.set_viewport_size(UHD)
    screenshot(page, "ingest-run-4k", full_page=False)
    page.set_viewport_size(PHONE)
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "ingest-run-finished-phone", full_page=False)
    page.set_viewport_size({"width": 1366, "height": 768})

    # The items table filters by state, and every stored item links to its AIP.
    _live(page).locator(".ingest-counts").get_by_role("link", name=re.compile("Failed")).click()
    page.get_by_role("heading", name="Items: Failed").wait_for()
    assert _live(page).locator(".ingest-items tbody tr").count() == failed
    screenshot(page, "ingest-run-failed-items")

    with page.expect_download() as download:
        _live(page).get_by_role("link", name="Download the CSV report").click()
    text = Path(download.value.path()).read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == ITEMS
    assert {row["state"] for row in rows} <= {"stored", "failed"}
    assert sum(row["state"] == "failed" for row in rows) == failed
    assert all(row["transfer_uuid"] for row in rows)
    assert rows[0]["accession"] == "2026-0001"

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Ingest runs").click()
    page.get_by_role("link", name="Backlog “2026” <batch>").wait_for()
    screenshot(page, "ingest-run-list")
    assert violations == []
