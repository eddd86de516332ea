"""Personal API tokens (`/accounts/tokens/`): make one, see yours, revoke one.

Any user with a role may have tokens; a token acts with its owner's roles. A new token is
rendered once, on the answer to the form that made it (never cached, never redirected
through a session), and kept nowhere but in the reader's hands.
"""

from __future__ import annotations

from typing import cast

from django.contrib import messages
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from dashboard.forms.api_tokens import ApiTokenCreateForm
from dashboard.forms.units import ConfirmActionForm
from dashboard.models import ApiToken
from dashboard.services import api_tokens as token_services
from dashboard.services.actions import idempotency_key_new
from dashboard.views.units import not_found, role_required


def _owner(request: HttpRequest) -> User:
    return cast(User, request.user)  # role_required let in a signed-in user only


def _tokens_page(
    request: HttpRequest, form: ApiTokenCreateForm | None = None, *, status: int = 200
) -> HttpResponse:
    form = form or ApiTokenCreateForm(initial={"idempotency_key": idempotency_key_new()})
    return render(
        request,
        "dashboard/api/tokens.html",
        {
            "section": "api-tokens",
            "tokens": ApiToken.objects.filter(user=_owner(request)),
            "form": form,
        },
        status=status,
    )


@never_cache
@require_GET
@role_required
def api_tokens(request: HttpRequest) -> HttpResponse:
    return _tokens_page(request)


@never_cache
@require_POST
@role_required
def api_token_create(request: HttpRequest) -> HttpResponse:
    form = ApiTokenCreateForm(request.POST)
    if not form.is_valid():
        return _tokens_page(request, form, status=400)
    try:
        made = token_services.api_token_create(
            user=_owner(request),
            name=form.cleaned_data["name"],
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
    except token_services.ApiTokenError as exc:
        form.add_error("name", str(exc))
        return _tokens_page(request, form, status=400)
    if made.repeated:
        messages.info(
            request,
            _(
                "That form was already sent: it made the token “%(name)s”, whose value "
                "was shown once then. If it was not copied, revoke it and make a new one."
            )
            % {"name": made.token.name},
        )
        return redirect("dashboard:api-tokens")
    return render(
        request, "dashboard/api/token_created.html", {"token": made.token, "secret": made.secret}
    )


@never_cache
@require_http_methods(["GET", "POST"])
@role_required
def api_token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    """GET asks for confirmation; POST revokes (one of the reader's own tokens only)."""
    token = ApiToken.objects.filter(pk=token_id, user=_owner(request)).first()
    if token is None:
        return not_found(request, _("You have no such API token."))
    if request.method == "GET":
        form = ConfirmActionForm(initial={"idempotency_key": idempotency_key_new()})
        return render(request, "dashboard/api/token_revoke.html", {"token": token, "form": form})
    form = ConfirmActionForm(request.POST)
    if not form.is_valid():
        return render(
            request, "dashboard/api/token_revoke.html", {"token": token, "form": form}, status=400
        )
    try:
        done = token_services.api_token_revoke(
            user=_owner(request),
            token_id=token.pk,
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
    except token_services.ApiTokenError as exc:
        messages.info(request, str(exc))
    else:
        messages.success(
            request,
            _("Revoked “%(name)s”: a call that presents it now gets 401.")
            % {"name": done.token.name},
        )
    return redirect("dashboard:api-tokens")
