"""Every response carries the browser-side protections: CSP, no framing, no sniffing."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.support.users import make_user

pytestmark = pytest.mark.django_db


def _policy(response) -> dict[str, str]:
    directives = (part.strip() for part in response["Content-Security-Policy"].split(";"))
    return dict(part.split(" ", 1) for part in directives if part)


@pytest.mark.parametrize("url", ["/", "/units/", "/storage/", "/wall/", "/accounts/login/"])
def test_pages_forbid_inline_scripts_other_origins_and_framing(url):
    client = Client()
    client.force_login(make_user("vera", "viewer"))

    response = client.get(url)

    policy = _policy(response)
    assert "'unsafe-inline'" not in policy["script-src"]
    assert policy["default-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'"
    assert policy["object-src"] == "'none'"
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"


def test_the_kiosk_wall_page_carries_the_policy_too():
    response = Client().get("/wall/" + "A" * 43 + "/")

    assert _policy(response)["frame-ancestors"] == "'none'"
    assert response["Referrer-Policy"] == "no-referrer"
