"""Reads for the wall screen: one tile per pipeline, storage capacity and freshness.

Everything comes from the cache the pollers fill and from the `StatusChange` history;
nothing here calls an upstream service, so the wall renders the same during an outage,
only with louder freshness warnings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from dashboard.lib.pipelines import PipelineConfig, pipeline_list
from dashboard.lib.sparkline import Sparkline, sparkline_svg
from dashboard.models import FINAL_STATUSES, StatusChange
from dashboard.selectors import freshness
from dashboard.selectors import storage as storage_selectors
from dashboard.selectors import units as unit_selectors
from dashboard.selectors.freshness import ServiceHealth

THROUGHPUT_HOURS = 24
FAILURE_WINDOW = timedelta(hours=24)
# Share of a quota at which a capacity row turns to a warning, then to critical.
CAPACITY_WARNING = 0.80
CAPACITY_CRITICAL = 0.90
# The wall has room for this many capacity rows; the fullest are shown first.
CAPACITY_ROWS = 6

LOCATION_PURPOSES = {
    "AS": "AIP storage",
    "DS": "DIP storage",
    "AR": "AIP recovery",
    "BL": "Transfer backlog",
    "CP": "Currently processing",
    "TS": "Transfer source",
    "SS": "Storage service internal",
    "SD": "Deposit",
    "RP": "Replicator",
}


def duration_label(seconds: float | None) -> str:
    """A short age for a wall: "45 s", "12 min", "3 h 5 min", "2 d 4 h"."""
    if seconds is None:
        return "never"
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole} s"
    minutes = whole // 60
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    days, hours = divmod(hours, 24)
    return f"{days} d {hours} h" if hours else f"{days} d"


def service_label(service: str) -> str:
    """The name a person reads for a freshness key ("workflow:<slug>", "storage")."""
    if service.startswith("workflow:"):
        slug = service.split(":", 1)[1]
        names = {p.slug: p.name for p in pipeline_list()}
        return f"Workflow service · {names.get(slug, slug)}"
    if service == "storage":
        return "Storage service"
    return service


def freshness_label(age_seconds: float | None) -> str:
    if age_seconds is None:
        return "has never answered"
    return f"no fresh data for {duration_label(age_seconds)}"


@dataclass(frozen=True)
class StaleService:
    service: str
    label: str
    age_seconds: float | None
    last_error: str

    @property
    def age_label(self) -> str:
        return freshness_label(self.age_seconds)


@dataclass(frozen=True)
class History:
    failed_24h: int
    completed_today: int
    # Completions per hour, oldest hour first; the last entry ends now.
    throughput: tuple[int, ...]


def pipeline_history(*, pipeline: str, now: datetime) -> History:
    """Failures in the last 24 h, and ingests completed today and per hour, once per unit."""
    window_start = now - timedelta(hours=THROUGHPUT_HOURS)
    today_start = timezone.localtime(now).replace(hour=0, minute=0, second=0, microsecond=0)
    rows = StatusChange.objects.filter(
        pipeline=pipeline,
        to_status__in=("COMPLETE", "FAILED"),
        at__gte=min(window_start, now - FAILURE_WINDOW, today_start),
        at__lte=now,
    ).values_list("to_status", "at", "unit_uuid", "unit_kind")
    failed: set[Any] = set()
    completed_today: set[Any] = set()
    per_hour: list[set[Any]] = [set() for _ in range(THROUGHPUT_HOURS)]
    for to_status, at, unit_uuid, unit_kind in rows:
        if to_status == "FAILED":
            if at >= now - FAILURE_WINDOW:
                failed.add(unit_uuid)
            continue
        # A completed transfer is only half-way (its SIP follows): count finished ingests.
        if unit_kind != "sip":
            continue
        if at >= today_start:
            completed_today.add(unit_uuid)
        if at >= window_start:
            index = min(int((at - window_start).total_seconds() // 3600), THROUGHPUT_HOURS - 1)
            per_hour[index].add(unit_uuid)
    return History(
        failed_24h=len(failed),
        completed_today=len(completed_today),
        throughput=tuple(len(units) for units in per_hour),
    )


@dataclass(frozen=True)
class PipelineTile:
    slug: str
    name: str
    # Unfinished units that are not waiting for a person; with `awaiting`, all open units.
    in_progress: int
    awaiting: int
    oldest_waiting_name: str
    oldest_waiting_decision: str
    oldest_waiting_seconds: float | None
    failed_24h: int
    completed_today: int
    throughput: tuple[int, ...]
    health: ServiceHealth

    @property
    def oldest_waiting_label(self) -> str:
        return duration_label(self.oldest_waiting_seconds)

    @property
    def stale_label(self) -> str:
        return freshness_label(self.health.age_seconds)

    @property
    def needs_attention(self) -> bool:
        return bool(self.awaiting or self.failed_24h or self.health.stale)

    @property
    def chart(self) -> Sparkline:
        return sparkline_svg(self.throughput, title=f"Completions per hour, {self.name}")


def _pipeline_tile(config: PipelineConfig, health: ServiceHealth, now: datetime) -> PipelineTile:
    units = unit_selectors.unit_list(pipeline=config.slug)
    waiting = unit_selectors.waiting_list(pipeline=config.slug)
    oldest = waiting.first()
    oldest_since = (oldest.waiting_since or oldest.updated_at) if oldest else None
    history = pipeline_history(pipeline=config.slug, now=now)
    return PipelineTile(
        slug=config.slug,
        name=config.name,
        in_progress=units.exclude(status__in=FINAL_STATUSES, awaiting_sip_uuid=False)
        .filter(awaiting_decision=False)
        .count(),
        awaiting=waiting.count(),
        oldest_waiting_name=(oldest.name or oldest.directory or oldest.uuid) if oldest else "",
        oldest_waiting_decision=oldest.decision if oldest else "",
        oldest_waiting_seconds=(now - oldest_since).total_seconds() if oldest_since else None,
        failed_24h=history.failed_24h,
        completed_today=history.completed_today,
        throughput=history.throughput,
        health=health,
    )


@dataclass(frozen=True)
class CapacityRow:
    kind: str  # "Space" or the location's purpose
    label: str
    used: int
    total: int | None  # None: no limit set

    @property
    def fraction(self) -> float | None:
        return self.used / self.total if self.total else None

    @property
    def percent(self) -> int | None:
        fraction = self.fraction
        return None if fraction is None else round(fraction * 100)

    @property
    def bar_percent(self) -> int:
        return min(100, self.percent or 0)

    @property
    def level(self) -> str:
        fraction = self.fraction
        if fraction is None:
            return "unlimited"
        if fraction >= CAPACITY_CRITICAL:
            return "critical"
        if fraction >= CAPACITY_WARNING:
            return "warning"
        return "ok"

    @property
    def level_label(self) -> str:
        return {
            "unlimited": "No limit set",
            "critical": "Nearly full",
            "warning": "Filling up",
            "ok": "OK",
        }[self.level]


def _as_int(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def capacity_rows(summary: Mapping[str, Any] | None) -> list[CapacityRow]:
    """Spaces, and locations with a quota, the fullest first (no limit last)."""
    if not summary:
        return []
    rows = []
    for space in summary.get("spaces") or ():
        rows.append(
            CapacityRow(
                kind="Space",
                label=str(space.get("path") or space.get("uuid", ""))[:80],
                used=_as_int(space.get("used")) or 0,
                total=_as_int(space.get("size")) or None,
            )
        )
    for location in summary.get("locations") or ():
        quota = _as_int(location.get("quota"))
        if not quota or location.get("enabled") is False:
            continue
        purpose = str(location.get("purpose") or "")
        rows.append(
            CapacityRow(
                kind=LOCATION_PURPOSES.get(purpose, purpose or "Location"),
                label=str(
                    location.get("description")
                    or location.get("relative_path")
                    or location.get("uuid", "")
                )[:80],
                used=_as_int(location.get("used")) or 0,
                total=quota,
            )
        )
    rows.sort(key=lambda r: (r.fraction is None, -(r.fraction or 0.0), -r.used))
    return rows


@dataclass(frozen=True)
class WallState:
    generated_at: datetime
    pipelines: tuple[PipelineTile, ...]
    capacity: tuple[CapacityRow, ...]
    capacity_hidden: int
    storage_fetched_at: datetime | None
    stale_services: tuple[StaleService, ...] = field(default=())

    @property
    def awaiting_total(self) -> int:
        return sum(t.awaiting for t in self.pipelines)

    @property
    def failed_total(self) -> int:
        return sum(t.failed_24h for t in self.pipelines)

    @property
    def capacity_alerts(self) -> int:
        return sum(1 for r in self.capacity if r.level == "critical")

    @property
    def needs_attention(self) -> bool:
        return bool(self.attention_items)

    @property
    def attention_items(self) -> tuple[str, ...]:
        """What needs a person, in words, most urgent first."""
        items = []
        if self.awaiting_total:
            items.append(_plural(self.awaiting_total, "decision waiting", "decisions waiting"))
        if self.failed_total:
            items.append(_plural(self.failed_total, "failure", "failures") + " in 24 h")
        if self.stale_services:
            items.append(
                _plural(len(self.stale_services), "service not answering", "services not answering")
            )
        if self.capacity_alerts:
            items.append(_plural(self.capacity_alerts, "store nearly full", "stores nearly full"))
        return tuple(items)


def _plural(count: int, singular: str, plural: str) -> str:
    return f"{count} {singular if count == 1 else plural}"


def _stale(health: Iterable[ServiceHealth]) -> tuple[StaleService, ...]:
    return tuple(
        StaleService(
            service=h.service,
            label=service_label(h.service),
            age_seconds=h.age_seconds,
            last_error=h.last_error,
        )
        for h in health
        if h.stale
    )


def wall_state(*, now: datetime | None = None) -> WallState:
    now = now or timezone.now()
    health = {h.service: h for h in freshness.service_health_list(now=now)}
    tiles = tuple(
        _pipeline_tile(config, health[f"workflow:{config.slug}"], now) for config in pipeline_list()
    )
    summary = storage_selectors.storage_summary()
    rows = capacity_rows(summary)
    return WallState(
        generated_at=now,
        pipelines=tiles,
        capacity=tuple(rows[:CAPACITY_ROWS]),
        capacity_hidden=max(0, len(rows) - CAPACITY_ROWS),
        storage_fetched_at=(summary or {}).get("fetched_at"),
        stale_services=_stale(health.values()),
    )
