"""The mode line in headless Chromium: an API-only pipeline says what it cannot see on
the overview and the wall; a full-view pipeline whose account was refused says so."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from dashboard.models import ServicePoll
from tests.browser.conftest import log_in, screenshot
from tests.support.users import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

API_ONLY_LINE = "units started elsewhere with automatic approval, and their failures, are not seen"


def test_the_overview_and_the_wall_show_each_pipelines_mode(page, live_server, settings):
    first = settings.LOOKOUT_PIPELINES[0]
    settings.LOOKOUT_PIPELINES = [
        first,
        {
            **first,
            "slug": "east",
            "name": "East pipeline",
            "dashboard_user": "lookout",
            "dashboard_password": "pw-never-shown-3e1",
        },
    ]
    now = timezone.now()
    for service in ("workflow:default", "workflow:east"):
        ServicePoll.objects.create(service=service, last_attempt_at=now, last_success_at=now)
    ServicePoll.objects.create(
        service="dashboard:east",
        last_attempt_at=now,
        last_success_at=now - timedelta(hours=2),
        last_error="service account refused for East pipeline: sign-in answered 200",
        last_error_at=now,
    )
    make_user("vera", "viewer")
    log_in(page, live_server.url, "vera")

    note = page.locator(".mode-note")
    note.wait_for()
    assert API_ONLY_LINE in note.inner_text()
    assert "Default pipeline" in note.inner_text()
    modes = page.locator(".pipeline-modes").inner_text()
    assert "Default pipeline: API only" in modes
    assert "East pipeline: full view" in modes
    refused = page.locator(".account-refused")
    assert refused.is_visible()
    assert "Service account refused for East pipeline" in refused.inner_text()
    assert "pw-never-shown-3e1" not in page.content()
    screenshot(page, "pipeline-modes-overview", full_page=False)

    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(f"{live_server.url}/wall/")
    line = page.locator(".wall-mode-note")
    line.wait_for()
    assert API_ONLY_LINE in line.inner_text().lower()
    box = line.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 1080
    screenshot(page, "pipeline-modes-wall", full_page=False)


def test_a_unit_the_status_lists_cover_says_when_they_last_saw_it(page, live_server):
    from tests.views.seed import seed, unit, uuid_for

    now = timezone.now()
    seed(
        unit(
            1,
            name="Covered transfer",
            listed_progress="0123456789abcdef",
            last_polled_at=now - timedelta(minutes=20),
        )
    )
    ServicePoll.objects.create(service="workflow:default", last_attempt_at=now, last_success_at=now)
    ServicePoll.objects.create(
        service="dashboard:default",
        last_attempt_at=now - timedelta(minutes=1),
        last_success_at=now - timedelta(minutes=1),
    )
    make_user("vera", "viewer")
    log_in(page, live_server.url, "vera")

    page.goto(f"{live_server.url}/units/{uuid_for(1)}/")

    polled = page.locator("dt:has-text('Last polled') + dd").inner_text()
    assert polled == "20 min ago; seen unchanged in the service's status lists 1 min ago"
    screenshot(page, "unit-covered-by-lists", full_page=False)
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "unit-covered-by-lists-phone", full_page=True)
