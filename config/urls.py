from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import Http404, HttpRequest, HttpResponseBase
from django.urls import include, path

from dashboard.forms.login import LoginForm
from dashboard.services.oidc import oidc_settings
from dashboard.views import oidc as oidc_views
from dashboard.views.language import set_language


def _needs_mail(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """Password reset sends mail: without EMAIL_HOST its pages do not exist."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not settings.LOOKOUT_PASSWORD_RESET:
            raise Http404("Password reset needs e-mail, which is not configured")
        return view(request, *args, **kwargs)

    return wrapped


class LoginView(auth_views.LoginView):
    """Django's login page; it offers password reset only when mail is configured, and
    sign-in through the OpenID Connect provider when one is.

    The user name and password form is for local accounts and LDAP; with neither (local
    passwords off, no LDAP) it is hidden, except at `?local=1`, the break-glass admin's way in.
    """

    authentication_form = LoginForm

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["password_reset"] = settings.LOOKOUT_PASSWORD_RESET and settings.LOOKOUT_LOCAL_LOGIN
        context["password_form"] = (
            settings.LOOKOUT_LOCAL_LOGIN
            or settings.LOOKOUT_LDAP_ENABLED
            or "local" in self.request.GET
            or self.request.method == "POST"
        )
        oidc = oidc_settings()
        context["oidc_name"] = oidc.name if oidc else ""
        return context


# django.contrib.auth.urls, with the reset pages behind the mail setting.
account_urls = [
    path("login/", LoginView.as_view(), name="login"),
    path("logout/", oidc_views.LogoutView.as_view(), name="logout"),
    path(
        "password_change/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "password_change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    *(
        path(route, _needs_mail(view.as_view()), name=name)
        for route, view, name in (
            ("password_reset/", auth_views.PasswordResetView, "password_reset"),
            ("password_reset/done/", auth_views.PasswordResetDoneView, "password_reset_done"),
            (
                "reset/<uidb64>/<token>/",
                auth_views.PasswordResetConfirmView,
                "password_reset_confirm",
            ),
            ("reset/done/", auth_views.PasswordResetCompleteView, "password_reset_complete"),
        )
    ),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include(account_urls)),
    # The redirect URI to register at the provider is <public URL>/oidc/callback/.
    path("oidc/authenticate/", oidc_views.OidcSignInView.as_view(), name="oidc_sign_in"),
    path("oidc/callback/", oidc_views.OidcCallbackView.as_view(), name="oidc_callback"),
    # The header's language picker (a POST form): cookie, and the user's saved choice.
    path("i18n/setlang/", set_language, name="set_language"),
    path("api/v1/", include("dashboard.api.urls")),
    path("", include("dashboard.urls")),
]
