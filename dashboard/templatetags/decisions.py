"""`{% pending_decisions unit as decisions %}`: what a waiting unit waits for, in words."""

from __future__ import annotations

from django import template

from dashboard.models import Unit
from dashboard.selectors.decisions import (
    DashboardDecision,
    PendingDecision,
    awaits_reingest_approval,
    dashboard_decision,
)
from dashboard.selectors.decisions import pending_decisions as _pending

register = template.Library()


@register.simple_tag
def pending_decisions(unit: Unit) -> list[PendingDecision]:
    return _pending(unit)


@register.filter(name="awaits_reingest_approval")
def awaits_reingest_approval_filter(unit: Unit) -> bool:
    """A SIP waiting at "Approve AIP reingest" (Lookout can answer it)."""
    return awaits_reingest_approval(unit)


@register.simple_tag
def answerable_decision(unit: Unit) -> DashboardDecision | None:
    """`{% answerable_decision unit as decision %}`: the decision and its choices as the
    dashboard lists gave them, when Lookout can answer it (a service account)."""
    return dashboard_decision(unit)
