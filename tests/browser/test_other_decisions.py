"""A decision the API cannot answer, as an operator sees it in Chromium."""

from __future__ import annotations

import pytest

from tests.browser.conftest import screenshot
from tests.support.users import PASSWORD, make_user
from tests.views.seed import seed, uuid_for, waiting_unit

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_waiting_page_puts_other_decisions_in_words(page, live_server, settings):
    settings.LOOKOUT_PIPELINES = [
        {
            "slug": "default",
            "name": "Default",
            "url": "http://127.0.0.1:9",
            "user": "u",
            "key": "k",
            "ui_url": "https://dashboard.example.org",
        }
    ]
    seed(waiting_unit(1, approval=False, kind="sip", name="maps-2018", decision="Normalize"))
    seed(waiting_unit(2, name="letters-2017"))
    research = "Approve research data transfer"  # not in the unapproved list
    seed(
        waiting_unit(
            3,
            name="dataset-2020",
            awaiting_approval=False,
            microservice=research,
            decision=research,
            transfer_type="",
        )
    )
    make_user("olga", "operator")
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("User name").fill("olga")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")

    page.goto(f"{live_server.url}/waiting/")
    row = page.locator(f"#waiting-{uuid_for(1)}")
    assert row.get_by_text("Normalize for preservation and access").is_visible()
    link = row.get_by_role("link", name="Answer it in the workflow service")
    assert link.get_attribute("href") == f"https://dashboard.example.org/ingest/{uuid_for(1)}/"
    assert page.locator(f"#waiting-{uuid_for(2)}").get_by_role("link", name="Approve").is_visible()
    assert page.locator(f"#waiting-{uuid_for(3)}").get_by_role("link", name="Approve").is_visible()
    screenshot(page, "waiting-other-decisions")
