"""One row per configured pipeline for the overview, when there are several.

Written from the unit queries of `selectors.units` in one small function, so it can
switch to the shared per-pipeline summary selector once that exists.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, Min
from django.utils import timezone

from dashboard.lib.pipelines import pipeline_list
from dashboard.selectors.freshness import ServiceHealth, service_health_list
from dashboard.selectors.units import unit_list

FAILURE_WINDOW = timedelta(hours=24)


@dataclass(frozen=True)
class PipelineRow:
    slug: str
    name: str
    counts: dict[str, int]  # by status code
    waiting: int
    oldest_wait_seconds: float | None
    failures_24h: int
    health: ServiceHealth | None


def pipeline_rows(*, now: datetime | None = None) -> list[PipelineRow]:
    """Counts by status, waiting, oldest wait, failures in 24 h and freshness per pipeline."""
    now = now or timezone.now()
    units = unit_list()
    counts: dict[str, dict[str, int]] = {}
    for pipeline, status, count in (
        units.order_by().values_list("pipeline", "status").annotate(n=Count("id"))
    ):
        counts.setdefault(pipeline, {})[status] = count
    waits = {
        row["pipeline"]: (row["n"], row["oldest"])
        for row in units.filter(awaiting_decision=True)
        .order_by()
        .values("pipeline")
        .annotate(n=Count("id"), oldest=Min("waiting_since"))
    }
    failures = dict(
        units.filter(status="FAILED", failed_at__gte=now - FAILURE_WINDOW)
        .order_by()
        .values_list("pipeline")
        .annotate(n=Count("id"))
    )
    health = {h.service: h for h in service_health_list(now=now)}
    rows = []
    for pipeline in pipeline_list():
        waiting, oldest = waits.get(pipeline.slug, (0, None))
        rows.append(
            PipelineRow(
                slug=pipeline.slug,
                name=pipeline.name,
                counts=counts.get(pipeline.slug, {}),
                waiting=waiting,
                oldest_wait_seconds=(now - oldest).total_seconds() if oldest else None,
                failures_24h=failures.get(pipeline.slug, 0),
                health=health.get(f"workflow:{pipeline.slug}"),
            )
        )
    return rows
