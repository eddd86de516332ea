"""Choosing the interface language: the browser's Accept-Language, the header's picker
(a cookie, and the user's saved choice when signed in), and the wall links' own language.

No catalog is translated yet, so these tests check what says which language a page is
in (`<html lang>`, Content-Language, the cookie, the saved choice); that the words are
translated is for the translation step's tests.
"""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation

from dashboard.lib import page_cache
from dashboard.models import AuditEntry, UserPreference, WallLink
from dashboard.services import wall_links
from tests.support.users import PASSWORD, make_user
from tests.wall import seeding

pytestmark = pytest.mark.django_db

COOKIE = settings.LANGUAGE_COOKIE_NAME


def html_lang(response) -> str:
    found = re.search(r'<html lang="([^"]*)"', response.content.decode())
    assert found, "the page has no <html lang>"
    return found[1]


def log_in(client: Client, username: str, **headers: str):
    response = client.post(
        "/accounts/login/", {"username": username, "password": PASSWORD}, **headers
    )
    assert response.status_code == 302, "the login did not go through"
    return response


def pick(client: Client, language: str, next_url: str = "/"):
    return client.post("/i18n/setlang/", {"language": language, "next": next_url})


# --- the browser's language ----------------------------------------------------------


@pytest.mark.parametrize(
    ("accept", "expected"),
    [("fr", "fr"), ("es-ES,es;q=0.9", "es"), ("pt-BR,pt;q=0.8", "pt-br"), ("de", "en")],
)
def test_the_login_page_answers_in_the_browsers_language(client, accept, expected):
    response = client.get("/accounts/login/", HTTP_ACCEPT_LANGUAGE=accept)

    assert response.status_code == 200
    assert html_lang(response) == expected
    assert response["Content-Language"] == expected
    assert "Accept-Language" in response["Vary"]


def test_a_signed_in_page_answers_in_the_browsers_language(operator):
    response = operator.get("/", HTTP_ACCEPT_LANGUAGE="fr")

    assert html_lang(response) == "fr"


