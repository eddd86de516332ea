"""The figures of every summary: the wall's tiles, the overview's counts, /api/v1/summary/.

One selector, so that the three can never disagree. Per configured pipeline and in
total: visible units by status (every status of the vocabulary, zeros included; hidden
units are not counted), units in progress, units waiting for a decision and the oldest
wait, failures in the last 24 hours by when they failed (not by when Lookout saw them),
and the freshness of every upstream service.

Stays cheap with a long history: the counts by status are read from `UnitStatusCount`,
which triggers on the unit table keep in step with every write (a few rows, however
many finished units there are); the waiting units and the recent failures are found
through their own partial indexes, so only those rows are visited.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Count, F, Q, Sum, Window
from django.db.models.functions import Coalesce, RowNumber
from django.utils import timezone

from dashboard.lib import vocabulary
from dashboard.lib.pipelines import pipeline_list
from dashboard.models import FINAL_STATUSES, VISIBLE, TimesFrom, Unit, UnitStatusCount
from dashboard.selectors import freshness
from dashboard.selectors.freshness import ServiceHealth

FAILURE_WINDOW = timedelta(hours=24)

# Waiting for a decision. Django writes `awaiting_decision=True` as a bare column, which
# SQLite cannot look up in an index; `IN (1)` is an equality it finds in `unit_waiting`.
WAITING = Q(awaiting_decision__in=[True])
# The longest wait first: since it started waiting (or Lookout last saw it change).
WAIT_ORDER = (Coalesce("waiting_since", "updated_at").asc(), F("id").asc())


@dataclass(frozen=True)
class StatusCount:
    status: str
    count: int

    @property
    def status_label(self) -> str:
        return vocabulary.unit_status(self.status).text


@dataclass(frozen=True)
class OldestWait:
    """The unit that has waited longest for a decision."""

    pipeline: str
    uuid: str
    name: str
    # When it started waiting; `times_from` says whether the service's own task times
    # gave it or Lookout first saw it waiting (then it has waited at least this long).
    since: datetime
    times_from: str
    decision: str
    age_seconds: float

    @property
    def observed(self) -> bool:
        return self.times_from == TimesFrom.OBSERVED


@dataclass(frozen=True)
class Figures:
    """The counts of one pipeline, or of all configured pipelines together."""

    units: int
    status_counts: tuple[StatusCount, ...]
    # In an unfinished status (processing, pending, unknown) and not waiting for a person.
    in_progress: int
    waiting: int
    oldest_wait: OldestWait | None
    failed_24h: int

    def count(self, status: str) -> int:
        return next((c.count for c in self.status_counts if c.status == status), 0)

    @property
    def by_status(self) -> dict[str, int]:
        """Counts keyed by status code, for templates."""
        return {c.status: c.count for c in self.status_counts}


@dataclass(frozen=True)
class PipelineSummary(Figures):
    slug: str
    name: str
    # Its workflow service's.
    freshness: ServiceHealth
    # "full_view" (a dashboard service account) or "api_only" (selectors.pipeline_modes).
    mode: str = "api_only"

    @classmethod
    def of(
        cls,
        figures: Figures,
        *,
        slug: str,
        name: str,
        freshness: ServiceHealth,
        mode: str = "api_only",
    ) -> PipelineSummary:
        return cls(**vars(figures), slug=slug, name=name, freshness=freshness, mode=mode)


@dataclass(frozen=True)
class Summary:
    generated_at: datetime
    failure_window: timedelta
    total: Figures
    pipelines: tuple[PipelineSummary, ...]
    # Every upstream service: one workflow service per pipeline, then the storage service.
    services: tuple[ServiceHealth, ...]

    @property
    def failure_window_hours(self) -> int:
        return int(self.failure_window.total_seconds() // 3600)

    def pipeline(self, slug: str) -> PipelineSummary | None:
        return next((p for p in self.pipelines if p.slug == slug), None)


def _status_counts(counts: Counter[str]) -> tuple[StatusCount, ...]:
    """Every status of the vocabulary in its order, then any other code as sent."""
    others = sorted(code for code in counts if code not in vocabulary.UNIT_STATUSES)
    return tuple(StatusCount(code, counts[code]) for code in [*vocabulary.UNIT_STATUSES, *others])


def _oldest_waits(slugs: list[str], now: datetime) -> list[tuple[OldestWait, int]]:
    """Each pipeline's longest-waiting visible unit (with its row id), in one query."""
    rows = (
        Unit.objects.filter(VISIBLE, WAITING, pipeline__in=slugs)
        .annotate(rank=Window(RowNumber(), partition_by=F("pipeline"), order_by=WAIT_ORDER))
        .filter(rank=1)
        .values(
            "id",
            "pipeline",
            "uuid",
            "name",
            "directory",
            "decision",
            "microservice",
            "waiting_since",
            "waiting_since_from",
            "updated_at",
        )
    )
    oldest = []
    for row in rows:
        since = row["waiting_since"] or row["updated_at"]
        wait = OldestWait(
            pipeline=row["pipeline"],
            uuid=row["uuid"],
            name=row["name"] or row["directory"] or row["uuid"],
            since=since,
            times_from=row["waiting_since_from"] if row["waiting_since"] else TimesFrom.OBSERVED,
            decision=vocabulary.decision_label(row["decision"], row["microservice"]),
            age_seconds=max(0.0, (now - since).total_seconds()),
        )
        oldest.append((wait, row["id"]))
    return oldest


