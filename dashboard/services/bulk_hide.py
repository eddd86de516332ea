"""Hiding many finished units at once, with an undo window.

The workflow service's hide cannot be undone, so a bulk hide happens in two steps:

1. `units_hide_bulk` hides the units in Lookout's lists at once and sets their
   `hide_upstream_after` to the end of the undo window (`LOOKOUT_HIDE_UNDO_SECONDS`).
   Its audit row stays QUEUED: the upstream outcome follows.
2. `hide_upstream_due`, run after every workflow poll, claims the units whose window has
   passed (a conditional update, so two workers never send one hide twice) and sends
   the DELETE hides; once every unit of a request is answered, the request's audit row
   gets its outcome and the service's answers.

`units_hide_undo` within the window shows the units again and clears their
`hide_upstream_after`: nothing is sent upstream. After the window it is refused.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from dashboard.clients.base import UpstreamError, UpstreamUnavailable
from dashboard.clients.workflow import get_workflow_client
from dashboard.lib import page_cache
from dashboard.lib.pipelines import pipeline_get
from dashboard.models import FINAL_STATUSES, AuditEntry, Unit
from dashboard.services.actions import (
    HIDE_PERMISSION,
    ActionNotPossible,
    ActionResult,
    UpstreamAnswer,
    action_perform,
    action_queued_finish,
)

log = logging.getLogger(__name__)

HIDE_ACTION = "units_hide"
UNDO_ACTION = "units_unhide"
# One action hides at most this many units (the confirmation lists them all).
MAX_UNITS = 500
# A hide the service could not be asked (unreachable) is tried again this much later.
RETRY_AFTER = timedelta(minutes=1)
# Hides sent per poll cycle, so a large request never holds up the poll task.
PER_CYCLE = 200
Outcome = AuditEntry.Outcome


def _units(count: int) -> str:
    return ngettext("%(count)s unit", "%(count)s units", count) % {"count": count}


def undo_window() -> timedelta:
    return timedelta(seconds=settings.LOOKOUT_HIDE_UNDO_SECONDS)


def hideable_units() -> Q:
    """Finished (completed, failed or rejected) units still shown in the lists."""
    return Q(hidden=False, status__in=FINAL_STATUSES, awaiting_sip_uuid=False)


def failed_older_than(days: int, *, pipeline: str = "", now: datetime | None = None) -> list[str]:
    """UUIDs of the failed units that failed (or last changed) more than `days` ago."""
    cutoff = (now or timezone.now()) - timedelta(days=days)
    units = (
        Unit.objects.filter(hideable_units(), status="FAILED")
        .annotate(failed_when=Coalesce("failed_at", "updated_at"))
        .filter(failed_when__lt=cutoff)
    )
    if pipeline:
        units = units.filter(pipeline=pipeline)
    return list(units.order_by("failed_when", "id").values_list("uuid", flat=True)[:MAX_UNITS])


def _target(uuids: Sequence[str]) -> str:
    """One name for the set of units, the same however they are ordered."""
    digest = hashlib.sha256("\n".join(sorted(uuids)).encode()).hexdigest()[:16]
    return f"units:{digest}"


def _label(units: Sequence[Unit]) -> str:
    names = ", ".join(unit.name or unit.uuid for unit in units[:5])
    if len(units) > 5:
        names = _("%(names)s and %(count)s more") % {"names": names, "count": len(units) - 5}
    return f"{_units(len(units))}: {names}"


def _when(moment: datetime) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M:%S %Z")


def units_hide_bulk(
    *,
    user: User | AnonymousUser,
    uuids: Sequence[str],
    idempotency_key: str,
    criterion: str = "",
) -> ActionResult:
    """Hide the finished units among `uuids` in Lookout now, upstream after the window."""
    uuids = list(dict.fromkeys(uuids))[:MAX_UNITS]
    chosen = list(Unit.objects.filter(uuid__in=uuids).order_by("name", "id"))

    def call() -> UpstreamAnswer:
        now = timezone.now()
        after = now + undo_window()
        entry = AuditEntry.objects.get(idempotency_key=idempotency_key)
        with transaction.atomic():
            units = list(Unit.objects.select_for_update().filter(hideable_units(), uuid__in=uuids))
            if not units:
                raise ActionNotPossible(
                    _(
                        "None of these units can be hidden: only completed, failed or rejected "
                        "units that are not hidden already."
                    )
                )
            Unit.objects.filter(pk__in=[unit.pk for unit in units]).update(
                hidden=True,
                hidden_by=user.get_username(),
                hidden_at=now,
                hide_upstream_after=after,
                hide_request=entry,
            )
            page_cache.bump()  # the lists, counts and failure groups drop them at once
        skipped = len(uuids) - len(units)
        text = _(
            "Hidden in Lookout's lists: %(units)s. The workflow service is asked to hide them "
            "at %(moment)s, when the undo window ends; its hide cannot be undone."
        ) % {"units": _units(len(units)), "moment": _when(after)}
        if skipped:
            text += " " + _(
                "%(units)s left as they were (not finished, already hidden or unknown to Lookout)."
            ) % {"units": _units(skipped)}
        return UpstreamAnswer(text, status=None, queued=True)

    return action_perform(
        user=user,
        permission=HIDE_PERMISSION,
        action=HIDE_ACTION,
        idempotency_key=idempotency_key,
        target_kind="units",
        target=_target(uuids),
        target_label=_label(chosen) if chosen else _units(len(uuids)),
        pipeline=chosen[0].pipeline if len({unit.pipeline for unit in chosen}) == 1 else "",
        parameters={"units": uuids, "criterion": criterion},
        call=call,
    )


def units_hide_undo(
    *, user: User | AnonymousUser, request_id: int, idempotency_key: str
) -> ActionResult:
    """Show a bulk hide's units again, if the workflow service was not asked yet."""
    hide = AuditEntry.objects.filter(pk=request_id, action=HIDE_ACTION).first()

    def call() -> UpstreamAnswer:
        if hide is None:
            raise ActionNotPossible(_("There is no such bulk hide."))
        now = timezone.now()
        with transaction.atomic():
            # Only units whose window is still open: the poll task claims the others.
            restored = Unit.objects.filter(
                hide_request_id=hide.pk, hidden=True, hide_upstream_after__gt=now
            ).update(
                hidden=False,
                hidden_by="",
                hidden_at=None,
                hide_upstream_after=None,
                hide_request=None,
            )
            page_cache.bump()
            if not restored:
                raise ActionNotPossible(
                    _(
                        "Too late to undo: the undo window has ended and the workflow service "
                        "was asked to hide these units; its hide cannot be undone."
                    )
                )
            action_queued_finish(
                entry_id=hide.pk,
                outcome=Outcome.DONE,
                message=hide.upstream_message
                + " "
                + _(
                    "Undone by %(user)s within the undo window: %(units)s shown again; "
                    "the workflow service was not asked to hide them."
                )
                % {"user": user.get_username(), "units": _units(restored)},
            )
        return UpstreamAnswer(
            _(
                "Shown again in Lookout's lists: %(units)s. "
                "The workflow service was not asked to hide them."
            )
            % {"units": _units(restored)},
            status=None,
        )

    return action_perform(
        user=user,
        permission=HIDE_PERMISSION,
        action=UNDO_ACTION,
        idempotency_key=idempotency_key,
        target_kind="units",
        target=hide.target if hide is not None else f"audit:{request_id}",
        target_label=hide.target_label if hide is not None else "",
        pipeline=hide.pipeline if hide is not None else "",
        parameters={"hide": request_id},
        call=call,
    )


