"""Put a known picture into the database and the cache, as the pollers would leave it."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from dashboard.models import ServicePoll, StatusChange, Unit
from dashboard.services import storage as storage_services

PIPELINES = [
    {
        "slug": "default",
        "name": "Default pipeline",
        "url": "http://127.0.0.1:9",
        "user": "demo",
        "key": "demo-key",
    },
]
GIB = 1024**3


def use_pipelines(settings, pipelines: list[dict[str, str]] | None = None) -> None:
    settings.LOOKOUT_PIPELINES = pipelines or PIPELINES


def unit(
    *,
    now: datetime,
    name: str,
    status: str = "PROCESSING",
    pipeline: str = "default",
    waiting_for: timedelta | None = None,
    decision: str = "",
    kind: str = "transfer",
) -> Unit:
    waiting_since = now - waiting_for if waiting_for is not None else None
    return Unit(
        pipeline=pipeline,
        uuid=str(uuid.uuid4()),
        kind=kind,
        first_seen_at=now - timedelta(hours=1),
        updated_at=waiting_since or now,
        name=name,
        status=status,
        microservice=decision,
        awaiting_decision=waiting_for is not None,
        decision=decision,
        waiting_since=waiting_since,
    )


def failed_unit(
    *, now: datetime, name: str, failed_ago: timedelta, pipeline: str = "default"
) -> Unit:
    """A unit that failed `failed_ago`, by the workflow service's own task times."""
    failed = unit(now=now, name=name, status="FAILED", pipeline=pipeline)
    failed.failed_at = now - failed_ago
    failed.failed_at_from = "upstream"
    failed.failed_job = "Check transfer directory for objects"
    return failed


def save_units(units: list[Unit], pipeline: str = "default") -> None:
    """The pipeline's units are exactly these."""
    Unit.objects.filter(pipeline=pipeline).delete()
    Unit.objects.bulk_create(units)


def change(
    *,
    at: datetime,
    to_status: str,
    pipeline: str = "default",
    unit_uuid: str | None = None,
    unit_kind: str = "sip",
) -> StatusChange:
    return StatusChange.objects.create(
        pipeline=pipeline,
        unit_uuid=unit_uuid or str(uuid.uuid4()),
        unit_kind=unit_kind,
        unit_name="history",
        from_status="PROCESSING",
        to_status=to_status,
        microservice="Store AIP",
        at=at,
    )


def fresh(service: str, *, at: datetime, error: str = "") -> None:
    ServicePoll.objects.update_or_create(
        service=service,
        defaults={"last_attempt_at": at, "last_success_at": at, "last_error": error},
    )


def failing_since(
    service: str, *, last_success: datetime | None, now: datetime, error: str
) -> None:
    ServicePoll.objects.update_or_create(
        service=service,
        defaults={
            "last_attempt_at": now,
            "last_success_at": last_success,
            "last_error": error,
            "last_error_at": now,
        },
    )


def storage(
    *,
    now: datetime,
    spaces: list[dict[str, Any]] | None = None,
    locations: list[dict[str, Any]] | None = None,
) -> None:
    storage_services.storage_summary_save(
        {
            "fetched_at": now,
            "pipelines": [],
            "spaces": spaces
            if spaces is not None
            else [
                {
                    "uuid": "s1",
                    "access_protocol": "FS",
                    "path": "/var/preservation",
                    "size": 1000 * GIB,
                    "used": 930 * GIB,
                },
            ],
            "locations": locations
            if locations is not None
            else [
                {
                    "uuid": "l1",
                    "purpose": "AS",
                    "description": "AIP store",
                    "enabled": True,
                    "relative_path": "aips",
                    "quota": 400 * GIB,
                    "used": 100 * GIB,
                },
                {
                    "uuid": "l2",
                    "purpose": "DS",
                    "description": "DIP store",
                    "enabled": True,
                    "relative_path": "dips",
                    "quota": 100 * GIB,
                    "used": 85 * GIB,
                },
            ],
            "package_counts": {"AIP": 10, "AIC": 0, "DIP": 4, "transfer": 2},
            "deletion_requests": 0,
        }
    )


def busy_wall(now: datetime) -> None:
    """A pipeline with work, waiting units, failures, a day of history and full storage."""
    save_units(
        [
            unit(now=now, name="moving-1"),
            unit(now=now, name="moving-2"),
            unit(now=now, name="moving-3", kind="sip"),
            unit(
                now=now,
                name="approve-me",
                status="USER_INPUT",
                waiting_for=timedelta(hours=3),
                decision="Approve standard transfer",
            ),
            unit(
                now=now,
                name="normalise-me",
                status="USER_INPUT",
                waiting_for=timedelta(minutes=20),
                decision="Normalize",
            ),
            unit(now=now, name="done", status="COMPLETE"),
            failed_unit(now=now, name="broken", failed_ago=timedelta(hours=2)),
        ]
    )
    for hour in range(24):
        for _ in range(hour % 5):
            change(at=now - timedelta(hours=23 - hour, minutes=30), to_status="COMPLETE")
    change(at=now - timedelta(hours=2), to_status="FAILED")
    fresh("workflow:default", at=now)
    fresh("storage", at=now)
    storage(now=now)