def _figures(
    counts: Counter[str], waiting: Counter[str], oldest: OldestWait | None, failed: int
) -> Figures:
    unfinished = [code for code in counts if code not in FINAL_STATUSES]
    return Figures(
        units=sum(counts.values()),
        status_counts=_status_counts(counts),
        in_progress=sum(counts[code] - waiting[code] for code in unfinished),
        waiting=sum(waiting.values()),
        oldest_wait=oldest,
        failed_24h=failed,
    )


def _added(counters: Iterable[Counter[str]]) -> Counter[str]:
    total: Counter[str] = Counter()
    for counter in counters:
        total.update(counter)
    return total


def summary_get(*, now: datetime | None = None) -> Summary:
    now = now or timezone.now()
    configs = pipeline_list()
    slugs = [config.slug for config in configs]
    visible = Unit.objects.filter(VISIBLE).order_by()

    counts: dict[str, Counter[str]] = {slug: Counter() for slug in slugs}
    # The kept counts: a few rows per pipeline and status (see UnitStatusCount).
    rows = (
        UnitStatusCount.objects.filter(pipeline__in=slugs)
        .values_list("pipeline", "status")
        .annotate(n=Sum("count"))
        .order_by()
    )
    for pipeline, status, n in rows:
        if n:
            counts[pipeline][status] = n
    # The waiting units and the window's failures are few, and found by their own
    # indexes; a filter on the pipeline here would steer SQLite (which keeps no
    # statistics) to a pipeline index and through every finished unit instead.
    waiting: dict[str, Counter[str]] = {slug: Counter() for slug in slugs}
    for row in visible.filter(WAITING).values("pipeline", "status").annotate(n=Count("id")):
        if row["pipeline"] in waiting:
            waiting[row["pipeline"]][row["status"]] = row["n"]
    recent = visible.filter(failed_at__gte=now - FAILURE_WINDOW).values_list("pipeline", "status")
    failed = Counter(p for p, status in recent if status == "FAILED" and p in counts)
    oldest = _oldest_waits(slugs, now)
    by_pipeline = {wait.pipeline: wait for wait, _ in oldest}
    services = tuple(freshness.service_health_list(now=now))
    health = {h.service: h for h in services}

    pipelines = tuple(
        PipelineSummary.of(
            _figures(
                counts[config.slug],
                waiting[config.slug],
                by_pipeline.get(config.slug),
                failed[config.slug],
            ),
            slug=config.slug,
            name=config.name,
            freshness=health[f"workflow:{config.slug}"],
            mode="full_view" if config.full_view else "api_only",
        )
        for config in configs
    )
    # The same order as the waiting list of all pipelines.
    longest = min(oldest, key=lambda entry: (entry[0].since, entry[1]), default=None)
    total = _figures(
        _added(counts.values()),
        _added(waiting.values()),
        longest[0] if longest else None,
        sum(failed.values()),
    )
    return Summary(
        generated_at=now,
        failure_window=FAILURE_WINDOW,
        total=total,
        pipelines=pipelines,
        services=services,
    )
