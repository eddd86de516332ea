"""Reads of units: lists, lookups, the overview, the waiting queue, unit and job detail.

Straight from what the pollers stored; nothing here calls an upstream service, so a
page never waits on one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Q, QuerySet, Sum
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from dashboard.lib import vocabulary
from dashboard.lib.dashboard_source import dashboard_service
from dashboard.lib.pipelines import pipeline_list
from dashboard.models import (
    AuditEntry,
    ServicePoll,
    TimesFrom,
    Unit,
    UnitJobs,
    UnitStatusCount,
)
from dashboard.selectors.summary import WAIT_ORDER, WAITING, StatusCount, summary_get

# Codes the filters accept; their words are in `dashboard.lib.vocabulary`.
UNIT_STATUSES = tuple(vocabulary.UNIT_STATUSES)
UNIT_KINDS = tuple(vocabulary.UNIT_KINDS)


def _configured_pipelines() -> list[str]:
    return [config.slug for config in pipeline_list()]


def several_pipelines() -> bool:
    """Whether pages name each unit's pipeline (more than one is configured)."""
    return len(_configured_pipelines()) > 1


def unit_list(
    *,
    pipeline: str | None = None,
    status: str | None = None,
    kind: str | None = None,
    q: str | None = None,
    include_hidden: bool = False,
) -> QuerySet[Unit]:
    """Units newest change first, filtered; `q` matches name, directory or UUID."""
    units = Unit.objects.all()
    if pipeline:
        # Only configured pipelines: a slug from a URL is not trusted to exist.
        if pipeline not in _configured_pipelines():
            return units.none()
        units = units.filter(pipeline=pipeline)
    if not include_hidden:
        units = units.filter(hidden=False)
    if status:
        units = units.filter(status=status)
    if kind:
        units = units.filter(kind=kind)
    needle = (q or "").strip()
    if needle:
        units = units.filter(
            Q(name__icontains=needle)
            | Q(directory__icontains=needle)
            | Q(uuid__startswith=needle.lower())
        )
    return units.order_by("-updated_at", "-id")


def unit_list_count(
    *, pipeline: str | None = None, status: str | None = None, **other_filters: object
) -> int | None:
    """How many visible units `unit_list` gives for these filters, from the kept counts
    (`UnitStatusCount`): a few rows, where a COUNT reads every finished unit. None (count
    the list instead) when any other filter is given, or for a pipeline Lookout is not
    configured for (the list is empty then too)."""
    if other_filters:
        return None
    rows = UnitStatusCount.objects.all()
    if pipeline:
        if pipeline not in _configured_pipelines():
            return None
        rows = rows.filter(pipeline=pipeline)
    if status:
        rows = rows.filter(status=status)
    kept = int(rows.aggregate(n=Sum("count"))["n"] or 0)
    return kept if kept >= 0 else None  # never a page of a negative list: count instead


def unit_get(*, uuid: str) -> Unit | None:
    return Unit.objects.filter(uuid=uuid).order_by("id").first()


_TASK_TIMES = ("time_created", "time_started", "time_ended")


