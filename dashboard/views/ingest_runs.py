"""Ingest run pages: the runs, a run (live), its CSV report, the new-run steps and the
pause/resume/cancel/retry-failed confirmations.

Pages render what is stored: the scheduler (`services.ingest_cycle`) keeps the items
and each run's waits up to date. The only upstream call is the new run's folder check,
made by `ingest_runs.ingest_run_create` when the person confirms. Every action goes
through the confirmed-action flow (CSRF, confirmation, one-time key, audit row).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from dashboard.forms.ingest_runs import (
    IngestItemFilterForm,
    IngestRunConfirmForm,
    IngestRunForm,
    IngestSourceForm,
)
from dashboard.forms.storage import encode_browse_path
from dashboard.forms.transfers import transfer_sources
from dashboard.forms.units import ConfirmActionForm
from dashboard.lib import ingest_names, vocabulary
from dashboard.lib.htmx import HtmxHttpRequest
from dashboard.lib.pipelines import pipeline_list
from dashboard.models import IngestItem, IngestRun
from dashboard.selectors import ingest as ingest_selectors
from dashboard.selectors import storage as storage_selectors
from dashboard.services import actions, ingest_runs
from dashboard.views.confirmation import confirmed_action
from dashboard.views.location_picker import picker_context
from dashboard.views.units import _render_live, forbidden, not_found, role_required

NEEDS = gettext_lazy("Ingest runs need the operator or admin role.")
ITEMS_PER_PAGE = 50
RUNS_PER_PAGE = 50
# The CSV report's columns: machine keys, in English whatever the reader's language.
CSV_COLUMNS = (
    "number",
    "path",
    "name",
    "accession",
    "state",
    "pipeline",
    "transfer_uuid",
    "sip_uuid",
    "aip_uuid",
    "aip_location",
    "attempts",
    "started_at",
    "finished_at",
    "failed_job",
    "failed_at",
    "reason",
)


def _may_run(request: HtmxHttpRequest) -> bool:
    return request.user.has_perm(ingest_runs.RUN_PERMISSION)


# --- the runs and a run ----------------------------------------------------------------


@dataclass(frozen=True)
class RunRow:
    summary: ingest_selectors.RunSummary
    status: vocabulary.Term
    pipelines: str


def _status_term(summary: ingest_selectors.RunSummary) -> vocabulary.Term:
    failed = summary.counts[IngestItem.State.FAILED]
    return vocabulary.ingest_run_status(summary.run.status, failures=failed)


@role_required
@require_GET
@vary_on_headers("HX-Request")
def run_list(request: HtmxHttpRequest) -> HttpResponse:
    page = Paginator(ingest_selectors.ingest_run_list(), RUNS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    names = {p.slug: p.name for p in pipeline_list()}
    rows = []
    for run in page.object_list:
        summary = ingest_selectors.ingest_run_summary(run)
        shown = ", ".join(names.get(slug, slug) for slug in run.pipelines)
        rows.append(RunRow(summary=summary, status=_status_term(summary), pipelines=shown))
    return _render_live(
        request,
        "dashboard/ingest_runs/run_list.html",
        "runs-live",
        {"section": "ingest-runs", "page": page, "rows": rows, "can_run": _may_run(request)},
    )


def _run_or_404(request: HtmxHttpRequest, run_id: int) -> IngestRun | HttpResponse:
    run = ingest_selectors.ingest_run_get(run_id=run_id)
    if run is None:
        return not_found(request, _("There is no ingest run %(id)s.") % {"id": run_id})
    return run


@dataclass(frozen=True)
class StateCount:
    term: vocabulary.Term
    count: int
    url: str
    current: bool


@role_required
@require_GET
@vary_on_headers("HX-Request")
def run_detail(request: HtmxHttpRequest, run_id: int) -> HttpResponse:
    run = _run_or_404(request, run_id)
    if isinstance(run, HttpResponse):
        return run
    summary = ingest_selectors.ingest_run_summary(run)
    form = IngestItemFilterForm(request.GET or None)
    state = form.chosen_state()
    here = reverse("dashboard:ingest-run-detail", args=[run.pk])
    page = Paginator(ingest_selectors.ingest_item_list(run=run, state=state), ITEMS_PER_PAGE)
    filter_query = urlencode({"state": state} if state else {})
    names = {p.slug: p.name for p in pipeline_list()}
    return _render_live(
        request,
        "dashboard/ingest_runs/run_detail.html",
        "run-live",
        {
            "section": "ingest-runs",
            "run": run,
            "summary": summary,
            "status": _status_term(summary),
            "states": [
                StateCount(
                    term=vocabulary.ingest_item_state(code),
                    count=count,
                    url=f"{here}?{urlencode({'state': code})}",
                    current=code == state,
                )
                for code, count in summary.counts.items()
            ],
            "waits": [(names.get(slug, slug), words) for slug, words in summary.waits.items()],
            "pipelines": [
                (names.get(slug, slug), (run.processing_configs or {}).get(slug, ""))
                for slug in run.pipelines
            ],
            "eta_left": (
                max(0.0, (summary.eta - timezone.now()).total_seconds()) if summary.eta else None
            ),
            "window": ingest_names.window_text(run.window_start, run.window_end),
            "form": form,
            "state": state,
            "state_term": vocabulary.ingest_item_state(state) if state else None,
            "filter_query": filter_query,
            "page": page.get_page(request.GET.get("page")),
            "all_url": here,
            "steering": _steering_links(request, run, summary),
            "transfer_type": vocabulary.transfer_type_label(run.transfer_type),
            "packages_url": reverse("dashboard:storage-package-list"),
        },
    )


def _steering_links(
    request: HtmxHttpRequest, run: IngestRun, summary: ingest_selectors.RunSummary
) -> list[tuple[SteerAction, str]]:
    if not _may_run(request):
        return []
    return [
        (action, reverse(f"dashboard:ingest-run-{action.slug}-confirm", args=[run.pk]))
        for action in STEER_ACTIONS
        if action.offered(run, summary)
    ]


def _csv_cell(value: Any) -> str:
    if value is None:
        return ""
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    return str(value)


@role_required
@require_GET
def run_report(request: HtmxHttpRequest, run_id: int) -> HttpResponse:
    """Every item of the run as CSV, one row each; keys in English for machines."""
    run = _run_or_404(request, run_id)
    if isinstance(run, HttpResponse):
        return run
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for item in ingest_selectors.ingest_item_list(run=run).iterator():
        writer.writerow([_csv_cell(getattr(item, column)) for column in _item_attrs()])
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    stamp = timezone.now().strftime("%Y%m%d-%H%M")
    response["Content-Disposition"] = (
        f'attachment; filename="lookout-ingest-run-{run.pk}-{stamp}.csv"'
    )
    return response


def _item_attrs() -> tuple[str, ...]:
    """The model attribute behind each CSV column (the path as shown, not raw bytes)."""
    return tuple("path_shown" if column == "path" else column for column in CSV_COLUMNS)


# --- a new run: source and folder, settings, confirmation --------------------------------


def _new_context(**context: Any) -> dict[str, Any]:
    return {
        "section": "ingest-runs",
        "storage_health": storage_selectors.storage_health(),
        **context,
    }


@role_required
@require_GET
def new_source(request: HtmxHttpRequest) -> HttpResponse:
    """Step 1: the transfer source location; its folders are browsed next."""
    if not _may_run(request):
        return forbidden(request, str(NEEDS))
    form = IngestSourceForm(request.GET if "location" in request.GET else None)
    if form.is_bound and form.is_valid():
        query = urlencode({"location": form.cleaned_data["location"]})
        return redirect(f"{reverse('dashboard:ingest-run-browse')}?{query}")
    return render(
        request,
        "dashboard/ingest_runs/new_source.html",
        _new_context(form=form, sources=transfer_sources()),
        status=400 if form.is_bound else 200,
    )


@role_required
@require_GET
@vary_on_headers("HX-Request")
def new_browse(request: HtmxHttpRequest) -> HttpResponse:
    """Step 1, continued: browse the location and use one folder."""
    if not _may_run(request):
        return forbidden(request, str(NEEDS))
    source = IngestSourceForm(request.GET)
    if not source.is_valid():
        messages.error(request, _("Choose a transfer source first."))
        return redirect("dashboard:ingest-run-new")
    location = storage_selectors.location_get(uuid=source.cleaned_data["location"])
    assert location is not None  # the form offered only known locations
    here = reverse("dashboard:ingest-run-browse")

    def url(raw: bytes) -> str:
        query = {"location": location.uuid, **({"path": encode_browse_path(raw)} if raw else {})}
        return f"{here}?{urlencode(query)}"

    picker = picker_context(location=location, path_text=request.GET.get("path", ""), url=url)
    context = _new_context(details_url=reverse("dashboard:ingest-run-details"), **picker)
    name = "dashboard/ingest_runs/new_browse.html"
    if request.htmx:
        name += "#pick-listing"
    return render(request, name, context, status=400 if picker["bad_path"] else 200)


def _details_page(
    request: HtmxHttpRequest, form: IngestRunForm, *, status: int = 200
) -> HttpResponse:
    source = form.data if form.is_bound else form.initial
    location_uuid = str(source.get("location") or "")
    browse_url = f"{reverse('dashboard:ingest-run-browse')}?" + urlencode(
        {"location": location_uuid, **({"path": source["folder"]} if source.get("folder") else {})}
    )
    return render(
        request,
        "dashboard/ingest_runs/new_details.html",
        _new_context(
            form=form,
            location=storage_selectors.location_get(uuid=location_uuid),
            browse_url=browse_url,
        ),
        status=status,
    )


def _checked(form: IngestRunForm) -> ingest_runs.IngestRunRequest | None:
    """The run the form asks for, after the run services' own checks (those that ask no
    service) were added to its fields; None when anything is wrong."""
    if not form.is_valid():
        return None
    request = ingest_runs.IngestRunRequest(**form.run_values())
    form.add_service_errors(ingest_runs.ingest_run_check(request))
    return None if form.errors else request


def _confirm_page(
    request: HtmxHttpRequest, form: IngestRunForm, *, key: str, status: int = 200
) -> HttpResponse:
    """Step 3: what was chosen, in words, and the one button that creates the run."""
    data = form.cleaned_data
    confirm = IngestRunConfirmForm(
        initial={
            **{name: value for name, value in data.items() if name != "folder"},
            "folder": form.encoded_folder(),
            "idempotency_key": key,
        }
    )
    names = {p.slug: p.name for p in pipeline_list()}
    return render(
        request,
        "dashboard/ingest_runs/new_confirm.html",
        _new_context(
            form=confirm,
            data=data,
            folder=form.folder_shown(),
            location=storage_selectors.location_get(uuid=data["location"]),
            pipelines=[
                (names.get(slug, slug), form.run_values()["processing_configs"][slug])
                for slug in data["pipelines"]
            ],
            type_label=vocabulary.transfer_type_label(data["transfer_type"]),
            depth_label=dict(form.fields["depth"].choices)[data["depth"]],  # type: ignore[attr-defined]
        ),
        status=status,
    )


@role_required
@require_http_methods(["GET", "POST"])
def new_details(request: HtmxHttpRequest) -> HttpResponse:
    """Step 2 (GET: the form for the chosen folder; POST: checked, then the confirmation)."""
    if not _may_run(request):
        return forbidden(request, str(NEEDS))
    if request.method == "POST":
        form = IngestRunForm(request.POST)
        if _checked(form) is not None:
            return _confirm_page(request, form, key=actions.idempotency_key_new())
        return _details_page(request, form, status=400)
    location = request.GET.get("location", "")
    folder = request.GET.get("folder", "")
    if not folder:
        messages.error(request, _("Choose the folder whose items are to be ingested."))
        target = reverse("dashboard:ingest-run-browse" if location else "dashboard:ingest-run-new")
        return redirect(f"{target}?{urlencode({'location': location})}" if location else target)
    initial = {"location": location, "folder": folder, "name": _default_name(folder)}
    return _details_page(request, IngestRunForm(initial=initial))


def _default_name(folder: str) -> str:
    form = IngestRunForm(initial={"folder": folder})
    return form.folder_shown().rsplit("/", 1)[-1]


@role_required
@require_POST
def new_submit(request: HtmxHttpRequest) -> HttpResponseBase:
    """Step 3's button: create the run once (its folder checked upstream), then show it."""
    if not _may_run(request):
        return forbidden(request, str(NEEDS))
    created: dict[str, IngestRun | None] = {}

    def perform(data: dict[str, Any]) -> actions.ActionResult | HttpResponseBase:
        form = IngestRunConfirmForm(request.POST)
        form.is_valid()  # valid: `confirmed_action` checked it
        try:
            outcome = ingest_runs.ingest_run_create(
                user=request.user,
                request=ingest_runs.IngestRunRequest(**form.run_values()),
                idempotency_key=data["idempotency_key"],
            )
        except ingest_runs.IngestRunInvalid as exc:
            # Found only now (the folder, asked of the storage service): the form again,
            # with what was typed and the message beside its field.
            details = IngestRunForm(request.POST)
            details.is_valid()
            details.add_service_errors(exc.errors)
            return _details_page(request, details, status=400)
        created["run"] = outcome.run
        return outcome.result

    def confirm_again(form: IngestRunConfirmForm, status: int) -> HttpResponse:
        details = IngestRunForm(form.data)
        if _checked(details) is not None:
            return _confirm_page(
                request, details, key=str(form.data["idempotency_key"]), status=status
            )
        return _details_page(request, details, status=status)

    def done_url(data: dict[str, Any]) -> str:
        run = created.get("run")
        if run is not None:
            return reverse("dashboard:ingest-run-detail", args=[run.pk])
        return reverse("dashboard:ingest-run-list")

    return confirmed_action(
        request,
        bind=IngestRunConfirmForm,
        perform=perform,
        done_text=_("Ingest run created"),
        confirm_again=confirm_again,
        done_url=done_url,
    )


