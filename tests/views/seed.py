"""Put units, jobs and freshness records in the database the way the pollers do."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from dashboard.models import ServicePoll, Unit, UnitJobs

PIPELINE = "default"
XSS_NAME = "<img src=x onerror=alert(1)>"
XSS_ESCAPED = "&lt;img src=x onerror=alert(1)&gt;"


def uuid_for(number: int) -> str:
    return f"00000000-0000-4000-8000-{number:012d}"


def job_uuid_for(number: int) -> str:
    return f"10000000-0000-4000-8000-{number:012d}"


def unit(number: int, *, minutes_ago: float = 1, **fields: Any) -> Unit:
    now = timezone.now()
    values: dict[str, Any] = {
        "pipeline": PIPELINE,
        "uuid": uuid_for(number),
        "kind": "transfer",
        "first_seen_at": now - timedelta(hours=1),
        "updated_at": now - timedelta(minutes=minutes_ago),
        "name": f"unit-{number}",
        "status": "PROCESSING",
        "microservice": "Verify transfer compliance",
        "path": f"/var/processing/unit-{number}/",
        "directory": f"unit-{number}",
        "last_polled_at": now - timedelta(seconds=5),
    }
    values.update(fields)
    return Unit(**values)


def waiting_unit(
    number: int, *, approval: bool = True, minutes_waiting: float = 5, **fields: Any
) -> Unit:
    since = timezone.now() - timedelta(minutes=minutes_waiting)
    values: dict[str, Any] = {
        "status": "USER_INPUT",
        "microservice": "Approve standard transfer" if approval else "Normalize",
        "awaiting_decision": True,
        "awaiting_approval": approval,
        "decision": "Approve standard transfer" if approval else "Select normalization path",
        "waiting_since": since,
        "transfer_type": "standard" if approval else "",
    }
    values.update(fields)
    return unit(number, **values)


def seed(*units: Unit) -> list[Unit]:
    """Store the units, replacing any earlier row of the same pipeline and UUID."""
    for unit in units:
        Unit.objects.filter(pipeline=unit.pipeline, uuid=unit.uuid).delete()
        unit.save()
    return list(units)


def task(
    number: int,
    *,
    exit_code: int | None = 0,
    duration: int | None = 2,
    under_one: bool = False,
    file_name: str = "",
    started: datetime | None = None,
) -> dict[str, Any]:
    start = started or datetime(2026, 3, 1, 10, 0, number % 60)
    return {
        "uuid": f"20000000-0000-4000-8000-{number:012d}",
        "exit_code": exit_code,
        "file_uuid": None,
        "file_name": file_name or f"objects/file-{number}.tif",
        "time_created": start,
        "time_started": start,
        "time_ended": None if duration is None else start + timedelta(seconds=duration),
        "duration_seconds": 0 if under_one else duration,
        "duration_under_one_second": under_one,
    }


def job(
    number: int,
    *,
    name: str,
    microservice: str,
    status: str = "COMPLETE",
    tasks: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        "uuid": job_uuid_for(number),
        "name": name,
        "status": status,
        "microservice": microservice,
        "link_uuid": None,
        "tasks": tasks if tasks is not None else [task(number)],
    }


def seed_jobs(of: Unit, jobs: list[dict[str, Any]]) -> None:
    UnitJobs.objects.update_or_create(
        unit=of,
        defaults={"fetched_at": timezone.now(), "unit_updated_at": of.updated_at, "jobs": jobs},
    )


def mark_polled(*, ok: bool = True, seconds_ago: float = 3, error: str = "") -> None:
    """A freshness record for the workflow service: a good poll, or an outage after one."""
    now = timezone.now()
    if ok:
        record = ServicePoll(
            service=f"workflow:{PIPELINE}",
            last_attempt_at=now - timedelta(seconds=seconds_ago),
            last_success_at=now - timedelta(seconds=seconds_ago),
        )
    else:
        record = ServicePoll(
            service=f"workflow:{PIPELINE}",
            last_attempt_at=now - timedelta(seconds=5),
            last_success_at=now - timedelta(seconds=seconds_ago),
            last_error=error or "workflow service could not be reached: connection refused",
            last_error_at=now - timedelta(seconds=5),
        )
    ServicePoll.objects.filter(service=record.service).delete()
    record.save()
