"""Writes: answering a pending decision through the workflow service's own dashboard, and
settling those answers from later reads of its status lists.

The dashboard answers `POST /mcp/execute/` with 200 "None" whether or not its job server
acted, so an answer is audited as SENT, not DONE. A later complete read of the lists
settles it: the job no longer waits -> DONE; it still waits after `NOT_TAKEN_AFTER_READS`
reads -> REFUSED ("not taken"). Before sending, the decision must still be the one the
lists last showed: a decision taken elsewhere meanwhile is refused without a call.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.contrib.auth.models import AnonymousUser, User
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from dashboard.clients.workflow_dashboard import get_workflow_dashboard_client
from dashboard.lib.pipelines import pipeline_get
from dashboard.models import AuditEntry, Unit
from dashboard.selectors import units as unit_selectors
from dashboard.selectors.decisions import dashboard_decision, decision_choices
from dashboard.services.actions import (
    ActionNotPossible,
    ActionResult,
    Outcome,
    UpstreamAnswer,
    action_queued_finish,
    unit_action_perform,
)
from dashboard.services.dashboard_discovery import DashboardListing

log = logging.getLogger(__name__)

ANSWER_PERMISSION = "dashboard.answer_decisions"
ACTION = "decision_answer"
# Complete reads of the lists that may still show the job waiting before the answer is
# reported as not taken (the job server may queue it while it is busy).
NOT_TAKEN_AFTER_READS = 3
TAKEN_ELSEWHERE = gettext_lazy(
    "This decision was taken elsewhere meanwhile (or the unit moved on), so nothing was "
    "sent. Look at the unit again."
)
NOT_TAKEN = gettext_lazy("Not taken: still waiting, answer again or in the service.")


def decision_answerable(unit: Unit) -> bool:
    """Waiting at a decision whose job and choices the dashboard lists gave."""
    return dashboard_decision(unit) is not None


def decision_answer(
    *,
    user: User | AnonymousUser,
    unit: Unit,
    idempotency_key: str,
    job: str,
    choice: str,
    after_success: Callable[[], None] | None = None,
) -> ActionResult:
    """Send `choice` for the decision job `job` of `unit`, as the dashboard's menus do."""
    label = decision_choices(unit).get(choice, choice)

    def call() -> UpstreamAnswer:
        current = unit_selectors.unit_get(uuid=unit.uuid)
        if current is None or not current.awaiting_decision or current.decision_job_uuid != job:
            raise ActionNotPossible(TAKEN_ELSEWHERE)
        choices = decision_choices(current)
        if choice not in choices:
            raise ActionNotPossible(_("That is not one of this decision's choices."))
        pipeline = pipeline_get(current.pipeline)
        client = get_workflow_dashboard_client(pipeline) if pipeline else None
        if client is None:
            raise ActionNotPossible(
                _(
                    "This pipeline has no service account on the workflow service's "
                    "dashboard, so Lookout cannot answer its decisions."
                )
            )
        client.answer_decision(job, choice)
        return UpstreamAnswer(
            _(
                "“%(choice)s” to “%(decision)s”. The service does not say whether it acted: "
                "the next read of its status lists tells (see the audit log)."
            )
            % {"choice": choices[choice], "decision": current.decision or _("the decision")},
            sent=True,
        )

    return unit_action_perform(
        user=user,
        unit=unit,
        permission=ANSWER_PERMISSION,
        action=ACTION,
        idempotency_key=idempotency_key,
        parameters={"job": job, "choice": choice, "label": label, "decision": unit.decision},
        call=call,
        after_success=after_success,
    )


def decisions_settle(*, pipeline: str, listing: DashboardListing) -> int:
    """Settle the SENT answers of `pipeline` from a complete read of the lists; returns
    how many were settled."""
    if not listing.complete:
        return 0
    settled = 0
    for entry in AuditEntry.objects.filter(pipeline=pipeline, action=ACTION, outcome=Outcome.SENT):
        job = str(entry.parameters.get("job") or "")
        listed = listing.units.get(entry.target)
        if listed is None or job not in listed.awaiting_job_uuids:
            done = action_queued_finish(
                entry_id=entry.pk,
                outcome=Outcome.DONE,
                message=_("Done: the job no longer waits for a decision."),
                status=200,
                pending=Outcome.SENT,
            )
            settled += done
            continue
        reads = int(entry.parameters.get("reads_still_waiting") or 0) + 1
        if reads >= NOT_TAKEN_AFTER_READS:
            settled += action_queued_finish(
                entry_id=entry.pk,
                outcome=Outcome.REFUSED,
                message=str(NOT_TAKEN),
                status=200,
                pending=Outcome.SENT,
            )
            log.info("decision answer %s on %s was not taken", entry.pk, entry.target)
        else:
            entry.parameters = {**entry.parameters, "reads_still_waiting": reads}
            entry.save(update_fields=["parameters"])
    return settled
