"""The POST side of a confirmed action, the same for every page that offers one.

A confirmation page carries a one-time idempotency key. Its POST checks the form, runs the
action once under that key, tells the user what happened and moves on; a damaged or
already used confirmation is asked for again, keeping what the user typed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponseBase, QueryDict
from django.shortcuts import redirect
from django_stubs_ext import StrOrPromise

from dashboard.services import actions
from dashboard.views.feedback import action_report

CONFIRMATION_DAMAGED = "The confirmation was missing or damaged; please confirm again."
CONFIRMATION_REUSED = "That confirmation belongs to another action; please confirm again."

FormT = TypeVar("FormT", bound=forms.Form)


def confirmed_action(
    request: HttpRequest,
    *,
    bind: Callable[[QueryDict], FormT],
    perform: Callable[[dict[str, Any]], actions.ActionResult | HttpResponseBase],
    done_text: StrOrPromise,
    confirm_again: Callable[[FormT, int], HttpResponseBase],
    done_url: Callable[[dict[str, Any]], str],
) -> HttpResponseBase:
    """Run `perform` with the cleaned data of the posted form, then report and redirect.

    `bind` makes the form from posted data; it is called again to refill the form, under a
    fresh key, when `confirm_again` has to show the confirmation once more (with a status).
    `perform` may answer with a response of its own (a download), which is passed on.
    """
    form = bind(request.POST)
    if not form.is_valid():
        if _confirmation_damaged(form):
            messages.error(request, CONFIRMATION_DAMAGED)
        return confirm_again(_refilled(bind, request.POST), 400)
    data = form.cleaned_data
    try:
        outcome = perform(data)
    except actions.IdempotencyKeyReused:
        messages.error(request, CONFIRMATION_REUSED)
        return confirm_again(_refilled(bind, request.POST), 400)
    if isinstance(outcome, HttpResponseBase):
        return outcome
    action_report(request, outcome, done_text)
    return redirect(done_url(data))


def _confirmation_damaged(form: forms.Form) -> bool:
    """An error in a hidden field: in what the page carried, not in what the user typed
    (a typed field shows its own error next to it)."""
    return any(name in form.fields and form[name].is_hidden for name in form.errors)


def _refilled(bind: Callable[[QueryDict], FormT], posted: QueryDict) -> FormT:
    """The form bound again to what was posted, with a fresh key: the old one is damaged,
    or spent on another action."""
    data = posted.copy()
    data["idempotency_key"] = actions.idempotency_key_new()
    return bind(data)
