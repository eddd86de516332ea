"""Adding metadata files to a SIP: pick a transfer source, browse it, tick, confirm.

Listings come from the storage tasks (see `location_picker`); only the final POST
reaches the workflow service, through `services.metadata_files`.
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
from dashboard.forms.metadata_files import MetadataFilesForm, MetadataPicksForm, MetadataSourceForm
from dashboard.forms.storage import encode_browse_path
from dashboard.lib.htmx import HtmxHttpRequest
from dashboard.models import Unit
from dashboard.selectors import storage as storage_selectors
from dashboard.selectors import units as unit_selectors
from dashboard.services import actions
from dashboard.services.metadata_files import (
    METADATA_PERMISSION,
    metadata_files_add,
    metadata_files_addable,
)
from dashboard.views.confirmation import confirmed_action
from dashboard.views.location_picker import picker_context
from dashboard.views.units import forbidden, not_found, role_required

NEEDS = "Adding metadata files needs the operator or admin role."


def _unit(request: HtmxHttpRequest, uuid: Any) -> Unit | HttpResponse:
    if not request.user.has_perm(METADATA_PERMISSION):
        return forbidden(request, NEEDS)
    unit = unit_selectors.unit_get(uuid=str(uuid))
    if unit is None:
        return not_found(request, _("This unit is not known to Lookout (or not yet)."))
    if not metadata_files_addable(unit):
        messages.info(
            request, _("Metadata files can only be added to a SIP that is still being ingested.")
        )
        return redirect("dashboard:unit-detail", unit.uuid)
    return unit


@role_required
@require_GET
@vary_on_headers("HX-Request")
def browse(request: HtmxHttpRequest, uuid: Any) -> HttpResponse:
    unit = _unit(request, uuid)
    if isinstance(unit, HttpResponse):
        return unit
    source = MetadataSourceForm(request.GET if "location" in request.GET else None)
    context: dict[str, Any] = {"section": "units", "unit": unit, "source": source}
    if not source.is_bound or not source.is_valid():
        status = 400 if source.is_bound else 200
        return render(request, "dashboard/metadata_files/browse.html", context, status=status)
    location = storage_selectors.location_get(uuid=source.cleaned_data["location"])
    assert location is not None  # the form offered only known locations
    here = reverse("dashboard:metadata-files", args=[unit.uuid])

    def url(raw: bytes) -> str:
        query = {"location": location.uuid, **({"path": encode_browse_path(raw)} if raw else {})}
        return f"{here}?{urlencode(query)}"

    picker = picker_context(
        location=location, path_text=request.GET.get("path", ""), url=url, files=True
    )
    context.update(
        picker,
        with_files=True,
        confirm_url=reverse("dashboard:metadata-files-confirm", args=[unit.uuid]),
    )
    name = "dashboard/metadata_files/browse.html"
    if request.htmx:
        name += "#pick-listing"
    return render(request, name, context, status=400 if picker["bad_path"] else 200)


def _confirm_page(
    request: HtmxHttpRequest, unit: Unit, form: MetadataFilesForm, picks: list[bytes], status: int
) -> HttpResponse:
    location_uuid = form.data.get("location") if form.is_bound else form.initial.get("location")
    return render(
        request,
        "dashboard/metadata_files/confirm.html",
        {
            "section": "units",
            "unit": unit,
            "form": form,
            "paths": [pick.decode("utf-8", "backslashreplace") for pick in picks],
            "location": storage_selectors.location_get(uuid=str(location_uuid or "")),
            "back_url": reverse("dashboard:metadata-files", args=[unit.uuid])
            + f"?{urlencode({'location': location_uuid or ''})}",
        },
        status=status,
    )


@role_required
@require_GET
def confirm(request: HtmxHttpRequest, uuid: Any) -> HttpResponse:
    unit = _unit(request, uuid)
    if isinstance(unit, HttpResponse):
        return unit
    picked = MetadataPicksForm(request.GET)
    if not picked.is_valid():
        for errors in picked.errors.values():
            for error in errors:
                messages.error(request, str(error))
        back = {"location": request.GET["location"]} if "location" in request.GET else {}
        here = reverse("dashboard:metadata-files", args=[unit.uuid])
        return redirect(f"{here}?{urlencode(back)}" if back else here)
    data = picked.cleaned_data
    form = MetadataFilesForm(
        initial={
            "location": data["location"],
            "picks": [encode_browse_path(pick) for pick in data["picks"]],
            "idempotency_key": actions.idempotency_key_new(),
        }
    )
    return _confirm_page(request, unit, form, data["picks"], 200)


@role_required
@require_POST
def add(request: HtmxHttpRequest, uuid: Any) -> HttpResponseBase:
    unit = _unit(request, uuid)
    if isinstance(unit, HttpResponse):
        return unit
    return confirmed_action(
        request,
        bind=MetadataFilesForm,
        perform=lambda data: metadata_files_add(
            user=request.user,
            unit=unit,
            location_uuid=data["location"],
            paths=data["picks"],
            idempotency_key=data["idempotency_key"],
            after_success=lambda: tasks.poll_pipeline_enqueue(unit.pipeline),
        ),
        done_text=_("Metadata files added"),
        confirm_again=lambda form, status: _confirm_page(
            request, unit, form, _posted_picks(form), status
        ),
        done_url=lambda data: reverse("dashboard:unit-detail", args=[unit.uuid]),
    )


def _posted_picks(form: MetadataFilesForm) -> list[bytes]:
    form.is_valid()
    picks: list[bytes] = form.cleaned_data.get("picks") or []
    return picks
