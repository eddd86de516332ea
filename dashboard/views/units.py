"""The unit pages: overview, units, unit and job drill-down, waiting, audit, actions.

Pages read only the cache the pollers fill; nothing here calls an upstream service
except the POST actions, through `dashboard.services.actions`. Each page is one template with
a named live partial; htmx polls the page URL and gets just that partial back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from dashboard import tasks
from dashboard.forms.audit import AuditFilterForm
from dashboard.forms.units import (
    ConfirmActionForm,
    PartialReingestForm,
    TaskFilterForm,
    UnitFilterForm,
)
from dashboard.lib import page_cache
from dashboard.lib.htmx import HtmxHttpRequest
from dashboard.lib.pagination import KnownCountPaginator
from dashboard.lib.roles import user_has_role
from dashboard.models import Unit
from dashboard.selectors import alerts as alert_selectors
from dashboard.selectors import audit, failures, freshness, links
from dashboard.selectors import units as unit_selectors
from dashboard.selectors.bulk_hide import pending_hides
from dashboard.selectors.decisions import awaits_reingest_approval
from dashboard.selectors.summary import summary_get
from dashboard.services import actions, metadata_files, workflow_reingest
from dashboard.views.confirmation import confirmed_action

UNITS_PER_PAGE = 50
TASKS_PER_PAGE = 100
FAILED_TASKS_PER_PAGE = 20
WAITING_PER_PAGE = 50
AUDIT_PER_PAGE = 50
# Poll; static/dashboard/js/live.js holds requests while the tab is hidden and fires
# `lookout:visible` to catch up at once when it is shown. No trigger filter: those need
# eval, which the Content-Security-Policy forbids.
LIVE_TRIGGER = "every 5s, lookout:visible from:document"
# A cached live region lasts one polling interval at most, so its ages stay right.
LIVE_SECONDS = 5
NO_ROLE_MESSAGE = (
    "Your account has no Lookout role yet. Ask an administrator to put you in the "
    "viewer, operator or admin group."
)


View = Callable[..., HttpResponseBase]


def forbidden(request: HttpRequest, reason: str) -> HttpResponse:
    return render(request, "dashboard/forbidden.html", {"reason": reason}, status=403)


def not_found(request: HttpRequest, what: str) -> HttpResponse:
    return render(request, "dashboard/not_found.html", {"what": what}, status=404)


def _redirect(request: HtmxHttpRequest, url: str) -> HttpResponse:
    """A redirect that also works for htmx requests, which would otherwise swap the
    target page into a live region or dialog."""
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return redirect(url)


def role_required(view: View) -> View:
    """Anonymous users go to the login page; users without a role get a 403 page."""

    @wraps(view)
    def wrapper(request: HtmxHttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not request.user.is_authenticated:
            # A live region polling after the session ended sends the whole page to login.
            return _redirect(request, redirect_to_login(request.get_full_path())["Location"])
        if not user_has_role(request.user):
            return forbidden(request, NO_ROLE_MESSAGE)
        return view(request, *args, **kwargs)

    return wrapper


def _render_live(
    request: HtmxHttpRequest,
    template: str,
    partial: str,
    context: dict[str, Any],
    *,
    include_storage: bool = False,
) -> HttpResponse:
    """The full page, or only its live partial for an htmx poll."""
    context = {
        "freshness": freshness.page_freshness(include_storage=include_storage),
        "live_trigger": LIVE_TRIGGER,
        "rendered_at": timezone.now(),
        # Row links are built from this prefix: one reverse() per page, not per row.
        "units_url": reverse("dashboard:unit-list"),
        **context,
    }
    name = f"{template}#{partial}" if request.htmx else template
    return render(request, name, context)


# --- pages ---------------------------------------------------------------------------


@role_required
@require_GET
@vary_on_headers("HX-Request")
def home(request: HtmxHttpRequest) -> HttpResponse:
    live = page_cache.cached_fragment("overview", seconds=LIVE_SECONDS, render=_overview_live)
    if request.htmx:
        return HttpResponse(live)
    # The region was rendered by this view's own template, which escapes upstream data.
    return render(
        request,
        "dashboard/home.html",
        {"section": "home", "overview_live": mark_safe(live)},
    )


def _overview_live() -> str:
    """The overview's live region, the same for every viewer (no request, no user)."""
    context = {
        "freshness": freshness.page_freshness(include_storage=True),
        "live_trigger": LIVE_TRIGGER,
        "units_url": reverse("dashboard:unit-list"),
        "overview": unit_selectors.overview_get(),
        "open_alerts": alert_selectors.open_alerts_get(),
        "pipelines": summary_get().pipelines if unit_selectors.several_pipelines() else (),
        "failure_groups": failures.failure_groups(),
    }
    return render_to_string("dashboard/home.html#overview-live", context)


