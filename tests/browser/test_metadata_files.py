"""Adding metadata files to a SIP in headless Chromium, against the simulator.

The SIP is one waiting at its partial reingest approval (still being ingested); the
files are picked in the same browser as the start-transfer wizard, from listings the
worker fetches.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dashboard import tasks
from dashboard.clients.workflow import get_workflow_client
from dashboard.lib.pipelines import pipeline_list
from dashboard.models import AuditEntry, Unit
from dashboard.services import storage as storage_services
from dashboard.services import units as unit_services
from tests.browser.conftest import screenshot
from tests.browser.test_storage_pages import ListingWorker
from tests.browser.test_unit_pages import log_in, polled_lookout

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def lookout(settings, live_server, monkeypatch) -> Iterator[str]:
    worker = ListingWorker()
    monkeypatch.setattr(tasks.fetch_location_listing, "delay", worker.delay)
    try:
        yield from polled_lookout(
            settings, live_server, monkeypatch, before=storage_services.storage_poll
        )
    finally:
        worker.stop()


def _sip_being_ingested() -> Unit:
    """A completed SIP sent into a partial reingest: it waits, so it is being ingested."""
    sip = Unit.objects.filter(kind="sip", status="COMPLETE").order_by("name").first()
    assert sip is not None, "the simulator seeds completed SIPs"
    client = get_workflow_client(pipeline_list()[0].client_config())
    client.reingest_ingest(name=f"{sip.name}-{sip.uuid}", uuid=sip.uuid)
    unit_services.unit_reopen(pipeline=sip.pipeline, uuid=sip.uuid)
    return sip


def test_an_operator_adds_a_metadata_file_to_a_sip(page, lookout):
    log_in(page, lookout, "otto")
    sip = _sip_being_ingested()
    page.goto(f"{lookout}/units/{sip.uuid}/")
    page.locator("#unit-live").get_by_role("link", name="Add metadata files…").click(timeout=30_000)

    source = page.locator("option", has_text="Default transfer source").get_attribute("value")
    page.get_by_label("Transfer source").select_option(source)
    page.get_by_role("button", name="Browse its files").click()
    listing = page.locator("#pick-listing")
    listing.get_by_role("link", name="Open dir with space").click()
    listing.get_by_role("link", name="Open objects").click()
    listing.get_by_role("checkbox", name="Choose data with spaces.csv").check()
    screenshot(page, "metadata-files-browse")
    listing.get_by_role("button", name="Continue with the ticked files").click()

    page.get_by_role("heading", name="Add metadata files: confirm").wait_for()
    assert "dir with space/objects/data with spaces.csv" in page.locator(".summary").inner_text()
    screenshot(page, "metadata-files-confirm")
    page.get_by_role("button", name="Add metadata files").click()

    page.wait_for_url(f"{lookout}/units/{sip.uuid}/")
    assert "Metadata files added successfully." in page.locator(".messages").inner_text()
    screenshot(page, "metadata-files-added")
    entry = AuditEntry.objects.get(action="metadata_files_add")
    assert entry.outcome == "done"
    assert entry.parameters["paths"] == ["dir with space/objects/data with spaces.csv"]
