"""The read API lets in the same people as the pages (logged in, with a role), in pages."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.support.api_tokens import api_token_for
from tests.support.records import save_units
from tests.support.users import make_user
from tests.views.seed import unit


def seed_units(count: int):
    return [unit(number) for number in range(1, count + 1)]


pytestmark = pytest.mark.django_db

API_URLS = [
    "/api/v1/units/",
    "/api/v1/waiting/",
    "/api/v1/health/",
    "/api/v1/summary/",
    "/api/v1/schema/",
    "/api/v1/pipelines/",
    "/api/v1/spaces/",
    "/api/v1/locations/",
    "/api/v1/packages/",
]


@pytest.mark.parametrize("url", API_URLS)
def test_a_logged_in_user_without_a_role_gets_403(url):
    client = Client()
    client.force_login(make_user("nora"))

    assert client.get(url).status_code == 403


@pytest.mark.parametrize("url", API_URLS)
def test_a_viewer_may_read(url):
    client = Client()
    client.force_login(make_user("vera", "viewer"))

    assert client.get(url).status_code == 200


def test_a_token_of_a_user_without_a_role_opens_nothing():
    token = api_token_for(make_user("nora"))

    response = Client().get("/api/v1/units/", HTTP_AUTHORIZATION=f"Token {token}")

    assert response.status_code == 403


def test_a_token_of_a_viewer_opens_the_api():
    token = api_token_for(make_user("vera", "viewer"))

    response = Client().get("/api/v1/units/", HTTP_AUTHORIZATION=f"Token {token}")

    assert response.status_code == 200


@pytest.mark.parametrize("url", API_URLS)
def test_anonymous_callers_are_refused(url):
    assert Client().get(url).status_code in (401, 403)


def test_the_unit_list_caps_a_huge_limit(monkeypatch):
    monkeypatch.setattr("dashboard.api.pagination.ApiPagination.max_limit", 2)
    save_units("default", {u.uuid: u for u in seed_units(3)})
    client = Client()
    client.force_login(make_user("vera", "viewer"))

    body = client.get("/api/v1/units/?limit=1000000000").json()

    assert (body["count"], len(body["results"])) == (3, 2)
