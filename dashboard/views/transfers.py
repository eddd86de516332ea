"""The start-transfer wizard: source, folders, details, summary, then one POST.

Nothing here calls an upstream service while the person waits, except the final POST:
folder listings come from the storage tasks (the page polls while "Loading…"), and the
transfer is started through `services.transfers`. A one-time key made when the wizard
opens travels through every step, so a double submit, or going back and submitting the
summary again, starts one transfer.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from dashboard import tasks
from dashboard.forms.storage import encode_browse_path
from dashboard.forms.transfers import (
    SourceForm,
    StartTransferForm,
    TransferForm,
    decode_pick,
    default_name,
    transfer_sources,
)
from dashboard.lib import vocabulary
from dashboard.lib.htmx import HtmxHttpRequest
from dashboard.lib.pipelines import pipeline_list
from dashboard.selectors import storage as storage_selectors
from dashboard.services import actions, transfers
from dashboard.views.feedback import action_report
from dashboard.views.location_picker import picker_context
from dashboard.views.units import forbidden, role_required

NEEDS = "Starting transfers needs the operator or admin role."
_KEY = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


def _key(value: str | None) -> str:
    """The wizard's one-time key from the address, or a new one."""
    return value if value and _KEY.fullmatch(value) else actions.idempotency_key_new()


def _context(**context: Any) -> dict[str, Any]:
    return {
        "section": "units",
        "several_pipelines": len(pipeline_list()) > 1,
        "storage_health": storage_selectors.storage_health(),
        **context,
    }


@role_required
@require_GET
def start(request: HtmxHttpRequest) -> HttpResponse:
    """Step 1: pipeline and transfer source."""
    if not request.user.has_perm(transfers.START_PERMISSION):
        return forbidden(request, NEEDS)
    key = _key(request.GET.get("key"))
    form = SourceForm(request.GET if "location" in request.GET else None)
    if form.is_bound and form.is_valid():
        query = {**form.cleaned_data, "key": key}
        return redirect(f"{reverse('dashboard:transfer-start-browse')}?{urlencode(query)}")
    return render(
        request,
        "dashboard/transfers/start.html",
        _context(form=form, key=key, sources=transfer_sources()),
        status=400 if form.is_bound else 200,
    )


@role_required
@require_GET
@vary_on_headers("HX-Request")
def browse(request: HtmxHttpRequest) -> HttpResponse:
    """Step 1, continued: browse the location's folders and pick one or more."""
    if not request.user.has_perm(transfers.START_PERMISSION):
        return forbidden(request, NEEDS)
    key = _key(request.GET.get("key"))
    source = SourceForm(request.GET)
    if not source.is_valid():
        messages.error(request, _("Choose a pipeline and a transfer source first."))
        return redirect("dashboard:transfer-start")
    pipeline, location_uuid = source.cleaned_data["pipeline"], source.cleaned_data["location"]
    location = storage_selectors.location_get(uuid=location_uuid)
    assert location is not None  # the form offered only known locations
    base = {"pipeline": pipeline, "location": location_uuid, "key": key}
    here = reverse("dashboard:transfer-start-browse")

    def url(raw: bytes) -> str:
        query = {**base, **({"path": encode_browse_path(raw)} if raw else {})}
        return f"{here}?{urlencode(query)}"

    picker = picker_context(location=location, path_text=request.GET.get("path", ""), url=url)
    context = _context(
        pipeline=pipeline,
        key=key,
        details_url=reverse("dashboard:transfer-start-details"),
        **picker,
    )
    name = "dashboard/transfers/browse.html"
    if request.htmx:
        name += "#pick-listing"
    return render(request, name, context, status=400 if picker["bad_path"] else 200)


def _summary(
    request: HtmxHttpRequest, form: TransferForm, *, key: str, status: int = 200
) -> HttpResponse:
    data = form.cleaned_data
    confirm = StartTransferForm(
        initial={
            **{k: v for k, v in data.items() if k != "picks"},
            "picks": form.encoded_picks(),
            "idempotency_key": key,
        }
    )
    return render(
        request,
        "dashboard/transfers/summary.html",
        _context(
            form=confirm,
            data=data,
            paths=[p.decode("utf-8", "backslashreplace") for p in data["picks"]],
            location=storage_selectors.location_get(uuid=data["location"]),
            type_label=vocabulary.transfer_type_label(data["transfer_type"]),
            back_url=_details_url(form, key),
        ),
        status=status,
    )


