"""Reads of units: lists, lookups, the overview, the waiting queue, unit and job detail.

Straight from what the pollers stored; nothing here calls an upstream service, so a
page never waits on one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from dashboard.lib import cache_state as state
from dashboard.lib import vocabulary
from dashboard.lib.pipelines import pipeline_list
from dashboard.lib.snapshots import UnitSnapshot
from dashboard.models import AuditEntry

# Codes the filters accept; their words are in `dashboard.lib.vocabulary`.
UNIT_STATUSES = tuple(vocabulary.UNIT_STATUSES)
UNIT_KINDS = tuple(vocabulary.UNIT_KINDS)


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


# --- pages: overview, waiting, unit and job detail ---------------------------------

ACTIVE_STATUSES = frozenset({"PROCESSING"})
# How long a done approval is shown next to a unit the poller still lists as waiting.
RECENT_ACTION_WINDOW = timedelta(minutes=10)


# --- freshness ---------------------------------------------------------------------


# --- overview ----------------------------------------------------------------------


@dataclass(frozen=True)
class StatusCount:
    status: str
    count: int


@dataclass(frozen=True)
class TimedUnit:
    unit: UnitSnapshot
    # Seconds in the current microservice (active), since failing, or waiting.
    seconds: float


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


def overview_get(*, now: datetime | None = None, limit: int = 10) -> Overview:
    """The home page in one pass over the cached units."""
    now = now or timezone.now()
    units = unit_list()
    counts = Counter(unit.status for unit in units)
    active = [u for u in units if u.status in ACTIVE_STATUSES and not u.awaiting_decision]
    # Longest in its current microservice first: that is where a stuck unit shows.
    active.sort(key=lambda u: u.updated_at)
    failures = [u for u in units if u.status == "FAILED"]  # already newest change first
    waiting = [u for u in units if u.awaiting_decision]
    waiting.sort(key=lambda u: u.waiting_since or u.updated_at)
    return Overview(
        total=len(units),
        status_counts=[StatusCount(s, counts.get(s, 0)) for s in UNIT_STATUSES],
        waiting_count=len(waiting),
        active=[TimedUnit(u, _seconds_since(u.updated_at, now)) for u in active[:limit]],
        active_count=len(active),
        failures=[TimedUnit(u, _seconds_since(u.updated_at, now)) for u in failures[:limit]],
        failure_count=len(failures),
        waiting=[
            TimedUnit(u, _seconds_since(u.waiting_since or u.updated_at, now))
            for u in waiting[:limit]
        ],
    )


# --- waiting -----------------------------------------------------------------------


@dataclass(frozen=True)
class WaitingEntry:
    unit: UnitSnapshot
    age_seconds: float
    # A done approval from Lookout that the poller has not caught up with yet.
    recent_action: AuditEntry | None = None


def waiting_entries(*, now: datetime | None = None) -> list[WaitingEntry]:
    """Units awaiting a decision, oldest first, each with its age and any fresh approval."""
    now = now or timezone.now()
    units = waiting_list()
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
    unit: UnitSnapshot
    jobs_fetched: bool
    jobs_fetched_at: datetime | None
    # The cached jobs belong to an older state of the unit (a fresher fetch is due).
    jobs_outdated: bool
    groups: list[JobGroup]
    failed_job: dict[str, Any] | None
    job_count: int


def unit_detail_get(*, uuid: str) -> UnitDetail | None:
    unit = unit_get(uuid=uuid)
    if unit is None:
        return None
    entry = unit_jobs(unit=unit)
    jobs: list[dict[str, Any]] = list(entry.get("jobs") or []) if entry else []
    groups = job_groups(jobs)
    failed = next((j for g in groups for j in g.jobs if j.get("status") == "FAILED"), None)
    return UnitDetail(
        unit=unit,
        jobs_fetched=entry is not None,
        jobs_fetched_at=entry.get("fetched_at") if entry else None,
        jobs_outdated=bool(entry) and entry.get("unit_updated_at") != unit.updated_at,
        groups=groups,
        failed_job=failed,
        job_count=len(jobs),
    )


# --- job detail --------------------------------------------------------------------


@dataclass(frozen=True)
class JobDetail:
    unit: UnitSnapshot
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