@role_required
@require_GET
@vary_on_headers("HX-Request")
def unit_list(request: HtmxHttpRequest) -> HttpResponse:
    form = UnitFilterForm(request.GET or None)
    filters = form.filters()
    failed_job = filters.get("failed_job", "")
    units = unit_selectors.unit_list(
        include_hidden=False, **{k: v for k, v in filters.items() if k != "failed_job"}
    )
    if failed_job:
        units = failures.failed_at_job(units, failed_job)
    failed_only = filters.get("status") == "FAILED" or bool(failed_job)
    known = unit_selectors.unit_list_count(**filters)
    paginator = (
        Paginator(units, UNITS_PER_PAGE)
        if known is None
        else KnownCountPaginator(units, UNITS_PER_PAGE, count=known)
    )
    page = paginator.get_page(request.GET.get("page"))
    can_hide = request.user.has_perm(actions.HIDE_PERMISSION)
    return _render_live(
        request,
        "dashboard/unit_list.html",
        "units-live",
        {
            "section": "units",
            "form": form,
            "filters": filters,
            "filter_query": urlencode(filters),
            "page": page,
            "multiple_pipelines": unit_selectors.several_pipelines(),
            "failed_only": failed_only,
            "failure_groups": (
                failures.failure_groups(pipeline=filters.get("pipeline"))
                if failed_only and not failed_job
                else []
            ),
            "can_hide": can_hide,
            # Each bulk hide in its undo window, with a one-time key for its Undo button.
            "pending_hides": [
                (pending, actions.idempotency_key_new())
                for pending in (pending_hides() if can_hide else [])
            ],
            "undo_seconds": settings.LOOKOUT_HIDE_UNDO_SECONDS,
        },
    )


@role_required
@require_GET
@vary_on_headers("HX-Request")
def unit_detail(request: HtmxHttpRequest, uuid: Any) -> HttpResponse:
    detail = unit_selectors.unit_detail_get(uuid=str(uuid))
    if detail is None:
        return not_found(request, "This unit is not known to Lookout (or not yet).")
    if not detail.jobs_fetched and not request.htmx:
        tasks.jobs_fetch_enqueue(detail.unit.pipeline, detail.unit.uuid)
    can_hide = (
        detail.unit.finished
        and not detail.unit.hidden
        and request.user.has_perm(actions.HIDE_PERMISSION)
    )
    may_reingest = request.user.has_perm(workflow_reingest.REINGEST_PERMISSION)
    failed_tasks = None
    if detail.failed_job is not None:
        failed_tasks = Paginator(
            failures.failed_job_tasks(detail.failed_job), FAILED_TASKS_PER_PAGE
        ).get_page(request.GET.get("page"))
    return _render_live(
        request,
        "dashboard/unit_detail.html",
        "unit-live",
        {
            "section": "units",
            "detail": detail,
            "unit": detail.unit,
            "can_hide": can_hide,
            "can_approve_reingest": may_reingest and awaits_reingest_approval(detail.unit),
            "can_start_reingest": may_reingest
            and workflow_reingest.reingest_startable(detail.unit),
            "can_add_metadata": request.user.has_perm(metadata_files.METADATA_PERMISSION)
            and metadata_files.metadata_files_addable(detail.unit),
            "failed_tasks": failed_tasks,
            "failing_task_count": (
                failures.failing_task_count(detail.failed_job) if detail.failed_job else 0
            ),
            "service_url": failures.unit_service_url(detail.unit),
            "packages": links.unit_packages(unit=detail.unit),
            "sip_unit": detail.unit.sip_uuid and unit_selectors.unit_get(uuid=detail.unit.sip_uuid),
            "transfer_unit": detail.unit.transfer_uuid
            and unit_selectors.unit_get(uuid=detail.unit.transfer_uuid),
        },
    )


@role_required
@require_GET
@vary_on_headers("HX-Request")
def job_detail(request: HtmxHttpRequest, uuid: Any, job_uuid: Any) -> HttpResponse:
    form = TaskFilterForm(request.GET or None)
    nonzero_only = form.is_valid() and form.cleaned_data["nonzero"]
    detail = unit_selectors.job_detail_get(
        unit_uuid=str(uuid), job_uuid=str(job_uuid), nonzero_only=nonzero_only
    )
    if detail is None:
        return not_found(request, "This job is not in what Lookout has fetched for the unit.")
    page = Paginator(detail.tasks, TASKS_PER_PAGE).get_page(request.GET.get("page"))
    return _render_live(
        request,
        "dashboard/job_detail.html",
        "tasks-live",
        {
            "section": "units",
            "detail": detail,
            "unit": detail.unit,
            "job": detail.job,
            "nonzero_only": nonzero_only,
            "filter_query": "nonzero=1" if nonzero_only else "",
            "page": page,
        },
    )


