"""The interface language in Chromium: the browser's language first, the header's picker
(remembered in a cookie, and per user across logins), and a wall link's own language.

No catalog is translated yet: these tests check `<html lang>`, the cookie, the saved
choice and the JavaScript catalog the page loads. That no English is left on a French
page is for the translation step's tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from django.conf import settings
from django.utils import timezone

from dashboard.models import UserPreference
from dashboard.services import wall_links
from tests.browser.conftest import csp_violations, log_in, screenshot
from tests.support.users import make_user
from tests.views import seed
from tests.wall import seeding

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def new_context(browser) -> Iterator[Callable]:
    """A fresh browser (own cookies) that asks for the given languages."""
    contexts = []

    def new_context(locale: str = "en-US", width: int = 1366, height: int = 900):
        context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
        context.set_default_timeout(30_000)
        contexts.append(context)
        return context

    yield new_context
    for context in contexts:
        context.close()


def html_lang(page) -> str:
    return page.evaluate("document.documentElement.lang")


def language_cookie(context) -> str | None:
    cookies = {c["name"]: c["value"] for c in context.cookies()}
    return cookies.get(settings.LANGUAGE_COOKIE_NAME)


def choose_language(page, code: str) -> None:
    page.locator("#language-choice").select_option(code)
    with page.expect_navigation():
        page.locator(".language-switch button[type=submit]").click()


@pytest.mark.parametrize(("locale", "expected"), [("fr-FR", "fr"), ("pt-BR", "pt-br")])
def test_the_login_page_is_in_the_browsers_language(live_server, new_context, locale, expected):
    page = new_context(locale).new_page()

    page.goto(f"{live_server.url}/accounts/login/")

    assert html_lang(page) == expected
    assert page.locator("#language-choice").input_value() == expected
    screenshot(page, f"language-login-{expected}")


def test_the_picker_changes_the_language_and_the_cookie_keeps_it(live_server, new_context):
    context = new_context("fr-FR")
    page = context.new_page()
    violations = csp_violations(page)
    catalogs: list[tuple[str, int]] = []
    page.on(
        "response",
        lambda r: catalogs.append((r.url, r.status)) if "/jsi18n/" in r.url else None,
    )
    page.goto(f"{live_server.url}/accounts/login/?next=/units/")

    choose_language(page, "es")

    assert html_lang(page) == "es"
    assert page.url == f"{live_server.url}/accounts/login/?next=/units/"
    assert language_cookie(context) == "es"
    page.reload()
    assert html_lang(page) == "es"  # the cookie wins over the browser's French
    assert (f"{live_server.url}/static/jsi18n/es/djangojs.js", 200) in catalogs
    assert page.evaluate("typeof window.gettext === 'function' && typeof django === 'object'")
    assert violations == []
    screenshot(page, "language-picker-es")


def test_a_signed_in_users_choice_survives_logging_out_and_in_elsewhere(live_server, new_context):
    seed.seed(seed.unit(1, name="Board minutes 1962"))
    seed.mark_polled()
    make_user("ines", "operator")
    first = new_context("en-US")
    page = first.new_page()
    log_in(page, live_server.url, "ines")
    assert html_lang(page) == "en"

    choose_language(page, "pt-br")

    assert html_lang(page) == "pt-br"
    assert UserPreference.objects.get(user__username="ines").language == "pt-br"
    screenshot(page, "language-overview-pt-br")
    page.locator("form.logout button").click()
    page.wait_for_url("**/accounts/login/**")
    assert html_lang(page) == "pt-br"  # the cookie stays after the logout

    other = new_context("en-US")  # another browser: no cookie, English asked for
    page = other.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    assert html_lang(page) == "en"
    log_in(page, live_server.url, "ines")

    assert html_lang(page) == "pt-br"
    assert language_cookie(other) == "pt-br"
    assert page.locator("#language-choice").input_value() == "pt-br"


def test_a_wall_link_made_in_spanish_shows_spanish_to_an_english_browser(
    live_server, new_context, settings
):
    seeding.use_pipelines(settings)
    seeding.busy_wall(timezone.now())
    token = wall_links.wall_link_create(name="Sala de consulta", language="es").token
    context = new_context("en-GB", width=1920, height=1080)
    page = context.new_page()
    violations = csp_violations(page)

    page.goto(f"{live_server.url}/wall/{token}/")
    page.wait_for_selector("#wall-live")

    assert html_lang(page) == "es"
    # The screen's own script counts ages through the Spanish catalog's functions.
    assert page.evaluate("window.LookoutWall.ago(3 * 60)") == "hace 3 min"
    assert page.evaluate("typeof django === 'object' && typeof django.gettext === 'function'")
    assert violations == []
    screenshot(page, "language-wall-es", full_page=False)


def test_the_picker_fits_a_phone_screen(live_server, new_context):
    seed.seed(seed.unit(1, name="Board minutes 1962"))
    make_user("noa", "operator")
    page = new_context("pt-BR", width=390, height=844).new_page()
    log_in(page, live_server.url, "noa")

    assert html_lang(page) == "pt-br"
    assert page.locator("#language-choice").is_visible()
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page is {overflow}px wider than the phone"
    screenshot(page, "language-phone-pt-br", full_page=False)
