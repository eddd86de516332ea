"""Ingest runs: creating one and steering it (pause, resume, cancel, retry failed items).

Each is an audited, idempotent action (`actions.action_perform`) under the
`run_ingest` permission. Creating a run checks its folder through the storage service:
an action the person asked for, so the one upstream call a request may make. The
items are listed and started by the scheduling task (`services.ingest_cycle`), never in
a request. What a run does, its states and settings: docs/ingest-runs.md.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from dashboard.clients.storage import (
    LocationPurpose,
    StorageError,
    StorageNotFound,
    get_storage_client,
)
from dashboard.clients.workflow import TransferType
from dashboard.lib import ingest_names
from dashboard.lib.pipelines import pipeline_get
from dashboard.models import AuditEntry, IngestItem, IngestRun
from dashboard.selectors import storage as storage_selectors
from dashboard.services.actions import (
    ActionNotPossible,
    ActionResult,
    UpstreamAnswer,
    action_perform,
)

RUN_PERMISSION = "dashboard.run_ingest"
CREATE_ACTION = "ingest_run_create"
MAX_DEPTH = 2
CANCELLED_REASON = "The run was cancelled before this item started."


class IngestRunInvalid(Exception):
    """Bad input: messages by field name ("" for the form as a whole)."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" if k else v for k, v in errors.items()))
        self.errors = dict(errors)


@dataclass(frozen=True)
class IngestRunRequest:
    """What the form (or the API) asks for; `path` is raw bytes relative to the location."""

    name: str
    source_location: str
    path: bytes
    pipelines: tuple[str, ...]
    # The processing configuration per pipeline slug; a pipeline left out uses "default".
    processing_configs: Mapping[str, str] = field(default_factory=dict)
    transfer_type: str = "standard"
    accession: str = ""
    auto_approve: bool = True
    max_in_flight: int = 2
    # "HH:MM-HH:MM" in each pipeline's time zone, or "" for any time.
    window: str = ""
    depth: int = 1
    watch: bool = False
    settle_seconds: int = 600
    hide_when_stored: bool = False
    skip_existing: bool = True

    @property
    def path_shown(self) -> str:
        return self.path.decode("utf-8", "backslashreplace")

    def parameters(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "source_location": self.source_location,
            "path": self.path_shown,
            "pipelines": list(self.pipelines),
            "processing_configs": dict(self.processing_configs),
            "transfer_type": self.transfer_type,
            "accession": self.accession,
            "auto_approve": self.auto_approve,
            "max_in_flight": self.max_in_flight,
            "window": self.window,
            "depth": self.depth,
            "watch": self.watch,
            "settle_seconds": self.settle_seconds,
            "hide_when_stored": self.hide_when_stored,
            "skip_existing": self.skip_existing,
        }


@dataclass(frozen=True)
class IngestRunCreated:
    run: IngestRun | None
    result: ActionResult


def ingest_run_check(request: IngestRunRequest) -> dict[str, str]:
    """The errors Lookout can tell without asking a service, by field."""
    errors: dict[str, str] = {}
    if not request.name.strip():
        errors["name"] = _("Give the run a name.")
    locations = storage_selectors.location_list()
    sources = {
        row.uuid
        for row in locations
        if row.purpose == LocationPurpose.TRANSFER_SOURCE and row.enabled
    }
    # Before the first storage poll nothing is known: the folder check decides alone.
    if locations and request.source_location not in sources:
        errors["source_location"] = _("This is not an enabled transfer source location.")
    if not request.pipelines:
        errors["pipelines"] = _("Choose at least one pipeline.")
    for slug in request.pipelines:
        pipeline = pipeline_get(slug)
        if pipeline is None:
            errors["pipelines"] = _("There is no pipeline %(slug)s.") % {"slug": slug}
            break
        config = request.processing_configs.get(slug, "default")
        if config not in pipeline.processing_configs:
            errors["processing_config"] = _(
                "Pipeline %(slug)s has no processing configuration %(name)s (it has: %(names)s)."
            ) % {"slug": slug, "name": config, "names": ", ".join(pipeline.processing_configs)}
    unknown_configs = set(request.processing_configs) - set(request.pipelines)
    if unknown_configs and "processing_config" not in errors:
        errors["processing_config"] = _(
            "A processing configuration was given for %(slug)s, which is not one of the "
            "run's pipelines."
        ) % {"slug": sorted(unknown_configs)[0]}
    if request.transfer_type not in {str(kind) for kind in TransferType}:
        errors["transfer_type"] = _("There is no transfer type %(type)s.") % {
            "type": request.transfer_type
        }
    if request.max_in_flight < 1:
        errors["max_in_flight"] = _("At least one transfer must be allowed in flight.")
    if request.depth not in range(1, MAX_DEPTH + 1):
        errors["depth"] = _("The depth is 1 (children) or 2 (grandchildren).")
    if request.settle_seconds < 0:
        errors["settle_seconds"] = _("The settle time cannot be negative.")
    try:
        ingest_names.window_parse(request.window)
    except ValueError as exc:
        errors["window"] = str(exc)
    pattern_error = ingest_names.accession_pattern_error(request.accession)
    if pattern_error:
        errors["accession"] = pattern_error
    return errors


