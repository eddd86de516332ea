"""API authentication by personal token: `Authorization: Bearer <token>` (or `Token`).

The token acts as its owner, and `HasRole` then applies the owner's roles as they are
now. Any other credential in the header, a revoked token or one of a deactivated user is
refused with 401; a request without the header is left to the session.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from dashboard.models import ApiToken
from dashboard.services.api_tokens import api_token_authenticate

KEYWORDS = ("bearer", "token")
INVALID = "Invalid or revoked API token."


class ApiTokenAuthentication(BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        scheme, _, presented = get_authorization_header(request).partition(b" ")
        if scheme.decode("latin-1").lower() not in KEYWORDS:
            return None
        try:
            text = presented.decode("ascii").strip()
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed(INVALID) from None
        token = api_token_authenticate(presented=text)
        if token is None:
            raise exceptions.AuthenticationFailed(INVALID)
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        # Makes an anonymous call a 401 (with this header) rather than DRF's 403.
        return 'Bearer realm="api"'


class ApiTokenScheme(OpenApiAuthenticationExtension):
    """How the schema (and Swagger UI's Authorize button) describes the token."""

    target_class = "dashboard.api.authentication.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal API token from /account/tokens/: "
            "`Authorization: Bearer lookout_…` (`Token lookout_…` works too).",
        }
