"""Bulk hides still within their undo window, for the notice on the units page."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Min
from django.utils import timezone

from dashboard.models import AuditEntry, Unit


@dataclass(frozen=True)
class PendingHide:
    entry: AuditEntry
    count: int
    upstream_at: datetime

    @property
    def seconds_left(self) -> float:
        return max(0.0, (self.upstream_at - timezone.now()).total_seconds())


def pending_hides(*, now: datetime | None = None) -> list[PendingHide]:
    """Each bulk hide whose units the workflow service has not been asked to hide yet."""
    now = now or timezone.now()
    rows = (
        Unit.objects.filter(hide_request__isnull=False, hide_upstream_after__gt=now)
        .values("hide_request_id")
        .annotate(count=Count("id"), upstream_at=Min("hide_upstream_after"))
        .order_by("upstream_at")
    )
    entries = AuditEntry.objects.in_bulk([row["hide_request_id"] for row in rows])
    return [
        PendingHide(
            entry=entries[row["hide_request_id"]],
            count=row["count"],
            upstream_at=row["upstream_at"],
        )
        for row in rows
        if row["hide_request_id"] in entries
    ]


def hide_request_units(*, entry_id: int) -> list[Unit]:
    return list(Unit.objects.filter(hide_request_id=entry_id).order_by("name", "id"))
