"""The API tokens page in Chromium: make a token, see it once, use it, revoke it."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.browser.conftest import csp_violations, screenshot
from tests.support.users import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_it_makes_shows_once_and_revokes_a_token(page, live_server, client):
    client.force_login(make_user("vera", "viewer"))
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    violations = csp_violations(page)

    page.goto(f"{live_server.url}/")
    page.get_by_role("link", name="Your API tokens").click()
    page.get_by_label("Name").fill("nightly report")
    page.get_by_role("button", name="Create token").click()
    token = page.get_by_label("Token").input_value()
    screenshot(page, "api-tokens-created", full_page=False)
    assert token.startswith("lookout_")
    used = Client().get("/api/v1/units/", headers={"Authorization": f"Bearer {token}"})
    assert used.status_code == 200

    page.get_by_role("link", name="Back to your API tokens").click()
    assert token not in page.content()
    row = page.get_by_role("row", name="nightly report")
    assert "just now" in row.inner_text()
    screenshot(page, "api-tokens-list", full_page=False)
    row.get_by_role("link", name="Revoke").click()
    page.get_by_role("button", name="Revoke “nightly report”").click()

    page.get_by_text("a call that presents it now gets 401").wait_for()
    assert "Revoked" in page.get_by_role("row", name="nightly report").inner_text()
    screenshot(page, "api-tokens-revoked", full_page=False)
    refused = Client().get("/api/v1/units/", headers={"Authorization": f"Bearer {token}"})
    assert refused.status_code == 401
    assert violations == []
