"""Adding metadata files to a SIP (`POST /api/ingest/copy_metadata_files/`).

The files (or folders) come from a transfer source location, picked in the same
browser as the start-transfer wizard; each goes as base64 of `<location uuid>:<path>`.
One audited, idempotent action (see `actions.action_perform`); a refusal (a location
not associated with the pipeline, a path that does not exist) is in the service's words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.contrib.auth.models import AnonymousUser, User
from django.utils.translation import gettext as _

from dashboard.models import Unit
from dashboard.selectors import units as unit_selectors
from dashboard.services.actions import (
    ActionNotPossible,
    ActionResult,
    UpstreamAnswer,
    unit_action_perform,
    workflow_client,
)

METADATA_PERMISSION = "dashboard.add_metadata_files"


def metadata_files_addable(unit: Unit) -> bool:
    """A SIP still being ingested: its metadata files go into the AIP to come."""
    return unit.kind == "sip" and not unit.finished and not unit.hidden


def metadata_files_add(
    *,
    user: User | AnonymousUser,
    unit: Unit,
    location_uuid: str,
    paths: Sequence[bytes],
    idempotency_key: str,
    after_success: Callable[[], None] | None = None,
) -> ActionResult:
    def call() -> UpstreamAnswer:
        current = unit_selectors.unit_get(uuid=unit.uuid)
        if current is None or not metadata_files_addable(current):
            raise ActionNotPossible(
                _("Metadata files can only be added to a SIP that is still being ingested.")
            )
        if not paths:
            raise ActionNotPossible(_("No file was chosen."))
        message = workflow_client(current.pipeline).copy_metadata_files(
            sip_uuid=current.uuid, source_paths=[(location_uuid, path) for path in paths]
        )
        return UpstreamAnswer(message, status=201)

    return unit_action_perform(
        user=user,
        unit=unit,
        permission=METADATA_PERMISSION,
        action="metadata_files_add",
        idempotency_key=idempotency_key,
        parameters={
            "location": location_uuid,
            "paths": [path.decode("utf-8", "backslashreplace") for path in paths],
        },
        call=call,
        after_success=after_success,
    )
