"""What each poll records about the service it polled: when, how it went, how long it took."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import F

from dashboard.lib import page_cache
from dashboard.lib.secret_redaction import redact_secrets
from dashboard.models import ServicePoll


@dataclass(frozen=True)
class PollSummary:
    service: str
    ok: bool
    requests: int = 0
    discovered: int = 0
    refreshed: int = 0
    changed: int = 0
    failed_units: int = 0
    duration_ms: int = 0
    error: str = ""
    skipped: bool = False

    def line(self) -> str:
        if self.skipped:
            return f"{self.service}: skipped (another poll is running)"
        outcome = "ok" if self.ok else f"FAILED ({self.error})"
        return (
            f"{self.service}: {outcome}; {self.requests} requests in {self.duration_ms} ms; "
            f"{self.discovered} discovered, {self.refreshed} refreshed, {self.changed} changed, "
            f"{self.failed_units} unit errors"
        )


def service_poll_record(
    *, service: str, started_at: datetime, ok: bool, error: str, duration_ms: int, requests: int
) -> None:
    values: dict[str, object] = {
        "last_attempt_at": started_at,
        "last_duration_ms": duration_ms,
        "last_request_count": requests,
    }
    if ok:
        values.update(last_success_at=started_at, last_error="")
    else:
        values.update(last_error=redact_secrets(error), last_error_at=started_at)
    # Counted with F(), so two polls recording at once both count.
    counters: dict[str, object] = {"attempt_count": F("attempt_count") + 1}
    if not ok:
        counters["error_count"] = F("error_count") + 1
    if not ServicePoll.objects.filter(service=service).update(**values, **counters):
        ServicePoll.objects.update_or_create(
            service=service,
            defaults={**values, "attempt_count": 1, "error_count": 0 if ok else 1},
        )
    # Every poll moves the freshness the live regions show on.
    page_cache.bump()