def test_every_page_loads_the_javascript_catalog_of_its_language(operator):
    page = operator.get("/units/", HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()

    catalog = page.index('src="/static/jsi18n/pt-br/djangojs.js"')
    assert catalog < page.index('src="/static/dashboard/js/app.js"')
    assert catalog < page.index('src="/static/dashboard/js/i18n.js"')


# --- the picker ----------------------------------------------------------------------


def test_the_picker_lists_each_language_in_its_own_name(client):
    page = client.get("/accounts/login/").content.decode()

    assert 'action="/i18n/setlang/"' in page
    for code, name in [("en", "English"), ("fr", "français"), ("es", "español")]:
        assert re.search(rf'<option value="{code}" lang="{code}"[^>]*>{name}</option>', page)
    assert '<option value="en" lang="en" selected>' in page


def test_the_picker_sets_the_cookie_and_goes_back(client):
    response = pick(client, "es", next_url="/accounts/login/?next=/units/")

    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/units/"
    assert response.cookies[COOKIE].value == "es"
    assert response.cookies[COOKIE]["samesite"] == "Lax"


def test_the_pickers_cookie_wins_over_the_browsers_language(client):
    pick(client, "es")

    response = client.get("/accounts/login/", HTTP_ACCEPT_LANGUAGE="fr")

    assert html_lang(response) == "es"


def test_the_picker_refuses_a_language_lookout_does_not_speak(client):
    response = pick(client, "de")

    assert COOKIE not in response.cookies
    assert html_lang(client.get("/accounts/login/")) == "en"


def test_the_picker_takes_a_language_code_in_any_case(client):
    response = pick(client, "pt-BR")

    assert response.cookies[COOKIE].value == "pt-br"
    assert html_lang(client.get("/accounts/login/")) == "pt-br"


def test_the_picker_does_not_go_back_to_another_site(client):
    response = pick(client, "fr", next_url="https://elsewhere.example/")

    assert response["Location"] == "/"


def test_the_picker_needs_a_csrf_token():
    client = Client(enforce_csrf_checks=True)

    assert pick(client, "fr").status_code == 403


# --- per user ------------------------------------------------------------------------


def test_a_signed_in_users_choice_is_saved(operator):
    pick(operator, "pt-br")

    assert UserPreference.objects.get(user__username="otto").language == "pt-br"


def test_the_saved_language_follows_the_user_to_another_browser():
    make_user("lea", "viewer")
    first = Client()
    log_in(first, "lea")
    pick(first, "es")
    first.post("/accounts/logout/")

    elsewhere = Client()  # no cookie; the browser asks for English
    log_in(elsewhere, "lea", HTTP_ACCEPT_LANGUAGE="en")
    response = elsewhere.get("/", HTTP_ACCEPT_LANGUAGE="en")

    assert html_lang(response) == "es"
    # Written to the cookie too, so the login page after a logout stays in Spanish.
    assert response.cookies[COOKIE].value == "es"
    elsewhere.post("/accounts/logout/")
    assert html_lang(elsewhere.get("/accounts/login/", HTTP_ACCEPT_LANGUAGE="en")) == "es"


def test_the_saved_language_wins_over_an_older_cookie(operator):
    pick(operator, "fr")
    operator.cookies[COOKIE] = "es"  # say, left by another user of this browser

    assert html_lang(operator.get("/")) == "fr"


def test_a_user_who_never_chose_follows_the_browser():
    make_user("max", "viewer")
    client = Client()
    log_in(client, "max")

    assert html_lang(client.get("/", HTTP_ACCEPT_LANGUAGE="fr")) == "fr"
    assert not UserPreference.objects.filter(user__username="max").exists()


# --- wall links ----------------------------------------------------------------------


def open_wall(client: Client, token: str, **headers: str):
    assert client.get(f"/wall/{token}/", **headers).status_code == 302
    return client.get("/wall/", **headers)


def test_a_wall_link_shows_the_wall_in_its_own_language(client, settings):
    seeding.use_pipelines(settings)
    token = wall_links.wall_link_create(name="Salle de lecture", language="es").token

    response = open_wall(client, token, HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.9")

    assert html_lang(response) == "es"
    assert response["Content-Language"] == "es"
    assert 'src="/static/jsi18n/es/djangojs.js"' in response.content.decode()
    refresh = client.get("/wall/", HTTP_HX_REQUEST="true", HTTP_ACCEPT_LANGUAGE="en")
    assert refresh.status_code == 200 and refresh["Content-Language"] == "es"


def test_a_revoked_wall_links_notice_is_in_the_links_language(client):
    created = wall_links.wall_link_create(name="Lobby", language="fr")
    wall_links.wall_link_revoke(name="Lobby")

    response = client.get(f"/wall/{created.token}/", HTTP_ACCEPT_LANGUAGE="en")

    assert response.status_code == 403
    assert html_lang(response) == "fr"


def test_a_new_link_takes_the_admins_language_unless_another_is_chosen(admin_client_):
    admin_client_.post("/wall/links/create/", {"name": "Hall"}, HTTP_ACCEPT_LANGUAGE="pt-BR")
    admin_client_.post(
        "/wall/links/create/", {"name": "Lobby", "language": "fr"}, HTTP_ACCEPT_LANGUAGE="es"
    )

    assert WallLink.objects.get(name="Hall").language == "pt-br"
    assert WallLink.objects.get(name="Lobby").language == "fr"


def test_the_links_page_offers_the_language_for_a_new_link_and_each_live_one(admin_client_):
    wall_links.wall_link_create(name="Hall", language="es")

    page = admin_client_.get("/wall/links/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()

    assert re.search(
        r'<select name="language"[^>]*id="id_language">.*?<option value="fr" selected>', page, re.S
    )
    assert re.search(
        r'<select id="wall-link-language-\d+" name="language">.*?value="es" lang="es" selected>',
        page,
    )


def test_an_admin_changes_a_links_language_and_it_is_audited(admin_client_, client, settings):
    seeding.use_pipelines(settings)
    created = wall_links.wall_link_create(name="Hall", language="en")
    assert html_lang(open_wall(client, created.token)) == "en"

    response = admin_client_.post(
        f"/wall/links/{created.link.pk}/language/", {"language": "es"}, follow=True
    )

    assert "“Hall” now shows the wall in español." in response.content.decode()
    assert WallLink.objects.get(pk=created.link.pk).language == "es"
    entry = AuditEntry.objects.get(action="wall_link_language")
    assert entry.actor_name == "ada"
    assert entry.parameters == {"language": "es", "earlier": "en"}
    # The screen already showing the wall switches at its next refresh.
    assert html_lang(client.get("/wall/")) == "es"


def test_changing_a_links_language_needs_the_permission(operator):
    created = wall_links.wall_link_create(name="Hall", language="en")

    response = operator.post(f"/wall/links/{created.link.pk}/language/", {"language": "es"})

    assert response.status_code == 403
    assert WallLink.objects.get(pk=created.link.pk).language == "en"


def test_an_unknown_language_for_a_link_is_refused_with_a_message(admin_client_):
    created = wall_links.wall_link_create(name="Hall", language="en")

    response = admin_client_.post(
        f"/wall/links/{created.link.pk}/language/", {"language": "xx"}, follow=True
    )

    assert "Choose one of the languages in the list." in response.content.decode()
    assert WallLink.objects.get(pk=created.link.pk).language == "en"


def test_the_service_refuses_a_language_lookout_does_not_speak():
    with pytest.raises(wall_links.WallLinkInvalidLanguage):
        wall_links.wall_link_create(name="Hall", language="de")
    assert not WallLink.objects.exists()


# --- cached live regions ---------------------------------------------------------------


def test_a_cached_live_region_is_kept_once_per_language():
    rendered: list[str] = []

    def render() -> str:
        rendered.append(translation.get_language())
        return f"<p>{translation.get_language()}</p>"

    with translation.override("fr"):
        french = page_cache.cached_fragment("region", seconds=60, render=render)
        page_cache.cached_fragment("region", seconds=60, render=render)
    with translation.override("es"):
        spanish = page_cache.cached_fragment("region", seconds=60, render=render)

    assert rendered == ["fr", "es"]
    assert (french, spanish) == ("<p>fr</p>", "<p>es</p>")