# --- the upstream half, run after each workflow poll ---------------------------------


@dataclass
class HideSummary:
    sent: int = 0
    retried: int = 0
    finished_requests: int = 0

    def line(self) -> str:
        return (
            f"bulk hides: {self.sent} sent, {self.retried} to retry, "
            f"{self.finished_requests} requests finished"
        )


def _claim_due(pipeline: str, now: datetime) -> list[Unit]:
    due = list(
        Unit.objects.filter(pipeline=pipeline, hide_upstream_after__lte=now).order_by(
            "hide_upstream_after", "id"
        )[:PER_CYCLE]
    )
    claimed = []
    for unit in due:
        # Conditional: another worker (or an undo) got there first if nothing changed.
        if Unit.objects.filter(pk=unit.pk, hide_upstream_after=unit.hide_upstream_after).update(
            hide_upstream_after=None
        ):
            claimed.append(unit)
    return claimed


def _record(entry_id: int, shown: str, result: str) -> None:
    """Note one unit's upstream answer on its request's (still QUEUED) audit row."""
    with transaction.atomic():
        entry = AuditEntry.objects.select_for_update().filter(pk=entry_id).first()
        if entry is None or entry.outcome != Outcome.QUEUED:
            return
        answers = dict(entry.parameters.get("upstream") or {})
        answers.setdefault(result, []).append(shown)
        entry.parameters = {**entry.parameters, "upstream": answers}
        entry.save(update_fields=["parameters"])


