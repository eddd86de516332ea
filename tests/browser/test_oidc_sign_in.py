"""Signing in through a real OpenID Connect provider in headless Chromium.

The provider is the certified Node `oidc-provider` (tests/support/oidc_provider/), with
one confidential client registered for the live server and users in an `operators` and
a `viewers` group; Lookout maps those to the operator and viewer roles.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
from django.contrib.auth.models import User

from dashboard.models import AuditEntry
from dashboard.selectors import units as unit_selectors
from tests.browser.conftest import csp_violations, screenshot
from tests.browser.test_unit_pages import polled_lookout
from tests.support.oidc_provider_process import OidcProvider, node_missing

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PROVIDER_NAME = "Example University"
PASSWORD = "provider password 7"


def provider_user(*groups: str) -> dict[str, object]:
    return {
        "password": PASSWORD,
        "name": "Ada Lovelace",
        "email": "ada@example.org",
        "groups": list(groups),
    }


def point_at_provider(settings, provider: OidcProvider) -> None:
    settings.LOOKOUT_OIDC_ISSUER = provider.issuer
    settings.LOOKOUT_OIDC_CLIENT_ID = provider.client_id
    settings.LOOKOUT_OIDC_CLIENT_SECRET = provider.client_secret
    settings.LOOKOUT_OIDC_NAME = PROVIDER_NAME
    settings.LOOKOUT_OIDC_SCOPES = "openid email profile groups"
    settings.LOOKOUT_ROLE_MAP = {"operators": "operator", "viewers": "viewer"}
    # As config/settings.py does for a configured issuer: log-out redirects there.
    directives = dict(settings.CONTENT_SECURITY_POLICY["DIRECTIVES"])
    directives["form-action"] = [*directives["form-action"], provider.issuer]
    settings.CONTENT_SECURITY_POLICY = {"DIRECTIVES": directives}


def running_provider(live_server, **options: bool) -> Iterator[OidcProvider]:
    reason = node_missing()
    if reason:
        pytest.skip(reason)
    users = {"ada": provider_user("operators")}
    with OidcProvider(lookout_url=live_server.url, users=users, **options) as idp:
        yield idp


@pytest.fixture
def provider(live_server) -> Iterator[OidcProvider]:
    yield from running_provider(live_server)


@pytest.fixture
def lying_provider(live_server) -> Iterator[OidcProvider]:
    """Its key set publishes another key under the id it signs with."""
    yield from running_provider(live_server, advertise_wrong_key=True)


@pytest.fixture
def lookout(settings, live_server, monkeypatch, provider) -> Iterator[str]:
    point_at_provider(settings, provider)
    yield from polled_lookout(settings, live_server, monkeypatch)


def sign_in_at_provider(page, base_url: str, username: str = "ada") -> None:
    page.goto(f"{base_url}/accounts/login/")
    page.get_by_role("link", name=f"Sign in with {PROVIDER_NAME}").click()
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def test_an_operator_signs_in_approves_and_loses_the_action_when_moved_to_viewers(
    page, lookout, provider
):
    violations = csp_violations(page)
    page.goto(f"{lookout}/accounts/login/")
    screenshot(page, "oidc-login-page")
    sign_in_at_provider(page, lookout)
    page.wait_for_url(f"{lookout}/")
    ada = User.objects.get(username="ada")
    assert set(ada.groups.values_list("name", flat=True)) == {"operator"}
    assert ada.email == "ada@example.org"
    assert not ada.has_usable_password()

    waiting = [u for u in unit_selectors.waiting_list() if u.awaiting_approval]
    assert len(waiting) >= 2, "the simulator seeds transfers awaiting approval"
    unit, still_waiting = waiting[0], waiting[1]
    page.goto(f"{lookout}/waiting/")
    page.locator(f"#waiting-{unit.uuid}").get_by_role(
        "link", name=re.compile("Approve transfer")
    ).click()
    dialog = page.locator("dialog.confirm-dialog")
    dialog.wait_for(state="visible")
    dialog.get_by_role("button", name="Approve transfer").click()
    page.wait_for_url(f"{lookout}/waiting/")
    assert "Approval successful" in page.locator(".messages").inner_text()
    approval = AuditEntry.objects.get(action="transfer_approve")
    assert (approval.actor, approval.actor_name) == (ada, "ada")

    # Log-out ends the provider's session too (its page asks), then comes back here.
    page.get_by_role("button", name="Log out ada").click()
    page.wait_for_url(f"{provider.issuer}/session/end**")
    page.get_by_role("button", name="Yes, sign me out").click()
    page.wait_for_url(f"{lookout}/accounts/login/")

    # Moved to the viewers' group; the restart also rotates the provider's signing key,
    # so the next ID token names a key Lookout has not seen and must fetch.
    provider.set_users({"ada": provider_user("viewers")})
    provider.restart()
    sign_in_at_provider(page, lookout)
    page.wait_for_url(f"{lookout}/")
    assert set(ada.groups.values_list("name", flat=True)) == {"viewer"}
    page.goto(f"{lookout}/waiting/")
    page.locator(f"#waiting-{still_waiting.uuid}").wait_for()
    assert page.get_by_role("link", name=re.compile("Approve transfer")).count() == 0
    screenshot(page, "oidc-viewer-waiting")
    role_changes = AuditEntry.objects.filter(target_kind="user", target="ada").order_by("id")
    assert [
        (row.action, row.parameters["role"], row.parameters["source"]) for row in role_changes
    ] == [
        ("directory_role_grant", "operator", "oidc"),
        ("directory_role_grant", "viewer", "oidc"),
        ("directory_role_revoke", "operator", "oidc"),
    ]
    assert violations == []


def test_a_tampered_state_is_refused_with_a_page_that_says_so(
    page, settings, live_server, provider
):
    point_at_provider(settings, provider)
    settings.LOOKOUT_LOCAL_LOGIN = False  # the provider's button alone
    page.goto(f"{live_server.url}/accounts/login/")
    assert page.get_by_label("Password").count() == 0
    screenshot(page, "oidc-login-button-only")
    # The sign-in Lookout starts (its state kept in this browser's session), with the
    # state changed on the way to the provider, which hands it back unchanged.
    started = page.request.get(f"{live_server.url}/oidc/authenticate/", max_redirects=0)
    parts = urlsplit(started.headers["location"])
    query = dict(parse_qsl(parts.query))
    query["state"] = query["state"][::-1]
    page.goto(parts._replace(query=urlencode(query)).geturl())
    page.get_by_label("User name").fill("ada")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    heading = page.locator("#sign-in-failed")
    heading.wait_for()
    assert heading.inner_text() == "This sign-in could not be matched to your browser"
    assert "you are not signed in" in page.get_by_role("alert").inner_text()
    screenshot(page, "oidc-error-state")
    page.goto(f"{live_server.url}/")
    assert "/accounts/login/" in page.url
    assert not User.objects.filter(username="ada").exists()


def test_an_id_token_whose_signature_fails_is_refused(page, settings, live_server, lying_provider):
    point_at_provider(settings, lying_provider)
    sign_in_at_provider(page, live_server.url)
    heading = page.locator("#sign-in-failed")
    heading.wait_for()
    assert heading.inner_text() == "The identity provider's answer could not be verified"
    screenshot(page, "oidc-error-signature")
    assert not User.objects.filter(username="ada").exists()
