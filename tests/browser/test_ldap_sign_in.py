"""Signing in through a real OpenLDAP in Chromium: a mapped role lands on the overview,
no mapped group on the "no access" page, a directory that is down gets a clear message."""

from __future__ import annotations

import pytest

from tests.browser.conftest import csp_violations, screenshot
from tests.support import ldap_server
from tests.support.ldap_server import PASSWORD, LdapServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


# The module's private slapd (skips, saying what is missing, without one).
directory = ldap_server.directory


@pytest.fixture(autouse=True)
def _ldap_on(directory: LdapServer, settings, monkeypatch) -> None:
    ldap_server.lookout_configure(directory, settings, monkeypatch)


def sign_in(page, live_server, username: str) -> None:
    page.goto(f"{live_server.url}/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()


def test_an_operator_from_the_directory_lands_on_the_overview(page, live_server):
    violations = csp_violations(page)

    sign_in(page, live_server, "olga")

    page.get_by_role("button", name="Log out olga").wait_for()
    assert page.get_by_role("heading", level=1).first.inner_text() != "No access"
    assert page.get_by_role("link", name="Audit").is_visible()  # an operator's page
    screenshot(page, "ldap-sign-in-operator", full_page=False)
    assert violations == []


def test_someone_in_no_mapped_group_gets_the_no_access_page(page, live_server):
    sign_in(page, live_server, "nico")

    page.get_by_role("heading", name="No access").wait_for()
    assert "You are signed in as nico" in page.get_by_role("alert").inner_text()
    screenshot(page, "ldap-sign-in-no-access", full_page=False)
    page.get_by_role("button", name="Sign out").click()
    page.get_by_role("heading", name="Log in").wait_for()


def test_a_directory_that_is_down_gets_a_clear_message(page, live_server, directory):
    directory.stop()
    try:
        sign_in(page, live_server, "olga")
        message = page.locator("#login-error").inner_text()
        screenshot(page, "ldap-sign-in-directory-down", full_page=False)
    finally:
        directory.start()

    assert "The directory that checks passwords could not be reached" in message
    assert page.get_by_label("User name").input_value() == "olga"
