"""The API as a product: 401 for anonymous calls, case-insensitive filters."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.support.users import make_user
from tests.views.seed import seed, unit

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("url", ["/api/v1/units/", "/api/v1/packages/", "/api/v1/waiting/"])
def test_an_anonymous_call_gets_401_with_www_authenticate(url):
    response = APIClient().get(url)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'


def test_filters_take_any_case():
    seed(unit(1, status="FAILED"), unit(2, status="PROCESSING", kind="sip"))
    client = APIClient()
    client.force_authenticate(make_user("vera", "viewer"))
    for query in ("status=failed", "status=FAILED", "status=Failed"):
        body = client.get(f"/api/v1/units/?{query}").json()
        assert [u["status"] for u in body["results"]] == ["FAILED"], query
    assert client.get("/api/v1/units/?kind=SIP").json()["count"] == 1
    assert client.get("/api/v1/packages/?package_type=aip").status_code == 200
    assert client.get("/api/v1/units/?status=nonsense").status_code == 400
