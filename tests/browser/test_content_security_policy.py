"""The Content-Security-Policy (no 'unsafe-eval', no 'unsafe-inline') breaks nothing: no
violation on any page, the live regions still refresh, and they pause while hidden."""

from __future__ import annotations

import pytest

from tests.browser.conftest import csp_violations
from tests.support.users import PASSWORD, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAGES = [
    "/",
    "/units/",
    "/waiting/",
    "/storage/",
    "/storage/packages/",
    "/audit/",
    "/wall/",
    "/wall/links/",
    "/accounts/password_change/",
]


def test_no_page_trips_the_policy_and_live_regions_keep_refreshing(page, live_server):
    make_user("ada", "admin")
    violations = csp_violations(page)
    refreshes: list[str] = []
    page.on(
        "request",
        lambda request: (
            refreshes.append(request.url) if request.headers.get("hx-request") == "true" else None
        ),
    )
    login = page.goto(f"{live_server.url}/accounts/login/")
    policy = login.headers["content-security-policy"]
    assert "unsafe" not in policy and "script-src 'self'" in policy
    page.get_by_label("User name").fill("ada")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")

    for path in [*PAGES, "/admin/", "/admin/auth/user/", "/admin/auth/user/add/"]:
        page.goto(f"{live_server.url}{path}")
        page.wait_for_load_state("networkidle")
    page.goto(f"{live_server.url}/")
    page.wait_for_timeout(6000)  # the overview polls every 5 s while visible

    assert violations == []
    assert any(url.rstrip("/") == live_server.url for url in refreshes)


def test_a_kiosk_wall_trips_nothing(page, live_server):
    from dashboard.services import wall_links

    token = wall_links.wall_link_create(name="Operations room").token
    violations = csp_violations(page)

    page.goto(f"{live_server.url}/wall/{token}/")
    page.wait_for_selector(".capacity, .wall-empty")
    page.wait_for_timeout(11_000)  # one refresh at the default 10 s

    assert violations == []


HIDE = """() => {
    Object.defineProperty(document, "visibilityState", {value: "hidden", configurable: true});
    document.dispatchEvent(new Event("visibilitychange"));
}"""
SHOW = """() => {
    Object.defineProperty(document, "visibilityState", {value: "visible", configurable: true});
    document.dispatchEvent(new Event("visibilitychange"));
}"""


def test_live_regions_pause_while_the_page_is_hidden_and_catch_up_when_shown(
    page, live_server, client
):
    client.force_login(make_user("vera", "viewer"))
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    sent: list[str] = []
    page.on(
        "request",
        lambda request: sent.append(request.url) if request.headers.get("hx-request") else None,
    )
    page.goto(f"{live_server.url}/")
    page.wait_for_timeout(5500)
    assert sent, "the overview did not poll while visible"

    page.evaluate(HIDE)
    page.wait_for_timeout(300)  # a request already under way may still be reported
    before = len(sent)
    page.wait_for_timeout(11_000)  # two polling intervals
    assert len(sent) == before

    page.evaluate(SHOW)
    page.wait_for_timeout(1000)  # well before the next 5 s tick
    assert len(sent) > before, "no refresh when the page was shown again"
