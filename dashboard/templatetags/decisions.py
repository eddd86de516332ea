"""`{% pending_decisions unit as decisions %}`: what a waiting unit waits for, in words."""

from __future__ import annotations

from django import template

from dashboard.models import Unit
from dashboard.selectors.decisions import PendingDecision, awaits_reingest_approval
from dashboard.selectors.decisions import pending_decisions as _pending

register = template.Library()


@register.simple_tag
def pending_decisions(unit: Unit) -> list[PendingDecision]:
    return _pending(unit)


@register.filter(name="awaits_reingest_approval")
def awaits_reingest_approval_filter(unit: Unit) -> bool:
    """A SIP waiting at "Approve AIP reingest" (Lookout can answer it)."""
    return awaits_reingest_approval(unit)
