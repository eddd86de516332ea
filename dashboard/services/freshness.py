"""What each poll records about the service it polled: when, how it went, how long it took."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from dashboard.lib import cache_state as state
from dashboard.lib.secret_redaction import redact_secrets


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
    previous = state.freshness_load(service)
    state.freshness_save(
        replace(
            previous,
            last_attempt_at=started_at,
            last_success_at=started_at if ok else previous.last_success_at,
            last_error="" if ok else redact_secrets(error),
            last_error_at=previous.last_error_at if ok else started_at,
            last_duration_ms=duration_ms,
            last_request_count=requests,
        )
    )