def _finish_requests(entry_ids: Iterable[int]) -> int:
    """Give each request whose units are all answered its outcome."""
    finished = 0
    for entry_id in set(entry_ids):
        if Unit.objects.filter(
            hide_request_id=entry_id, hide_upstream_after__isnull=False
        ).exists():
            continue  # some wait for a retry
        entry = AuditEntry.objects.filter(pk=entry_id, outcome=Outcome.QUEUED).first()
        if entry is None:
            continue
        answers = entry.parameters.get("upstream") or {}
        hid, declined = answers.get("hidden", []), answers.get("declined", [])
        refused = answers.get("refused", [])
        text = _("The workflow service hid %(units)s.") % {"units": _units(len(hid))}
        if declined:
            text += " " + _(
                "It did not hide %(count)s (still running, unknown to it, or already "
                "hidden): %(names)s."
            ) % {"count": len(declined), "names": ", ".join(declined[:10])}
        if refused:
            text += " " + _("It refused %(count)s: %(names)s.") % {
                "count": len(refused),
                "names": ", ".join(refused[:10]),
            }
        outcome = Outcome.DONE if hid else Outcome.REFUSED
        if action_queued_finish(entry_id=entry_id, outcome=outcome, message=text):
            finished += 1
    return finished


def hide_upstream_due(*, pipeline: str, now: datetime | None = None) -> HideSummary:
    """Send the workflow service the hides whose undo window has passed."""
    now = now or timezone.now()
    summary = HideSummary()
    config = pipeline_get(pipeline)
    if config is None:
        return summary
    claimed = _claim_due(pipeline, now)
    if not claimed:
        return summary
    client = get_workflow_client(config.client_config())
    touched: list[int] = []
    for unit in claimed:
        entry_id = unit.hide_request_id
        try:
            removed = (
                client.hide_ingest(unit.uuid)
                if unit.kind == "sip"
                else client.hide_transfer(unit.uuid)
            )
        except UpstreamUnavailable as exc:
            log.warning("hide of %s not sent (%s): retried later", unit.uuid, exc)
            Unit.objects.filter(pk=unit.pk).update(hide_upstream_after=now + RETRY_AFTER)
            summary.retried += 1
            continue
        except UpstreamError as exc:
            log.warning("hide of %s refused: %s", unit.uuid, exc)
            if entry_id is not None:
                words = exc.upstream_message or exc.message
                _record(entry_id, f"{unit.name or unit.uuid} ({words})", "refused")
        else:
            summary.sent += 1
            if entry_id is not None:
                _record(entry_id, unit.name or unit.uuid, "hidden" if removed else "declined")
        if entry_id is not None:
            touched.append(entry_id)
    summary.finished_requests = _finish_requests(touched)
    return summary
