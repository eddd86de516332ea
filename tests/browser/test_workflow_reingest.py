"""Partial reingest from the workflow side in headless Chromium, against the simulator.

A completed SIP is reingested from its page; the simulator's SIP then waits at
"Approve AIP reingest", the page offers the approval once the poll sees it, and the
approval moves it on.
"""

from __future__ import annotations

import re

import pytest

from dashboard.models import AuditEntry, Unit
from tests.browser.conftest import screenshot
from tests.browser.test_unit_pages import log_in, lookout  # noqa: F401 - fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_operator_starts_and_approves_a_partial_reingest(page, lookout):  # noqa: F811
    log_in(page, lookout, "otto")
    sip = Unit.objects.filter(kind="sip", status="COMPLETE").order_by("name").first()
    assert sip is not None, "the simulator seeds completed SIPs"
    page.goto(f"{lookout}/units/{sip.uuid}/")

    page.get_by_role("link", name="Partial reingest…").click()
    dialog = page.locator("dialog.confirm-dialog")
    dialog.wait_for(state="visible")
    assert dialog.get_by_label("AIP name").input_value() == f"{sip.name}-{sip.uuid}"
    name = sip.name
    screenshot(page, "reingest-start-dialog")
    dialog.get_by_role("button", name="Start partial reingest").click()

    page.wait_for_url(f"{lookout}/units/{sip.uuid}/")
    assert "Reingest started" in page.locator(".messages").inner_text()
    # The poll sees the SIP wait at the approval; the live region offers the button.
    approve = page.locator("#unit-live").get_by_role("link", name="Approve reingest…")
    approve.wait_for(timeout=30_000)
    assert "Approve AIP reingest" in page.locator("#unit-live .facts").inner_text()
    screenshot(page, "reingest-waiting")

    approve.click()
    dialog = page.locator("dialog.confirm-dialog")
    dialog.wait_for(state="visible")
    dialog.get_by_role("button", name="Approve reingest").click()
    page.wait_for_url(f"{lookout}/units/{sip.uuid}/")
    assert "Approval successful." in page.locator(".messages").inner_text()
    # The next poll sees it move on: the button goes, the status follows.
    page.locator("#unit-live").get_by_role("link", name="Approve reingest…").wait_for(
        state="detached", timeout=30_000
    )
    status = page.locator("#unit-live .facts dd").first.inner_text()
    assert re.search("Processing|Completed", status), status
    screenshot(page, "reingest-approved")
    # The service names the SIP as before: the tmp directory's UUID suffix is not part of it.
    assert Unit.objects.get(uuid=sip.uuid).name == name
    actions = dict(AuditEntry.objects.filter(target=sip.uuid).values_list("action", "outcome"))
    assert actions == {"partial_reingest_start": "done", "partial_reingest_approve": "done"}
