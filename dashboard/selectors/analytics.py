"""Reads for the analytics page and API: figures of one period from the rollup tables.

Every figure is added up from the small per-day tables `dashboard.services.analytics`
keeps, never from the units or the history, so a period costs the same however much
history there is. Time per stage, waits and failures are read per month
for the whole months of a period and per day for the days around them. Long periods are
drawn by week or by month (`Period.bucket`), the queue as each bucket's peak, so a year
is about 53 rows to render. Days before Lookout started watching a pipeline are "not
covered" (None), not zero.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Literal

from django.db.models import Case, Count, IntegerField, Max, Min, Q, QuerySet, Sum, Value, When
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

from dashboard.lib import histogram
from dashboard.lib.workflow_order import group_sort_key
from dashboard.models import (
    BUCKET_FIELDS,
    AnalyticsCoverage,
    DailyThroughput,
    DecisionWait,
    FailureCount,
    MonthlyDecisionWait,
    MonthlyFailureCount,
    MonthlyStageDuration,
    QueueSample,
    StageDuration,
    Unit,
)

PERIODS = {
    "24h": gettext_lazy("Last 24 hours"),
    "7d": gettext_lazy("Last 7 days"),
    "30d": gettext_lazy("Last 30 days"),
    "12m": gettext_lazy("Last 12 months"),
}
CUSTOM = "custom"
BUCKET_LABELS = {
    "hour": pgettext_lazy("analytics bucket", "hour"),
    "day": pgettext_lazy("analytics bucket", "day"),
    "week": pgettext_lazy("analytics bucket", "week"),
    "month": pgettext_lazy("analytics bucket", "month"),
}
_PERIOD_DAYS = {"24h": 1, "7d": 7, "30d": 30, "12m": 365}
# The slowest groups marked on the time-per-stage chart.
SLOWEST_MARKED = 3
# Periods up to this many days are shown by day, up to about two years by week, longer
# ones by month: a year is about 53 rows, three years 36.
DAILY_UP_TO = 62
WEEKLY_UP_TO = 731
# Queue samples are shown by hour up to this many days, then as each bucket's peak.
HOURLY_UP_TO = 7

Bucket = Literal["day", "week", "month"]


@dataclass(frozen=True)
class Period:
    key: str
    label: str
    first_day: date
    last_day: date  # inclusive
    start: datetime
    end: datetime
    bucket: Bucket

    @property
    def bucket_label(self) -> str:
        """The bucket in the reader's words: "Throughput per day" says `jour` in French."""
        return str(BUCKET_LABELS[self.bucket])


def period_get(
    key: str, *, first: date | None = None, last: date | None = None, now: datetime | None = None
) -> Period:
    """A named period ending now, or a custom one from `first` to `last` (inclusive)."""
    now = now or timezone.now()
    today = timezone.localdate(now)
    if key == CUSTOM and first is not None and last is not None:
        label = gettext("%(first)s to %(last)s") % {
            "first": first.isoformat(),
            "last": last.isoformat(),
        }
        start = timezone.make_aware(datetime.combine(first, datetime.min.time()))
        end = timezone.make_aware(datetime.combine(last + timedelta(days=1), datetime.min.time()))
    else:
        key = key if key in PERIODS else "30d"
        label = str(PERIODS[key])
        start, end = now - timedelta(days=_PERIOD_DAYS[key]), now
        first, last = timezone.localdate(start), today
    return Period(key, label, first, last, start, end, _bucket_for((last - first).days + 1))


def _bucket_for(days: int) -> Bucket:
    if days <= DAILY_UP_TO:
        return "day"
    return "week" if days <= WEEKLY_UP_TO else "month"


# --- figures ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ThroughputRow:
    label: str
    first_day: date
    covered: bool  # False: Lookout was not watching yet (unit counts are None)
    transfers_started: int | None
    sips_started: int | None
    aips_stored: int
    bytes_stored: int


@dataclass(frozen=True)
class StageRow:
    group: str
    count: int
    median_seconds: float | None
    p90_seconds: float | None
    slowest: bool


@dataclass(frozen=True)
class WaitRow:
    decision: str
    count: int
    observed_count: int
    median_seconds: float | None
    p90_seconds: float | None
    waiting_now: int
    longest_now_seconds: float | None


@dataclass(frozen=True)
class DayCount:
    label: str
    first_day: date
    covered: bool
    count: int | None


@dataclass(frozen=True)
class FailureRow:
    group: str
    job: str
    runs: int
    failures: int

    @property
    def rate(self) -> float:
        return self.failures / self.runs if self.runs else 0.0


@dataclass(frozen=True)
class QueueRow:
    label: str
    moment: datetime
    covered: bool
    active: int | None
    waiting: int | None


