"""The authorization code of an OpenID Connect callback never reaches a log line."""

from __future__ import annotations

import logging

import pytest

from dashboard.lib.log_filters import WallTokenFilter
from dashboard.lib.redaction import redact_tokens

CODE = "Xq3v9_kQ-secretcode-8Jd"


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        (f'"GET /oidc/callback/?code={CODE}&state=abc HTTP/1.1" 302', "&state=abc HTTP/1.1"),
        (f"GET /oidc/callback/?state=abc&code={CODE}&iss=x", "?state=abc&code=[redacted]&iss=x"),
        (f"/oidc/callback/?state=abc&code={CODE}", "/oidc/callback/?state=abc&code=[redacted]"),
    ],
)
def test_the_code_in_a_callback_address_is_hidden_and_the_rest_kept(line, kept):
    scrubbed = redact_tokens(line)
    assert CODE not in scrubbed
    assert kept in scrubbed


def test_a_code_parameter_elsewhere_is_left_alone():
    assert redact_tokens("/units/?code=42") == "/units/?code=42"


def test_the_log_filter_hides_it_in_a_request_line():
    record = logging.LogRecord(
        "gunicorn.access",
        logging.INFO,
        __file__,
        1,
        '"GET %s HTTP/1.1"',
        (f"/oidc/callback/?code={CODE}&state=s",),
        None,
    )
    WallTokenFilter().filter(record)
    assert CODE not in record.getMessage()
