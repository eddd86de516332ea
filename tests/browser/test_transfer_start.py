"""Starting a transfer through the wizard in headless Chromium, against the simulator.

The pollers run in a thread (as the worker would), folder listings in another; the
transfer must show at once, run, and come back with its name exactly as typed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from dashboard import tasks
from dashboard.models import AuditEntry, Unit
from dashboard.services import storage as storage_services
from tests.browser.conftest import point_at_simulator, screenshot
from tests.browser.test_storage_pages import ListingWorker
from tests.browser.test_unit_pages import SPEED, Poller
from tests.support.simulator_process import SimulatorProcess
from tests.support.users import PASSWORD, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NAME = 'Board minutes “1962” l\'été "draft" 日本'


@pytest.fixture
def lookout(settings, live_server, monkeypatch) -> Iterator[str]:
    monkeypatch.setattr("dashboard.tasks.poll_pipeline_enqueue", lambda pipeline: None)
    worker = ListingWorker()
    monkeypatch.setattr(tasks.fetch_location_listing, "delay", worker.delay)
    with SimulatorProcess(speed=SPEED, units=5, packages=10, seed=23) as sim:
        point_at_simulator(settings, sim)
        assert storage_services.storage_poll().ok
        poller = Poller()
        poller.start()
        try:
            assert poller.first_cycle.wait(timeout=20), "the first poll did not finish"
            yield live_server.url
        finally:
            poller.stop()
            worker.stop()


def test_an_operator_starts_a_transfer_that_shows_at_once_and_runs(page, lookout):
    make_user("tess", "operator")
    page.goto(f"{lookout}/accounts/login/")
    page.get_by_label("User name").fill("tess")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{lookout}/")

    page.get_by_role("link", name="Start transfer").click()
    source = page.locator("option", has_text="Default transfer source").get_attribute("value")
    page.get_by_label("Transfer source").select_option(source)
    screenshot(page, "transfer-start-source")
    page.get_by_role("button", name="Browse its folders").click()

    # The listing comes from the worker; the page shows it without a reload.
    listing = page.locator("#pick-listing")
    listing.get_by_role("link", name="Open dir with space").wait_for()
    listing.get_by_role("checkbox", name="Choose dir with space").check()
    screenshot(page, "transfer-start-browse")
    page.get_by_role("button", name="Continue with the ticked folders").click()

    name = page.get_by_label("Transfer name")
    assert name.input_value() == "dir with space"
    name.fill(NAME)
    page.get_by_label("Accession number").fill("2024-017")
    page.get_by_label("Processing configuration").select_option("automated")
    screenshot(page, "transfer-start-details")
    page.get_by_role("button", name="Continue to the summary").click()

    page.get_by_role("heading", name="Start transfer: confirm").wait_for()
    assert page.locator(".transfer-name").inner_text() == NAME
    screenshot(page, "transfer-start-summary")

    # Two submits of the same confirmation before the click: one transfer in the end.
    page.evaluate(
        """async () => {
            const form = document.querySelector('form.confirm');
            for (let i = 0; i < 2; i++) {
                await fetch(form.action, {method: 'POST', body: new FormData(form)});
            }
        }"""
    )
    page.get_by_role("button", name="Start transfer").click()

    page.wait_for_url(re.compile(r"/units/[0-9a-f-]{36}/$"))
    uuid = page.url.rstrip("/").rsplit("/", 1)[-1]
    assert page.get_by_role("heading", name=f"Transfer {NAME}").is_visible()
    page.get_by_text("already submitted; nothing was sent again").wait_for()
    screenshot(page, "transfer-start-landed")

    # The pollers pick it up: it runs, and the service gives the name back unchanged.
    page.locator("#unit-live").get_by_text(re.compile("Processing|Complete")).first.wait_for(
        timeout=60_000
    )
    unit = Unit.objects.get(uuid=uuid)
    assert unit.status in {"PROCESSING", "COMPLETE", "USER_INPUT"}
    assert unit.name == NAME
    assert AuditEntry.objects.filter(action="transfer_start").count() == 1
    assert Unit.objects.filter(name=NAME).count() == 1
    screenshot(page, "transfer-start-running")
