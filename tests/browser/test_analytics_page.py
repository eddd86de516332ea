"""The analytics page in headless Chromium, light and dark, with one and three pipelines.

The data is seeded history (the rollups built by the back-fill command); the
screenshots in test-artifacts/ are what a person checks by eye.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command

from tests.analytics.seeding import history_seed
from tests.browser.conftest import screenshot
from tests.support.users import PASSWORD, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _log_in(page, base_url: str) -> None:
    make_user("vera", "viewer")
    page.goto(f"{base_url}/accounts/login/")
    page.fill("input[name=username]", "vera")
    page.fill("input[name=password]", PASSWORD)
    page.click("main button[type=submit]")  # the header has the language picker's too


@pytest.mark.parametrize("pipelines", [1, 3])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_analytics_page_reads_in_light_and_dark(
    browser, live_server, settings, pipelines, scheme
):
    slugs = ("default", "east", "west")[:pipelines]
    base = settings.LOOKOUT_PIPELINES[0]
    settings.LOOKOUT_PIPELINES = [
        base,
        *({**base, "slug": slug, "name": slug.title()} for slug in slugs[1:]),
    ]
    history_seed(pipelines=slugs, days=20, per_day=6)
    call_command("analytics_backfill")
    context = browser.new_context(viewport={"width": 1366, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        _log_in(page, live_server.url)
        page.goto(f"{live_server.url}/analytics/?period=30d")
        assert page.locator("h1").inner_text().startswith("Analytics")
        assert page.locator("svg.chart").count() >= 5
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert (background == "rgb(13, 17, 23)") == (scheme == "dark")
        # the filter is a GET form kept in the URL
        if pipelines > 1:
            page.select_option("select[name=pipeline]", "east")
        page.select_option("select[name=period]", "7d")
        page.click("form.analytics-filters button[type=submit]")
        assert "period=7d" in page.url
        page.locator("details summary").first.click()
        assert page.locator("table caption").first.is_visible()
        screenshot(page, f"analytics-{scheme}-{pipelines}-pipelines")
        if pipelines > 1:
            page.goto(f"{live_server.url}/")
            assert page.locator("#pipelines-heading").is_visible()
            screenshot(page, f"overview-{scheme}-{pipelines}-pipelines")
        assert not [e for e in errors if "Content Security Policy" in e]
    finally:
        context.close()


def test_on_first_start_the_page_shows_the_simulators_weeks_of_history(
    browser, live_server, settings
):
    from datetime import UTC, datetime

    from dashboard.lib.pipelines import pipeline_list
    from dashboard.services import storage as storage_services
    from dashboard.services import units as unit_services
    from tests.integration.conftest import point_at
    from tests.support.simulator_process import SimulatorProcess

    start = datetime.now(UTC).replace(tzinfo=None, microsecond=0).isoformat()
    with SimulatorProcess(
        units=0, packages=0, seed=4, speed=0, start=start, history_days=28, history_per_day=6
    ) as sim:
        point_at(settings, sim)
        pipeline = pipeline_list()[0]
        # A fresh install's first polls: the completed lists, then each unit's jobs once.
        for _ in range(3):
            unit_services.workflow_poll(pipeline=pipeline)
            unit_services.jobs_refresh(pipeline=pipeline, limit=1000)
        storage_services.storage_poll(budget_seconds=float("inf"))
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    try:
        _log_in(page, live_server.url)
        page.goto(f"{live_server.url}/analytics/?period=30d")
        rows = page.locator("#throughput-heading ~ details tbody tr")
        page.locator("details summary").first.click()
        counted = [row.locator("td").first.inner_text() for row in rows.all()]
        # Four weeks of days with work in them, before Lookout started watching.
        assert sum(1 for text in counted if text.isdigit() and int(text) > 0) >= 15
        assert page.locator("text=Normalize").count() >= 1
        screenshot(page, "analytics-simulator-history")
    finally:
        context.close()
