"""Every response carries the browser-side protections: CSP, no framing, no sniffing."""

from __future__ import annotations

import re
from pathlib import Path

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
    assert policy["script-src"] == "'self'"  # no 'unsafe-inline', no 'unsafe-eval'
    assert policy["style-src"] == "'self'"
    assert "unsafe" not in response["Content-Security-Policy"]
    assert "Content-Security-Policy-Report-Only" not in response
    assert policy["default-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'"
    assert policy["object-src"] == "'none'"
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"


def test_the_kiosk_wall_page_carries_the_policy_too():
    response = Client().get("/wall/" + "A" * 43 + "/")

    assert _policy(response)["frame-ancestors"] == "'none'"
    assert response["Referrer-Policy"] == "no-referrer"


def test_no_template_has_an_inline_script_style_or_trigger_filter():
    # What the policy would block, caught before a browser does: inline <script> code,
    # style attributes and <style> elements, and hx-trigger `[...]` filters (eval).
    root = Path(__file__).resolve().parent.parent / "templates"
    found = []
    for template in root.rglob("*.html"):
        text = template.read_text()
        for pattern in (
            r"<script(?![^>]*\bsrc=)[^>]*>",
            r"\sstyle=",
            r"<style",
            r"hx-trigger=\"[^\"]*\[",
        ):
            found += [f"{template.name}: {m}" for m in re.findall(pattern, text)]
    assert found == []


def test_report_only_mode_sends_the_same_policy_without_enforcing_it(settings):
    policy = settings.CONTENT_SECURITY_POLICY
    settings.CONTENT_SECURITY_POLICY = None
    settings.CONTENT_SECURITY_POLICY_REPORT_ONLY = policy

    response = Client().get("/accounts/login/")

    assert "Content-Security-Policy" not in response
    assert "'unsafe" not in response["Content-Security-Policy-Report-Only"]
    assert "frame-ancestors 'none'" in response["Content-Security-Policy-Report-Only"]