def _folder_error(location: str, path: bytes) -> str:
    """Why the folder cannot be a run's ("" when it can): checked through the storage
    service, which lists a missing folder as empty, so the parent tells whether it is."""
    client = get_storage_client()
    try:
        parts = [part for part in path.split(b"/") if part]
        if parts:
            parent = client.browse_location(location, b"/".join(parts[:-1]))
            if parts[-1] not in {entry.raw_name for entry in parent.directories}:
                return _("There is no folder %(path)s in this location.") % {
                    "path": path.decode("utf-8", "backslashreplace")
                }
        listing = client.browse_location(location, b"/".join(parts))
    except StorageNotFound:
        return _("The storage service does not know this location.")
    except StorageError as exc:
        return _("The storage service could not list the folder: %(error)s") % {
            "error": exc.upstream_message or exc.message
        }
    if not any(
        ingest_names.is_item(entry.raw_name, is_directory=entry.is_directory)
        for entry in listing.entries
    ):
        return _("The folder holds no folder or zip, 7z or tar file to ingest.")
    return ""


def ingest_run_create(
    *,
    user: User | AnonymousUser,
    request: IngestRunRequest,
    idempotency_key: str,
    after_success: Callable[[], None] | None = None,
) -> IngestRunCreated:
    """Check the request (raising `IngestRunInvalid`) and record the run, queued for
    the scheduler; a repeated key returns the run the first request made."""
    if not user.is_authenticated or not user.has_perm(RUN_PERMISSION):
        # Before any upstream call: the folder check is an action too.
        raise PermissionDenied(f"{user.get_username() or 'anonymous'} may not run ingests")
    earlier = AuditEntry.objects.filter(idempotency_key=idempotency_key).first()
    if earlier is None:
        errors = ingest_run_check(request)
        if not errors:
            folder = _folder_error(request.source_location, request.path)
            if folder:
                errors["path"] = folder
        if errors:
            raise IngestRunInvalid(errors)

    def call() -> UpstreamAnswer:
        window = ingest_names.window_parse(request.window)
        now = timezone.now()
        run = IngestRun.objects.create(
            name=request.name.strip()[:200],
            source_location=request.source_location,
            path=request.path,
            path_shown=request.path_shown,
            pipelines=list(request.pipelines),
            processing_configs={
                slug: request.processing_configs.get(slug, "default") for slug in request.pipelines
            },
            transfer_type=request.transfer_type,
            accession=request.accession,
            auto_approve=request.auto_approve,
            max_in_flight=request.max_in_flight,
            window_start=window[0] if window else None,
            window_end=window[1] if window else None,
            depth=request.depth,
            watch=request.watch,
            settle_seconds=request.settle_seconds,
            hide_when_stored=request.hide_when_stored,
            skip_existing=request.skip_existing,
            created_by=user if isinstance(user, User) else None,
            created_by_name=user.get_username(),
            created_at=now,
        )
        return UpstreamAnswer(f"Created ingest run {run.pk}.", status=201)

    result = action_perform(
        user=user,
        permission=RUN_PERMISSION,
        action=CREATE_ACTION,
        idempotency_key=idempotency_key,
        target_kind="transfer source",
        target=f"{request.source_location}:{request.path_shown}"[:255],
        target_label=request.name[:255],
        parameters=request.parameters(),
        call=call,
        after_success=after_success,
    )
    return IngestRunCreated(run=created_run(result.entry), result=result)


def created_run(entry: AuditEntry) -> IngestRun | None:
    """The run an `ingest_run_create` row made."""
    if entry.action != CREATE_ACTION or entry.outcome != AuditEntry.Outcome.DONE:
        return None
    words = entry.upstream_message.removeprefix("Created ingest run ").rstrip(".")
    return IngestRun.objects.filter(pk=int(words)).first() if words.isdigit() else None


