"""A unit's times as the workflow service recorded them, read from its jobs' tasks.

When a unit started waiting, when and where it failed, and since when it has been in
its current state, from task start and end times: the same on the first poll after a
restart as on the hundredth. Naive task times are in the pipeline's time zone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from django.utils import timezone

from dashboard.clients.workflow import Job, JobStatus, Task

# Groups the service runs after a failure or rejection: a unit that failed earlier
# shows its last job here, but the failure happened before them.
CLEANUP_GROUPS = frozenset(
    {
        "Failed transfer",
        "Failed transfer compliance",
        "Failed compliance",
        "Failed SIP",
        "Reject transfer",
        "Reject SIP",
        "Reject AIP",
    }
)


@dataclass(frozen=True)
class UpstreamTimes:
    # End of the last task: when a unit waiting for a decision started waiting, or when
    # a finished one finished.
    last_task_end: datetime | None
    # Start of the first task of the current microservice group.
    group_started: datetime | None
    failed_job: Job | None
    failed_at: datetime | None


def _aware(moment: datetime | None, zone: ZoneInfo) -> datetime | None:
    if moment is None:
        return None
    return moment if timezone.is_aware(moment) else moment.replace(tzinfo=zone)


def _tasks(job: Job) -> list[Task]:
    return [task for task in job.tasks if isinstance(task, Task)]


def _job_end(job: Job, zone: ZoneInfo) -> datetime | None:
    moments = [_aware(t.time_ended or t.time_started, zone) for t in _tasks(job)]
    known = [m for m in moments if m is not None]
    return max(known) if known else None


def _failed_job(jobs: Sequence[Job]) -> Job | None:
    """The first job that failed, never the clean-up that ran after it.

    Without a FAILED job, the last job before the first clean-up group: the service
    went to its failure path from there.
    """
    for job in jobs:
        if job.status is JobStatus.FAILED and job.microservice not in CLEANUP_GROUPS:
            return job
    cleanup = next((i for i, job in enumerate(jobs) if job.microservice in CLEANUP_GROUPS), None)
    return jobs[cleanup - 1] if cleanup else None


def upstream_times(*, jobs: Sequence[Job], microservice: str, time_zone: str) -> UpstreamTimes:
    """`jobs` oldest first, as the service lists them; `microservice` the unit's current one."""
    zone = ZoneInfo(time_zone)
    ends = [end for job in jobs if (end := _job_end(job, zone)) is not None]
    current = [job for job in jobs if microservice and microservice in (job.microservice, job.name)]
    starts = [
        start
        for job in current
        for task in _tasks(job)
        if (start := _aware(task.time_started or task.time_created, zone)) is not None
    ]
    failed = _failed_job(jobs)
    failed_at = _job_end(failed, zone) if failed is not None else None
    if failed is not None and failed_at is None:
        # A failed job with no task times: the clean-up that followed it started then.
        later = [end for job in jobs[jobs.index(failed) + 1 :] if (end := _job_end(job, zone))]
        failed_at = min(later) if later else None
    return UpstreamTimes(
        last_task_end=max(ends) if ends else None,
        group_started=min(starts) if starts else None,
        failed_job=failed,
        failed_at=failed_at,
    )
