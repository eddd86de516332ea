"""The storage pages: overview, location browse, packages, and the package operations.

Pages render what the storage poller and the storage tasks stored; a browse listing is
fetched by a task and the page polls until it is there. Only the POST operations go to
the storage service while a person waits, through `dashboard.services.package_actions`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseBase, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_http_methods
from django.views.decorators.vary import vary_on_headers
from django_stubs_ext import StrOrPromise

from dashboard import tasks
from dashboard.forms.storage import (
    BrowsePathForm,
    MoveForm,
    PackageConfirmForm,
    PackageFilterForm,
    PackageRequestForm,
    ReingestForm,
    encode_browse_path,
)
from dashboard.forms.units import ConfirmActionForm
from dashboard.lib.htmx import HtmxHttpRequest
from dashboard.models import StoragePackage
from dashboard.selectors import links
from dashboard.selectors import storage as storage_selectors
from dashboard.services import actions, package_actions
from dashboard.views.confirmation import confirmed_action
from dashboard.views.feedback import action_report
from dashboard.views.units import LIVE_TRIGGER, forbidden, not_found, role_required

PACKAGES_PER_PAGE = 50
# The storage poller runs about once a minute: no need to ask more often.
STORAGE_LIVE_TRIGGER = LIVE_TRIGGER.replace("every 5s", "every 15s")
# While a fixity check or a details fetch is under way, look sooner.
BUSY_LIVE_TRIGGER = LIVE_TRIGGER.replace("every 5s", "every 3s")
# A folder listing usually arrives within a second: someone is looking at "Loading…".
LISTING_LIVE_TRIGGER = LIVE_TRIGGER.replace("every 5s", "every 1s")


def _storage_context(**context: Any) -> dict[str, Any]:
    return {
        "section": "storage",
        "health": storage_selectors.storage_health(),
        "mirror": storage_selectors.mirror_status(),
        "rendered_at": timezone.now(),
        **context,
    }


def _render(
    request: HtmxHttpRequest,
    template: str,
    partial: str,
    context: dict[str, Any],
    status: int = 200,
) -> HttpResponse:
    """The full page, or only its live partial for an htmx request."""
    name = f"{template}#{partial}" if request.htmx else template
    return render(request, name, _storage_context(**context), status=status)


# --------------------------------------------------------------------------- pages


@role_required
@require_GET
@vary_on_headers("HX-Request")
def overview(request: HtmxHttpRequest) -> HttpResponse:
    return _render(
        request,
        "dashboard/storage/overview.html",
        "storage-live",
        {"overview": storage_selectors.storage_overview(), "live_trigger": STORAGE_LIVE_TRIGGER},
    )


@role_required
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def location_browse(request: HtmxHttpRequest, uuid: Any) -> HttpResponse:
    """One directory of a location, as a task last listed it.

    Nothing stored yet (or stored a while ago): a fetch is queued and the listing part
    polls until it arrives. POST is the Refresh button: it queues a fresh fetch.
    """
    location = storage_selectors.location_get(uuid=str(uuid))
    if location is None:
        return not_found(request, _("This location is not known to Lookout (or not yet)."))
    form = BrowsePathForm(request.GET)
    if not form.is_valid():
        return _render(
            request,
            "dashboard/storage/location_browse.html",
            "browse-listing",
            {
                "location": location,
                # An ErrorList yields its messages (str); the stubs say ValidationError | str.
                "error": "; ".join(form.errors.get("path", [])),  # type: ignore[arg-type]
                "path_invalid": True,
                "rows": [],
                "crumbs": [
                    (crumb, "")
                    for crumb in storage_selectors.browse_breadcrumbs(
                        location_label=location.label, path=b""
                    )
                ],
            },
            status=400,
        )
    path: bytes = form.cleaned_data["path"]
    browse_url = reverse("dashboard:storage-location", args=[location.uuid])
    if path:
        browse_url += f"?path={encode_browse_path(path)}"
    listing = storage_selectors.location_listing_get(location_uuid=location.uuid, path=path)
    queued = False
    if request.method == "POST" or listing is None or listing.stale:
        queued = tasks.location_listing_enqueue(location.uuid, path)
    if request.method == "POST" and not request.htmx:
        return redirect(browse_url)
    rows: list[storage_selectors.BrowseRow] = []
    if listing is not None and listing.entries is not None:
        rows = storage_selectors.browse_rows(entries=listing.entries, path=path)
    return _render(
        request,
        "dashboard/storage/location_browse.html",
        "browse-listing",
        {
            "location": location,
            "path": path,
            "browse_url": browse_url,
            "listing": listing,
            "waiting": listing is None or listing.refreshing or queued,
            "live_trigger": LISTING_LIVE_TRIGGER,
            "rows": [(row, encode_browse_path(row.raw_path)) for row in rows],
            "crumbs": [
                (crumb, encode_browse_path(crumb.raw_path))
                for crumb in storage_selectors.browse_breadcrumbs(
                    location_label=location.label, path=path
                )
            ],
            "error": listing.error if listing is not None else "",
        },
    )


@role_required
@require_GET
@vary_on_headers("HX-Request")
def package_list(request: HtmxHttpRequest) -> HttpResponse:
    form = PackageFilterForm(request.GET or None)
    filters = form.filters()
    sort = form.chosen_sort()
    packages = storage_selectors.package_list(**filters, sort=sort)
    page = Paginator(packages, PACKAGES_PER_PAGE).get_page(request.GET.get("page"))
    query = {**filters, **({"sort": sort} if sort != storage_selectors.DEFAULT_SORT else {})}
    return _render(
        request,
        "dashboard/storage/package_list.html",
        "packages-live",
        {
            "form": form,
            "filters": filters,
            "filter_query": urlencode(query),
            "page": page,
            "rows": storage_selectors.package_rows(page.object_list),
            "live_trigger": STORAGE_LIVE_TRIGGER,
        },
    )


@role_required
@require_GET
@vary_on_headers("HX-Request")
def package_detail(request: HtmxHttpRequest, uuid: Any) -> HttpResponse:
    detail = storage_selectors.package_detail(uuid=str(uuid))
    if detail is None:
        return not_found(request, _("This package is not known to Lookout (or not yet)."))
    if detail.details is None:
        # Contents and pointer file come from a task; the page polls until they are here.
        tasks.package_details_enqueue(detail.package.uuid)
    busy = detail.details is None or detail.fixity_running
    operations = [
        op
        for op in storage_selectors.package_operations(package=detail.package)
        if request.user.has_perm(op.permission)
    ]
    return _render(
        request,
        "dashboard/storage/package_detail.html",
        "package-live",
        {
            "detail": detail,
            "package": detail.package,
            "units": links.package_units(package=detail.package),
            "units_url": reverse("dashboard:unit-list"),
            "operations": operations,
            "live_trigger": BUSY_LIVE_TRIGGER if busy else STORAGE_LIVE_TRIGGER,
        },
    )


# --------------------------------------------------------------------------- operations


@dataclass(frozen=True)
class Operation:
    name: str
    permission: str
    title: StrOrPromise
    question: StrOrPromise
    button: StrOrPromise
    form_class: type[forms.Form]
    # Runs the action with the validated form data (None: the download, streamed instead).
    perform: Callable[..., actions.ActionResult] | None
    done_text: StrOrPromise
    # Words for a refusal of the permission.
    needs: StrOrPromise


def _fixity(*, user: Any, package: StoragePackage, data: dict[str, Any]) -> actions.ActionResult:
    return package_actions.package_fixity_check(
        user=user,
        package=package,
        idempotency_key=data["idempotency_key"],
        run_check=tasks.fixity_check_enqueue,
    )


def _request(kind: Literal["deletion", "recovery"]) -> Callable[..., actions.ActionResult]:
    def perform(
        *, user: Any, package: StoragePackage, data: dict[str, Any]
    ) -> actions.ActionResult:
        return package_actions.package_request(
            kind=kind,
            user=user,
            package=package,
            pipeline_uuid=data["pipeline"],
            reason=data["reason"],
            idempotency_key=data["idempotency_key"],
            after_success=tasks.poll_storage_enqueue,
        )

    return perform


def _reingest(*, user: Any, package: StoragePackage, data: dict[str, Any]) -> actions.ActionResult:
    return package_actions.package_reingest(
        user=user,
        package=package,
        pipeline_uuid=data["pipeline"],
        reingest_type=data["reingest_type"],
        processing_config=data["processing_config"],
        idempotency_key=data["idempotency_key"],
        after_success=tasks.poll_storage_enqueue,
    )


def _move(*, user: Any, package: StoragePackage, data: dict[str, Any]) -> actions.ActionResult:
    return package_actions.package_move(
        user=user,
        package=package,
        location_uuid=data["location"],
        idempotency_key=data["idempotency_key"],
        after_success=tasks.poll_storage_enqueue,
    )


OPERATIONS = {
    "fixity": Operation(
        "fixity",
        package_actions.OPERATE_PERMISSION,
        _("Check fixity"),
        _(
            "Ask the storage service to check this package's checksums? It runs in the "
            "background; the result is added to the fixity history."
        ),
        _("Check fixity"),
        PackageConfirmForm,
        _fixity,
        _("Fixity check"),
        _("Package operations need the operator or admin role."),
    ),
    "delete": Operation(
        "delete",
        package_actions.DELETION_PERMISSION,
        _("Request deletion"),
        _(
            "Ask the storage service to delete this package? Its administrators approve or "
            "reject the request. Your Lookout user id and e-mail address are sent with it."
        ),
        _("Request deletion"),
        PackageRequestForm,
        _request("deletion"),
        _("Deletion requested"),
        _("Deletion and recovery requests need the operator or admin role."),
    ),
    "recover": Operation(
        "recover",
        package_actions.DELETION_PERMISSION,
        _("Request recovery"),
        _(
            "Ask the storage service to recover this AIP from its recovery location? Its "
            "administrators approve or reject the request. Your Lookout user id and e-mail "
            "address are sent with it."
        ),
        _("Request recovery"),
        PackageRequestForm,
        _request("recovery"),
        _("Recovery requested"),
        _("Deletion and recovery requests need the operator or admin role."),
    ),
    "reingest": Operation(
        "reingest",
        package_actions.REINGEST_PERMISSION,
        _("Reingest"),
        _("Send this package to a pipeline for reingest?"),
        _("Start reingest"),
        ReingestForm,
        _reingest,
        _("Reingest started"),
        _("Reingest needs the operator or admin role."),
    ),
    "move": Operation(
        "move",
        package_actions.OPERATE_PERMISSION,
        _("Move package"),
        _("Move this package to another location with the same purpose?"),
        _("Move package"),
        MoveForm,
        _move,
        _("Move started"),
        _("Package operations need the operator or admin role."),
    ),
    "download": Operation(
        "download",
        package_actions.OPERATE_PERMISSION,
        _("Download package"),
        _(
            "Download the whole package? It is streamed from the storage service through "
            "Lookout and can be large."
        ),
        _("Download"),
        PackageConfirmForm,
        None,
        _("Downloaded"),
        _("Package operations need the operator or admin role."),
    ),
}


def _form(
    operation: Operation, package: StoragePackage, data: Any = None, **initial: Any
) -> forms.Form:
    kwargs: dict[str, Any] = {}
    if operation.form_class is not PackageConfirmForm:
        kwargs["package"] = package
    if data is None:
        initial.setdefault("idempotency_key", actions.idempotency_key_new())
        return operation.form_class(initial=initial, **kwargs)
    return operation.form_class(data, **kwargs)


def _confirm_page(
    request: HtmxHttpRequest,
    operation: Operation,
    package: StoragePackage,
    form: forms.Form,
    status: int = 200,
) -> HttpResponse:
    context = {
        "operation": operation,
        "package": package,
        "form": form,
        "action_url": reverse(f"dashboard:storage-package-{operation.name}", args=[package.uuid]),
        "cancel_url": reverse("dashboard:storage-package-detail", args=[package.uuid]),
    }
    name = "dashboard/storage/package_action.html"
    if request.htmx:
        name += "#action-form"
    return render(request, name, _storage_context(**context), status=status)


def _package_operation(request: HtmxHttpRequest, uuid: Any, name: str) -> HttpResponseBase:
    operation = OPERATIONS[name]
    if not request.user.has_perm(operation.permission):
        return forbidden(request, operation.needs)
    package = storage_selectors.package_get(uuid=str(uuid))
    if package is None:
        return not_found(request, _("This package is not known to Lookout (or not yet)."))
    # GET and POST both ask the one selector whether this package is offered it now.
    offered = storage_selectors.package_operation_get(package=package, name=name)
    refusal = offered.reason if offered is not None and not offered.available else ""
    if request.method == "GET":
        if refusal:
            messages.info(
                request,
                _("%(operation)s is not offered: %(reason)s")
                % {"operation": operation.title, "reason": refusal},
            )
            return redirect("dashboard:storage-package-detail", package.uuid)
        return _confirm_page(request, operation, package, _form(operation, package))

    token = ConfirmActionForm(request.POST)
    key = token.cleaned_data["idempotency_key"] if token.is_valid() else None
    if key is not None:
        earlier = package_actions.repeated_submit_get(
            user=request.user, package=package, idempotency_key=key
        )
        if earlier is not None:
            action_report(request, earlier, operation.done_text)
            return redirect("dashboard:storage-package-detail", package.uuid)
    if refusal:
        # A POST no page offered (crafted, or sent from a page older than the package's
        # state): refused and audited with the reason, whatever the form holds.
        result = package_actions.package_operation_refuse(
            user=request.user,
            package=package,
            name=name,
            idempotency_key=key or actions.idempotency_key_new(),
        )
        action_report(request, result, operation.done_text)
        return redirect("dashboard:storage-package-detail", package.uuid)
    return confirmed_action(
        request,
        bind=lambda data: _form(operation, package, data),
        perform=lambda data: (
            _download(request, package, data["idempotency_key"])
            if operation.perform is None
            else operation.perform(user=request.user, package=package, data=data)
        ),
        done_text=operation.done_text,
        confirm_again=lambda form, status: _confirm_page(request, operation, package, form, status),
        done_url=lambda data: reverse("dashboard:storage-package-detail", args=[package.uuid]),
    )


def _download(request: HttpRequest, package: StoragePackage, key: str) -> HttpResponseBase:
    result, opened = package_actions.package_download(
        user=request.user, package=package, idempotency_key=key
    )
    if opened is None:
        if result.repeated:
            messages.info(
                request,
                _(
                    "This download confirmation was already used. "
                    "Confirm again to download once more."
                ),
            )
        else:
            action_report(request, result, "Downloaded")
        return redirect("dashboard:storage-package-detail", package.uuid)
    download = opened.download
    # Streamed chunk by chunk: the package never sits in Lookout's memory.
    response = StreamingHttpResponse(opened.chunks(), content_type=download.content_type)
    response["Content-Disposition"] = _attachment(download.filename)
    if download.size is not None:
        response["Content-Length"] = str(download.size)
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "no-store"
    return response


def _attachment(filename: str) -> str:
    from django.utils.http import content_disposition_header

    # With as_attachment=True there is always a header; the stubs say str | None.
    return content_disposition_header(as_attachment=True, filename=filename or "package")  # type: ignore[return-value]


def _operation_view(name: str) -> Callable[..., HttpResponseBase]:
    @role_required
    @require_http_methods(["GET", "POST"])
    def view(request: HtmxHttpRequest, uuid: Any) -> HttpResponseBase:
        return _package_operation(request, uuid, name)

    view.__name__ = view.__qualname__ = f"package_{name}"
    return view


package_fixity = _operation_view("fixity")
package_download = _operation_view("download")
package_delete = _operation_view("delete")
package_recover = _operation_view("recover")
package_reingest = _operation_view("reingest")
package_move = _operation_view("move")