# --- steering: pause, resume, cancel, retry failed items -----------------------------------


@dataclass(frozen=True)
class SteerAction:
    slug: str
    title: Any
    question: Any
    button: Any
    done_text: Any
    service: ingest_runs.Steering
    offered: Callable[[IngestRun, ingest_selectors.RunSummary], bool]
    danger: bool = False


S = IngestRun.Status
STEER_ACTIONS = (
    SteerAction(
        slug="pause",
        title=gettext_lazy("Pause the ingest run"),
        question=gettext_lazy(
            "Pause this run? Nothing new starts; transfers already started go on and are followed."
        ),
        button=gettext_lazy("Pause"),
        done_text=gettext_lazy("Ingest run paused"),
        service=ingest_runs.ingest_run_pause,
        offered=lambda run, summary: run.status in (S.QUEUED, S.RUNNING),
    ),
    SteerAction(
        slug="resume",
        title=gettext_lazy("Resume the ingest run"),
        question=gettext_lazy("Resume this run? Queued items start as slots free up."),
        button=gettext_lazy("Resume"),
        done_text=gettext_lazy("Ingest run resumed"),
        service=ingest_runs.ingest_run_resume,
        offered=lambda run, summary: run.status == S.PAUSED,
    ),
    SteerAction(
        slug="retry-failed",
        title=gettext_lazy("Retry the failed items"),
        question=gettext_lazy(
            "Queue every failed item again? Each failed item is retried once; an item that "
            "already was stays failed."
        ),
        button=gettext_lazy("Retry failed items"),
        done_text=gettext_lazy("Failed items queued again"),
        service=ingest_runs.ingest_run_retry_failed,
        offered=lambda run, summary: (
            run.status != S.CANCELLED and summary.counts[IngestItem.State.FAILED] > 0
        ),
    ),
    SteerAction(
        slug="cancel",
        title=gettext_lazy("Cancel the ingest run"),
        question=gettext_lazy(
            "Cancel this run? Its queued items are skipped and nothing new starts; transfers "
            "already started are not touched. A cancelled run cannot be resumed."
        ),
        button=gettext_lazy("Cancel the run"),
        done_text=gettext_lazy("Ingest run cancelled"),
        service=ingest_runs.ingest_run_cancel,
        offered=lambda run, summary: run.status in (S.QUEUED, S.RUNNING, S.PAUSED),
        danger=True,
    ),
)
STEER_BY_SLUG = {action.slug: action for action in STEER_ACTIONS}


