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


# --- the wall's states, for the browser tests and docs/wall.md's screenshots ---------

LONG_NAME = (
    "Digitised-correspondence-of-the-Harbour-Board-1887-1932-box-14-folders-1-to-37"
    "-with-enclosures-and-photographic-prints"
)


def pipelines(count: int, *, long_names: bool = False) -> list[dict[str, str]]:
    names = ["Default pipeline", "Reading room", "Born-digital intake", "Audiovisual"]
    names += ["Newspapers", "Theses", "Photographs", "Government records"]
    return [
        {
            **PIPELINES[0],
            "slug": "default" if n == 0 else f"p{n}",
            "name": (
                f"{names[n % len(names)]} pipeline of the regional archive, second floor"
                if long_names
                else names[n % len(names)]
            ),
        }
        for n in range(count)
    ]


def _pipeline_work(
    now: datetime,
    slug: str,
    *,
    moving: int = 3,
    waiting: int = 0,
    failed: int = 0,
    unit_name: str = "",
) -> None:
    units = [unit(now=now, name=f"{slug}-moving-{n}", pipeline=slug) for n in range(moving)]
    units += [
        unit(
            now=now,
            name=unit_name or f"{slug}-waiting-{n}",
            status="USER_INPUT",
            pipeline=slug,
            waiting_for=timedelta(minutes=200 - n % 200),
            decision="Approve standard transfer",
        )
        for n in range(waiting)
    ]
    units += [
        failed_unit(
            now=now, name=f"{slug}-failed-{n}", failed_ago=timedelta(hours=2), pipeline=slug
        )
        for n in range(failed)
    ]
    save_units(units, pipeline=slug)
    for hour in range(24):
        for _ in range((hour + len(slug)) % 5):
            change(
                at=now - timedelta(hours=23 - hour, minutes=30), to_status="COMPLETE", pipeline=slug
            )
    fresh(f"workflow:{slug}", at=now)


def wall_in_state(settings, state: str, now: datetime) -> None:
    """Leave the database and cache as the pollers would in one of WALL_STATES."""
    if state == "first-start":
        use_pipelines(settings)
        return
    count = {"pipelines-3": 3, "pipelines-8": 8}.get(state, 1)
    configured = pipelines(count, long_names=state == "long-names")
    use_pipelines(settings, configured)
    for index, pipeline in enumerate(configured):
        _pipeline_work(
            now,
            pipeline["slug"],
            moving=3 + index,
            waiting={"healthy": 0, "waiting-0": 0, "waiting-200": 200}.get(state, index % 3 + 1),
            failed=0 if state == "healthy" else index % 2 + (state == "waiting-0"),
            unit_name=LONG_NAME if state == "long-names" else "",
        )
    fresh("storage", at=now)
    if state == "healthy":
        storage(
            now=now,
            spaces=[{"path": "/var/preservation", "size": 1000 * GIB, "used": 420 * GIB}],
            locations=[
                {
                    "purpose": "AS",
                    "description": "AIP store",
                    "quota": 400 * GIB,
                    "used": 100 * GIB,
                },
                {"purpose": "DS", "description": "DIP store", "quota": 100 * GIB, "used": 35 * GIB},
            ],
        )
    else:
        storage(now=now)
    if state in {"one-stale", "both-stale"}:
        failing_since(
            "workflow:default",
            last_success=now - timedelta(minutes=14),
            now=now,
            error=(
                "HTTPConnectionPool(host='127.0.0.1', port=8001): Read timed out. (read timeout=10)"
            ),
        )
    if state == "both-stale":
        failing_since(
            "storage",
            last_success=now - timedelta(hours=2, minutes=5),
            now=now,
            error="503 Service Unavailable",
        )
    if state == "long-names":
        storage(
            now=now,
            spaces=[
                {
                    "path": "/mnt/preservation-storage/primary-replica-of-the-regional-archive",
                    "size": 1000 * GIB,
                    "used": 930 * GIB,
                }
            ],
            locations=[
                {
                    "purpose": "AS",
                    "description": (
                        "AIP store for the digitised correspondence and photograph collections"
                    ),
                    "quota": 400 * GIB,
                    "used": 100 * GIB,
                },
                {
                    "purpose": "DS",
                    "description": "DIP store for the public access system of the reading room",
                    "quota": 100 * GIB,
                    "used": 85 * GIB,
                },
            ],
        )


WALL_STATES = (
    "healthy",
    "one-stale",
    "both-stale",
    "pipelines-1",
    "pipelines-3",
    "pipelines-8",
    "waiting-0",
    "waiting-200",
    "long-names",
    "first-start",
)
