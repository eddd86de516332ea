"""Signing in through OpenID Connect, with Django's test client on Lookout's side and the
real provider process (tests/support/oidc_provider/) on the other; the provider's login
form is filled in over HTTP. tests/browser/test_oidc_sign_in.py does the same in Chromium.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, urljoin, urlsplit

import pytest
import requests
from django.contrib.auth.models import User

from dashboard.models import AuditEntry
from tests.support.oidc_provider_process import OidcProvider, node_missing
from tests.support.redis_server import free_port
from tests.support.users import make_user

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

LOOKOUT = "http://testserver"
PASSWORD = "provider password 7"
ROLE_MAP = {"operators": "operator", "viewers": "viewer", "cn=admins": "admin"}


def provider_user(groups: object) -> dict[str, object]:
    return {"password": PASSWORD, "name": "Ada", "email": "ada@example.org", "groups": groups}


def configure(settings, issuer: str, client_id: str = "c", secret: str = "s") -> None:
    settings.LOOKOUT_OIDC_ISSUER = issuer
    settings.LOOKOUT_OIDC_CLIENT_ID = client_id
    settings.LOOKOUT_OIDC_CLIENT_SECRET = secret
    settings.LOOKOUT_OIDC_NAME = "Example University"
    settings.LOOKOUT_OIDC_SCOPES = "openid email profile groups"
    settings.LOOKOUT_ROLE_MAP = ROLE_MAP


@pytest.fixture
def provider(settings) -> Iterator[OidcProvider]:
    reason = node_missing()
    if reason:
        pytest.skip(reason)
    users = {"ada": provider_user(["operators"])}
    with OidcProvider(lookout_url=LOOKOUT, users=users) as idp:
        configure(settings, idp.issuer, idp.client_id, idp.client_secret)
        yield idp


def callback_from_provider(client, start: str = "/oidc/authenticate/") -> str:
    """Starts a sign-in at Lookout, signs in at the provider, and returns the callback
    address (path and query) the provider sends the browser back to."""
    started = client.get(start)
    assert started.status_code == 302, started.content
    browser = requests.Session()
    url = started["Location"]
    form_sent = False
    for _ in range(10):
        if url.startswith(LOOKOUT):
            parts = urlsplit(url)
            return f"{parts.path}?{parts.query}"
        answer = browser.get(url, allow_redirects=False, timeout=10)
        if answer.is_redirect:
            url = urljoin(url, answer.headers["Location"])
            continue
        assert not form_sent, answer.text
        answer = browser.post(
            url, data={"login": "ada", "password": PASSWORD}, allow_redirects=False, timeout=10
        )
        form_sent = True
        url = urljoin(url, answer.headers["Location"])
    raise AssertionError(f"the provider never sent the browser back: {url}")


def roles(username: str) -> set[str]:
    return set(User.objects.get(username=username).groups.values_list("name", flat=True))


def test_a_provider_user_signs_in_with_the_role_of_their_group(client, provider):
    answer = client.get(callback_from_provider(client))
    assert answer.status_code == 302 and answer["Location"] == "/"
    ada = User.objects.get(username="ada")
    assert (ada.email, ada.first_name, ada.has_usable_password()) == (
        "ada@example.org",
        "Ada",
        False,
    )
    assert roles("ada") == {"operator"}
    assert client.get("/").status_code == 200
    grant = AuditEntry.objects.get(action="directory_role_grant")
    assert grant.parameters == {"role": "operator", "source": "oidc", "groups": ["operators"]}


def test_a_groups_claim_holding_one_name_as_a_string_still_maps(client, provider):
    provider.set_users({"ada": provider_user("viewers")})
    client.get(callback_from_provider(client))
    assert roles("ada") == {"viewer"}


def test_a_user_in_no_mapped_group_signs_in_to_the_no_access_page(client, provider):
    provider.set_users({"ada": provider_user(["students"])})
    client.get(callback_from_provider(client))
    assert roles("ada") == set()
    page = client.get("/")
    assert page.status_code == 403
    assert "no Lookout role" in page.content.decode()


def test_the_sign_in_goes_back_to_the_page_that_asked_for_it(client, provider):
    answer = client.get(callback_from_provider(client, "/oidc/authenticate/?next=/waiting/"))
    assert answer["Location"] == "/waiting/"


def test_a_callback_cannot_be_used_twice(client, provider):
    callback = callback_from_provider(client)
    assert client.get(callback).status_code == 302
    client.logout()
    again = client.get(callback)
    assert again.status_code == 400
    assert "could not be matched to your browser" in again.content.decode()


def test_a_local_account_of_the_same_name_is_not_taken_over(client, provider):
    make_user("ada", "admin")
    answer = client.get(callback_from_provider(client))
    assert answer.status_code == 403
    assert "A local account named ada already exists" in answer.content.decode()
    ada = User.objects.get(username="ada")
    assert ada.has_usable_password()
    assert roles("ada") == {"admin"}
    assert "_auth_user_id" not in client.session


def test_log_out_ends_the_session_at_the_provider_too(client, provider):
    client.get(callback_from_provider(client))
    answer = client.post("/accounts/logout/")
    assert answer.status_code == 302
    end = urlsplit(answer["Location"])
    assert f"{end.scheme}://{end.netloc}{end.path}" == f"{provider.issuer}/session/end"
    assert parse_qs(end.query) == {
        "client_id": [provider.client_id],
        "post_logout_redirect_uri": [f"{LOOKOUT}/accounts/login/"],
    }
    assert "_auth_user_id" not in client.session


def test_a_local_user_logs_out_only_here(client, provider):
    make_user("lena", "viewer")
    client.force_login(User.objects.get(username="lena"))
    assert client.post("/accounts/logout/")["Location"] == "/accounts/login/"


# --- without a provider process ---------------------------------------------------


def test_the_login_page_offers_the_provider_beside_the_password_form(client, settings):
    configure(settings, "https://idp.example.org")
    page = client.get("/accounts/login/").content.decode()
    assert "Sign in with Example University" in page
    assert 'name="password"' in page
    assert page.index("Sign in with") < page.index('name="password"')


def test_with_local_passwords_off_the_button_stands_alone(client, settings):
    configure(settings, "https://idp.example.org")
    settings.LOOKOUT_LOCAL_LOGIN = False
    page = client.get("/accounts/login/").content.decode()
    assert "Sign in with Example University" in page
    assert 'name="password"' not in page
    # The break-glass admin's way in stays.
    assert 'name="password"' in client.get("/accounts/login/?local=1").content.decode()


def test_without_a_provider_there_is_no_button_and_no_sign_in_route(client, settings):
    settings.LOOKOUT_OIDC_ISSUER = ""
    assert "Sign in with" not in client.get("/accounts/login/").content.decode()
    assert client.get("/oidc/authenticate/").status_code == 404
    assert client.get("/oidc/callback/?code=x&state=y").status_code == 404


def test_an_unreachable_provider_gives_a_page_not_a_500(client, settings):
    configure(settings, f"http://127.0.0.1:{free_port()}")
    answer = client.get("/oidc/authenticate/")
    assert answer.status_code == 502
    assert "The identity provider could not be reached" in answer.content.decode()


def test_a_sign_in_refused_at_the_provider_gives_a_page(client, settings):
    configure(settings, "https://idp.example.org")
    answer = client.get("/oidc/callback/?error=access_denied&state=abc")
    assert answer.status_code == 400
    assert "did not sign you in" in answer.content.decode()


def test_a_callback_this_browser_never_started_is_refused_with_a_page(client, settings):
    configure(settings, "https://idp.example.org")
    answer = client.get("/oidc/callback/?code=stolen&state=guessed")
    assert answer.status_code == 400
    assert "could not be matched to your browser" in answer.content.decode()
