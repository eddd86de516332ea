"""Reads: what pages and the API show, straight from the cache the pollers fill.

Nothing here calls an upstream service, so a page never waits on one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from dashboard import state
from dashboard.pipelines import pipeline_list
from dashboard.snapshots import UnitSnapshot

UNIT_STATUSES = ("PROCESSING", "USER_INPUT", "COMPLETE", "FAILED", "REJECTED", "PENDING", "UNKNOWN")
UNIT_KINDS = ("transfer", "sip")
# A service counts as stale once it has missed this many of its poll intervals.
STALE_AFTER_INTERVALS = 3


def unit_list(
    *,
    pipeline: str | None = None,
    status: str | None = None,
    kind: str | None = None,
    q: str | None = None,
    include_hidden: bool = False,
) -> list[UnitSnapshot]:
    """Units newest change first, filtered; `q` matches name, directory or UUID."""
    needle = (q or "").strip().lower()
    found = []
    for config in pipeline_list():
        if pipeline and config.slug != pipeline:
            continue
        hidden = state.hidden_load(config.slug)
        for unit in state.units_load(config.slug).values():
            if (unit.hidden or unit.uuid in hidden) and not include_hidden:
                continue
            if status and unit.status != status:
                continue
            if kind and unit.kind != kind:
                continue
            if needle and not (
                needle in unit.name.lower()
                or needle in unit.directory.lower()
                or unit.uuid.startswith(needle)
            ):
                continue
            found.append(unit)
    found.sort(key=lambda u: u.updated_at, reverse=True)
    return found


def unit_get(*, uuid: str) -> UnitSnapshot | None:
    for config in pipeline_list():
        unit = state.units_load(config.slug).get(uuid)
        if unit is not None:
            return unit
    return None


def unit_jobs(*, unit: UnitSnapshot) -> dict[str, Any] | None:
    """The unit's cached jobs, `{"fetched_at", "jobs": [...]}`, or None if not fetched yet."""
    return state.jobs_load(unit.pipeline, unit.uuid)


def waiting_list(*, pipeline: str | None = None) -> list[UnitSnapshot]:
    """Units awaiting a decision, the longest-waiting first."""
    units = [u for u in unit_list(pipeline=pipeline) if u.awaiting_decision]
    units.sort(key=lambda u: u.waiting_since or u.updated_at)
    return units


@dataclass(frozen=True)
class ServiceHealth:
    service: str
    interval_seconds: int
    last_attempt_at: datetime | None
    last_success_at: datetime | None
    last_error: str
    age_seconds: float | None
    stale: bool


def _interval_for(service: str) -> int:
    if service == "storage":
        return settings.LOOKOUT_STORAGE_POLL_INTERVAL
    return settings.LOOKOUT_WORKFLOW_POLL_INTERVAL


def service_health_list(*, now: datetime | None = None) -> list[ServiceHealth]:
    now = now or timezone.now()
    services = [f"workflow:{p.slug}" for p in pipeline_list()] + ["storage"]
    health = []
    for service in services:
        freshness = state.freshness_load(service)
        interval = _interval_for(service)
        age = (
            (now - freshness.last_success_at).total_seconds() if freshness.last_success_at else None
        )
        stale = age is None or age > STALE_AFTER_INTERVALS * interval
        health.append(
            ServiceHealth(
                service=service,
                interval_seconds=interval,
                last_attempt_at=freshness.last_attempt_at,
                last_success_at=freshness.last_success_at,
                last_error=freshness.last_error,
                age_seconds=age,
                stale=stale,
            )
        )
    return health


def storage_summary() -> dict[str, Any] | None:
    return state.storage_summary_load()


def stale_threshold(service: str) -> timedelta:
    return timedelta(seconds=STALE_AFTER_INTERVALS * _interval_for(service))
