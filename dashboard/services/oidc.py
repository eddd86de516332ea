"""Signing in through an OpenID Connect provider (mozilla-django-oidc, on Lookout's terms).

mozilla-django-oidc keeps `state`, `nonce` and the PKCE verifier in the session and runs
the code flow; what it reads from Django settings comes from `library_setting` instead,
so the LOOKOUT_OIDC_* settings are the only ones. Lookout adds: endpoints from the
provider's discovery document (`dashboard.clients.oidc`), ID tokens checked against the
provider's published keys with the issuer, audience and expiry, and the user's roles
set again from the groups claim at every sign-in.
"""

from __future__ import annotations

import functools
import hmac
import logging
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import jwt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _
from mozilla_django_oidc.auth import (  # type: ignore[import-untyped]  # no type hints
    OIDCAuthenticationBackend,
)
from mozilla_django_oidc.utils import (  # type: ignore[import-untyped]  # no type hints
    absolutify,
    import_from_settings,
)

from dashboard.clients.oidc import (
    SIGNING_ALGORITHMS,
    OidcClient,
    OidcProviderError,
    UnknownSigningKey,
)
from dashboard.services.directory_roles import apply_directory_roles

logger = logging.getLogger(__name__)

__all__ = [
    "SIGN_IN_SESSION_KEY",
    "OidcBackend",
    "OidcLoginRefused",
    "OidcProviderError",
    "OidcTokenInvalid",
    "library_setting",
    "oidc_settings",
    "provider_logout_url",
]

CALLBACK_URL_NAME = "oidc_callback"
# The session remembers how its user signed in, so log-out can end the provider's too.
SIGN_IN_SESSION_KEY = "lookout_sign_in"
# Seconds of clock difference with the provider that an ID token's times may show.
CLOCK_LEEWAY = 60


