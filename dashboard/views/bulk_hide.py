"""Hiding many finished units at once, and undoing it within the window.

The units page posts the ticked units (or "failed more than N days ago") to a
confirmation page that lists them and says that the workflow service's hide cannot be
undone; the units page then shows a notice with an Undo button until the window ends.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from dashboard.forms.units import BulkHideChoiceForm, BulkHideConfirmForm, UndoHideForm
from dashboard.lib import vocabulary
from dashboard.lib.htmx import HtmxHttpRequest
from dashboard.models import Unit
from dashboard.services import actions, bulk_hide
from dashboard.views.confirmation import confirmed_action
from dashboard.views.feedback import action_report
from dashboard.views.units import forbidden, role_required

NEEDS = "Hiding units needs the operator or admin role."


def _confirm_page(
    request: HtmxHttpRequest, units: list[Unit], form: BulkHideConfirmForm, status: int = 200
) -> HttpResponse:
    return render(
        request,
        "dashboard/units_hide_confirm.html",
        {
            "section": "units",
            "units": units,
            "form": form,
            "window": vocabulary.duration(settings.LOOKOUT_HIDE_UNDO_SECONDS),
            "max_units": bulk_hide.MAX_UNITS,
        },
        status=status,
    )


def _hideable(uuids: list[str]) -> list[Unit]:
    return list(
        Unit.objects.filter(bulk_hide.hideable_units(), uuid__in=uuids).order_by("name", "id")[
            : bulk_hide.MAX_UNITS
        ]
    )


@role_required
@require_GET
def units_hide_confirm(request: HtmxHttpRequest) -> HttpResponse:
    if not request.user.has_perm(actions.HIDE_PERMISSION):
        return forbidden(request, NEEDS)
    choice = BulkHideChoiceForm(request.GET)
    if not choice.is_valid():
        for errors in choice.errors.values():
            for error in errors:
                messages.error(request, str(error))
        return redirect("dashboard:unit-list")
    data = choice.cleaned_data
    criterion = ""
    uuids: list[str] = data["units"]
    if not uuids:
        days = data["failed_older_than"]
        criterion = ngettext(
            "failed more than %(count)s day ago", "failed more than %(count)s days ago", days
        ) % {"count": days}
        uuids = bulk_hide.failed_older_than(days, pipeline=data.get("pipeline") or "")
    units = _hideable(uuids)
    if not units:
        messages.info(
            request,
            _("Nothing to hide: none of these units is finished and still shown (%(which)s).")
            % {"which": criterion}
            if criterion
            else _("Nothing to hide: none of these units is finished and still shown."),
        )
        return redirect("dashboard:unit-list")
    form = BulkHideConfirmForm(
        initial={
            "idempotency_key": actions.idempotency_key_new(),
            "units": [unit.uuid for unit in units],
            "criterion": criterion,
        }
    )
    return _confirm_page(request, units, form)


@role_required
@require_POST
def units_hide(request: HtmxHttpRequest) -> HttpResponseBase:
    if not request.user.has_perm(actions.HIDE_PERMISSION):
        return forbidden(request, NEEDS)
    return confirmed_action(
        request,
        bind=BulkHideConfirmForm,
        perform=lambda data: bulk_hide.units_hide_bulk(
            user=request.user,
            uuids=data["units"],
            idempotency_key=data["idempotency_key"],
            criterion=data["criterion"],
        ),
        done_text=_("Hidden"),
        confirm_again=lambda form, status: _confirm_page(
            request, _hideable(_posted_units(form)), form, status
        ),
        done_url=lambda data: reverse("dashboard:unit-list"),
    )


def _posted_units(form: BulkHideConfirmForm) -> list[str]:
    form.is_valid()
    units: list[str] = form.cleaned_data.get("units") or []
    return units


@role_required
@require_POST
def units_hide_undo(request: HtmxHttpRequest, entry_id: int) -> HttpResponse:
    if not request.user.has_perm(actions.HIDE_PERMISSION):
        return forbidden(request, NEEDS)
    form = UndoHideForm(request.POST)
    if not form.is_valid():
        messages.error(
            request, _("The undo was missing its confirmation; please press Undo again.")
        )
        return redirect("dashboard:unit-list")
    try:
        result = bulk_hide.units_hide_undo(
            user=request.user,
            request_id=entry_id,
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
    except actions.IdempotencyKeyReused:
        messages.error(request, _("That undo belongs to another action; please press Undo again."))
        return redirect("dashboard:unit-list")
    action_report(request, result, "Undone")
    return redirect(reverse("dashboard:unit-list"))
