"""Reads for /metrics: a handful of grouped, indexed queries and the cached storage summary.

Each figure comes from the database as it is at scrape time (no in-process counters, so
every web process answers the same). The units by status are the kept counts
(`UnitStatusCount`) and the waiting units are read through their own index, so no query
reads the finished units, however long the history.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, Min, Q, Sum
from django.utils import timezone

from dashboard.models import VISIBLE, Alert, ServicePoll, StatusChange, Unit, UnitStatusCount
from dashboard.selectors import ingest as ingest_selectors
from dashboard.selectors.storage import storage_summary
from dashboard.selectors.summary import WAITING


@dataclass(frozen=True)
class ServiceFigures:
    service: str
    last_duration_seconds: float | None
    last_success_at: datetime | None
    attempts: int
    errors: int


@dataclass(frozen=True)
class StoreFigures:
    kind: str  # "space" or "location"
    uuid: str
    name: str
    used: int | None
    capacity: int | None


@dataclass(frozen=True)
class MetricsSnapshot:
    now: datetime
    # (pipeline, status) -> visible units, as /api/v1/units/ lists them.
    units: dict[tuple[str, str], int]
    waiting: dict[str, int]
    oldest_wait_seconds: dict[str, float]
    failures: dict[str, int]
    services: list[ServiceFigures]
    stores: list[StoreFigures]
    alerts_open: dict[str, int]
    alerts_baseline_open: dict[str, int]
    # (run id, item state) -> items; pipeline -> ingest items in flight.
    ingest_items: dict[tuple[int, str], int] = field(default_factory=dict)
    ingest_in_flight: dict[str, int] = field(default_factory=dict)


def _int(value: object) -> int | None:
    try:
        return int(value) if value is not None else None  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None


def _stores() -> list[StoreFigures]:
    summary = storage_summary() or {}
    stores = [
        StoreFigures(
            kind="space",
            uuid=str(space.get("uuid", "")),
            name=str(space.get("path") or ""),
            used=_int(space.get("used")),
            capacity=_int(space.get("size")),
        )
        for space in summary.get("spaces") or ()
    ]
    stores += [
        StoreFigures(
            kind="location",
            uuid=str(location.get("uuid", "")),
            name=str(location.get("description") or location.get("relative_path") or ""),
            used=_int(location.get("used")),
            capacity=_int(location.get("quota")),
        )
        for location in summary.get("locations") or ()
    ]
    return stores


def metrics_snapshot(*, now: datetime | None = None) -> MetricsSnapshot:
    now = now or timezone.now()
    # The kept counts of visible units (see UnitStatusCount): a few rows, where a GROUP BY
    # over the units reads every finished one.
    kept = (
        UnitStatusCount.objects.values_list("pipeline", "status")
        .annotate(n=Sum("count"))
        .order_by()
    )
    units = {(pipeline, status): n for pipeline, status, n in kept if n}
    # The waiting units are few and found through their own index (`unit_waiting`).
    waiting_rows = (
        Unit.objects.filter(VISIBLE, WAITING)
        .order_by()
        .values("pipeline")
        .annotate(n=Count("id"), oldest=Min("waiting_since"))
    )
    waiting = {row["pipeline"]: row["n"] for row in waiting_rows}
    oldest = {
        row["pipeline"]: max(0.0, (now - row["oldest"]).total_seconds())
        for row in waiting_rows
        if row["oldest"] is not None
    }
    failures = {
        row["pipeline"]: row["n"]
        for row in StatusChange.objects.filter(to_status="FAILED")
        .order_by()
        .values("pipeline")
        .annotate(n=Count("id"))
    }
    services = [
        ServiceFigures(
            service=poll.service,
            last_duration_seconds=poll.last_duration_ms / 1000
            if poll.last_duration_ms is not None
            else None,
            last_success_at=poll.last_success_at,
            attempts=poll.attempt_count,
            errors=poll.error_count,
        )
        for poll in ServicePoll.objects.order_by("service")
    ]
    live = Q(silenced_until__isnull=True) | Q(silenced_until__lte=now)
    open_alerts = Alert.objects.filter(live, state=Alert.State.OPEN, group_leader__isnull=True)
    counts = open_alerts.order_by().values("kind", "baseline").annotate(n=Count("id"))
    return MetricsSnapshot(
        now=now,
        units=units,
        waiting=waiting,
        oldest_wait_seconds=oldest,
        failures=failures,
        services=services,
        stores=_stores(),
        alerts_open={row["kind"]: row["n"] for row in counts if not row["baseline"]},
        alerts_baseline_open={row["kind"]: row["n"] for row in counts if row["baseline"]},
        ingest_items=ingest_selectors.ingest_items_by_state(),
        ingest_in_flight=ingest_selectors.ingest_in_flight_by_pipeline(),
    )
