"""Hiding finished units in bulk in headless Chromium, against the simulator.

Ticked boxes survive the live refresh; the units leave Lookout's list at once, Undo
brings them back without a word to the workflow service, and after the undo window
the poll hides them upstream (the simulator's completed list no longer has them).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from dashboard.clients.workflow import get_workflow_client
from dashboard.lib.pipelines import pipeline_list
from dashboard.models import AuditEntry, Unit
from dashboard.services import bulk_hide
from tests.browser.conftest import screenshot
from tests.browser.test_unit_pages import Poller, log_in, polled_lookout

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
UNDO_SECONDS = 15


class HidingPoller(Poller):
    """The poll task's work: the poll, then the upstream hides that are due."""

    def run(self) -> None:
        original = self.stopped.wait

        def wait_then_hide(timeout: float) -> bool:
            bulk_hide.hide_upstream_due(pipeline=pipeline_list()[0].slug)
            return original(timeout)

        self.stopped.wait = wait_then_hide  # type: ignore[method-assign]
        super().run()


@pytest.fixture
def lookout(settings, live_server, monkeypatch) -> Iterator[str]:
    settings.LOOKOUT_HIDE_UNDO_SECONDS = UNDO_SECONDS
    yield from polled_lookout(settings, live_server, monkeypatch, HidingPoller())


def _completed_upstream() -> set[str]:
    client = get_workflow_client(pipeline_list()[0].client_config())
    return {*client.list_completed_transfers(), *client.list_completed_ingests()}


def _tick_two(page, base: str) -> list[str]:
    page.goto(f"{base}/units/?status=COMPLETE")
    boxes = page.locator('#units-live input[type="checkbox"][form="bulk-hide"]')
    boxes.first.wait_for()
    uuids = [boxes.nth(i).get_attribute("value") for i in range(2)]
    for uuid in uuids:
        page.locator(f"#pick-{uuid}").check()
    return uuids


def test_an_operator_hides_units_undoes_it_then_hides_them_for_good(page, lookout):
    log_in(page, lookout, "otto")
    uuids = _tick_two(page, lookout)
    assert set(uuids) <= _completed_upstream()
    # The ticks survive the live region's refresh (every 5 s).
    page.wait_for_timeout(6_000)
    assert all(page.locator(f"#pick-{uuid}").is_checked() for uuid in uuids)
    screenshot(page, "bulk-hide-ticked")

    page.get_by_role("button", name="Hide ticked units…").click()
    page.get_by_role("heading", name="Hide 2 units").wait_for()
    assert "cannot be undone" in page.locator(".warning").inner_text()
    screenshot(page, "bulk-hide-confirm")
    page.get_by_role("button", name="Hide 2 units").click()

    page.wait_for_url(f"{lookout}/units/")
    notice = page.locator(".undo-notice")
    notice.wait_for()
    for uuid in uuids:
        assert page.locator(f"#pick-{uuid}").count() == 0
    screenshot(page, "bulk-hide-notice")

    notice.get_by_role("button", name="Undo").click()
    page.get_by_text("Shown again in Lookout").wait_for()
    assert not Unit.objects.filter(uuid__in=uuids, hidden=True).exists()
    assert set(uuids) <= _completed_upstream()  # nothing was sent
    screenshot(page, "bulk-hide-undone")

    # Again, and this time the window passes: the poll hides them upstream.
    uuids = _tick_two(page, lookout)
    page.get_by_role("button", name="Hide ticked units…").click()
    page.get_by_role("button", name="Hide 2 units").click()
    page.locator(".undo-notice").wait_for()
    deadline = time.monotonic() + UNDO_SECONDS + 30
    while set(uuids) & _completed_upstream() and time.monotonic() < deadline:
        time.sleep(1)
    assert not set(uuids) & _completed_upstream()
    page.locator(".undo-notice").wait_for(state="detached")

    page.goto(f"{lookout}/audit/")
    entry = AuditEntry.objects.filter(action="units_hide").order_by("-pk").first()
    assert entry is not None and entry.outcome == "done"
    assert "The workflow service hid 2 units." in entry.upstream_message
    assert page.get_by_text("The workflow service hid 2 units.").first.is_visible()
    screenshot(page, "bulk-hide-audit")
