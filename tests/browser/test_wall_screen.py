"""The wall screen in a real browser: it fits the screen, refreshes itself, survives
outages, and stops when its link is revoked."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest
from django.utils import timezone

from dashboard.lib import vocabulary
from dashboard.services import wall_links
from tests.browser.conftest import screenshot
from tests.wall import seeding

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TWO_PIPELINES = [
    seeding.PIPELINES[0],
    {
        "slug": "reading-room",
        "name": "Reading room pipeline",
        "url": "http://127.0.0.1:9",
        "user": "demo",
        "key": "demo-key",
    },
]


# Every node in the document, text nodes included: elements alone would not show stray
# whitespace piling up around the swapped region.
COUNT_NODES = """() => {
    const walker = document.createTreeWalker(document, NodeFilter.SHOW_ALL);
    let count = 0;
    while (walker.nextNode()) count++;
    return count;
}"""


@pytest.fixture
def open_page(browser) -> Iterator[Callable]:
    contexts = []

    def open_page(url: str, width: int = 1920, height: int = 1080):
        context = browser.new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        page.goto(url)
        page.wait_for_selector("#wall-live")
        return page

    yield open_page
    for context in contexts:
        context.close()


@pytest.fixture
def token() -> str:
    return wall_links.wall_link_create(name="Operations room").token


def seed_two_pipelines(settings) -> None:
    seeding.use_pipelines(settings, TWO_PIPELINES)
    now = timezone.now()
    seeding.busy_wall(now)
    seeding.save_units(
        [seeding.unit(now=now, name=f"reading-{n}", pipeline="reading-room") for n in range(4)],
        pipeline="reading-room",
    )
    for hour in range(24):
        for _ in range((hour * 7) % 4):
            seeding.change(
                at=now - timedelta(hours=23 - hour, minutes=10),
                to_status="COMPLETE",
                pipeline="reading-room",
            )
    seeding.failing_since(
        "workflow:reading-room",
        last_success=now - timedelta(minutes=14),
        now=now,
        error="HTTPConnectionPool: read timed out",
    )
    seeding.storage(
        now=now,
        spaces=[
            {"path": "/var/preservation", "size": 1000 * seeding.GIB, "used": 930 * seeding.GIB},
            {"path": "/mnt/replica", "size": None, "used": 2400 * seeding.GIB},
        ],
        locations=[
            {
                "purpose": "AS",
                "description": "AIP store",
                "quota": 400 * seeding.GIB,
                "used": 100 * seeding.GIB,
            },
            {
                "purpose": "DS",
                "description": "DIP store",
                "quota": 100 * seeding.GIB,
                "used": 85 * seeding.GIB,
            },
            {
                "purpose": "BL",
                "description": "Transfer backlog",
                "quota": 200 * seeding.GIB,
                "used": 20 * seeding.GIB,
            },
        ],
    )


def layout(page) -> dict:
    return page.evaluate(
        """() => {
            const box = (selector) => {
                const el = document.querySelector(selector);
                return el ? el.getBoundingClientRect().bottom : null;
            };
            return {
                scrollHeight: document.documentElement.scrollHeight,
                scrollWidth: document.documentElement.scrollWidth,
                innerHeight: window.innerHeight,
                innerWidth: window.innerWidth,
                storageBottom: box(".wall-storage"),
                lastTileBottom: Math.max(...[...document.querySelectorAll(".tile")]
                    .map((t) => t.getBoundingClientRect().bottom)),
                numberPx: parseFloat(getComputedStyle(
                    document.querySelector(".metric-value")).fontSize),
                labelPx: parseFloat(getComputedStyle(
                    document.querySelector(".metric-label")).fontSize),
                overflowingTiles: [...document.querySelectorAll(".tile")]
                    .filter((t) => t.scrollHeight > t.clientHeight + 1).length,
            };
        }"""
    )


@pytest.mark.parametrize(("width", "height"), [(1920, 1080), (3840, 2160)])
def test_the_wall_fills_the_screen_without_scrolling(
    live_server, open_page, settings, token, width, height
):
    seed_two_pipelines(settings)

    page = open_page(f"{live_server.url}/wall/{token}/", width, height)
    measured = layout(page)
    screenshot(page, f"wall-{width}x{height}")

    assert measured["scrollHeight"] <= measured["innerHeight"]
    assert measured["scrollWidth"] <= measured["innerWidth"]
    assert measured["storageBottom"] <= measured["innerHeight"]
    assert measured["lastTileBottom"] <= measured["innerHeight"]
    assert measured["overflowingTiles"] == 0
    # Legible from across the room: the numbers are about 1/11 of the screen's height.
    assert measured["numberPx"] >= height / 12
    assert measured["labelPx"] >= height / 50
    assert page.locator(".tile").count() == 2
    assert page.locator(".stale-banner").count() == 1


def test_four_pipelines_still_fit_a_1080p_screen(live_server, open_page, settings, token):
    seeding.use_pipelines(
        settings,
        [{**seeding.PIPELINES[0], "slug": f"p{n}", "name": f"Pipeline {n}"} for n in range(4)],
    )
    seeding.storage(now=timezone.now())

    page = open_page(f"{live_server.url}/wall/{token}/")
    measured = layout(page)
    screenshot(page, "wall-4-pipelines-1920x1080")

    assert measured["scrollHeight"] <= measured["innerHeight"]
    assert measured["overflowingTiles"] == 0


def test_status_is_said_in_words_not_only_in_colour(live_server, open_page, settings, token):
    seed_two_pipelines(settings)

    page = open_page(f"{live_server.url}/wall/{token}/")
    text = page.locator("#wall-live").inner_text()

    assert "Needs attention" in text
    assert re.search(
        r"STALE\s+Workflow service \(Reading room pipeline\): no fresh data for 14 min", text
    )
    assert "NEARLY FULL" in text and "Filling up" in text
    assert page.locator("svg.sparkline[role=img]").count() == 2


def test_the_token_is_swapped_for_a_cookie_and_no_refresh_carries_it(
    live_server, open_page, settings, token
):
    seeding.use_pipelines(settings)
    settings.LOOKOUT_WALL_REFRESH_SECONDS = 1
    page = open_page(f"{live_server.url}/wall/{token}/")
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.wait_for_timeout(2500)  # two refreshes or more

    assert page.url == f"{live_server.url}/wall/"
    assert token not in page.content()
    assert len([url for url in requests if url.endswith("/wall/")]) >= 2
    assert not [url for url in requests if token in url]
    (cookie,) = page.context.cookies()
    assert (cookie["name"], cookie["path"], cookie["httpOnly"], cookie["sameSite"]) == (
        "lookout_wall",
        "/wall/",
        True,
        "Strict",
    )
    assert page.evaluate("document.cookie") == ""  # out of reach of scripts


def test_it_updates_itself_without_reloading(live_server, open_page, settings, token):
    seeding.use_pipelines(settings)
    settings.LOOKOUT_WALL_REFRESH_SECONDS = 1
    now = timezone.now()
    seeding.save_units([seeding.unit(now=now, name="one")])
    page = open_page(f"{live_server.url}/wall/{token}/")
    page.evaluate("window.loadedOnce = true")
    in_progress = page.locator('[data-metric="in-progress"] .metric-value')
    assert in_progress.inner_text() == "1"

    seeding.save_units([seeding.unit(now=now, name=f"n{n}") for n in range(7)])

    # A function, not an expression: Playwright would eval an expression, which the
    # page's CSP refuses.
    page.wait_for_function(
        "() => document.querySelector('[data-metric=\"in-progress\"] .metric-value')"
        ".textContent.trim() === '7'"
    )
    assert page.evaluate("window.loadedOnce") is True


def test_it_keeps_the_last_state_through_outages_says_how_old_and_recovers(
    live_server, open_page, settings, token
):
    seeding.use_pipelines(settings)
    settings.LOOKOUT_WALL_REFRESH_SECONDS = 1
    seeding.busy_wall(timezone.now())
    page = open_page(f"{live_server.url}/wall/{token}/")
    notice = page.locator("#wall-connection")
    live = page.locator("#wall-live")
    nodes_before = page.evaluate(COUNT_NODES)
    refresh = "**/wall/"

    outages = {
        "network down": lambda route: route.abort("connectionrefused"),
        "server error": lambda route: route.fulfill(status=502, body="Bad gateway"),
        "a page that is not the wall": lambda route: route.fulfill(
            status=200, content_type="text/html", body="<html><body>Please log in</body></html>"
        ),
    }
    for name, handler in outages.items():
        page.route(refresh, handler)
        notice.wait_for(state="visible")
        shown = live.inner_text()
        live.evaluate("(region) => { region.dataset.kept = 'yes'; }")
        page.wait_for_timeout(2200)  # two more failed refreshes

        assert re.fullmatch(
            r"Connection lost: showing data from \d\d:\d\d \(updated (just now|\d s ago)\)\. "
            r"Retrying…",
            notice.inner_text(),
        ), name
        assert live.get_attribute("data-kept") == "yes", name  # never swapped out
        assert live.inner_text() == shown, name
        assert "Oldest waits 3 h" in shown and "Please log in" not in page.content(), name
        page.unroute(refresh)
        notice.wait_for(state="hidden")
        assert live.get_attribute("data-kept") is None, name  # a fresh region came in

    page.wait_for_timeout(1500)  # a couple more good refreshes
    assert page.evaluate(COUNT_NODES) == nodes_before
    assert live.count() == 1


def test_the_notice_counts_the_minutes_while_the_connection_stays_down(
    live_server, open_page, settings, token
):
    seeding.use_pipelines(settings)
    settings.LOOKOUT_WALL_REFRESH_SECONDS = 1
    page = open_page(f"{live_server.url}/wall/{token}/")
    page.route("**/wall/", lambda route: route.abort("internetdisconnected"))
    notice = page.locator("#wall-connection")
    notice.wait_for(state="visible")

    # Pretend the last good refresh was 7 minutes ago; the next failure re-reads it.
    page.evaluate("Date.now = ((real) => () => real() + 7 * 60 * 1000)(Date.now)")
    page.wait_for_function(
        "() => document.getElementById('wall-connection').textContent"
        ".includes('(updated 7 min ago)')"
    )


AGES = [0, 0.5, 1, 4.9, 5, 45, 59.9, 60, 185, 3599, 3600, 7500, 86399, 86400, 90000]
AGES += [3 * 86400, 6 * 86400 + 23 * 3600, 7 * 86400 + 3600, 40 * 86400]


def test_the_screen_counts_an_age_in_the_same_words_as_the_server(
    live_server, open_page, settings, token
):
    seeding.use_pipelines(settings)
    page = open_page(f"{live_server.url}/wall/{token}/")

    in_js = page.evaluate("(ages) => ages.map((s) => window.LookoutWall.ago(s))", AGES)

    assert in_js == [vocabulary.ago(seconds) for seconds in AGES]


def test_a_revoked_link_stops_the_screen(live_server, open_page, settings, token):
    seeding.use_pipelines(settings)
    settings.LOOKOUT_WALL_REFRESH_SECONDS = 1
    page = open_page(f"{live_server.url}/wall/{token}/")
    requests = []
    page.on("request", lambda r: requests.append(r.url) if "/wall/" in r.url else None)

    wall_links.wall_link_revoke(name="Operations room")

    page.get_by_text("This wall link has been revoked.").wait_for()
    assert page.locator(".tile").count() == 0
    seen = len(requests)
    page.wait_for_timeout(1500)  # one and a half refresh intervals
    assert len(requests) == seen  # no more polling


def test_an_admin_creates_and_revokes_a_link_from_the_page(
    live_server, open_page, browser, client, settings
):
    from tests.support.users import make_user

    seeding.use_pipelines(settings)
    settings.LOOKOUT_WALL_REFRESH_SECONDS = 1
    client.force_login(make_user("alice", "admin"))
    admin = browser.new_context(viewport={"width": 1366, "height": 768})
    try:
        admin.add_cookies(
            [
                {
                    "name": "sessionid",
                    "value": client.cookies["sessionid"].value,
                    "url": live_server.url,
                }
            ]
        )
        page = admin.new_page()
        page.goto(f"{live_server.url}/wall/links/")
        page.get_by_label("Name").fill("Operations room")
        page.get_by_role("button", name="Create link").click()
        address = page.get_by_label("Address of the wall screen").input_value()
        assert re.fullmatch(rf"{re.escape(live_server.url)}/wall/[A-Za-z0-9_-]{{43}}/", address)

        kiosk = open_page(address)
        assert kiosk.locator(".tile").count() == 1

        page.goto(f"{live_server.url}/wall/links/")
        assert address not in page.content()
        page.get_by_role("link", name="Revoke…").click()
        page.get_by_role("button", name="Revoke “Operations room”").click()
        page.get_by_text("Revoked “Operations room”").wait_for()

        kiosk.get_by_text("This wall link has been revoked.").wait_for()
    finally:
        admin.close()
