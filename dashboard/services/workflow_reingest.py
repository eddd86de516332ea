"""Partial reingest from the workflow side: start it, then approve it.

`POST /api/ingest/reingest` starts a partial (objects) or metadata-only reingest of an
AIP that the storage service has put in the shared tmp area under `name`; the SIP (it
keeps the AIP's UUID) then waits at "Approve AIP reingest", which
`POST /api/ingest/reingest/approve` answers. Both are audited, idempotent actions
(see `actions.action_perform`); a refusal is shown in the service's words.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.models import AnonymousUser, User
from django.utils.translation import gettext as _

from dashboard.lib import vocabulary
from dashboard.models import Unit
from dashboard.selectors import units as unit_selectors
from dashboard.selectors.decisions import awaits_reingest_approval
from dashboard.services import units as unit_services
from dashboard.services.actions import (
    ActionNotPossible,
    ActionResult,
    UpstreamAnswer,
    unit_action_perform,
    workflow_client,
)

REINGEST_PERMISSION = "dashboard.approve_reingest"


def reingest_startable(unit: Unit) -> bool:
    """A completed SIP (its AIP is stored) that is not being reingested already."""
    return unit.kind == "sip" and unit.status == "COMPLETE" and not unit.awaiting_decision


def default_reingest_name(unit: Unit) -> str:
    """The AIP's directory name as the storage service extracts it: `<name>-<uuid>`."""
    return f"{unit.name}-{unit.uuid}" if unit.name else unit.uuid


def partial_reingest_start(
    *,
    user: User | AnonymousUser,
    unit: Unit,
    name: str,
    idempotency_key: str,
    after_success: Callable[[], None] | None = None,
) -> ActionResult:
    def call() -> UpstreamAnswer:
        current = unit_selectors.unit_get(uuid=unit.uuid)
        if current is None or not reingest_startable(current):
            raise ActionNotPossible(
                _("Only a completed SIP that is not waiting for a decision can be reingested.")
            )
        result = workflow_client(current.pipeline).reingest_ingest(name=name, uuid=current.uuid)
        unit_services.unit_reopen(pipeline=current.pipeline, uuid=result.reingest_uuid)
        return UpstreamAnswer(
            f"Approval successful: the workflow service started a partial reingest "
            f"({result.reingest_uuid}); it waits at “{vocabulary.APPROVE_AIP_REINGEST}”."
        )

    return unit_action_perform(
        user=user,
        unit=unit,
        permission=REINGEST_PERMISSION,
        action="partial_reingest_start",
        idempotency_key=idempotency_key,
        parameters={"name": name},
        call=call,
        after_success=after_success,
    )


def partial_reingest_approve(
    *,
    user: User | AnonymousUser,
    unit: Unit,
    idempotency_key: str,
    after_success: Callable[[], None] | None = None,
) -> ActionResult:
    def call() -> UpstreamAnswer:
        current = unit_selectors.unit_get(uuid=unit.uuid)
        if current is None or not awaits_reingest_approval(current):
            raise ActionNotPossible(
                _("This SIP is not waiting for its partial reingest to be approved (any more).")
            )
        message = workflow_client(current.pipeline).approve_partial_reingest(current.uuid)
        return UpstreamAnswer(f"{message} The partial reingest goes on.")

    return unit_action_perform(
        user=user,
        unit=unit,
        permission=REINGEST_PERMISSION,
        action="partial_reingest_approve",
        idempotency_key=idempotency_key,
        call=call,
        after_success=after_success,
    )
