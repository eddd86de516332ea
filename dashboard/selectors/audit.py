"""Reads of the audit log."""

from __future__ import annotations

from django.db.models import QuerySet

from dashboard.models import AuditEntry


def audit_entries() -> QuerySet[AuditEntry]:
    """Newest first; the view paginates the queryset."""
    return AuditEntry.objects.order_by("-requested_at", "-id")
