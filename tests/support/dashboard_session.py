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
    sim: SimulatorProcess,
    *,
    user: str = "demo",
    password: str = "demo-password",
    pipeline: int = 1,
) -> tuple[requests.Session, requests.Response]:
    """A session that fetched the form and posted it on that pipeline's workflow service;
    with the login POST's answer."""
    session = requests.Session()
    url = sim.workflow_urls[pipeline - 1]
    page = session.get(url + LOGIN_PATH, timeout=10)
    answer = session.post(
        url + LOGIN_PATH,
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
