"""Starting a transfer: one audited, idempotent action (see `actions.action_perform`).

One folder goes to `POST /api/v2beta/package` (the folder as base64 of
`<location uuid>:<path>`). A service without that endpoint answers 404, and some answer
400 "Unable to determine ..."; then, and for several folders at once (the package
endpoint takes one path), the transfer is started with `start_transfer` and, when asked
to, approved. The new transfer is registered at once, so its page exists before the
next discovery cycle; the audit row keeps the service's answer with the transfer's UUID.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser, User

from dashboard.clients.workflow import (
    WorkflowClient,
    WorkflowError,
    WorkflowNotFound,
    get_workflow_client,
)
from dashboard.lib.pipelines import pipeline_get
from dashboard.models import AuditEntry
from dashboard.services import units as unit_services
from dashboard.services.actions import (
    ActionNotPossible,
    ActionResult,
    UpstreamAnswer,
    action_perform,
)

log = logging.getLogger(__name__)

START_PERMISSION = "dashboard.start_transfer"
START_ACTION = "transfer_start"
# The messages below name the new transfer this way; `started_transfer_uuid` reads it back.
_STARTED = re.compile(
    r"\btransfer ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b"
)


@dataclass(frozen=True)
class TransferRequest:
    """What the wizard (or the API) asks for; paths are raw bytes, relative to the location."""

    pipeline: str
    location_uuid: str
    paths: tuple[bytes, ...]
    name: str
    transfer_type: str = "standard"
    accession: str = ""
    processing_config: str = "default"
    auto_approve: bool = True

    @classmethod
    def from_cleaned(cls, data: Mapping[str, Any], *, paths: Sequence[bytes]) -> TransferRequest:
        """From a validated form's or serializer's data (the same field names in both)."""
        return cls(
            pipeline=data["pipeline"],
            location_uuid=data["location"],
            paths=tuple(paths),
            name=data["name"],
            transfer_type=data["transfer_type"],
            accession=data["accession"],
            processing_config=data["processing_config"],
            auto_approve=data["auto_approve"],
        )

    def shown_paths(self) -> list[str]:
        return [path.decode("utf-8", "backslashreplace") for path in self.paths]

    def parameters(self) -> dict[str, Any]:
        return {
            "location": self.location_uuid,
            "paths": self.shown_paths(),
            "name": self.name,
            "transfer_type": self.transfer_type,
            "accession": self.accession,
            "processing_config": self.processing_config,
            "auto_approve": self.auto_approve,
        }


def started_transfer_uuid(entry: AuditEntry) -> str | None:
    """The UUID of the transfer a done `transfer_start` row started, when it is known."""
    if entry.action != START_ACTION or entry.outcome != AuditEntry.Outcome.DONE:
        return None
    match = _STARTED.search(entry.upstream_message)
    return match.group(1) if match else None


def _package_endpoint_missing(exc: WorkflowError) -> bool:
    """404, or the 400 "unable to determine" some releases give for the package endpoint."""
    if isinstance(exc, WorkflowNotFound) or exc.status == 404:
        return True
    words = f"{exc.upstream_message or ''} {exc.message}".lower()
    return exc.status == 400 and "unable to determine" in words


def _via_start_transfer(
    client: WorkflowClient, request: TransferRequest, why: str
) -> UpstreamAnswer:
    started = client.start_transfer(
        name=request.name,
        transfer_type=request.transfer_type,
        accession=request.accession,
        paths=[(request.location_uuid, path) for path in request.paths],
    )
    note = (
        f"{why} The workflow service copied it to {started.path} (start_transfer; the "
        "service's own processing configuration applies)."
    )
    uuid = started.transfer_uuid
    if request.auto_approve:
        directory = started.path.rstrip("/").rsplit("/", 1)[-1]
        try:
            approval = client.approve_transfer(
                directory=directory, transfer_type=request.transfer_type
            )
        except WorkflowError as exc:
            words = exc.upstream_message or exc.message
            if uuid is None:
                return UpstreamAnswer(
                    f"{note} Approving it failed ({words}); it waits for approval on the "
                    "Waiting page once the next poll finds it."
                )
            _register(request, uuid)
            return UpstreamAnswer(
                f"Started transfer {uuid}. {note} Approving it failed ({words}); approve "
                "it from the Waiting page."
            )
        uuid = approval.uuid
        _register(request, uuid)
        return UpstreamAnswer(f"Started transfer {uuid} and approved it. {note}")
    if uuid is None:
        return UpstreamAnswer(
            f"{note} It waits for approval; the Waiting page lists it after the next poll."
        )
    _register(request, uuid)
    return UpstreamAnswer(f"Started transfer {uuid}; it waits for approval. {note}")


def _register(request: TransferRequest, uuid: str) -> None:
    unit_services.unit_register(
        pipeline=request.pipeline, uuid=uuid, kind="transfer", name=request.name
    )


def transfer_start_upstream(client: WorkflowClient, request: TransferRequest) -> UpstreamAnswer:
    """Start the transfer upstream (no audit row: the caller keeps the record) and
    register it; the answer's `transfer_uuid` names it when the service said."""
    if len(request.paths) > 1:
        return _via_start_transfer(
            client, request, "Several folders go in one transfer through start_transfer."
        )
    try:
        uuid = client.create_package(
            name=request.name,
            location_uuid=request.location_uuid,
            path=request.paths[0],
            transfer_type=request.transfer_type,
            processing_config=request.processing_config,
            accession=request.accession or None,
            auto_approve=request.auto_approve,
        )
    except WorkflowError as exc:
        if not _package_endpoint_missing(exc):
            raise
        log.info("package endpoint of %s missing (%s): start_transfer", request.pipeline, exc)
        return _via_start_transfer(
            client,
            request,
            f"The package endpoint is not available ({exc.upstream_message or exc.message}).",
        )
    _register(request, uuid)
    approval = "approved automatically" if request.auto_approve else "waiting for approval"
    return UpstreamAnswer(
        f"The workflow service accepted transfer {uuid} ({approval}, processing "
        f"configuration {request.processing_config}); it starts within moments.",
        status=202,
    )


def answer_transfer_uuid(answer: UpstreamAnswer) -> str | None:
    """The UUID of the transfer an answer of `transfer_start_upstream` names."""
    match = _STARTED.search(answer.message)
    return match.group(1) if match else None


def transfer_start(
    *,
    user: User | AnonymousUser,
    request: TransferRequest,
    idempotency_key: str,
    after_success: Callable[[], None] | None = None,
) -> ActionResult:
    """Start one transfer from the chosen folders; a repeated key starts nothing."""

    def call() -> UpstreamAnswer:
        pipeline = pipeline_get(request.pipeline)
        if pipeline is None:
            raise ActionNotPossible(f"Pipeline {request.pipeline!r} is no longer configured.")
        if not request.paths:
            raise ActionNotPossible("No folder was chosen.")
        return transfer_start_upstream(get_workflow_client(pipeline.client_config()), request)

    first = request.shown_paths()[0] if request.paths else ""
    return action_perform(
        user=user,
        permission=START_PERMISSION,
        action=START_ACTION,
        idempotency_key=idempotency_key,
        target_kind="transfer source",
        target=f"{request.location_uuid}:{first}"[:255],
        target_label=request.name,
        pipeline=request.pipeline,
        parameters=request.parameters(),
        call=call,
        after_success=after_success,
    )
