"""CSV validation: one audited action that sends a CSV to a pipeline's validator.

The workflow service's verdict is recorded as it was given: a valid CSV answers 200, an
invalid one 400 with the reason in the service's words; both are outcomes of a done
action (the service did what was asked). The audit row keeps the validator, the
uploaded file's name and its size, never the contents.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser, User
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from dashboard.clients.workflow import get_workflow_client
from dashboard.lib.csv_validators import CSV_VALIDATORS
from dashboard.lib.pipelines import pipeline_get
from dashboard.models import AuditEntry
from dashboard.services.actions import (
    ActionNotPossible,
    ActionResult,
    UpstreamAnswer,
    action_perform,
)

VALIDATE_PERMISSION = "dashboard.validate_csv"
VALIDATE_ACTION = "csv_validate"
VALID_MESSAGE = gettext_noop("The workflow service found this CSV valid.")


@dataclass(frozen=True)
class Verdict:
    # None: no verdict (the service refused the request or was not reached).
    valid: bool | None
    # The reason as the service gave it, or what went wrong.
    message: str


def csv_verdict(entry: AuditEntry) -> Verdict:
    """The verdict a `csv_validate` row records."""
    if entry.outcome != AuditEntry.Outcome.DONE:
        return Verdict(valid=None, message=entry.upstream_message)
    return Verdict(valid=entry.upstream_status == 200, message=entry.upstream_message)


def csv_validate(
    *,
    user: User | AnonymousUser,
    pipeline: str,
    validator: str,
    file_name: str,
    text: str,
    idempotency_key: str,
) -> ActionResult:
    """Send one CSV to a validator; a repeated key sends nothing and reports the first."""

    def call() -> UpstreamAnswer:
        config = pipeline_get(pipeline)
        if config is None:
            raise ActionNotPossible(
                _("Pipeline “%(pipeline)s” is no longer configured.") % {"pipeline": pipeline}
            )
        if validator not in CSV_VALIDATORS:
            raise ActionNotPossible(
                _("“%(validator)s” is not a validator Lookout knows.") % {"validator": validator}
            )
        result = get_workflow_client(config.client_config()).validate_csv(validator, text)
        if result.valid:
            return UpstreamAnswer(_(VALID_MESSAGE), status=200)
        return UpstreamAnswer(result.reason or _("The service gave no reason."), status=400)

    return action_perform(
        user=user,
        permission=VALIDATE_PERMISSION,
        action=VALIDATE_ACTION,
        idempotency_key=idempotency_key,
        target_kind="csv file",
        target=f"{validator}:{file_name}"[:255],
        target_label=file_name[:255],
        pipeline=pipeline,
        parameters={"validator": validator, "file_name": file_name, "size": len(text.encode())},
        call=call,
    )
