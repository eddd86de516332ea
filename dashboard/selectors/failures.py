"""Reads that explain failures: a failed job's tasks, failures grouped by the job that failed.

Straight from the stored units and jobs; nothing here calls an upstream service.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, Max, Q, QuerySet, Sum

from dashboard.lib import page_cache
from dashboard.lib.pipelines import pipeline_get
from dashboard.models import FAILED_AT_JOB, VISIBLE_FAILED, FailureGroupCount, Unit

# The groups hold counts and times, nothing that ages: a data change (a new generation)
# is what makes them old, and the bucket only bounds how long a key lives.
FAILURE_GROUPS_SECONDS = 60


def _failing(task: dict[str, Any]) -> bool:
    return task.get("exit_code") not in (None, 0)


def _started(task: dict[str, Any]) -> datetime:
    return task.get("time_started") or task.get("time_created") or datetime.min


def failed_job_tasks(job: dict[str, Any]) -> list[dict[str, Any]]:
    """The failed job's tasks, those with a non-zero exit code first, each part by start."""
    tasks = list(job.get("tasks") or [])
    return sorted(
        tasks, key=lambda t: (not _failing(t), t.get("time_started") is None, _started(t))
    )


def failing_task_count(job: dict[str, Any]) -> int:
    return sum(1 for t in job.get("tasks") or [] if _failing(t))


def unit_service_url(unit: Unit) -> str | None:
    """The unit's page in its workflow service's own dashboard, if its pipeline is known."""
    pipeline = pipeline_get(unit.pipeline)
    if pipeline is None:
        return None
    return pipeline.unit_ui_url(kind=unit.kind, uuid=unit.uuid)


@dataclass(frozen=True)
class FailureGroup:
    """Visible failed units that failed at the same job: one problem, not many."""

    job: str
    count: int
    last_failed_at: datetime | None


def _failed_units(pipeline: str | None) -> QuerySet[Unit]:
    units = Unit.objects.filter(hidden=False, status="FAILED")
    if pipeline:
        units = units.filter(pipeline=pipeline)
    return units


def failure_groups(
    *, pipeline: str | None = None, limit: int = 10, since: datetime | None = None
) -> list[FailureGroup]:
    """Failed units grouped by the job that failed (the microservice when the job is not
    known yet), the largest group first; with `since`, only failures from then on (by the
    upstream's failure time, or when Lookout saw the unit change where there is none).

    Without `since`, the groups are the kept counts (`FailureGroupCount`) and each one's
    latest failure an index lookup, however many failures the history holds; they are
    also kept per data generation (`page_cache`)."""
    if since is None:
        return page_cache.cached_result(
            "failure-groups",
            seconds=FAILURE_GROUPS_SECONDS,
            compute=lambda: _kept_failure_groups(pipeline=pipeline, limit=limit),
            variant=f"{pipeline or ''}:{limit}",
        )
    return _failure_groups_since(pipeline=pipeline, limit=limit, since=since)


def _kept_failure_groups(*, pipeline: str | None, limit: int) -> list[FailureGroup]:
    kept = FailureGroupCount.objects.all()
    if pipeline:
        kept = kept.filter(pipeline=pipeline)
    rows = kept.values("job").annotate(n=Sum("count")).filter(n__gt=0).order_by("-n", "job")[:limit]
    return [
        FailureGroup(
            job=row["job"], count=row["n"], last_failed_at=_last_failed_at(row["job"], pipeline)
        )
        for row in rows
    ]


def _last_failed_at(job: str, pipeline: str | None) -> datetime | None:
    """The group's latest failure: per pipeline, the newest entry of its range of the
    index `unit_failure_group_last`."""
    pipelines = (
        [pipeline]
        if pipeline
        else FailureGroupCount.objects.filter(job=job)
        .values("pipeline")
        .annotate(n=Sum("count"))
        .filter(n__gt=0)
        .values_list("pipeline", flat=True)
    )
    latest = [
        Unit.objects.filter(VISIBLE_FAILED, failed_at__isnull=False, pipeline=slug)
        .alias(at_job=FAILED_AT_JOB)
        .filter(at_job=job)
        .order_by("-failed_at")
        .values_list("failed_at", flat=True)
        .first()
        for slug in pipelines
    ]
    return max((at for at in latest if at is not None), default=None)


def _failure_groups_since(
    *, pipeline: str | None, limit: int, since: datetime
) -> list[FailureGroup]:
    units = _failed_units(pipeline).filter(
        Q(failed_at__gte=since) | Q(failed_at__isnull=True, updated_at__gte=since)
    )
    rows = (
        units.annotate(at_job=FAILED_AT_JOB)
        .order_by()
        .values("at_job")
        .annotate(n=Count("id"), last=Max("failed_at"))
        .order_by("-n", "at_job")[:limit]
    )
    return [
        FailureGroup(job=row["at_job"] or "", count=row["n"], last_failed_at=row["last"])
        for row in rows
    ]


def failed_at_job(units: QuerySet[Unit], job: str) -> QuerySet[Unit]:
    """Narrow a unit list to the failures of one group of `failure_groups`."""
    return units.filter(
        Q(status="FAILED") & (Q(failed_job=job) | (Q(failed_job="") & Q(microservice=job)))
    )
