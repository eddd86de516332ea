"""The waiting list's tab title follows its live refresh, in headless Chromium."""

from __future__ import annotations

import pytest

from tests.support.users import PASSWORD, make_user
from tests.views import seed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_it_keeps_the_waiting_count_in_the_tab_title_true(page, live_server):
    seed.seed(*(seed.waiting_unit(n, name=f"waiting {n}") for n in range(1, 4)))
    seed.mark_polled()
    make_user("wes", "viewer")
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("User name").fill("wes")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")

    page.goto(f"{live_server.url}/waiting/")
    assert page.title() == "Waiting (3) · Lookout"
    seed.seed(seed.waiting_unit(9, name="one more"))

    # The live region refreshes every few seconds while the tab is visible.
    page.wait_for_function("() => document.title === 'Waiting (4) · Lookout'", timeout=30_000)
    assert page.locator("#waiting-live").get_by_text("one more").is_visible()
    assert page.locator("main title").count() == 0
