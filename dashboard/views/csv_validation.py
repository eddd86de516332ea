"""CSV validation: upload a CSV, pick a validator, see the workflow service's verdict.

The upload is an action (operator and admin), audit-logged with the file's name. A
request larger than `LOOKOUT_CSV_MAX_BYTES` (plus room for the form's other fields) is
refused from its Content-Length before its body is read; the form checks the file's own
size too, and a static script warns in the browser before anything is sent.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from dashboard.forms.csv_validation import CsvValidationForm, too_large_message
from dashboard.lib.csv_validators import CSV_VALIDATORS
from dashboard.lib.htmx import HtmxHttpRequest
from dashboard.lib.pipelines import pipeline_list
from dashboard.services import actions, csv_validation
from dashboard.views.units import forbidden, role_required

NEEDS = "Validating CSV files needs the operator or admin role."
# Room for the multipart framing and the other fields, on top of the file itself.
FORM_OVERHEAD = 16 * 1024


def request_too_large(request: HtmxHttpRequest) -> bool:
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return False
    return length > settings.LOOKOUT_CSV_MAX_BYTES + FORM_OVERHEAD


def _page(
    request: HtmxHttpRequest, form: CsvValidationForm, status: int = 200, **extra: Any
) -> HttpResponse:
    return render(
        request,
        "dashboard/csv_validation.html",
        {
            "section": "csv",
            "form": form,
            "validators": CSV_VALIDATORS,
            "several_pipelines": len(pipeline_list()) > 1,
            "max_bytes": settings.LOOKOUT_CSV_MAX_BYTES,
            **extra,
        },
        status=status,
    )


def _new_form(**initial: Any) -> CsvValidationForm:
    pipelines = pipeline_list()
    return CsvValidationForm(
        initial={
            "pipeline": pipelines[0].slug if pipelines else "",
            "idempotency_key": actions.idempotency_key_new(),
            **initial,
        }
    )


@role_required
@require_http_methods(["GET", "POST"])
def validate(request: HtmxHttpRequest) -> HttpResponse:
    if not request.user.has_perm(csv_validation.VALIDATE_PERMISSION):
        return forbidden(request, NEEDS)
    if request.method == "GET":
        return _page(request, _new_form())
    if request_too_large(request):
        # Refused before the body is read: Django reads uploads only when asked.
        return _page(request, _new_form(), status=413, problem=too_large_message())
    form = CsvValidationForm(request.POST, request.FILES)
    if not form.is_valid():
        return _page(request, form, status=400)
    data = form.cleaned_data
    file_name = data["csv_file"].name
    try:
        result = csv_validation.csv_validate(
            user=request.user,
            pipeline=data["pipeline"],
            validator=data["validator"],
            file_name=file_name,
            text=data["text"],
            idempotency_key=data["idempotency_key"],
        )
    except actions.IdempotencyKeyReused:
        return _page(
            request,
            _new_form(pipeline=data["pipeline"], validator=data["validator"]),
            status=400,
            problem="That form was already used for another file; choose the file again.",
        )
    verdict = csv_validation.csv_verdict(result.entry)
    status = 200 if verdict.valid is not None else 502
    if result.entry.outcome == actions.Outcome.REFUSED:
        status = 409
    return _page(
        request,
        _new_form(pipeline=data["pipeline"], validator=data["validator"]),
        status=status,
        result=result,
        verdict=verdict,
        file_name=file_name,
        validator_label=CSV_VALIDATORS[data["validator"]],
    )
