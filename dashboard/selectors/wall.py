"""Reads for the wall screen: one tile per pipeline, storage capacity and freshness.

A tile's counts and every service's freshness are the summary's (`summary_get`, as on
the overview and in /api/v1/summary/); its completions come from the `StatusChange`
history, and capacity from the cache the storage poller fills. Nothing here calls an
upstream service, so the wall renders the same during an outage, only with louder
freshness warnings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from dashboard.lib import vocabulary
from dashboard.lib.pipelines import pipeline_list
from dashboard.lib.sparkline import Sparkline, sparkline_svg
from dashboard.models import StatusChange
from dashboard.selectors import storage as storage_selectors
from dashboard.selectors.freshness import ServiceHealth
from dashboard.selectors.pipeline_modes import Modes, pipeline_modes
from dashboard.selectors.summary import PipelineSummary, summary_get

THROUGHPUT_HOURS = 24
# The wall has room for this many capacity rows; the fullest are shown first.
CAPACITY_ROWS = 6


def freshness_label(age_seconds: float | None) -> str:
    if age_seconds is None:
        return _("has never answered")
    return _("no fresh data for %(duration)s") % {"duration": vocabulary.duration(age_seconds)}


@dataclass(frozen=True)
class StaleService:
    service: str
    label: str
    age_seconds: float | None
    last_error: str
    # False until the first poll of the service has been tried (a fresh start).
    polled: bool = True

    @property
    def age_label(self) -> str:
        if not self.polled:
            return _("not asked yet")
        return freshness_label(self.age_seconds)


@dataclass(frozen=True)
class History:
    completed_today: int
    # Completions per hour, oldest hour first; the last entry ends now.
    throughput: tuple[int, ...]


def pipeline_history(*, pipeline: str, now: datetime) -> History:
    """Ingests completed today and per hour, once per unit."""
    window_start = now - timedelta(hours=THROUGHPUT_HOURS)
    today_start = timezone.localtime(now).replace(hour=0, minute=0, second=0, microsecond=0)
    rows = StatusChange.objects.filter(
        pipeline=pipeline,
        to_status="COMPLETE",
        at__gte=min(window_start, today_start),
        at__lte=now,
    ).values_list("at", "unit_uuid", "unit_kind")
    completed_today: set[Any] = set()
    per_hour: list[set[Any]] = [set() for _ in range(THROUGHPUT_HOURS)]
    for at, unit_uuid, unit_kind in rows:
        # A completed transfer is only half-way (its SIP follows): count finished ingests.
        if unit_kind != "sip":
            continue
        if at >= today_start:
            completed_today.add(unit_uuid)
        if at >= window_start:
            index = min(int((at - window_start).total_seconds() // 3600), THROUGHPUT_HOURS - 1)
            per_hour[index].add(unit_uuid)
    return History(
        completed_today=len(completed_today),
        throughput=tuple(len(units) for units in per_hour),
    )


@dataclass(frozen=True)
class PipelineTile:
    slug: str
    name: str
    # In an unfinished status and not waiting for a person (see `Figures.in_progress`).
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
        return vocabulary.duration(self.oldest_waiting_seconds)

    @property
    def stale_label(self) -> str:
        return freshness_label(self.health.age_seconds)

    @property
    def needs_attention(self) -> bool:
        return bool(self.awaiting or self.failed_24h or self.health.stale)

    @property
    def chart(self) -> Sparkline:
        return sparkline_svg(
            self.throughput, title=_("Completions per hour, %(pipeline)s") % {"pipeline": self.name}
        )


def _pipeline_tile(summary: PipelineSummary, now: datetime) -> PipelineTile:
    oldest = summary.oldest_wait
    history = pipeline_history(pipeline=summary.slug, now=now)
    return PipelineTile(
        slug=summary.slug,
        name=summary.name,
        in_progress=summary.in_progress,
        awaiting=summary.waiting,
        oldest_waiting_name=oldest.name if oldest else "",
        oldest_waiting_decision=oldest.decision if oldest else "",
        oldest_waiting_seconds=oldest.age_seconds if oldest else None,
        failed_24h=summary.failed_24h,
        completed_today=history.completed_today,
        throughput=history.throughput,
        health=summary.freshness,
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
        return vocabulary.capacity_level(self.used, self.total)

    @property
    def level_label(self) -> str:
        return vocabulary.capacity_label(self.level)

    @property
    def text(self) -> str:
        return vocabulary.usage_text(self.used, self.total)


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
                kind=_("Space"),
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
                kind=vocabulary.purpose_label(purpose),
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
    # API-only pipelines carry a line saying what they cannot see.
    modes: Modes = field(default_factory=lambda: Modes(pipelines=()))

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
    def starting(self) -> bool:
        """No service has been polled yet: a first start, not an outage."""
        return bool(self.stale_services) and not any(s.polled for s in self.stale_services)

    @property
    def needs_attention(self) -> bool:
        return bool(self.attention_items)

    @property
    def attention_items(self) -> tuple[str, ...]:
        """What needs a person, in words, most urgent first."""
        items = []
        if self.awaiting_total:
            items.append(
                ngettext(
                    "%(count)s decision waiting", "%(count)s decisions waiting", self.awaiting_total
                )
                % {"count": self.awaiting_total}
            )
        if self.failed_total:
            items.append(
                ngettext(
                    "%(count)s failure in 24 h", "%(count)s failures in 24 h", self.failed_total
                )
                % {"count": self.failed_total}
            )
        if self.stale_services:
            stale = len(self.stale_services)
            items.append(
                ngettext(
                    "%(count)s service not answering", "%(count)s services not answering", stale
                )
                % {"count": stale}
            )
        if self.capacity_alerts:
            items.append(
                ngettext(
                    "%(count)s store nearly full",
                    "%(count)s stores nearly full",
                    self.capacity_alerts,
                )
                % {"count": self.capacity_alerts}
            )
        return tuple(items)


def _stale(health: Iterable[ServiceHealth]) -> tuple[StaleService, ...]:
    names = {p.slug: p.name for p in pipeline_list()}
    return tuple(
        StaleService(
            service=h.service,
            label=vocabulary.service_label(h.service, names),
            age_seconds=h.age_seconds,
            last_error=h.last_error,
            polled=h.last_attempt_at is not None,
        )
        for h in health
        if h.stale
    )


def wall_state(*, now: datetime | None = None) -> WallState:
    now = now or timezone.now()
    summary = summary_get(now=now)
    tiles = tuple(_pipeline_tile(pipeline, now) for pipeline in summary.pipelines)
    storage = storage_selectors.storage_summary()
    rows = capacity_rows(storage)
    return WallState(
        generated_at=now,
        pipelines=tiles,
        capacity=tuple(rows[:CAPACITY_ROWS]),
        capacity_hidden=max(0, len(rows) - CAPACITY_ROWS),
        storage_fetched_at=(storage or {}).get("fetched_at"),
        stale_services=_stale(summary.services),
        modes=pipeline_modes(health=list(summary.services)),
    )