@role_required
@require_GET
@vary_on_headers("HX-Request")
def waiting_list(request: HtmxHttpRequest) -> HttpResponse:
    return _render_live(
        request,
        "dashboard/waiting_list.html",
        "waiting-live",
        {
            "section": "waiting",
            "page": Paginator(unit_selectors.waiting_entries(), WAITING_PER_PAGE).get_page(
                request.GET.get("page")
            ),
            "can_approve": request.user.has_perm(actions.APPROVE_PERMISSION),
            "can_approve_reingest": request.user.has_perm(workflow_reingest.REINGEST_PERMISSION),
        },
    )


@role_required
@require_GET
@vary_on_headers("HX-Request")
def audit_list(request: HtmxHttpRequest) -> HttpResponse:
    if not request.user.has_perm("dashboard.view_audit"):
        return forbidden(request, "Reading the audit log needs the operator or admin role.")
    form = AuditFilterForm(request.GET or None)
    filters = form.filters()
    page = Paginator(audit.audit_entries(**filters), AUDIT_PER_PAGE).get_page(
        request.GET.get("page")
    )
    return _render_live(
        request,
        "dashboard/audit_list.html",
        "audit-live",
        {
            "section": "audit",
            "page": page,
            "form": form,
            "filters": filters,
            "filter_query": urlencode(filters),
            "packages_url": reverse("dashboard:storage-package-list"),
            "unit_kinds": ("transfer", "sip", "unit"),
        },
    )


# --- actions: a confirmation step (GET), then the action itself (POST) -----------------


def _safe_next(request: HttpRequest, candidate: str | None, default: str) -> str:
    if candidate and url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return default


def _unit_page(unit: Unit) -> str:
    return reverse("dashboard:unit-detail", args=[unit.uuid])


def _waiting_page(unit: Unit) -> str:
    return reverse("dashboard:waiting-list")


def _no_initial(unit: Unit) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class UnitAction:
    """One action on a unit: what its confirmation page (GET) and its POST both need."""

    permission: str
    # Why a user without the permission is refused.
    needs: str
    # Whether the confirmation is offered now; on POST the service checks again, and audits.
    ready: Callable[[Unit], bool]
    not_ready: str
    # Where Cancel, a unit that is not ready and a done action (without ?next=) go.
    back_url: Callable[[Unit], str]
    title: str
    question: str
    button: str
    post_url_name: str
    service: Callable[..., actions.ActionResult]
    done_text: str
    form_class: type[ConfirmActionForm] = ConfirmActionForm
    # What the user types on the confirmation page, handed to the service by field name.
    typed_fields: tuple[str, ...] = ()
    # What those fields hold when the confirmation page opens.
    initial: Callable[[Unit], dict[str, Any]] = _no_initial


TRANSFER_APPROVE = UnitAction(
    permission=actions.APPROVE_PERMISSION,
    needs="Approving transfers needs the operator or admin role.",
    ready=lambda unit: unit.approvable,
    not_ready="This transfer is not waiting for approval (any more).",
    back_url=_waiting_page,
    title="Approve transfer",
    question="Approve this transfer? The workflow service starts processing it.",
    button="Approve transfer",
    post_url_name="dashboard:transfer-approve",
    service=actions.transfer_approve,
    done_text="Approved",
)
UNIT_HIDE = UnitAction(
    permission=actions.HIDE_PERMISSION,
    needs="Hiding units needs the operator or admin role.",
    ready=lambda unit: unit.finished,
    not_ready="Only a completed, failed or rejected unit can be hidden.",
    back_url=_unit_page,
    title="Hide unit",
    question=(
        "Hide this finished unit? It disappears from the lists here and in the "
        "workflow service's dashboard; nothing is deleted."
    ),
    button="Hide unit",
    post_url_name="dashboard:unit-hide",
    service=actions.unit_hide,
    done_text="Hidden",
)
REINGEST_NEEDS = "Reingesting needs the operator or admin role."
REINGEST_APPROVE = UnitAction(
    permission=workflow_reingest.REINGEST_PERMISSION,
    needs=REINGEST_NEEDS,
    ready=awaits_reingest_approval,
    not_ready="This SIP is not waiting for a partial reingest approval (any more).",
    back_url=_unit_page,
    title="Approve partial reingest",
    question=(
        "Approve this partial reingest? The workflow service goes on with the SIP's "
        "ingest and stores the AIP again."
    ),
    button="Approve reingest",
    post_url_name="dashboard:reingest-approve",
    service=workflow_reingest.partial_reingest_approve,
    done_text="Reingest approved",
)
REINGEST_START = UnitAction(
    permission=workflow_reingest.REINGEST_PERMISSION,
    needs=REINGEST_NEEDS,
    ready=workflow_reingest.reingest_startable,
    not_ready="Only a completed SIP can be reingested from here.",
    back_url=_unit_page,
    title="Partial reingest",
    question=(
        "Start a partial reingest of this SIP's AIP? The workflow service takes the AIP "
        "from its shared tmp area (the storage service puts it there when a reingest is "
        "requested on its side), and the SIP waits for the reingest to be approved."
    ),
    button="Start partial reingest",
    post_url_name="dashboard:reingest-start",
    service=workflow_reingest.partial_reingest_start,
    done_text="Reingest started",
    form_class=PartialReingestForm,
    typed_fields=("name",),
    initial=lambda unit: {"name": workflow_reingest.default_reingest_name(unit)},
)