# --- steering ---------------------------------------------------------------------------


class Steering(Protocol):
    def __call__(
        self,
        *,
        user: User | AnonymousUser,
        run: IngestRun,
        idempotency_key: str,
        after_success: Callable[[], None] | None = None,
    ) -> ActionResult: ...


def _steering(action: str, change: Callable[[IngestRun], str], doc: str) -> Steering:
    """An audited, idempotent action on a run: `change` makes it (raising
    `ActionNotPossible` when it cannot) and says what it did."""

    def steer(
        *,
        user: User | AnonymousUser,
        run: IngestRun,
        idempotency_key: str,
        after_success: Callable[[], None] | None = None,
    ) -> ActionResult:
        return action_perform(
            user=user,
            permission=RUN_PERMISSION,
            action=action,
            idempotency_key=idempotency_key,
            target_kind="ingest run",
            target=f"ingest-run:{run.pk}",
            target_label=run.name,
            call=lambda: UpstreamAnswer(change(run)),
            after_success=after_success,
        )

    steer.__name__ = steer.__qualname__ = action
    steer.__doc__ = doc
    return steer


def _status_change(run: IngestRun, allowed: tuple[str, ...], new: str) -> bool:
    return bool(IngestRun.objects.filter(pk=run.pk, status__in=allowed).update(status=new))


def _pause(run: IngestRun) -> str:
    S = IngestRun.Status
    if not _status_change(run, (S.QUEUED, S.RUNNING), S.PAUSED):
        raise ActionNotPossible(_("Only a queued or running run can be paused."))
    return _("Paused: nothing new starts until the run is resumed.")


def _resume(run: IngestRun) -> str:
    S = IngestRun.Status
    if not _status_change(run, (S.PAUSED,), S.RUNNING):
        raise ActionNotPossible(_("Only a paused run can be resumed."))
    return _("Resumed: queued items start as slots free up.")


def _cancel(run: IngestRun) -> str:
    S = IngestRun.Status
    with transaction.atomic():
        if not _status_change(run, (S.QUEUED, S.RUNNING, S.PAUSED), S.CANCELLED):
            raise ActionNotPossible(_("This run has already ended."))
        skipped = IngestItem.objects.filter(run=run, state=IngestItem.State.QUEUED).update(
            state=IngestItem.State.SKIPPED,
            reason=CANCELLED_REASON,
            finished_at=timezone.now(),
            retry_at=None,
        )
    return _("Cancelled: %(count)d queued items skipped; transfers already started go on.") % {
        "count": skipped
    }


def _retry_failed(run: IngestRun) -> str:
    S = IngestRun.Status
    if IngestRun.objects.filter(pk=run.pk, status=S.CANCELLED).exists():
        raise ActionNotPossible(_("A cancelled run starts nothing new."))
    with transaction.atomic():
        again = IngestItem.objects.filter(
            run=run, state=IngestItem.State.FAILED, failed_retries=0
        ).update(
            state=IngestItem.State.QUEUED,
            failed_retries=F("failed_retries") + 1,
            pipeline="",
            transfer_uuid=None,
            sip_uuid=None,
            failed_job="",
            failed_at=None,
            started_at=None,
            finished_at=None,
            retry_at=None,
            reason="",
        )
        if again:
            IngestRun.objects.filter(pk=run.pk, status=S.FINISHED).update(
                status=S.RUNNING, finished_at=None
            )
    if not again:
        raise ActionNotPossible(_("No failed item is left to retry (each is retried once)."))
    return _("%(count)d failed items queued again.") % {"count": again}


ingest_run_pause = _steering(
    "ingest_run_pause", _pause, "Nothing new starts; what runs goes on and is followed."
)
ingest_run_resume = _steering("ingest_run_resume", _resume, "Queued items start again.")
ingest_run_cancel = _steering(
    "ingest_run_cancel",
    _cancel,
    "Nothing new starts, and what runs is never touched: queued items are skipped.",
)
ingest_run_retry_failed = _steering(
    "ingest_run_retry_failed",
    _retry_failed,
    "Queue every failed item again, once each: an item already retried stays failed.",
)


def path_from_b64(value: str) -> bytes:
    """A raw path sent as base64 (the API takes `path_b64` for names that are not UTF-8)."""
    return base64.b64decode(value, validate=True)
