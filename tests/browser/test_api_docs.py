"""Swagger UI and Redoc render the schema in Chromium, from this server alone, under the
site's Content-Security-Policy."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.browser.conftest import csp_violations, screenshot
from tests.support.users import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _signed_in(page, live_server, client) -> None:
    client.force_login(make_user("vera", "viewer"))
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )


def _watch(page) -> tuple[list[str], list[str]]:
    """Console lines about the policy, and every address the page fetched (a request the
    policy blocked is not fetched)."""
    violations = csp_violations(page)
    requested: list[str] = []
    page.on("requestfinished", lambda request: requested.append(request.url))
    return violations, requested


def _elsewhere(requested: list[str], live_server) -> list[str]:
    home = urlsplit(live_server.url).netloc
    return [
        url
        for url in requested
        if urlsplit(url).scheme in ("http", "https") and urlsplit(url).netloc != home
    ]


def test_it_renders_the_operations_in_swagger_ui(page, live_server, client):
    _signed_in(page, live_server, client)
    violations, requested = _watch(page)

    response = page.goto(f"{live_server.url}/api/docs/")
    page.wait_for_selector(".opblock-summary-path")

    policy = response.headers["content-security-policy"]
    assert "unsafe" not in policy
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert "/api/v1/units/" in paths
    assert "/api/v1/packages/{uuid}/" in paths
    assert page.get_by_text("Lookout API").first.is_visible()
    screenshot(page, "api-docs-swagger-ui", full_page=False)

    # "Try it out" runs as the reader's own login.
    operation = page.locator("#operations-health-health_list")
    operation.locator(".opblock-summary").click()
    operation.get_by_role("button", name="Try it out").click()
    operation.get_by_role("button", name="Execute").click()
    status = operation.locator(".live-responses-table tbody .response-col_status").first
    status.wait_for()
    assert status.inner_text().strip() == "200"
    status.scroll_into_view_if_needed()
    screenshot(page, "api-docs-swagger-ui-tried", full_page=False)
    assert violations == []
    assert _elsewhere(requested, live_server) == []


def test_it_renders_the_reference_in_redoc(page, live_server, client):
    _signed_in(page, live_server, client)
    violations, requested = _watch(page)

    response = page.goto(f"{live_server.url}/api/redoc/")
    page.wait_for_selector("h1:has-text('Lookout API')")
    page.wait_for_load_state("networkidle")

    policy = response.headers["content-security-policy"]
    assert "unsafe" not in policy and "'nonce-" in policy
    units = page.get_by_role("heading", name="Units (transfers and SIPs) newest change first")
    assert units.count() == 1
    screenshot(page, "api-docs-redoc", full_page=False)
    # Redoc's sidebar always asks for its maker's logo from their CDN; the policy stops it.
    assert [v for v in violations if "cdn.redoc.ly" not in v] == []
    assert _elsewhere(requested, live_server) == []
