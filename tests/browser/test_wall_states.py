"""The wall in every state it can be in, at the screen sizes it hangs on: it fills the
screen without scrolling, clips no text, and its figures can be read across the room.

Every state is rendered at 1920x1080; the states that stress the layout most are also
rendered at 1280x720 and 3840x2160. Screenshots go to test-artifacts/ (`make wall-shots`
copies the 1920x1080 ones to docs/wall/ for docs/wall.md).
"""

from __future__ import annotations

import pytest
from django.utils import timezone

from dashboard.services import wall_links
from tests.browser.conftest import screenshot
from tests.wall import seeding

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FULL_HD = (1920, 1080)
SIZES = [(1280, 720), FULL_HD, (3840, 2160)]
# Every state at 1080p; at the other sizes the states with the most on screen.
ALL_SIZES = {"healthy", "both-stale", "pipelines-8", "waiting-200", "long-names", "first-start"}
CASES = [
    pytest.param(state, size, id=f"{state}-{size[0]}x{size[1]}")
    for state in seeding.WALL_STATES
    for size in SIZES
    if size == FULL_HD or state in ALL_SIZES
]

# Everything that could be wrong with the layout, measured in the page. A text box is
# clipped when its content is wider or taller than the box, unless it is deliberately
# shortened with an ellipsis and carries the full text in a tooltip; text must also lie
# inside its panel and inside the screen.
MEASURE = """() => {
    const describe = (el) => el.tagName.toLowerCase() + "." + [...el.classList].join(".")
        + " «" + el.textContent.trim().slice(0, 40) + "»";
    const inside = (inner, outer) => inner.left >= outer.left - 1 && inner.right <= outer.right + 1
        && inner.top >= outer.top - 1 && inner.bottom <= outer.bottom + 1;
    const screen = {left: 0, top: 0, right: innerWidth, bottom: innerHeight};
    const clipped = [];
    const outside = [];
    for (const el of document.querySelectorAll("#wall-live *")) {
        const style = getComputedStyle(el);
        const ownText = [...el.childNodes].some(
            (n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
        if (!ownText || el.getClientRects().length === 0 || el.closest("svg")) continue;
        const shortener = el.closest("[title]");
        const shortened = shortener !== null && [el, shortener].some((box) => {
            const boxStyle = getComputedStyle(box);
            return boxStyle.textOverflow === "ellipsis" || boxStyle.webkitLineClamp !== "none";
        });
        if (el.clientWidth > 0 && !shortened && (el.scrollWidth > el.clientWidth + 1
                || (style.overflowY !== "visible" && el.scrollHeight > el.clientHeight + 2))) {
            clipped.push(describe(el));
        }
        const box = el.getBoundingClientRect();
        const panel = el.closest(".tile, .wall-storage, .wall-header, .stale-banner");
        if (!shortened && (!inside(box, screen)
                || (panel && !inside(box, panel.getBoundingClientRect())))) {
            outside.push(describe(el));
        }
    }
    const sizes = (selector) => [...document.querySelectorAll(selector)]
        .map((el) => parseFloat(getComputedStyle(el).fontSize));
    return {
        scrollHeight: document.documentElement.scrollHeight,
        scrollWidth: document.documentElement.scrollWidth,
        clipped, outside,
        figures: sizes(".metric-value"),
        labels: sizes(".metric-label"),
        headline: sizes(".wall-headline")[0],
        tiles: document.querySelectorAll(".tile").length,
    };
}"""


@pytest.mark.parametrize(("state", "size"), CASES)
def test_the_wall_fits_in_every_state(live_server, browser, settings, state, size):
    width, height = size
    seeding.wall_in_state(settings, state, timezone.now())
    token = wall_links.wall_link_create(name="Operations room").token
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/wall/{token}/")
        page.wait_for_selector("#wall-live")
        page.evaluate("document.fonts.ready")
        measured = page.evaluate(MEASURE)
        screenshot(page, f"wall-state-{state}-{width}x{height}")
    finally:
        context.close()

    assert measured["scrollHeight"] <= height
    assert measured["scrollWidth"] <= width
    assert measured["clipped"] == []
    assert measured["outside"] == []
    scale = height / 1080
    # Figures at least 48 px at 1080p (in proportion elsewhere), labels a step smaller.
    assert all(px >= 48 * scale - 0.5 for px in measured["figures"]), measured["figures"]
    assert all(px >= 18 * scale - 0.5 for px in measured["labels"]), measured["labels"]
    assert max(measured["labels"]) < min(measured["figures"])
    assert measured["headline"] >= 40 * scale
    expected_tiles = {"pipelines-3": 3, "pipelines-8": 8}.get(state, 1)
    assert measured["tiles"] == expected_tiles