@dataclass(frozen=True)
class Analytics:
    period: Period
    pipeline: str | None
    watching_since: datetime | None
    throughput: list[ThroughputRow]
    started_observed: int
    stages: list[StageRow]
    waits: list[WaitRow]
    approvals: list[DayCount]
    failure_groups: list[FailureRow]
    failure_jobs: list[FailureRow]
    queue: list[QueueRow]
    queue_by: str
    notes: list[str] = field(default_factory=list)

    @property
    def queue_by_label(self) -> str:
        """`queue_by` in the reader's words (the API keeps the English)."""
        if self.queue_by == "hour":
            return str(BUCKET_LABELS["hour"])
        return gettext("%(bucket)s (peak of the hourly samples)") % {
            "bucket": self.period.bucket_label
        }

    @property
    def queue_sampled(self) -> bool:
        return any(row.covered for row in self.queue)

    @property
    def total(self) -> dict[str, int]:
        return {
            "transfers_started": sum(r.transfers_started or 0 for r in self.throughput),
            "sips_started": sum(r.sips_started or 0 for r in self.throughput),
            "aips_stored": sum(r.aips_stored for r in self.throughput),
            "bytes_stored": sum(r.bytes_stored for r in self.throughput),
        }


def _rows(model: Any, pipeline: str | None, period: Period) -> QuerySet[Any]:
    rows: QuerySet[Any] = model.objects.filter(day__gte=period.first_day, day__lte=period.last_day)
    return rows.filter(pipeline=pipeline) if pipeline else rows


def _next_month(day: date) -> date:
    return (day.replace(day=1) + timedelta(days=32)).replace(day=1)


def _parts(
    daily: Any, monthly: Any, pipeline: str | None, period: Period, *, by_month: bool
) -> list[QuerySet[Any]]:
    """The rows that add up to the period: monthly rows for its whole months, daily rows
    for the days before and after them (only daily rows without `by_month`)."""
    first, last = period.first_day, period.last_day
    months_from = first if first.day == 1 else _next_month(first)
    months_to = (last + timedelta(days=1)).replace(day=1)  # exclusive
    if not by_month or months_from >= months_to:
        return [_rows(daily, pipeline, period)]
    days = Q(day__gte=first, day__lt=months_from) | Q(day__gte=months_to, day__lte=last)
    parts: list[QuerySet[Any]] = [
        monthly.objects.filter(month__gte=months_from, month__lt=months_to),
        daily.objects.filter(days),
    ]
    return [part.filter(pipeline=pipeline) if pipeline else part for part in parts]


def _bucket_start(day: date, bucket: Bucket) -> date:
    if bucket == "week":
        return day - timedelta(days=day.weekday())
    return day.replace(day=1) if bucket == "month" else day


def _bucket_end(start: date, bucket: Bucket) -> date:
    """The day after the bucket's last day."""
    if bucket == "week":
        return start + timedelta(days=7)
    return _next_month(start) if bucket == "month" else start + timedelta(days=1)


def _buckets(period: Period) -> list[date]:
    starts: list[date] = []
    day = period.first_day
    while day <= period.last_day:
        start = _bucket_start(day, period.bucket)
        if not starts or starts[-1] != start:
            starts.append(start)
        day += timedelta(days=1)
    return starts


def _label(start: date, bucket: Bucket) -> str:
    if bucket == "month":
        return gettext("month of %(month)s") % {"month": f"{start:%Y-%m}"}
    if bucket == "week":
        return gettext("week of %(day)s") % {"day": start.isoformat()}
    return start.isoformat()


def watching_since(pipeline: str | None) -> datetime | None:
    """When Lookout started watching (the earliest of the pipelines for "all")."""
    rows = AnalyticsCoverage.objects.all()
    if pipeline:
        rows = rows.filter(pipeline=pipeline)
    found: datetime | None = rows.aggregate(first=Min("watching_since"))["first"]
    return found


def _covered(first_day: date, bucket: Bucket, since: datetime | None) -> bool:
    """A bucket is covered when Lookout watched by its last day."""
    if since is None:
        return False
    return _bucket_end(first_day, bucket) > timezone.localdate(since)


