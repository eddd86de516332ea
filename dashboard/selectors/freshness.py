"""How fresh each upstream service's data is: what pages, the wall and /healthz show."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from dashboard.lib.pipelines import pipeline_list
from dashboard.models import ServicePoll

# A service counts as stale once it has missed this many of its poll intervals.
STALE_AFTER_INTERVALS = 3


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
    polls = {poll.service: poll for poll in ServicePoll.objects.filter(service__in=services)}
    health = []
    for service in services:
        freshness = polls.get(service) or ServicePoll(service=service)
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


def stale_threshold(service: str) -> timedelta:
    return timedelta(seconds=STALE_AFTER_INTERVALS * _interval_for(service))


@dataclass(frozen=True)
class PageFreshness:
    """How old the workflow data on a page is, and which services are stale."""

    # Age of the oldest last success among the workflow services; None if never polled.
    age_seconds: float | None
    never_polled: bool
    stale: list[ServiceHealth]
    services: list[ServiceHealth]


def page_freshness(*, now: datetime | None = None, include_storage: bool = False) -> PageFreshness:
    """The age is the workflow services'; the storage service is listed when asked."""
    health = service_health_list(now=now)
    if not include_storage:
        health = [h for h in health if h.service.startswith("workflow:")]
    ages = [h.age_seconds for h in health if h.service.startswith("workflow:")]
    known = [age for age in ages if age is not None]
    return PageFreshness(
        age_seconds=max(known) if known else None,
        never_polled=any(age is None for age in ages),
        stale=[h for h in health if h.stale],
        services=health,
    )
