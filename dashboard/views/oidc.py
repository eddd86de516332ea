"""Sign-in through the OpenID Connect provider: the redirect there, the callback, and a
log-out that also ends the provider's session.

mozilla-django-oidc's views do the flow (state, nonce and PKCE kept in the session);
these add the endpoints from discovery and turn every refusal into a page that says
what happened, instead of a bare 400 or a 500.
"""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.auth import views as auth_views
from django.core.exceptions import SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _
from mozilla_django_oidc.views import (  # type: ignore[import-untyped]  # no type hints
    OIDCAuthenticationCallbackView,
    OIDCAuthenticationRequestView,
)

from dashboard.services.oidc import (
    SIGN_IN_SESSION_KEY,
    OidcLoginRefused,
    OidcProviderError,
    OidcTokenInvalid,
    library_setting,
    oidc_settings,
    provider_client,
    provider_logout_url,
)

logger = logging.getLogger(__name__)

# What each refusal tells the person (headline, explanation) and its status.
_FAILURES: dict[str, tuple[Any, Any, int]] = {
    "state": (
        _("This sign-in could not be matched to your browser"),
        _(
            "Lookout did not start this sign-in, or it was already used, so you are not "
            "signed in. This happens when the sign-in page was left open for a long time, "
            "when you signed in from another tab, or when the address was changed. "
            "Please start again."
        ),
        400,
    ),
    "token": (
        _("The identity provider's answer could not be verified"),
        _(
            "Its signature or contents did not check out, so you are not signed in. If "
            "this keeps happening, tell your administrator: the provider's keys or "
            "Lookout's settings may be wrong."
        ),
        400,
    ),
    "unreachable": (
        _("The identity provider could not be reached"),
        _(
            "Lookout could not talk to the identity provider, so you are not signed in. "
            "Please try again in a few minutes."
        ),
        502,
    ),
    "refused": (_("You cannot sign in this way"), "", 403),
    "failed": (
        _("The identity provider did not sign you in"),
        _("The sign-in was cancelled or refused at the identity provider."),
        400,
    ),
}


def sign_in_failure(request: HttpRequest, kind: str, detail: str = "") -> HttpResponse:
    headline, explanation, status = _FAILURES[kind]
    return render(
        request,
        "registration/oidc_error.html",
        {"headline": headline, "explanation": detail or explanation},
        status=status,
    )


class OidcSignInView(OIDCAuthenticationRequestView):
    """Sends the browser to the provider's authorization endpoint (from discovery)."""

    get_settings = staticmethod(library_setting)

    def __init__(self, **kwargs: Any) -> None:
        # The library's own __init__ reads the endpoint from settings; it comes from
        # discovery here, per request.
        super(OIDCAuthenticationRequestView, self).__init__(**kwargs)

    def get(self, request: HttpRequest) -> HttpResponseBase:
        configured = oidc_settings()
        if configured is None:
            raise Http404("Sign-in through OpenID Connect is not configured")
        try:
            self.OIDC_OP_AUTH_ENDPOINT = provider_client().metadata().authorization_endpoint
        except OidcProviderError as exc:
            logger.warning("OpenID Connect sign-in could not start: %s", exc)
            return sign_in_failure(request, "unreachable")
        self.OIDC_RP_CLIENT_ID = configured.client_id
        return super().get(request)


class OidcCallbackView(OIDCAuthenticationCallbackView):
    """Where the provider sends the browser back: the code is exchanged and checked."""

    get_settings = staticmethod(library_setting)

    def get(self, request: HttpRequest) -> HttpResponseBase:
        if oidc_settings() is None:
            raise Http404("Sign-in through OpenID Connect is not configured")
        try:
            return super().get(request)
        except OidcTokenInvalid as exc:
            logger.warning("OpenID Connect sign-in refused, the ID token: %s", exc)
            return sign_in_failure(request, "token")
        except SuspiciousOperation as exc:  # the library's state check
            logger.warning("OpenID Connect sign-in refused: %s", exc)
            return sign_in_failure(request, "state")
        except OidcLoginRefused as exc:
            logger.warning("OpenID Connect sign-in refused: %s", exc)
            return sign_in_failure(request, "refused", exc.message)
        except OidcProviderError as exc:
            logger.warning("OpenID Connect sign-in failed: %s", exc)
            return sign_in_failure(request, "unreachable")

    def login_failure(self) -> HttpResponse:
        request = self.request
        if "code" in request.GET and "state" in request.GET and not hasattr(self, "user"):
            # The library gives up before authenticating when this browser started no
            # sign-in (it keeps no state for it).
            return sign_in_failure(request, "state")
        return sign_in_failure(request, "failed")

    def login_success(self) -> HttpResponseBase:
        response = super().login_success()
        self.request.session[SIGN_IN_SESSION_KEY] = "oidc"
        return response


class LogoutView(auth_views.LogoutView):
    """Django's log-out; someone who signed in through the provider is then sent to the
    provider's log-out, when it offers one, and comes back to the login page."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        at_provider = provider_logout_url(request)
        response = super().post(request, *args, **kwargs)
        if at_provider is not None:
            return HttpResponseRedirect(at_provider)
        return response
