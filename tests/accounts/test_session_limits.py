"""A login ends after its idle timeout or its lifetime; live refreshes are not activity."""

from __future__ import annotations

import pytest
import time_machine
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.support.users import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def viewer(settings) -> Client:
    settings.LOOKOUT_SESSION_IDLE_MINUTES = 30
    settings.SESSION_COOKIE_AGE = 8 * 3600
    client = Client()
    client.force_login(make_user("vera", "viewer"))
    return client


def logged_in(client: Client) -> bool:
    return client.get("/units/").status_code == 200


def test_a_page_load_within_the_idle_timeout_keeps_the_login(viewer):
    with time_machine.travel("2026-03-01 09:00Z", tick=False) as clock:
        assert logged_in(viewer)
        for _ in range(4):
            clock.shift(25 * 60)
            assert logged_in(viewer)


def test_idle_longer_than_the_timeout_ends_the_login(viewer):
    with time_machine.travel("2026-03-01 09:00Z", tick=False) as clock:
        assert logged_in(viewer)
        clock.shift(31 * 60)

        response = viewer.get("/units/")

    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


def test_live_refreshes_do_not_count_as_activity(viewer):
    with time_machine.travel("2026-03-01 09:00Z", tick=False) as clock:
        assert logged_in(viewer)
        for _ in range(7):
            clock.shift(5 * 60)
            viewer.get("/units/", headers={"HX-Request": "true"})

        assert not logged_in(viewer)


def test_the_lifetime_ends_a_login_however_busy(viewer):
    with time_machine.travel("2026-03-01 09:00Z", tick=False) as clock:
        assert logged_in(viewer)
        for _ in range(8 * 3):
            clock.shift(20 * 60)
            viewer.get("/units/")
        clock.shift(20 * 60)

        assert not logged_in(viewer)


def _session_writes(client: Client) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert logged_in(client)
    return sum(q["sql"].startswith('UPDATE "django_session"') for q in captured)


def test_page_loads_write_the_session_at_most_once_a_minute(viewer):
    with time_machine.travel("2026-03-01 09:00Z", tick=False) as clock:
        assert logged_in(viewer)
        clock.shift(61)
        assert _session_writes(viewer) == 1
        clock.shift(30)
        assert _session_writes(viewer) == 0
        clock.shift(31)
        assert _session_writes(viewer) == 1