def _details_url(form: TransferForm, key: str) -> str:
    data = form.cleaned_data
    query: list[tuple[str, str]] = [
        ("pipeline", data["pipeline"]),
        ("location", data["location"]),
        ("key", key),
    ]
    query += [("picks", pick) for pick in form.encoded_picks()]
    return f"{reverse('dashboard:transfer-start-details')}?{urlencode(query)}"


@role_required
@require_http_methods(["GET", "POST"])
def details(request: HtmxHttpRequest) -> HttpResponse:
    """Step 2 (GET: the form, prefilled; POST: checked, then step 3, the summary)."""
    if not request.user.has_perm(transfers.START_PERMISSION):
        return forbidden(request, NEEDS)
    if request.method == "POST":
        key = _key(request.POST.get("key"))
        form = TransferForm(request.POST)
        if form.is_valid():
            return _summary(request, form, key=key)
        return _details_page(request, form, key, status=400)
    key = _key(request.GET.get("key"))
    picks_form = TransferForm(request.GET)
    picks_form.is_valid()
    picks = picks_form.cleaned_data.get("picks") if hasattr(picks_form, "cleaned_data") else None
    if not picks or "location" in picks_form.errors or "pipeline" in picks_form.errors:
        messages.error(
            request,
            _("Choose at least one folder: %(errors)s")
            % {
                "errors": "; ".join(str(e) for errors in picks_form.errors.values() for e in errors)
            },
        )
        back = {k: request.GET[k] for k in ("pipeline", "location") if k in request.GET}
        target = reverse("dashboard:transfer-start-browse" if back else "dashboard:transfer-start")
        return redirect(f"{target}?{urlencode({**back, 'key': key})}")
    initial = {
        "pipeline": picks_form.cleaned_data["pipeline"],
        "location": picks_form.cleaned_data["location"],
        "picks": [encode_browse_path(p) for p in picks],
        "name": request.GET.get("name") or default_name(picks),
    }
    return _details_page(request, TransferForm(initial=initial), key)


def _details_page(
    request: HtmxHttpRequest, form: TransferForm, key: str, status: int = 200
) -> HttpResponse:
    source = form.data if form.is_bound else form.initial
    raw_picks = source.getlist("picks") if hasattr(source, "getlist") else source.get("picks", [])
    shown = []
    for pick in raw_picks:
        try:
            shown.append(decode_pick(pick).decode("utf-8", "backslashreplace"))
        except Exception:  # noqa: BLE001 - the field's own error says what is wrong
            continue
    location = storage_selectors.location_get(uuid=str(source.get("location") or ""))
    browse_query = {"pipeline": source.get("pipeline", ""), "location": source.get("location", "")}
    return render(
        request,
        "dashboard/transfers/details.html",
        _context(
            form=form,
            key=key,
            paths=shown,
            location=location,
            browse_url=f"{reverse('dashboard:transfer-start-browse')}?"
            + urlencode({**browse_query, "key": key}),
        ),
        status=status,
    )


@role_required
@require_POST
def submit(request: HtmxHttpRequest) -> HttpResponse:
    """Step 3's button: start the transfer once, then land on its page."""
    if not request.user.has_perm(transfers.START_PERMISSION):
        return forbidden(request, NEEDS)
    form = StartTransferForm(request.POST)
    if not form.is_valid():
        if set(form.errors) == {"idempotency_key"}:
            messages.error(
                request, _("The confirmation was missing or damaged; please confirm again.")
            )
            return _summary(request, form, key=actions.idempotency_key_new(), status=400)
        return _details_page(request, form, _key(None), status=400)
    data = form.cleaned_data
    started = transfers.TransferRequest.from_cleaned(data, paths=data["picks"])
    try:
        result = transfers.transfer_start(
            user=request.user,
            request=started,
            idempotency_key=data["idempotency_key"],
            after_success=lambda: tasks.poll_pipeline_enqueue(started.pipeline),
        )
    except actions.IdempotencyKeyReused:
        messages.error(
            request,
            _("That confirmation was used for other folders; check the summary and start again."),
        )
        return _summary(request, form, key=actions.idempotency_key_new(), status=400)
    action_report(request, result, "Transfer started")
    uuid = transfers.started_transfer_uuid(result.entry)
    if uuid is not None:
        return redirect("dashboard:unit-detail", uuid)
    if result.entry.outcome == actions.Outcome.DONE:
        return redirect("dashboard:waiting-list")
    # Refused or not reached: the summary again, with what was entered and a fresh key.
    status = 409 if result.entry.outcome == actions.Outcome.REFUSED else 502
    return _summary(request, form, key=actions.idempotency_key_new(), status=status)
