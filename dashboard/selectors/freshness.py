"""How fresh each upstream service's data is: what pages, the wall and /healthz show."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from dashboard.lib import dashboard_source
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
    # A dashboard source (`dashboard:<slug>`) whose service account was refused at the
    # last sign-in.
    refused: bool = False


def _interval_for(service: str, poll: ServicePoll | None = None) -> int:
    if service == "storage":
        return settings.LOOKOUT_STORAGE_POLL_INTERVAL
    if service.startswith(dashboard_source.PREFIX):
        # The lists' interval adapts to their answer time (services.dashboard_discovery).
        answered_in = (poll.last_duration_ms or 0) / 1000 if poll is not None else 0
        seconds = dashboard_source.list_interval_seconds(
            answered_in=answered_in, minimum=settings.LOOKOUT_DASHBOARD_LIST_MIN_INTERVAL
        )
        return int(seconds) + 1
    return settings.LOOKOUT_WORKFLOW_POLL_INTERVAL


def _last_read_failed(poll: ServicePoll) -> bool:
    if poll.last_error_at is None or not poll.last_error:
        return False
    return poll.last_success_at is None or poll.last_error_at >= poll.last_success_at


def service_health_list(*, now: datetime | None = None) -> list[ServiceHealth]:
    """Every source: one workflow service per pipeline, the dashboard lists of each
    pipeline with a service account, then the storage service."""
    now = now or timezone.now()
    services = []
    for pipeline in pipeline_list():
        services.append(f"workflow:{pipeline.slug}")
        if pipeline.full_view:
            services.append(dashboard_source.dashboard_service(pipeline.slug))
    services.append("storage")
    polls = {poll.service: poll for poll in ServicePoll.objects.filter(service__in=services)}
    health = []
    for service in services:
        freshness = polls.get(service) or ServicePoll(service=service)
        interval = _interval_for(service, freshness)
        age = (
            (now - freshness.last_success_at).total_seconds() if freshness.last_success_at else None
        )
        stale = age is None or age > STALE_AFTER_INTERVALS * interval
        refused = False
        if service.startswith(dashboard_source.PREFIX) and _last_read_failed(freshness):
            # An outage of the lists (job server down) or a refused account shows at
            # once: units are then seen through the API only.
            stale = True
            refused = dashboard_source.is_refusal(freshness.last_error)
        health.append(
            ServiceHealth(
                service=service,
                interval_seconds=interval,
                last_attempt_at=freshness.last_attempt_at,
                last_success_at=freshness.last_success_at,
                last_error=freshness.last_error,
                age_seconds=age,
                stale=stale,
                refused=refused,
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
        health = [h for h in health if h.service != "storage"]
    ages = [h.age_seconds for h in health if h.service.startswith("workflow:")]
    known = [age for age in ages if age is not None]
    return PageFreshness(
        age_seconds=max(known) if known else None,
        never_polled=any(age is None for age in ages),
        stale=[h for h in health if h.stale],
        services=health,
    )
