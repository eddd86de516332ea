"""The live pages in headless Chromium, against the simulator, with the pollers running.

A background thread plays the Celery worker: it polls the simulator every half second,
so the pages change under the browser the way they do in production.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Iterator

import pytest
from django.db import connection

from dashboard.clients.workflow import get_workflow_client
from dashboard.lib.pipelines import pipeline_list
from dashboard.selectors import units as unit_selectors
from dashboard.services import units as unit_services
from tests.browser.conftest import point_at_simulator, screenshot
from tests.support.simulator_process import SimulatorProcess
from tests.support.users import PASSWORD, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
log = logging.getLogger(__name__)

POLL_EVERY_SECONDS = 0.5
# Simulated seconds per real second: most jobs then last well under the 5 s page refresh.
SPEED = 8


class Poller(threading.Thread):
    """Runs the workflow poll and the jobs refresh until stopped, like the worker would."""

    def __init__(self) -> None:
        super().__init__(daemon=True, name="test-poller")
        self.stopped = threading.Event()
        self.cycles = 0
        self.first_cycle = threading.Event()

    def run(self) -> None:
        try:
            while not self.stopped.is_set():
                pipeline = pipeline_list()[0]
                unit_services.workflow_poll(pipeline=pipeline)
                unit_services.jobs_refresh(pipeline=pipeline)
                self.cycles += 1
                self.first_cycle.set()
                self.stopped.wait(POLL_EVERY_SECONDS)
        finally:
            connection.close()

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=10)


def polled_lookout(
    settings,
    live_server,
    monkeypatch,
    poller: Poller | None = None,
    before: Callable[[], object] | None = None,
) -> Iterator[str]:
    """Lookout on a live server, pointed at a running simulator, with polling going on."""
    # The poller thread already polls; no broker in these tests.
    monkeypatch.setattr("dashboard.tasks.poll_pipeline_enqueue", lambda pipeline: None)
    with SimulatorProcess(speed=SPEED, units=30, packages=10, seed=11) as sim:
        point_at_simulator(settings, sim)
        if before is not None:
            before()  # before the poller thread, which would hold the database
        poller = poller or Poller()
        poller.start()
        try:
            assert poller.first_cycle.wait(timeout=20), "the first poll did not finish"
            yield live_server.url
        finally:
            poller.stop()


@pytest.fixture
def lookout(settings, live_server, monkeypatch) -> Iterator[str]:
    yield from polled_lookout(settings, live_server, monkeypatch)


def log_in(page, base_url: str, username: str, role: str = "operator") -> None:
    make_user(username, role)
    page.goto(f"{base_url}/accounts/login/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base_url}/")


def test_a_unit_page_follows_the_unit_without_reloading(page, lookout):
    log_in(page, lookout, "olga")
    screenshot(page, "live-overview")
    waiting = [u for u in unit_selectors.waiting_list() if u.awaiting_approval]
    assert waiting, "the simulator seeds transfers awaiting approval"
    unit = waiting[0]
    page.goto(f"{lookout}/units/{unit.uuid}/")
    first = page.locator("#unit-live .facts .microservice").inner_text()
    # A reload would drop this marker: only the live region may change.
    page.evaluate("window.stillTheSamePage = true")

    # Someone approves it in the workflow service itself; Lookout's page follows.
    get_workflow_client(pipeline_list()[0].client_config()).approve_transfer(
        directory=unit.directory, transfer_type=unit.transfer_type
    )
    page.wait_for_function(
        "first => document.querySelector('#unit-live .facts .microservice').innerText !== first",
        arg=first,
        timeout=30_000,
    )

    assert page.evaluate("window.stillTheSamePage") is True
    assert page.locator("#unit-live .facts .microservice").inner_text() != first
    screenshot(page, "live-unit-progress")


def test_approving_a_transfer_from_the_waiting_page_moves_it_on(page, lookout):
    log_in(page, lookout, "otto")
    waiting = [u for u in unit_selectors.waiting_list() if u.awaiting_approval]
    assert waiting, "the simulator seeds transfers awaiting approval"
    unit = waiting[0]

    page.goto(f"{lookout}/waiting/")
    row = page.locator(f"#waiting-{unit.uuid}")
    row.get_by_role("link", name=re.compile("Approve transfer")).click()
    dialog = page.locator("dialog.confirm-dialog")
    dialog.wait_for(state="visible")
    screenshot(page, "live-approve-dialog")
    dialog.get_by_role("button", name="Approve transfer").click()

    page.wait_for_url(f"{lookout}/waiting/")
    assert "Approval successful" in page.locator(".messages").inner_text()
    # Once the poller sees the transfer started, the live region drops it from the queue.
    page.locator(f"#waiting-{unit.uuid}").wait_for(state="detached", timeout=30_000)
    screenshot(page, "live-approved")

    page.goto(f"{lookout}/units/{unit.uuid}/")
    assert "Awaiting decision" not in page.locator("#unit-live .facts").inner_text()


def test_the_pages_fit_a_phone_screen(browser, lookout):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone = context.new_page()
    try:
        log_in(phone, lookout, "pia")
        for path, name in (
            ("/", "phone-overview"),
            ("/units/", "phone-units"),
            ("/waiting/", "phone-waiting"),
        ):
            phone.goto(f"{lookout}{path}")
            overflow = phone.evaluate(
                "document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            screenshot(phone, name)
            assert overflow <= 0, f"{path} scrolls sideways on a phone by {overflow}px"
    finally:
        context.close()
