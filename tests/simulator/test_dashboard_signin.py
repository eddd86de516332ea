"""Contract tests: signing in to the workflow service's own dashboard, as the notes record.

The status lists and the decision endpoint need a signed-in session (never an API key);
the login form works with Django's CSRF cookie and field; sessions expire.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import requests

from tests.support.dashboard_session import (
    LOGIN_PATH,
    csrf_header,
    form_token,
    sign_in,
    signed_in,
)
from tests.support.simulator_process import SimulatorProcess

pytestmark = pytest.mark.integration

DASHBOARD_ROUTES = [
    ("GET", "/transfer/status/"),
    ("GET", "/ingest/status/"),
    ("GET", "/status/"),
    ("POST", "/mcp/execute/"),
]


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorProcess]:
    with SimulatorProcess(units=10, seed=3, speed=0) as process:
        yield process


def test_the_login_page_sets_the_csrf_cookie_and_carries_the_form_token(sim):
    response = requests.get(sim.workflow_url + LOGIN_PATH, timeout=10)

    cookie = response.cookies["csrftoken"]
    token = form_token(response.text)
    assert response.status_code == 200
    assert len(cookie) == 32 and cookie.isalnum()
    assert len(token) == 64 and token != cookie  # masked, as Django renders it
    assert 'name="username"' in response.text and 'name="password"' in response.text


def test_signing_in_answers_302_with_a_session_cookie(sim):
    session, answer = sign_in(sim)

    assert answer.status_code == 302
    assert "sessionid" in answer.cookies
    assert session.get(sim.workflow_url + "/status/", timeout=10).status_code == 200


def test_signing_in_rotates_the_csrf_cookie_as_django_does(sim):
    session = requests.Session()
    session.get(sim.workflow_url + LOGIN_PATH, timeout=10)
    before = session.cookies["csrftoken"]

    signed = signed_in(sim)

    assert signed.cookies["csrftoken"] != before
    assert len(signed.cookies["csrftoken"]) == 32


def test_a_wrong_password_renders_the_form_again_with_200(sim):
    session, answer = sign_in(sim, password="not-the-password")

    assert answer.status_code == 200
    assert "sessionid" not in session.cookies
    assert form_token(answer.text)  # the form again
    assert "Please enter a correct username and password" in answer.text


def test_a_sign_in_without_the_csrf_cookie_is_refused_with_403(sim):
    page = requests.get(sim.workflow_url + LOGIN_PATH, timeout=10)

    answer = requests.post(
        sim.workflow_url + LOGIN_PATH,
        data={
            "username": "demo",
            "password": "demo-password",
            "csrfmiddlewaretoken": form_token(page.text),
        },
        allow_redirects=False,
        timeout=10,
    )

    assert answer.status_code == 403
    assert "CSRF verification failed" in answer.text


@pytest.mark.parametrize(("method", "path"), DASHBOARD_ROUTES)
def test_without_a_session_each_route_redirects_to_the_login_page(sim, method, path):
    answer = requests.request(method, sim.workflow_url + path, allow_redirects=False, timeout=10)

    assert answer.status_code == 302
    assert answer.headers["Location"] == f"{LOGIN_PATH}?next={path}"


@pytest.mark.parametrize(("method", "path"), DASHBOARD_ROUTES)
def test_an_api_key_is_redirected_to_the_login_page_too(sim, method, path):
    as_header = requests.request(
        method,
        sim.workflow_url + path,
        headers=sim.auth_header,
        allow_redirects=False,
        timeout=10,
    )
    as_query = requests.request(
        method,
        sim.workflow_url + path,
        params={"username": sim.user, "api_key": sim.key},
        allow_redirects=False,
        timeout=10,
    )

    assert as_header.status_code == 302
    assert as_query.status_code == 302
    assert as_query.headers["Location"].startswith(f"{LOGIN_PATH}?next=")


def test_an_expired_session_redirects_to_the_login_page(sim):
    session = signed_in(sim)
    before = session.get(sim.workflow_url + "/transfer/status/", timeout=10)

    sim.control("sessions/expire", {})
    after = session.get(sim.workflow_url + "/transfer/status/", allow_redirects=False, timeout=10)

    assert before.status_code == 200
    assert after.status_code == 302
    assert after.headers["Location"] == f"{LOGIN_PATH}?next=/transfer/status/"


def test_a_post_without_the_csrf_header_is_refused_with_403(sim):
    session = signed_in(sim)

    without = session.post(
        sim.workflow_url + "/mcp/execute/", data={"uuid": "x", "choice": "y"}, timeout=10
    )
    wrong = session.post(
        sim.workflow_url + "/mcp/execute/",
        data={"uuid": "x", "choice": "y"},
        headers={"X-CSRFToken": "a" * 32},
        timeout=10,
    )
    right = session.post(
        sim.workflow_url + "/mcp/execute/",
        data={"uuid": "x", "choice": "y"},
        headers=csrf_header(session),
        timeout=10,
    )

    assert (without.status_code, wrong.status_code, right.status_code) == (403, 403, 200)


def test_a_session_left_unused_for_the_idle_time_ends():
    with SimulatorProcess(units=2, seed=3, speed=0, session_idle_seconds=0.5) as sim:
        session = signed_in(sim)
        kept = session.get(sim.workflow_url + "/status/", allow_redirects=False, timeout=10)
        time.sleep(0.7)
        ended = session.get(sim.workflow_url + "/status/", allow_redirects=False, timeout=10)

    assert kept.status_code == 200
    assert ended.status_code == 302


def test_a_session_ends_at_its_maximum_age_even_when_used():
    with SimulatorProcess(units=2, seed=3, speed=0, session_max_age=2) as sim:
        # The cookie is sent by hand: the server's expiry is under test, not the client's.
        cookie = {"Cookie": f"sessionid={signed_in(sim).cookies['sessionid']}"}
        answers = []
        for pause in (0.0, 0.7, 0.7, 1.0):
            time.sleep(pause)
            answers.append(
                requests.get(
                    sim.workflow_url + "/status/", headers=cookie, allow_redirects=False, timeout=10
                )
            )

    assert [answer.status_code for answer in answers] == [200, 200, 200, 302]
