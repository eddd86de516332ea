"""The Content-Security-Policy breaks nothing: no violation on any page, and the live
regions still refresh (htmx evaluates their trigger filters)."""

from __future__ import annotations

import pytest

from tests.support.users import PASSWORD, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAGES = ["/", "/units/", "/waiting/", "/storage/", "/storage/packages/", "/audit/", "/wall/"]


def test_no_page_trips_the_policy_and_live_regions_keep_refreshing(page, live_server):
    make_user("ada", "admin")
    violations: list[str] = []
    page.on(
        "console",
        lambda message: (
            violations.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    refreshes: list[str] = []
    page.on(
        "request",
        lambda request: (
            refreshes.append(request.url) if request.headers.get("hx-request") == "true" else None
        ),
    )
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("User name").fill("ada")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")

    for path in [*PAGES, "/admin/"]:
        page.goto(f"{live_server.url}{path}")
        page.wait_for_load_state("networkidle")
    page.goto(f"{live_server.url}/")
    page.wait_for_timeout(6000)  # the overview polls every 5 s while visible

    assert violations == []
    assert any(url.rstrip("/") == live_server.url for url in refreshes)
