from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from dashboard.models import ServicePoll, Unit

T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


def polled(service: str = "workflow:default", at: datetime = T0) -> None:
    ServicePoll.objects.update_or_create(
        service=service, defaults={"last_attempt_at": at, "last_success_at": at}
    )


def unit(uuid_tail: int, **fields) -> Unit:
    values = {
        "pipeline": "default",
        "uuid": f"00000000-0000-0000-0000-{uuid_tail:012d}",
        "kind": "transfer",
        "name": f"unit-{uuid_tail}",
        "status": "PROCESSING",
        "first_seen_at": T0 - timedelta(days=1),
        "updated_at": T0 - timedelta(days=1),
    }
    values.update(fields)
    return Unit.objects.create(**values)


def failed(uuid_tail: int, at: datetime, job: str = "Normalize") -> Unit:
    return unit(
        uuid_tail,
        status="FAILED",
        failed_job=job,
        failed_at=at,
        failed_at_from="upstream",
        updated_at=at,
    )


@pytest.fixture
def sent(monkeypatch) -> list[dict]:
    """Every message the notify client would send, instead of sending it."""
    outbox: list[dict] = []
    monkeypatch.setattr(
        "dashboard.clients.notify.webhook_post", lambda **kw: outbox.append(kw) or 200
    )
    monkeypatch.setattr("dashboard.clients.notify.email_send", lambda **kw: outbox.append(kw))
    return outbox


@pytest.fixture
def now() -> datetime:
    return timezone.now()
