"""Operator actions: the only code that calls an upstream service because a person asked.

Every action goes through `action_perform`, which

1. checks the user's permission (`PermissionDenied` otherwise);
2. claims the one-time idempotency key from the confirmation form by inserting the
   `AuditEntry` first: a second submit of the same form finds that row, makes no
   upstream call and reports the first outcome;
3. calls the upstream service (the `call` argument);
4. records the outcome, the upstream HTTP status and the upstream's own message;
5. on success, runs the caller's `after_success` once the row is committed
   (`transaction.on_commit`): the view passes the queueing of a poll, so the pages catch
   up quickly, and services never import tasks.

Outcomes: DONE (the service did it), REFUSED (the service answered no, or the action is
no longer possible; the user sees why), FAILED (the service could not be reached, or
rejected Lookout's credentials), TIMED_OUT (it did not answer in time: whether it acted
is not known; a timed-out approval is settled by a later poll, `timed_out_approvals_settle`:
DONE, or NOT_DONE when the transfer still waits). An action finished by a task (a fixity
check) is QUEUED until the task records one of those with `action_queued_finish`.

What is not an outcome: an approval the service accepted is DONE; if the transfer later
fails or is rejected, that is the unit's own status (its page, linked from the audit
entry), not a refusal of the approval: the service gives no way to tell the two apart.

To add an action (the storage pages do this for package operations), write a small
service like `transfer_approve` below: look up the target in the cache, build a `call`
that returns an `UpstreamAnswer` or raises `ActionNotPossible`/an `UpstreamError`, and
pass both to `action_perform` with the permission and the audit labels.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.utils import timezone

from dashboard.clients.base import (
    UpstreamAuthError,
    UpstreamConfigError,
    UpstreamError,
    UpstreamUnavailable,
)
from dashboard.clients.workflow import WorkflowClient, get_workflow_client
from dashboard.lib import page_cache
from dashboard.lib.pipelines import pipeline_get
from dashboard.lib.secret_redaction import redact_secrets
from dashboard.models import AuditEntry, ServicePoll, Unit
from dashboard.selectors import units as unit_selectors

log = logging.getLogger(__name__)

APPROVE_PERMISSION = "dashboard.approve_transfer"
HIDE_PERMISSION = "dashboard.hide_unit"

Outcome = AuditEntry.Outcome
ALREADY_RUNNING_MESSAGE = (
    "The same action on the same target was already being carried out by another "
    "request, so this one was not sent. Its outcome is in the audit log."
)
INTERRUPTED_MESSAGE = (
    "The request that started this action was interrupted before it recorded an answer; "
    "check the upstream service for whether it was done."
)
UNEXPECTED_ERROR_MESSAGE = (
    "Lookout hit an unexpected error during this action, so whether the upstream service "
    "did it is not known. Check there before trying again."
)


@dataclass(frozen=True)
class UpstreamAnswer:
    """What a successful upstream call said, for the audit row and the user."""

    message: str
    status: int | None = 200
    # The service answered 2xx but declined (e.g. hide answers `removed: false`).
    declined: bool = False
    # Handed to a task: the row stays QUEUED until the task records the outcome.
    queued: bool = False


class ActionNotPossible(Exception):
    """The action cannot be done any more (e.g. the transfer was approved meanwhile).

    Raised by a `call` before it reaches the upstream service; recorded as REFUSED.
    """


class IdempotencyKeyReused(Exception):
    """The key belongs to a different action, target or user: never replay it."""


@dataclass(frozen=True)
class ActionResult:
    entry: AuditEntry
    # True when the key had already been used: this submit made no upstream call.
    repeated: bool

    @property
    def ok(self) -> bool:
        """Done, or handed to the task that finishes it (its outcome follows)."""
        return self.entry.outcome in (Outcome.DONE, Outcome.QUEUED)

    @property
    def message(self) -> str:
        return self.entry.upstream_message


def idempotency_key_new() -> str:
    """A one-time token for a confirmation form."""
    return secrets.token_urlsafe(24)


def _actor_name(user: User | AnonymousUser) -> str:
    return user.get_username() or "anonymous"


def _claim(
    *,
    user: User | AnonymousUser,
    key: str,
    action: str,
    target: str,
    defaults: dict[str, Any],
) -> tuple[AuditEntry, bool]:
    """Insert the audit row for `key`, or return the row an earlier submit inserted.

    Claiming is conditional in the database: the row's key is unique, and so is a
    pending row per action and target. A second request for the same action on the same
    target while the first is running gets a refused row and makes no upstream call.
    """
    try:
        with transaction.atomic():
            return AuditEntry.objects.create(idempotency_key=key, **defaults), True
    except IntegrityError:
        earlier = AuditEntry.objects.filter(idempotency_key=key).first()
    if earlier is None:
        if _interrupted_cleared(action=action, target=target):
            return _claim(user=user, key=key, action=action, target=target, defaults=defaults)
        refused = AuditEntry.objects.create(
            idempotency_key=key,
            **{
                **defaults,
                "outcome": Outcome.REFUSED,
                "finished_at": timezone.now(),
                "upstream_message": ALREADY_RUNNING_MESSAGE,
            },
        )
        return refused, True
    if (earlier.action, earlier.target, earlier.actor_id) != (action, target, user.pk):
        raise IdempotencyKeyReused(f"the confirmation token of {earlier.action} was reused")
    return earlier, False


def _interrupted_cleared(*, action: str, target: str) -> bool:
    """End a pending row whose request died long ago (it would block the action forever)."""
    stale = [
        entry
        for entry in AuditEntry.objects.filter(
            action=action, target=target, outcome=Outcome.PENDING
        )
        if entry.outcome_unknown
    ]
    for entry in stale:
        _finish(entry, Outcome.FAILED, None, INTERRUPTED_MESSAGE)
    return bool(stale)


def _finish(entry: AuditEntry, outcome: str, status: int | None, message: str) -> None:
    entry.outcome = outcome
    entry.upstream_status = status
    entry.upstream_message = redact_secrets(message)
    entry.finished_at = timezone.now()
    entry.save(update_fields=["outcome", "upstream_status", "upstream_message", "finished_at"])


def _timed_out(exc: UpstreamError) -> bool:
    # The base client says "<service> service timed out (...)" for a read or connect timeout.
    return isinstance(exc, UpstreamUnavailable) and " timed out " in exc.message


def _failure(exc: UpstreamError) -> tuple[str, str]:
    """The outcome and the message to show for an upstream error."""
    if _timed_out(exc):
        return Outcome.TIMED_OUT, (
            f"The {exc.service} service did not answer in time, so whether it acted is "
            f"not known: {exc.message}"
        )
    if isinstance(exc, UpstreamUnavailable):
        return Outcome.FAILED, f"The {exc.service} service could not be reached: {exc.message}"
    if isinstance(exc, UpstreamAuthError | UpstreamConfigError):
        return Outcome.FAILED, (
            f"The {exc.service} service did not accept Lookout's credentials or settings: "
            f"{exc.upstream_message or exc.message}"
        )
    if exc.accepted:
        # Not a refusal: the service took the request, so it may well have acted, and
        # reporting "refused" would invite a second, doubled, try.
        return Outcome.FAILED, (
            f"The {exc.service} service accepted the request (HTTP {exc.status}) but its "
            f"answer could not be read, so whether it acted is not known: {exc.message}"
        )
    # The service answered and said no: its own words are what the user needs.
    return Outcome.REFUSED, exc.upstream_message or exc.message


def action_perform(
    *,
    user: User | AnonymousUser,
    permission: str,
    action: str,
    idempotency_key: str,
    target_kind: str,
    target: str,
    call: Callable[[], UpstreamAnswer],
    target_label: str = "",
    pipeline: str = "",
    parameters: dict[str, Any] | None = None,
    after_success: Callable[[], None] | None = None,
) -> ActionResult:
    """Run one audited, idempotent operator action; see the module docstring."""
    if not user.is_authenticated or not user.has_perm(permission):
        raise PermissionDenied(f"{_actor_name(user)} may not {action}")
    entry, claimed = _claim(
        user=user,
        key=idempotency_key,
        action=action,
        target=target,
        defaults={
            "actor": user,
            "actor_name": _actor_name(user),
            "action": action,
            "pipeline": pipeline,
            "target_kind": target_kind,
            "target": target,
            "target_label": target_label[:255],
            "parameters": parameters or {},
            "requested_at": timezone.now(),
        },
    )
    if not claimed:
        return ActionResult(entry=entry, repeated=True)
    if entry.outcome != Outcome.PENDING:
        return ActionResult(entry=entry, repeated=False)  # refused: another one is running

    try:
        answer = call()
    except ActionNotPossible as exc:
        _finish(entry, Outcome.REFUSED, None, str(exc))
    except UpstreamError as exc:
        outcome, message = _failure(exc)
        log.warning("%s of %s by %s: %s", action, target, entry.actor_name, exc)
        _finish(entry, outcome, exc.status, message)
    except Exception:
        # A bug or an answer no parser expected: the row must not stay PENDING, and
        # nobody can tell whether the service acted, so say so rather than guess.
        log.exception("%s of %s by %s ended unexpectedly", action, target, entry.actor_name)
        _finish(entry, Outcome.FAILED, None, UNEXPECTED_ERROR_MESSAGE)
    else:
        outcome = Outcome.REFUSED if answer.declined else Outcome.DONE
        if answer.queued and not answer.declined:
            outcome = Outcome.QUEUED
        _finish(entry, outcome, answer.status, answer.message)
        if outcome in (Outcome.DONE, Outcome.QUEUED) and after_success is not None:
            transaction.on_commit(after_success)
    return ActionResult(entry=entry, repeated=False)


def action_queued_finish(
    *, entry_id: int, outcome: str, message: str, status: int | None = None
) -> bool:
    """Record the outcome of an action a task carried out; only a QUEUED row changes."""
    changed = AuditEntry.objects.filter(pk=entry_id, outcome=Outcome.QUEUED).update(
        outcome=outcome,
        upstream_status=status,
        upstream_message=redact_secrets(message),
        finished_at=timezone.now(),
    )
    return bool(changed)


# --- workflow-service actions --------------------------------------------------------

SETTLED_DONE = (
    "Done: the service did not answer in time, but a later poll saw the transfer move on."
)
SETTLED_NOT_DONE = (
    "Not done: the service did not answer in time, and a later poll still saw the "
    "transfer waiting for approval. Approve it again."
)


def timed_out_approvals_settle(*, pipeline: str) -> int:
    """Settle the pipeline's timed-out approvals from the last successful poll after them:
    done when the transfer moved on, not done when it still waits. Run after each poll;
    returns how many were settled. (The service answers within 30 s, before Lookout's
    approve timeout, so by the next poll it has done whatever it was going to do.)"""
    polled_at = (
        ServicePoll.objects.filter(service=f"workflow:{pipeline}")
        .values_list("last_success_at", flat=True)
        .first()
    )
    if polled_at is None:
        return 0
    entries = AuditEntry.objects.filter(
        action="transfer_approve",
        pipeline=pipeline,
        outcome=Outcome.TIMED_OUT,
        finished_at__lt=polled_at,
    )
    settled = 0
    for entry in entries:
        unit = Unit.objects.filter(pipeline=pipeline, uuid=entry.target).first()
        if unit is None:
            continue  # hidden or forgotten since: nothing to tell from
        outcome, message = (
            (Outcome.NOT_DONE, SETTLED_NOT_DONE)
            if unit.approvable
            else (Outcome.DONE, SETTLED_DONE)
        )
        settled += AuditEntry.objects.filter(pk=entry.pk, outcome=Outcome.TIMED_OUT).update(
            outcome=outcome, upstream_message=f"{message} ({entry.upstream_message})"
        )
    return settled


def workflow_client(pipeline_slug: str) -> WorkflowClient:
    pipeline = pipeline_get(pipeline_slug)
    if pipeline is None:
        raise ActionNotPossible(f"Pipeline {pipeline_slug!r} is no longer configured.")
    return get_workflow_client(pipeline.client_config())


def unit_label(unit: Unit) -> str:
    return unit.name or unit.directory or unit.uuid


def unit_action_perform(
    *,
    user: User | AnonymousUser,
    unit: Unit,
    permission: str,
    action: str,
    idempotency_key: str,
    call: Callable[[], UpstreamAnswer],
    after_success: Callable[[], None] | None = None,
    parameters: dict[str, Any] | None = None,
    target_kind: str = "",
) -> ActionResult:
    """`action_perform` on one unit: the unit names the target, its label and pipeline."""
    return action_perform(
        user=user,
        permission=permission,
        action=action,
        idempotency_key=idempotency_key,
        target_kind=target_kind or unit.kind or "unit",
        target=unit.uuid,
        target_label=unit_label(unit),
        pipeline=unit.pipeline,
        parameters=parameters,
        call=call,
        after_success=after_success,
    )


def transfer_approve(
    *,
    user: User | AnonymousUser,
    unit: Unit,
    idempotency_key: str,
    after_success: Callable[[], None] | None = None,
) -> ActionResult:
    """Approve a transfer that waits for approval, as the unapproved list showed it."""

    def call() -> UpstreamAnswer:
        current = unit_selectors.unit_get(uuid=unit.uuid)
        if current is None or not current.approvable:
            raise ActionNotPossible("This transfer is no longer waiting for approval.")
        client = workflow_client(current.pipeline)
        result = client.approve_transfer(
            directory=current.directory, transfer_type=current.approval_transfer_type
        )
        return UpstreamAnswer(f"Approval successful: transfer {result.uuid} started.")

    return unit_action_perform(
        user=user,
        unit=unit,
        permission=APPROVE_PERMISSION,
        action="transfer_approve",
        idempotency_key=idempotency_key,
        target_kind="transfer",
        parameters={"directory": unit.directory, "transfer_type": unit.approval_transfer_type},
        call=call,
        after_success=after_success,
    )


def unit_hide(
    *,
    user: User | AnonymousUser,
    unit: Unit,
    idempotency_key: str,
    after_success: Callable[[], None] | None = None,
) -> ActionResult:
    """Hide a finished transfer or SIP in the workflow service and in Lookout."""

    def call() -> UpstreamAnswer:
        current = unit_selectors.unit_get(uuid=unit.uuid)
        if current is None or not current.finished:
            raise ActionNotPossible("Only a completed, failed or rejected unit can be hidden.")
        client = workflow_client(current.pipeline)
        if current.kind == "sip":
            removed = client.hide_ingest(current.uuid)
        else:
            removed = client.hide_transfer(current.uuid)
        if not removed:
            return UpstreamAnswer(
                "The workflow service did not hide it (it answers so for a unit that is "
                "still running, unknown to it, or already hidden).",
                status=409,
                declined=True,
            )
        Unit.objects.filter(pk=current.pk).update(
            hidden=True, hidden_by=_actor_name(user), hidden_at=timezone.now()
        )
        page_cache.bump()
        return UpstreamAnswer("The workflow service hid it.")

    return unit_action_perform(
        user=user,
        unit=unit,
        permission=HIDE_PERMISSION,
        action="unit_hide",
        idempotency_key=idempotency_key,
        call=call,
        after_success=after_success,
    )
