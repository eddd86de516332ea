"""Keyboard use and the colour theme, in headless Chromium.

The overview is walked with Tab alone: the skip link comes first and works, every stop
shows a visible focus ring, and the page's main actions are reached. The theme switch in
the header overrides the browser's scheme, is remembered across pages, and "As the
system" hands the choice back to the browser.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import screenshot
from tests.support.users import PASSWORD, make_user
from tests.views import seed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LIGHT_BACKGROUND = "rgb(255, 255, 255)"
DARK_BACKGROUND = "rgb(13, 17, 23)"
MAX_TABS = 80

# What the focused element is called, and whether a ring (outline or shadow) shows.
FOCUSED = """() => {
  const el = document.activeElement;
  const style = getComputedStyle(el);
  const box = el.getBoundingClientRect();
  return {
    name: (el.getAttribute('aria-label') || (el.labels && el.labels[0] && el.labels[0].textContent)
           || el.innerText || el.id || el.tagName).trim(),
    tag: el.tagName,
    ring: (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2)
          || style.boxShadow !== 'none',
    onScreen: box.width > 0 && box.height > 0 && box.right > 0 && box.bottom > 0,
  };
}"""


def log_in(page, base_url: str, username: str) -> None:
    make_user(username, "operator")
    page.goto(f"{base_url}/accounts/login/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base_url}/")


def background(page) -> str:
    return page.evaluate("getComputedStyle(document.body).backgroundColor")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_it_tabs_through_the_overview_with_a_visible_focus_ring(browser, live_server, scheme):
    seed.seed(
        seed.unit(1, name="Board minutes 1962"),
        seed.waiting_unit(2, name="Photographs of the harbour"),
        seed.unit(3, status="FAILED", name="Annual reports", failed_job="Normalize"),
    )
    seed.mark_polled()
    context = browser.new_context(viewport={"width": 1366, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    try:
        log_in(page, live_server.url, f"kim-{scheme}")
        page.keyboard.press("Tab")
        first = page.evaluate(FOCUSED)
        assert first["name"] == "Skip to content" and first["onScreen"] and first["ring"]
        screenshot(page, f"keyboard-{scheme}-skip-link")
        page.keyboard.press("Enter")
        assert page.evaluate("document.activeElement.id") == "main"

        page.keyboard.press("Shift+Tab")  # back into the header, to walk all of it
        page.evaluate("document.querySelector('.skip-link').focus()")
        stops = []
        for _ in range(MAX_TABS):
            page.keyboard.press("Tab")
            stop = page.evaluate(FOCUSED)
            if stop["tag"] == "BODY":
                break
            stops.append(stop)
            if stop["name"] == "Start transfer":
                screenshot(page, f"keyboard-{scheme}-start-transfer")
    finally:
        context.close()

    without_ring = [s["name"] for s in stops if not s["ring"]]
    assert without_ring == [], f"focus is not visible on {without_ring}"
    reached = {s["name"] for s in stops}
    for action in (
        "Overview",
        "Units",
        "Waiting",
        "Search units and packages",
        "Theme",
        "Search",
        "Start transfer",
        "Photographs of the harbour",
        "The decision queue",
        "Annual reports",
        "API schema",
    ):
        assert any(action in name for name in reached), f"Tab never reaches {action!r}"


def test_the_theme_switch_overrides_the_system_and_is_remembered(browser, live_server):
    context = browser.new_context(viewport={"width": 1366, "height": 900}, color_scheme="light")
    page = context.new_page()
    try:
        log_in(page, live_server.url, "tom")
        assert background(page) == LIGHT_BACKGROUND
        switch = page.get_by_label("Theme")
        assert switch.input_value() == "system"

        switch.select_option("dark")
        assert background(page) == DARK_BACKGROUND
        page.goto(f"{live_server.url}/units/")
        assert background(page) == DARK_BACKGROUND
        assert page.get_by_label("Theme").input_value() == "dark"
        screenshot(page, "theme-dark-by-choice")

        page.get_by_label("Theme").select_option("system")
        assert background(page) == LIGHT_BACKGROUND
        page.reload()
        assert background(page) == LIGHT_BACKGROUND

        page.get_by_label("Theme").select_option("light")
        page.emulate_media(color_scheme="dark")
        page.reload()
        assert background(page) == LIGHT_BACKGROUND
        page.get_by_label("Theme").select_option("system")
        assert background(page) == DARK_BACKGROUND
    finally:
        context.close()
