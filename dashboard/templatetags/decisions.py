"""`{% pending_decisions unit as decisions %}`: what a waiting unit waits for, in words."""

from __future__ import annotations

from django import template

from dashboard.models import Unit
from dashboard.selectors.decisions import PendingDecision
from dashboard.selectors.decisions import pending_decisions as _pending

register = template.Library()


@register.simple_tag
def pending_decisions(unit: Unit) -> list[PendingDecision]:
    return _pending(unit)
