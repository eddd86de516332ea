"""Display filters for the dashboard: durations, ages, status and outcome labels.

Formatting only. Labels always carry text next to their icon, so status never
depends on colour alone; the icon is hidden from screen readers.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django import template
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()

MISSING = "—"

# status -> (css modifier, icon, text)
STATUS_LABELS: dict[str, tuple[str, str, str]] = {
    "PROCESSING": ("processing", "⟳", "Processing"),
    "USER_INPUT": ("waiting", "‖", "Awaiting decision"),
    "COMPLETE": ("complete", "✓", "Complete"),
    "FAILED": ("failed", "✗", "Failed"),
    "REJECTED": ("rejected", "⊘", "Rejected"),
    "PENDING": ("pending", "…", "Pending (no jobs yet)"),
    "UNKNOWN": ("unknown", "?", "Unknown"),
}
OUTCOME_LABELS: dict[str, tuple[str, str, str]] = {
    "pending": ("pending", "…", "In progress"),
    "done": ("complete", "✓", "Done"),
    "refused": ("rejected", "⊘", "Refused"),
    "failed": ("failed", "✗", "Failed"),
    "unknown": ("unknown", "?", "Outcome unknown (interrupted)"),
}


def _label(modifier: str, icon: str, text: str) -> SafeString:
    return format_html(
        '<span class="status status-{}">'
        '<span class="status-icon" aria-hidden="true">{}</span> {}</span>',
        modifier,
        icon,
        text,
    )


@register.simple_tag
def status_label(status: str | None) -> SafeString:
    """A unit or job status as icon + words."""
    modifier, icon, text = STATUS_LABELS.get(status or "UNKNOWN", ("unknown", "?", status or ""))
    return _label(modifier, icon, text)


@register.simple_tag
def outcome_label(outcome: str) -> SafeString:
    modifier, icon, text = OUTCOME_LABELS.get(outcome, ("unknown", "?", outcome))
    return _label(modifier, icon, text)


@register.filter
def duration(seconds: float | int | None) -> str:
    """Seconds as a short human duration: `< 1 s`, `42 s`, `3 min 5 s`, `2 h 10 min`."""
    if seconds is None:
        return MISSING
    seconds = float(seconds)
    if seconds < 1:
        return "< 1 s"
    whole = int(seconds)
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    days, hours = divmod(hours, 24)
    return f"{days} d {hours} h" if hours else f"{days} d"


@register.filter
def task_duration(task: dict[str, Any]) -> str:
    """A task's duration as the service reported it: `< 1 s`, whole seconds, or missing."""
    if task.get("duration_under_one_second"):
        return "< 1 s"
    value = task.get("duration_seconds")
    if value is None:
        # No end time yet, or fetched without details.
        return MISSING
    return duration(value) if value >= 1 else "< 1 s"


@register.filter
def age(moment: datetime | None) -> str:
    """How long ago an aware datetime was, e.g. `12 s`; `—` when unknown."""
    if moment is None:
        return MISSING
    return duration(max(0.0, (timezone.now() - moment).total_seconds()))


@register.filter
def seconds_ago(moment: datetime | None) -> float:
    """Seconds since an aware datetime (0 when unknown), for `_age.html`."""
    if moment is None:
        return 0.0
    return max(0.0, (timezone.now() - moment).total_seconds())


@register.filter
def clock(moment: datetime | None) -> str:
    """A naive upstream timestamp (the workflow server's own clock), to the second."""
    if moment is None:
        return MISSING
    return moment.strftime("%Y-%m-%d %H:%M:%S")


@register.filter
def nonzero_exit(code: int | None) -> bool:
    return code is not None and code != 0


@register.filter
def service_label(service: str) -> str:
    """`workflow:default` -> `Workflow service (default)`."""
    kind, _, name = service.partition(":")
    label = {"workflow": "Workflow service", "storage": "Storage service"}.get(kind, kind)
    return f"{label} ({name})" if name else label


@register.filter
def action_label(action: str) -> str:
    """`package_fixity_check` -> `Package fixity check`, for the audit log."""
    words = str(action).replace("_", " ").strip()
    return words[:1].upper() + words[1:]