class OidcLoginRefused(Exception):
    """The provider vouched for someone Lookout will not sign in; the message says why
    (it is shown on the error page)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class OidcTokenInvalid(SuspiciousOperation):
    """The ID token failed verification: signature, issuer, audience, expiry or nonce."""


@dataclass(frozen=True)
class OidcSettings:
    issuer: str
    client_id: str
    client_secret: str
    name: str
    groups_claim: str
    scopes: str


def oidc_settings() -> OidcSettings | None:
    """The configured provider, or None when sign-in through OpenID Connect is off."""
    if not settings.LOOKOUT_OIDC_ISSUER:
        return None
    return OidcSettings(
        issuer=settings.LOOKOUT_OIDC_ISSUER,
        client_id=settings.LOOKOUT_OIDC_CLIENT_ID,
        client_secret=settings.LOOKOUT_OIDC_CLIENT_SECRET,
        name=settings.LOOKOUT_OIDC_NAME,
        groups_claim=settings.LOOKOUT_OIDC_GROUPS_CLAIM,
        scopes=settings.LOOKOUT_OIDC_SCOPES,
    )


@functools.lru_cache(maxsize=4)
def _client(issuer: str, timeout: tuple[float, float]) -> OidcClient:
    return OidcClient(issuer, timeout=timeout)


def provider_client() -> OidcClient:
    """The client of the configured provider; discovery and keys are kept per issuer."""
    configured = oidc_settings()
    if configured is None:
        raise OidcProviderError("No OpenID Connect provider is configured")
    return _client(configured.issuer, tuple(settings.LOOKOUT_HTTP_TIMEOUT))


def library_setting(name: str, *default: Any) -> Any:
    """What mozilla-django-oidc's views ask of the settings, from Lookout's own."""
    configured = oidc_settings()
    fixed: dict[str, Any] = {
        "OIDC_USE_PKCE": True,
        "OIDC_PKCE_CODE_CHALLENGE_METHOD": "S256",
        "OIDC_USE_NONCE": True,
        "OIDC_AUTHENTICATION_CALLBACK_URL": CALLBACK_URL_NAME,
        "OIDC_RP_CLIENT_ID": configured.client_id if configured else "",
        "OIDC_RP_SCOPES": configured.scopes if configured else "openid",
    }
    if name in fixed:
        return fixed[name]
    return import_from_settings(name, *default)


def _groups(claims: dict[str, Any], claim: str) -> list[str]:
    value = claims.get(claim)
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    logger.warning("The OpenID Connect claim %r is neither a list nor a string: ignored", claim)
    return []


def _username(claims: dict[str, Any]) -> str:
    for name in ("preferred_username", "email", "sub"):
        value = claims.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()[:150]
    raise OidcLoginRefused(_("The identity provider did not say who you are."))


class OidcBackend(OIDCAuthenticationBackend):  # type: ignore[misc]  # untyped base
    """Signs in whoever the provider vouches for, after checking its ID token."""

    get_settings = staticmethod(library_setting)
    # Django's, which refuses an inactive user (the library's does not).
    get_user = ModelBackend.get_user

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # The library's own __init__ reads the endpoints from settings; here they come
        # from discovery, and only when a callback is handled (never on a password login).
        self.UserModel = get_user_model()

    def authenticate(self, request: HttpRequest | None, **kwargs: Any) -> User | None:
        # Only the callback view passes a nonce; any other authenticate() is not ours.
        configured = oidc_settings()
        if request is None or configured is None or "nonce" not in kwargs:
            return None
        self.configured = configured
        self.client = provider_client()
        # The library puts these in the token request it hands to get_token.
        self.OIDC_RP_CLIENT_ID = configured.client_id
        self.OIDC_RP_CLIENT_SECRET = configured.client_secret
        return super().authenticate(request, **kwargs)  # type: ignore[no-any-return]

    def get_token(self, payload: dict[str, Any]) -> dict[str, Any]:
        return self.client.exchange_code(
            code=payload["code"],
            redirect_uri=payload["redirect_uri"],
            code_verifier=payload.get("code_verifier"),
            client_id=self.configured.client_id,
            secret=self.configured.client_secret,
        )

    def verify_token(self, token: str, **kwargs: Any) -> dict[str, Any]:
        """The ID token's claims, once its signature, issuer, audience, times and nonce
        are right."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise OidcTokenInvalid("The ID token is not a JWT") from None
        algorithm = header.get("alg")
        if algorithm not in SIGNING_ALGORITHMS:
            raise OidcTokenInvalid(f"The ID token is signed with {algorithm!r}, not accepted")
        try:
            key = self.client.signing_key(kid=header.get("kid"), alg=algorithm)
            payload: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=[algorithm],
                audience=self.configured.client_id,
                issuer=self.client.metadata().issuer,
                leeway=CLOCK_LEEWAY,
                options={"require": ["iss", "sub", "aud", "exp", "iat"]},
            )
        except UnknownSigningKey as exc:
            raise OidcTokenInvalid(str(exc)) from None
        except jwt.PyJWTError as exc:
            raise OidcTokenInvalid(f"The ID token failed verification: {exc}") from None
        nonce = kwargs.get("nonce")
        if not isinstance(nonce, str) or not hmac.compare_digest(
            nonce, str(payload.get("nonce", ""))
        ):
            raise OidcTokenInvalid("The ID token's nonce is not the one this sign-in sent")
        return payload

    def get_userinfo(
        self, access_token: str, id_token: str, payload: dict[str, Any]
    ) -> dict[str, Any]:
        """The ID token's claims with the userinfo endpoint's over them (some providers
        put the groups in one, some in the other)."""
        userinfo = self.client.userinfo(access_token) if access_token else {}
        if userinfo and userinfo.get("sub") != payload.get("sub"):
            raise OidcTokenInvalid("The userinfo answer is about another subject")
        return {**payload, **userinfo}

    def get_or_create_user(self, access_token: str, id_token: str, payload: dict[str, Any]) -> User:
        claims = self.get_userinfo(access_token, id_token, payload)
        username = _username(claims)
        user = User.objects.filter(username=username).first()
        if user is None:
            user = User.objects.create_user(username)  # no password: it cannot log in locally
        elif user.has_usable_password():
            # A local account (with a password) is never taken over by a provider's user
            # of the same name: it may be the break-glass admin.
            raise OidcLoginRefused(
                _(
                    "A local account named %(username)s already exists, so it cannot be "
                    "used through the identity provider. Ask an administrator."
                )
                % {"username": username}
            )
        _update_profile(user, claims)
        apply_directory_roles(
            user=user,
            groups=_groups(claims, self.configured.groups_claim),
            source="oidc",
        )
        return user


def _update_profile(user: User, claims: dict[str, Any]) -> None:
    fields = {
        "email": claims.get("email"),
        "first_name": claims.get("given_name") or claims.get("name"),
        "last_name": claims.get("family_name"),
    }
    changed = []
    for field, value in fields.items():
        if isinstance(value, str) and value[:150] != getattr(user, field):
            setattr(user, field, value[:150])
            changed.append(field)
    if changed:
        user.save(update_fields=changed)


def provider_logout_url(request: HttpRequest) -> str | None:
    """Where to send someone who signed in through the provider when they log out: the
    provider's end-session endpoint, back to the login page after. None when the
    provider offers none or cannot be reached (the local log-out still happens)."""
    if request.session.get(SIGN_IN_SESSION_KEY) != "oidc" or oidc_settings() is None:
        return None
    try:
        end_session = provider_client().metadata().end_session_endpoint
    except OidcProviderError as exc:
        logger.warning("Log-out at the identity provider skipped: %s", exc)
        return None
    if end_session is None:
        return None
    query = urlencode(
        {
            "client_id": settings.LOOKOUT_OIDC_CLIENT_ID,
            "post_logout_redirect_uri": absolutify(request, reverse("login")),
        }
    )
    return f"{end_session}{'&' if '?' in end_session else '?'}{query}"