def _revived(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Jobs as stored (JSON), with the task times turned back into datetimes."""
    for job in jobs:
        for task in job.get("tasks") or []:
            for key in _TASK_TIMES:
                if isinstance(task.get(key), str):
                    task[key] = parse_datetime(task[key])
    return jobs


def unit_jobs(*, unit: Unit) -> dict[str, Any] | None:
    """The unit's stored jobs, `{"fetched_at", "unit_updated_at", "jobs"}`, or None."""
    entry = UnitJobs.objects.filter(unit=unit).first()
    if entry is None:
        return None
    return {
        "fetched_at": entry.fetched_at,
        "unit_updated_at": entry.unit_updated_at,
        "jobs": _revived(list(entry.jobs)),
    }


def waiting_list(*, pipeline: str | None = None) -> QuerySet[Unit]:
    """Units awaiting a decision, the longest-waiting first (the summary's oldest wait)."""
    return unit_list(pipeline=pipeline).filter(WAITING).order_by(*WAIT_ORDER)


# --- pages: overview, waiting, unit and job detail ---------------------------------

ACTIVE_STATUSES = frozenset({"PROCESSING"})
OBSERVED = TimesFrom.OBSERVED
# How long a done approval is shown next to a unit the poller still lists as waiting.
RECENT_ACTION_WINDOW = timedelta(minutes=10)


# --- overview ----------------------------------------------------------------------


@dataclass(frozen=True)
class TimedUnit:
    unit: Unit
    # Seconds in the current microservice (active), since failing, or waiting.
    seconds: float
    # The time is Lookout's first sight, not the service's own (pages say "seen").
    observed: bool = False


@dataclass(frozen=True)
class Overview:
    total: int
    status_counts: list[StatusCount]
    waiting_count: int
    active: list[TimedUnit]
    active_count: int
    failures: list[TimedUnit]
    failure_count: int
    waiting: list[TimedUnit]


def _seconds_since(moment: datetime | None, now: datetime) -> float:
    return max(0.0, (now - moment).total_seconds()) if moment else 0.0


def _in_status(unit: Unit, now: datetime) -> TimedUnit:
    since = unit.status_since or unit.updated_at
    return TimedUnit(unit, _seconds_since(since, now), unit.status_since_from == OBSERVED)


def _failed(unit: Unit, now: datetime) -> TimedUnit:
    since = unit.failed_at or unit.updated_at
    return TimedUnit(unit, _seconds_since(since, now), unit.failed_at_from == OBSERVED)


def _waiting(unit: Unit, now: datetime) -> TimedUnit:
    since = unit.waiting_since or unit.updated_at
    return TimedUnit(unit, _seconds_since(since, now), unit.waiting_since_from == OBSERVED)


def overview_get(*, now: datetime | None = None, limit: int = 10) -> Overview:
    """The home page: the summary's counts, and the few units of each list it shows."""
    now = now or timezone.now()
    figures = summary_get(now=now).total
    # The configured pipelines', as the counts.
    units = unit_list().filter(pipeline__in=_configured_pipelines())
    active = units.filter(status__in=ACTIVE_STATUSES, awaiting_decision=False)
    # Longest in its current microservice first: that is where a stuck unit shows.
    active = active.order_by("updated_at", "id")
    failed = units.filter(status="FAILED")
    # Newest failure first, by an index; rows from before failure times were kept last.
    failures = [
        *failed.filter(failed_at__isnull=False).order_by("-failed_at", "-id")[:limit],
        *failed.filter(failed_at__isnull=True).order_by("-updated_at", "-id")[:limit],
    ]
    waiting = units.filter(WAITING).order_by(*WAIT_ORDER)
    return Overview(
        total=figures.units,
        status_counts=list(figures.status_counts),
        waiting_count=figures.waiting,
        active=[_in_status(u, now) for u in active[:limit]],
        active_count=active.count(),
        failures=[_failed(u, now) for u in failures[:limit]],
        failure_count=figures.count("FAILED"),
        waiting=[_waiting(u, now) for u in waiting[:limit]],
    )


# --- waiting -----------------------------------------------------------------------


@dataclass(frozen=True)
class WaitingEntry:
    unit: Unit
    age_seconds: float
    # The wait counts from Lookout's first sight, not the service's own task times.
    observed: bool
    # A done approval from Lookout that the poller has not caught up with yet.
    recent_action: AuditEntry | None = None


def waiting_entries(*, now: datetime | None = None) -> list[WaitingEntry]:
    """Units awaiting a decision, oldest first, each with its age and any fresh approval."""
    now = now or timezone.now()
    units = list(waiting_list())
    recent: dict[str, AuditEntry] = {}
    if units:
        rows = AuditEntry.objects.filter(
            action="transfer_approve",
            outcome=AuditEntry.Outcome.DONE,
            target__in=[u.uuid for u in units],
            requested_at__gte=now - RECENT_ACTION_WINDOW,
        ).order_by("requested_at")
        recent = {row.target: row for row in rows}
    return [
        WaitingEntry(
            unit=u,
            age_seconds=_seconds_since(u.waiting_since or u.updated_at, now),
            observed=u.waiting_since_from == OBSERVED,
            recent_action=recent.get(u.uuid),
        )
        for u in units
    ]


# --- unit detail -------------------------------------------------------------------


@dataclass
class JobGroup:
    """One microservice group and its jobs, in the order the service ran them."""

    name: str
    jobs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def status(self) -> str:
        statuses = {job.get("status") for job in self.jobs}
        for status in ("FAILED", "USER_INPUT", "PROCESSING", "UNKNOWN"):
            if status in statuses:
                return status
        return "COMPLETE"

    @property
    def has_failed_job(self) -> bool:
        return any(job.get("status") == "FAILED" for job in self.jobs)


def _job_summary(job: dict[str, Any]) -> dict[str, Any]:
    tasks = job.get("tasks") or []
    nonzero = sum(1 for t in tasks if t.get("exit_code") not in (None, 0))
    return {**job, "task_count": len(tasks), "nonzero_count": nonzero}


def job_groups(jobs: list[dict[str, Any]]) -> list[JobGroup]:
    """Group jobs by microservice, groups in first-seen order (the service lists jobs
    oldest first)."""
    groups: dict[str, JobGroup] = {}
    for job in jobs:
        name = job.get("microservice") or "(no group)"
        groups.setdefault(name, JobGroup(name)).jobs.append(_job_summary(job))
    return list(groups.values())


@dataclass(frozen=True)
class UnitDetail:
    unit: Unit
    jobs_fetched: bool
    jobs_fetched_at: datetime | None
    # The cached jobs belong to an older state of the unit (a fresher fetch is due).
    jobs_outdated: bool
    groups: list[JobGroup]
    failed_job: dict[str, Any] | None
    job_count: int
    # Times Lookout observed itself (the service gave none): pages say "at least".
    waiting_observed: bool
    failed_observed: bool
    # With a service account: when the dashboard's status lists last showed the unit
    # unchanged since its status was read (they stand in for its own reads then).
    checked_in_lists_at: datetime | None = None


def _checked_in_lists_at(unit: Unit) -> datetime | None:
    if unit.listed_progress is None:
        return None
    read = (
        ServicePoll.objects.filter(service=dashboard_service(unit.pipeline))
        .values_list("last_success_at", flat=True)
        .first()
    )
    if read is None or (unit.last_polled_at is not None and read <= unit.last_polled_at):
        return None
    return read


def unit_detail_get(*, uuid: str) -> UnitDetail | None:
    unit = unit_get(uuid=uuid)
    if unit is None:
        return None
    entry = unit_jobs(unit=unit)
    jobs: list[dict[str, Any]] = list(entry.get("jobs") or []) if entry else []
    groups = job_groups(jobs)
    # The job the poller found failing (never the clean-up after it), else the first.
    failed = next(
        (j for g in groups for j in g.jobs if unit.failed_job_uuid == j.get("uuid")), None
    ) or next((j for g in groups for j in g.jobs if j.get("status") == "FAILED"), None)
    return UnitDetail(
        unit=unit,
        jobs_fetched=entry is not None,
        jobs_fetched_at=entry.get("fetched_at") if entry else None,
        jobs_outdated=bool(entry and entry.get("unit_updated_at") != unit.updated_at),
        groups=groups,
        failed_job=failed,
        job_count=len(jobs),
        waiting_observed=unit.waiting_since_from == OBSERVED,
        failed_observed=unit.failed_at_from == OBSERVED,
        checked_in_lists_at=_checked_in_lists_at(unit),
    )


# --- job detail --------------------------------------------------------------------


@dataclass(frozen=True)
class JobDetail:
    unit: Unit
    job: dict[str, Any]
    jobs_fetched_at: datetime | None
    tasks: list[dict[str, Any]]
    task_count: int
    nonzero_count: int
    # True when the jobs were fetched without task details (file, times, duration).
    tasks_detailed: bool


def _task_sort_key(task: dict[str, Any]) -> tuple[bool, datetime]:
    started = task.get("time_started") or task.get("time_created")
    return (started is None, started or datetime.min)


def job_detail_get(
    *, unit_uuid: str, job_uuid: str, nonzero_only: bool = False
) -> JobDetail | None:
    unit = unit_get(uuid=unit_uuid)
    if unit is None:
        return None
    entry = unit_jobs(unit=unit) or {}
    job = next((j for j in entry.get("jobs") or [] if j.get("uuid") == job_uuid), None)
    if job is None:
        return None
    tasks = sorted(job.get("tasks") or [], key=_task_sort_key)
    nonzero = [t for t in tasks if t.get("exit_code") not in (None, 0)]
    return JobDetail(
        unit=unit,
        job=job,
        jobs_fetched_at=entry.get("fetched_at"),
        tasks=nonzero if nonzero_only else tasks,
        task_count=len(tasks),
        nonzero_count=len(nonzero),
        tasks_detailed=any("file_name" in t or "time_started" in t for t in tasks),
    )


# --- audit -------------------------------------------------------------------------