def _confirm_page(
    request: HtmxHttpRequest,
    action: UnitAction,
    unit: Unit,
    form: ConfirmActionForm,
    status: int = 200,
) -> HttpResponse:
    context = {
        "unit": unit,
        "title": action.title,
        "question": action.question,
        "button": action.button,
        "action_url": reverse(action.post_url_name, args=[unit.uuid]),
        "cancel_url": action.back_url(unit),
        "form": form,
    }
    name = "dashboard/confirm_action.html"
    if request.htmx:
        name += "#confirm-dialog"
    return render(request, name, context, status=status)


def _permitted_unit(request: HtmxHttpRequest, uuid: Any, action: UnitAction) -> Unit | HttpResponse:
    """The unit, or the page that says why the user may not act on it."""
    if not request.user.has_perm(action.permission):
        return forbidden(request, action.needs)
    unit = unit_selectors.unit_get(uuid=str(uuid))
    if unit is None:
        return not_found(request, "This unit is not known to Lookout (or not yet).")
    return unit


def _action_confirm(request: HtmxHttpRequest, uuid: Any, action: UnitAction) -> HttpResponse:
    unit = _permitted_unit(request, uuid, action)
    if isinstance(unit, HttpResponse):
        return unit
    if not action.ready(unit):
        messages.info(request, action.not_ready)
        return _redirect(request, action.back_url(unit))
    form = action.form_class(
        initial={
            "idempotency_key": actions.idempotency_key_new(),
            "next": _safe_next(request, request.GET.get("next"), action.back_url(unit)),
            **action.initial(unit),
        }
    )
    return _confirm_page(request, action, unit, form)


def _action_perform(request: HtmxHttpRequest, uuid: Any, action: UnitAction) -> HttpResponseBase:
    unit = _permitted_unit(request, uuid, action)
    if isinstance(unit, HttpResponse):
        return unit
    return confirmed_action(
        request,
        bind=action.form_class,
        perform=lambda data: action.service(
            user=request.user,
            unit=unit,
            idempotency_key=data["idempotency_key"],
            after_success=lambda: tasks.poll_pipeline_enqueue(unit.pipeline),
            **{field: data[field] for field in action.typed_fields},
        ),
        done_text=action.done_text,
        confirm_again=lambda form, status: _confirm_page(request, action, unit, form, status),
        done_url=lambda data: _safe_next(request, data.get("next"), action.back_url(unit)),
    )


@role_required
@require_GET
def transfer_approve_confirm(request: HtmxHttpRequest, uuid: Any) -> HttpResponse:
    return _action_confirm(request, uuid, TRANSFER_APPROVE)


@role_required
@require_POST
def transfer_approve(request: HtmxHttpRequest, uuid: Any) -> HttpResponseBase:
    return _action_perform(request, uuid, TRANSFER_APPROVE)


@role_required
@require_GET
def unit_hide_confirm(request: HtmxHttpRequest, uuid: Any) -> HttpResponse:
    return _action_confirm(request, uuid, UNIT_HIDE)


@role_required
@require_POST
def unit_hide(request: HtmxHttpRequest, uuid: Any) -> HttpResponseBase:
    return _action_perform(request, uuid, UNIT_HIDE)


# --- partial reingest from the workflow side ---------------------------------------------


@role_required
@require_GET
def reingest_approve_confirm(request: HtmxHttpRequest, uuid: Any) -> HttpResponse:
    return _action_confirm(request, uuid, REINGEST_APPROVE)


@role_required
@require_POST
def reingest_approve(request: HtmxHttpRequest, uuid: Any) -> HttpResponseBase:
    return _action_perform(request, uuid, REINGEST_APPROVE)


@role_required
@require_GET
def reingest_start_confirm(request: HtmxHttpRequest, uuid: Any) -> HttpResponse:
    return _action_confirm(request, uuid, REINGEST_START)


@role_required
@require_POST
def reingest_start(request: HtmxHttpRequest, uuid: Any) -> HttpResponseBase:
    return _action_perform(request, uuid, REINGEST_START)
