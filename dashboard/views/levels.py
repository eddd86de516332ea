"""Levels of description of a pipeline, and the level of an arranged path.

Everything shown comes from the cache the tasks fill (the page polls while they run);
fetching the levels again from the access system (admins) and setting a path's level
are the page's two actions.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from dashboard import tasks
from dashboard.forms.levels import PathForm, SetLevelForm
from dashboard.forms.units import ConfirmActionForm
from dashboard.lib.htmx import HtmxHttpRequest
from dashboard.lib.pipelines import pipeline_get, pipeline_list
from dashboard.services import actions
from dashboard.services import levels as level_services
from dashboard.views.confirmation import confirmed_action
from dashboard.views.storage import LISTING_LIVE_TRIGGER
from dashboard.views.units import forbidden, not_found, role_required


def _page_url(slug: str, path: str = "") -> str:
    url = reverse("dashboard:levels", args=[slug])
    return f"{url}?{urlencode({'path': path})}" if path else url


@role_required
@require_GET
@vary_on_headers("HX-Request")
def levels_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    pipeline = pipeline_get(slug)
    if pipeline is None:
        return not_found(request, _("No such pipeline."))
    stored, loading = tasks.levels_shown(slug)
    path_form = PathForm(request.GET if "path" in request.GET else None)
    path = path_form.cleaned_data["path"] if path_form.is_bound and path_form.is_valid() else ""
    path_stored, path_loading = tasks.path_metadata_shown(slug, path) if path else (None, False)
    levels = stored.levels if stored is not None else ()
    current = next((uuid for uuid, name in levels if path_stored and name == path_stored.level), "")
    context: dict[str, Any] = {
        "section": "processing-configs",
        "pipeline": pipeline,
        "pipelines": pipeline_list(),
        "stored": stored,
        "path": path,
        "path_form": path_form,
        "path_stored": path_stored,
        "waiting": loading or path_loading,
        "live_url": _page_url(slug, path),
        "live_trigger": LISTING_LIVE_TRIGGER,
        "can_fetch": request.user.has_perm(level_services.FETCH_LEVELS_PERMISSION),
        "fetch_form": ConfirmActionForm(initial={"idempotency_key": actions.idempotency_key_new()}),
        "can_set": request.user.has_perm(level_services.SET_LEVEL_PERMISSION),
        "set_form": SetLevelForm(
            levels=levels,
            initial={
                "idempotency_key": actions.idempotency_key_new(),
                "path": path,
                "level_of_description": current,
            },
        ),
    }
    name = "dashboard/levels.html"
    if request.htmx:
        name += "#levels-live"
    return render(request, name, context, status=400 if path_form.errors else 200)


@role_required
@require_POST
def levels_fetch(request: HtmxHttpRequest, slug: str) -> HttpResponseBase:
    if not request.user.has_perm(level_services.FETCH_LEVELS_PERMISSION):
        return forbidden(request, _("Fetching the levels again needs the admin role."))
    if pipeline_get(slug) is None:
        return not_found(request, _("No such pipeline."))
    page = _page_url(slug)
    return confirmed_action(
        request,
        bind=ConfirmActionForm,
        perform=lambda data: level_services.levels_refetch(
            user=request.user, pipeline=slug, idempotency_key=data["idempotency_key"]
        ),
        done_text=_("Levels fetched"),
        # The page's own button is the confirmation: back to it, where a fresh key waits.
        confirm_again=lambda form, status: redirect(page),
        done_url=lambda data: page,
    )


@role_required
@require_POST
def path_level_set(request: HtmxHttpRequest, slug: str) -> HttpResponseBase:
    if not request.user.has_perm(level_services.SET_LEVEL_PERMISSION):
        return forbidden(
            request, _("Setting a level of description needs the operator or admin role.")
        )
    if pipeline_get(slug) is None:
        return not_found(request, _("No such pipeline."))
    stored, _unused = tasks.levels_shown(slug)
    levels = stored.levels if stored is not None else ()
    return confirmed_action(
        request,
        bind=lambda data: SetLevelForm(data, levels=levels),
        perform=lambda data: level_services.path_level_set(
            user=request.user,
            pipeline=slug,
            path=data["path"],
            level_uuid=data["level_of_description"],
            idempotency_key=data["idempotency_key"],
        ),
        done_text=_("Level set"),
        confirm_again=lambda form, status: _back_with_errors(request, slug, form),
        done_url=lambda data: _page_url(slug, data["path"]),
    )


def _back_with_errors(request: HtmxHttpRequest, slug: str, form: SetLevelForm) -> HttpResponse:
    """The form is on the levels page itself: its errors go there as messages."""
    for field, errors in form.errors.items():
        label = form.fields[field].label if field in form.fields else ""
        for error in errors:
            messages.error(request, f"{label}: {error}" if label else str(error))
    return redirect(_page_url(slug, form.data.get("path", "")))