def _throughput(
    pipeline: str | None, period: Period, since: datetime | None
) -> list[ThroughputRow]:
    sums: dict[date, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for day, transfers, sips, aips, size in _rows(DailyThroughput, pipeline, period).values_list(
        "day", "transfers_started", "sips_started", "aips_stored", "bytes_stored"
    ):
        values = sums[_bucket_start(day, period.bucket)]
        values[0] += transfers
        values[1] += sips
        values[2] += aips
        values[3] += size
    rows = []
    for start in _buckets(period):
        transfers, sips, aips, size = sums.get(start, [0, 0, 0, 0])
        covered = _covered(start, period.bucket, since)
        rows.append(
            ThroughputRow(
                label=_label(start, period.bucket),
                first_day=start,
                covered=covered,
                transfers_started=transfers if covered or transfers else None,
                sips_started=sips if covered or sips else None,
                aips_stored=aips,
                bytes_stored=size,
            )
        )
    return rows


@dataclass
class _Timings:
    count: int = 0
    observed: int = 0
    buckets: list[int] = field(default_factory=histogram.empty)


def _timings(
    daily: Any, monthly: Any, name: str, pipeline: str | None, period: Period, *, by_month: bool
) -> dict[str, _Timings]:
    """Count, observed count (waits only) and histogram per `name` over the period,
    each part added up in the database."""
    sums = {"n": Sum("count"), **{f: Sum(f) for f in BUCKET_FIELDS}}
    if hasattr(daily, "observed_count"):
        sums["observed"] = Sum("observed_count")
    found: dict[str, _Timings] = defaultdict(_Timings)
    for part in _parts(daily, monthly, pipeline, period, by_month=by_month):
        for row in part.order_by().values(name).annotate(**sums):
            timings = found[row[name]]
            timings.count += row["n"]
            timings.observed += row.get("observed", 0)
            timings.buckets = histogram.merged([timings.buckets, [row[f] for f in BUCKET_FIELDS]])
    return found


def _stages(pipeline: str | None, period: Period, *, by_month: bool) -> list[StageRow]:
    found = _timings(
        StageDuration, MonthlyStageDuration, "group", pipeline, period, by_month=by_month
    )
    medians = {group: histogram.percentile(t.buckets, 0.5) for group, t in found.items()}
    slowest = sorted(medians, key=lambda g: medians[g] or 0.0, reverse=True)[:SLOWEST_MARKED]
    return [
        StageRow(
            group=group,
            count=timings.count,
            median_seconds=medians[group],
            p90_seconds=histogram.percentile(timings.buckets, 0.9),
            slowest=group in slowest,
        )
        for group, timings in sorted(found.items(), key=lambda i: group_sort_key(i[0]))
    ]


def _is_approval(decision: str) -> bool:
    return decision.startswith("Approve")


def _waits(pipeline: str | None, period: Period, now: datetime, *, by_month: bool) -> list[WaitRow]:
    found = _timings(
        DecisionWait, MonthlyDecisionWait, "decision", pipeline, period, by_month=by_month
    )
    live = Unit.objects.filter(awaiting_decision=True, hidden=False).exclude(decision="")
    if pipeline:
        live = live.filter(pipeline=pipeline)
    now_waiting = {
        row["decision"]: (row["count"], row["since"])
        for row in live.values("decision")
        .annotate(count=Count("pk"), since=Min("waiting_since"))
        .order_by()
    }
    result = []
    for decision in sorted(set(found) | set(now_waiting)):
        timings = found.get(decision, _Timings())
        waiting, since = now_waiting.get(decision, (0, None))
        result.append(
            WaitRow(
                decision=decision,
                count=timings.count,
                observed_count=timings.observed,
                median_seconds=histogram.percentile(timings.buckets, 0.5),
                p90_seconds=histogram.percentile(timings.buckets, 0.9),
                waiting_now=waiting,
                longest_now_seconds=(now - since).total_seconds() if since else None,
            )
        )
    return result


def _approvals(pipeline: str | None, period: Period, since: datetime | None) -> list[DayCount]:
    counts: dict[date, int] = defaultdict(int)
    rows = _rows(DecisionWait, pipeline, period).filter(decision__startswith="Approve")
    for day, count in rows.values_list("day", "count"):
        counts[_bucket_start(day, period.bucket)] += count
    return [
        DayCount(
            label=_label(start, period.bucket),
            first_day=start,
            covered=(covered := _covered(start, period.bucket, since)),
            count=counts.get(start, 0) if covered or counts.get(start) else None,
        )
        for start in _buckets(period)
    ]


def _failures(
    pipeline: str | None, period: Period, *, by_month: bool
) -> tuple[list[FailureRow], list[FailureRow]]:
    sums: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for part in _parts(FailureCount, MonthlyFailureCount, pipeline, period, by_month=by_month):
        for group, job, runs, failures in (
            part.order_by()
            .values_list("group", "job")
            .annotate(runs=Sum("runs"), failures=Sum("failures"))
        ):
            sums[(group, job)][0] += runs
            sums[(group, job)][1] += failures
    rows = [
        FailureRow(group, job, runs, failures) for (group, job), (runs, failures) in sums.items()
    ]
    rows.sort(key=lambda r: (group_sort_key(r.group), r.job))
    groups = [r for r in rows if not r.job]
    jobs = sorted((r for r in rows if r.job and r.failures), key=lambda r: (-r.rate, -r.failures))
    return groups, jobs


def _midnight(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, datetime.min.time()))


