"""Sign in to the simulated workflow service's own dashboard, as a browser does."""

from __future__ import annotations

import re

import requests

from tests.support.simulator_process import SimulatorProcess

LOGIN_PATH = "/administration/accounts/login/"
FORM_TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="(\w+)"')


def form_token(page: str) -> str:
    found = FORM_TOKEN.search(page)
    assert found is not None, page
    return found.group(1)


def sign_in(
    sim: SimulatorProcess, *, user: str = "demo", password: str = "demo-password"
) -> tuple[requests.Session, requests.Response]:
    """A session that fetched the form and posted it; with the login POST's answer."""
    session = requests.Session()
    page = session.get(sim.workflow_url + LOGIN_PATH, timeout=10)
    answer = session.post(
        sim.workflow_url + LOGIN_PATH,
        data={"username": user, "password": password, "csrfmiddlewaretoken": form_token(page.text)},
        allow_redirects=False,
        timeout=10,
    )
    return session, answer


def signed_in(sim: SimulatorProcess) -> requests.Session:
    session, answer = sign_in(sim)
    assert answer.status_code == 302, answer.text
    return session


def csrf_header(session: requests.Session) -> dict[str, str]:
    return {"X-CSRFToken": session.cookies["csrftoken"]}
