from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.views.seed import XSS_ESCAPED, XSS_NAME, mark_polled, seed, unit, waiting_unit

pytestmark = pytest.mark.django_db


def test_it_sends_anonymous_users_to_the_login_page():
    response = Client().get("/")

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/")


def test_it_answers_a_user_without_a_role_with_a_clear_403_page(no_role):
    response = no_role.get("/")

    assert response.status_code == 403
    assert b"no Lookout role" in response.content


def test_it_shows_counts_active_units_failures_and_waiting_units(viewer):
    seed(
        unit(1, name="busy-one", microservice="Scan for viruses", minutes_ago=7),
        unit(2, name="busy-two", microservice="Identify file format", minutes_ago=1),
        unit(3, name="broken", status="FAILED", microservice="Move to the failed directory"),
        unit(4, name="done", status="COMPLETE", microservice="Remove the processing directory"),
        waiting_unit(5, name="needs-approval", minutes_waiting=42),
    )
    mark_polled()

    response = viewer.get("/")

    assert response.status_code == 200
    page = response.content.decode()
    counts = dict(re.findall(r'\?status=(\w+)"><span class="count">(\d+)</span>', page))
    assert counts["PROCESSING"] == "2"
    assert counts["FAILED"] == "1"
    assert counts["USER_INPUT"] == "1"
    # One card counts the waiting units (the status count above); no second one.
    assert not re.search(r'class="count">\d+</span> waiting for a decision', page)
    # Longest in its current microservice first, with the time in it.
    assert page.index("busy-one") < page.index("busy-two")
    assert "Scan for viruses" in page
    assert "7 min" in page
    assert "broken" in page
    assert "needs-approval" in page
    assert "42 min" in page
    assert "Workflow data updated just now" in page


def test_an_htmx_poll_gets_only_the_live_region(viewer):
    seed(unit(1, name="busy-one"))
    mark_polled()

    response = viewer.get("/", HTTP_HX_REQUEST="true")

    page = response.content.decode()
    assert response.status_code == 200
    assert page.lstrip().startswith('<div id="overview-live"')
    assert "<html" not in page
    assert "busy-one" in page
    assert "HX-Request" in response["Vary"]


def test_it_polls_with_a_plain_trigger_and_the_script_that_pauses_it_while_hidden(viewer):
    html = viewer.get("/").content.decode()

    # No `[...]` filter: htmx would eval it, which the CSP forbids (live.js pauses instead).
    assert 'hx-trigger="every 5s, lookout:visible from:document"' in html
    assert "/static/dashboard/js/live.js" in html
    assert '"allowEval": false' in html


def test_it_keeps_the_last_state_and_says_it_is_stale_when_the_workflow_service_is_down(viewer):
    seed(unit(1, name="last-known", microservice="Scan for viruses"))
    mark_polled(ok=False, seconds_ago=600, error="workflow service unreachable: connection refused")

    response = viewer.get("/")

    page = response.content.decode()
    assert response.status_code == 200
    assert "last-known" in page
    assert "Stale data." in page
    assert "stale since" in page
    assert "10 min ago" in page
    assert "connection refused" in page


def test_it_says_plainly_when_nothing_was_ever_polled(viewer):
    response = viewer.get("/")

    page = response.content.decode()
    assert "never polled successfully" in page
    assert "not polled yet" in page


def test_it_escapes_a_hostile_unit_name(viewer):
    seed(
        unit(1, name=XSS_NAME),
        unit(2, name=XSS_NAME, status="FAILED"),
        waiting_unit(3, name=XSS_NAME),
    )

    page = viewer.get("/").content.decode()

    assert XSS_NAME not in page
    assert XSS_ESCAPED in page


def test_a_poll_after_the_session_ended_sends_the_whole_page_to_login():
    response = Client().get("/", HTTP_HX_REQUEST="true")

    assert response["HX-Redirect"] == "/accounts/login/?next=/"