def _hourly_queue(samples: QuerySet[Any], period: Period) -> list[QueueRow]:
    by_hour: dict[datetime, list[int]] = defaultdict(lambda: [0, 0])
    for hour, active, waiting in samples.values_list("hour", "active", "waiting"):
        by_hour[hour][0] += active
        by_hour[hour][1] += waiting
    rows = []
    hour = period.start.replace(minute=0, second=0, microsecond=0)
    while hour < period.end:
        values = by_hour.get(hour)
        rows.append(
            QueueRow(
                label=timezone.localtime(hour).strftime("%Y-%m-%d %H:00"),
                moment=hour,
                covered=values is not None,
                active=values[0] if values else None,
                waiting=values[1] if values else None,
            )
        )
        hour += timedelta(hours=1)
    return rows


def _bucket_of_hour(moments: list[datetime], low: int, high: int) -> Any:
    """The index of the bucket an hour falls in, as a database expression: `moments` are
    the buckets' first moments, searched by halves (a few comparisons a sample, not one
    per bucket)."""
    if high - low == 1:
        return Value(low)
    middle = (low + high) // 2
    return Case(
        When(hour__lt=moments[middle], then=_bucket_of_hour(moments, low, middle)),
        default=_bucket_of_hour(moments, middle, high),
        output_field=IntegerField(),
    )


def _queue_peaks(samples: QuerySet[Any], period: Period, *, one_pipeline: bool) -> list[QueueRow]:
    """Each bucket's peak of the hourly totals, found by the database: a year of samples
    comes back as a row per bucket. With one pipeline an hour's total is its sample;
    with several, the hours are added up first (and the peaks taken here)."""
    starts = _buckets(period)
    moments = [_midnight(start) for start in starts]
    by_bucket = samples.annotate(bucket=_bucket_of_hour(moments, 0, len(moments))).order_by()
    peaks: dict[int, tuple[int, int]] = {}
    if one_pipeline:
        for index, active, waiting in (
            by_bucket.values("bucket")
            .annotate(peak_active=Max("active"), peak_waiting=Max("waiting"))
            .values_list("bucket", "peak_active", "peak_waiting")
        ):
            peaks[index] = (active, waiting)
    else:
        for index, active, waiting in (
            by_bucket.values("hour", "bucket")
            .annotate(total_active=Sum("active"), total_waiting=Sum("waiting"))
            .values_list("bucket", "total_active", "total_waiting")
        ):
            peak = peaks.get(index, (0, 0))
            peaks[index] = (max(peak[0], active), max(peak[1], waiting))
    rows = []
    for index, (start, moment) in enumerate(zip(starts, moments, strict=True)):
        values = peaks.get(index)
        rows.append(
            QueueRow(
                label=_label(start, period.bucket),
                moment=moment,
                covered=values is not None,
                active=values[0] if values else None,
                waiting=values[1] if values else None,
            )
        )
    return rows


def _queue(pipeline: str | None, period: Period) -> tuple[list[QueueRow], str]:
    samples = QueueSample.objects.filter(hour__gte=period.start, hour__lt=period.end)
    if pipeline:
        samples = samples.filter(pipeline=pipeline)
    if (period.end - period.start) <= timedelta(days=HOURLY_UP_TO):
        return _hourly_queue(samples, period), "hour"
    one_pipeline = bool(pipeline) or samples.values("pipeline").distinct().count() <= 1
    peaks = _queue_peaks(samples, period, one_pipeline=one_pipeline)
    return peaks, f"{period.bucket} (peak of the hourly samples)"


def analytics_get(
    *,
    period: Period,
    pipeline: str | None = None,
    now: datetime | None = None,
    by_month: bool = True,
) -> Analytics:
    """The period's figures; `by_month=False` reads daily rows only (the same figures)."""
    now = now or timezone.now()
    since = watching_since(pipeline)
    throughput = _throughput(pipeline, period, since)
    failure_groups, failure_jobs = _failures(pipeline, period, by_month=by_month)
    queue, queue_by = _queue(pipeline, period)
    observed = sum(
        _rows(DailyThroughput, pipeline, period).values_list("started_observed", flat=True)
    )
    return Analytics(
        period=period,
        pipeline=pipeline,
        watching_since=since,
        throughput=throughput,
        started_observed=observed,
        stages=_stages(pipeline, period, by_month=by_month),
        waits=_waits(pipeline, period, now, by_month=by_month),
        approvals=_approvals(pipeline, period, since),
        failure_groups=failure_groups,
        failure_jobs=failure_jobs,
        queue=queue,
        queue_by=queue_by,
    )
