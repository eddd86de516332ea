"""Text redaction: API keys and passwords out of URLs, messages and bodies. No Django."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import quote

REDACTED = "[redacted]"


_SECRET_PARAM = re.compile(r"(?i)\b(api_key|apikey|password)=[^&\s\"'#<>]*")


_SECRET_JSON_FIELD = re.compile(r'(?i)("(?:api_key|apikey|password)"\s*:\s*")[^"]*(")')


# A signed-in session of the workflow service's dashboard, in a Cookie header or a form.
_SESSION_COOKIE = re.compile(r"(?i)\b(sessionid|csrftoken|csrfmiddlewaretoken)=[^;&\s\"'#<>]*")


_APIKEY_HEADER = re.compile(r"(?i)\b(ApiKey\s+[^:\s]+:)\S+")


# A wall-screen token in a path: /wall/ then 43 characters of token_urlsafe(32). Also
# percent-encoded slashes, as a proxy or a log format may write them.
_WALL_TOKEN = re.compile(r"(?i)(/|%2F)wall(/|%2F)[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])")


# A personal API token (dashboard.services.api_tokens); its prefix stays, to say which.
_API_TOKEN = re.compile(r"\b(lookout_[0-9a-f]{8}_)[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])")

# The authorization code in the address the identity provider sends a browser back to
# (/oidc/callback/?code=…&state=…): used once and bound to the PKCE verifier, but a
# credential until then, so it stays out of access logs.
_SIGN_IN_CODE = re.compile(r"(/oidc/callback/\?(?:[^\s\"'#]*?&)?code=)[^&\s\"'#]+")


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Hide API keys, passwords and session cookies in a URL, message or body before it
    is shown anywhere."""
    text = _SECRET_PARAM.sub(lambda m: f"{m.group(1)}={REDACTED}", text)
    text = _SECRET_JSON_FIELD.sub(lambda m: f"{m.group(1)}{REDACTED}{m.group(2)}", text)
    text = _SESSION_COOKIE.sub(lambda m: f"{m.group(1)}={REDACTED}", text)
    text = _APIKEY_HEADER.sub(lambda m: f"{m.group(1)}{REDACTED}", text)
    text = redact_api_tokens(text)
    for secret in secrets:
        # A very short secret would blank out ordinary words; the patterns above cover it.
        if len(secret) >= 4:
            for form in {secret, quote(secret, safe="")}:
                text = text.replace(form, REDACTED)
    return text


def redact_wall_tokens(text: str) -> str:
    """`text` with the token of every wall-screen address (`/wall/<token>/`) hidden."""
    return _WALL_TOKEN.sub(lambda m: f"{m.group(1)}wall{m.group(2)}{REDACTED}", text)


def redact_api_tokens(text: str) -> str:
    """`text` with every personal API token hidden (its `lookout_<prefix>_` kept)."""
    return _API_TOKEN.sub(lambda m: f"{m.group(1)}{REDACTED}", text)


def redact_sign_in_codes(text: str) -> str:
    """`text` with the authorization code of every sign-in callback address hidden."""
    return _SIGN_IN_CODE.sub(lambda m: f"{m.group(1)}{REDACTED}", text)


def redact_tokens(text: str) -> str:
    """`text` without wall-screen or API tokens or sign-in codes: what the log filters
    apply to every line."""
    return redact_sign_in_codes(redact_api_tokens(redact_wall_tokens(text)))
