"""Reads of the audit log."""

from __future__ import annotations

from django.db.models import Q, QuerySet
from django.utils import timezone

from dashboard.models import OUTCOME_UNKNOWN, PENDING_OUTCOME_UNKNOWN_AFTER, AuditEntry


def audit_entries(
    *, outcome: str | None = None, user: str | None = None, target: str | None = None
) -> QuerySet[AuditEntry]:
    """Newest first, filtered by outcome (`unknown`: pending long past any answer), the
    acting user's name, and the target's UUID or label; the view paginates the queryset."""
    entries = AuditEntry.objects.all()
    pending_long = Q(
        outcome=AuditEntry.Outcome.PENDING,
        requested_at__lt=timezone.now() - PENDING_OUTCOME_UNKNOWN_AFTER,
    )
    if outcome == OUTCOME_UNKNOWN:
        entries = entries.filter(pending_long)
    elif outcome == AuditEntry.Outcome.PENDING:
        entries = entries.filter(outcome=outcome).exclude(pending_long)
    elif outcome:
        entries = entries.filter(outcome=outcome)
    if user:
        entries = entries.filter(actor_name__iexact=user)
    if target:
        entries = entries.filter(Q(target__istartswith=target) | Q(target_label__icontains=target))
    return entries.order_by("-requested_at", "-id")