def _steer_page(
    request: HtmxHttpRequest,
    action: SteerAction,
    run: IngestRun,
    form: ConfirmActionForm,
    status: int = 200,
) -> HttpResponse:
    context = {
        "run": run,
        "action": action,
        "action_url": reverse(f"dashboard:ingest-run-{action.slug}", args=[run.pk]),
        "cancel_url": reverse("dashboard:ingest-run-detail", args=[run.pk]),
        "form": form,
        "window": ingest_names.window_text(run.window_start, run.window_end),
    }
    name = "dashboard/ingest_runs/steer_confirm.html"
    if request.htmx:
        name += "#confirm-dialog"
    return render(request, name, context, status=status)


def _permitted_run(
    request: HtmxHttpRequest, run_id: int, slug: str
) -> tuple[SteerAction, IngestRun] | HttpResponse:
    if not _may_run(request):
        return forbidden(request, str(NEEDS))
    run = _run_or_404(request, run_id)
    if isinstance(run, HttpResponse):
        return run
    return STEER_BY_SLUG[slug], run


@role_required
@require_GET
def steer_confirm(request: HtmxHttpRequest, run_id: int, slug: str) -> HttpResponse:
    found = _permitted_run(request, run_id, slug)
    if isinstance(found, HttpResponse):
        return found
    action, run = found
    form = ConfirmActionForm(initial={"idempotency_key": actions.idempotency_key_new()})
    return _steer_page(request, action, run, form)


@role_required
@require_POST
def steer(request: HtmxHttpRequest, run_id: int, slug: str) -> HttpResponseBase:
    found = _permitted_run(request, run_id, slug)
    if isinstance(found, HttpResponse):
        return found
    action, run = found
    back = reverse("dashboard:ingest-run-detail", args=[run.pk])
    return confirmed_action(
        request,
        bind=ConfirmActionForm,
        perform=lambda data: action.service(
            user=request.user, run=run, idempotency_key=data["idempotency_key"]
        ),
        done_text=str(action.done_text),
        confirm_again=lambda form, status: _steer_page(request, action, run, form, status),
        done_url=lambda data: back,
    )
