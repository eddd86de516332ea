"""Writes: the analytics rollups, updated as the pollers store what changed.

The pollers call one function each, after they wrote their own rows:

- `units_jobs_record` when the jobs refresh stored units' jobs: each unit's start (once)
  and, once it has finished, the time spent in each microservice group and the runs and
  failures of each group and job (once per unit: `UnitTally` remembers what was added);
- `workflow_cycle_record` after a workflow poll: the waits for a person that ended in
  this cycle, the hour's queue sample, and since when the pipeline is watched;
- `aips_stored_record` when the storage sync wrote packages: the AIPs stored and their
  bytes are counted again for the days those packages were stored (idempotent).

`rollups_rebuild` builds every table from the record for an existing install
(`manage.py analytics_backfill`). Days are the project's local days (`TIME_ZONE`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.db import connection, transaction
from django.db.models import Min, Model
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from dashboard.lib import histogram
from dashboard.models import (
    BUCKET_FIELDS,
    FINAL_STATUSES,
    AnalyticsCoverage,
    DailyThroughput,
    DecisionWait,
    FailureCount,
    MonthlyDecisionWait,
    MonthlyFailureCount,
    MonthlyStageDuration,
    QueueSample,
    StageDuration,
    StatusChange,
    StoragePackage,
    TimesFrom,
    Unit,
    UnitJobs,
    UnitTally,
)
from dashboard.services.unit_times import CLEANUP_GROUPS

AIP = "AIP"
_TASK_TIMES = ("time_started", "time_ended", "time_created")

# --- reading stored jobs ------------------------------------------------------------


def _moment(value: Any, zone: ZoneInfo) -> datetime | None:
    """A task time as stored (a datetime, or ISO text after a database round trip)."""
    if isinstance(value, str):
        value = parse_datetime(value)
    if not isinstance(value, datetime):
        return None
    return value if timezone.is_aware(value) else value.replace(tzinfo=zone)


def _job_span(job: Mapping[str, Any], zone: ZoneInfo) -> tuple[datetime, datetime] | None:
    """First task start and last task end of a job; None for a job without task times."""
    starts: list[datetime] = []
    ends: list[datetime] = []
    for task in job.get("tasks") or []:
        if not isinstance(task, Mapping):
            continue
        start = _moment(task.get("time_started") or task.get("time_created"), zone)
        end = _moment(task.get("time_ended"), zone) or start
        if start is not None and end is not None:
            starts.append(start)
            ends.append(end)
    if not starts:
        return None
    return min(starts), max(ends)


def _failed_job(jobs: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The job a failed unit failed at, as `unit_times` finds it for the unit's page."""
    for job in jobs:
        if job.get("status") == "FAILED" and job.get("microservice") not in CLEANUP_GROUPS:
            return job
    cleanup = next(
        (i for i, job in enumerate(jobs) if job.get("microservice") in CLEANUP_GROUPS), None
    )
    return jobs[cleanup - 1] if cleanup else None


@dataclass
class _GroupRun:
    seconds: float = 0.0
    timed: bool = False
    end: datetime | None = None
    jobs: dict[str, bool] = field(default_factory=dict)  # job name -> failed here


def _group_runs(
    jobs: Sequence[Mapping[str, Any]], zone: ZoneInfo, failed: Mapping[str, Any] | None
) -> dict[str, _GroupRun]:
    """Each group the unit ran: the time in it (the sum of its jobs' spans, so a wait
    for a decision between jobs is not counted) and its jobs."""
    runs: dict[str, _GroupRun] = {}
    for job in jobs:
        group = str(job.get("microservice") or "")
        if not group or group in CLEANUP_GROUPS:
            continue
        run = runs.setdefault(group, _GroupRun())
        name = str(job.get("name") or "")
        run.jobs[name] = run.jobs.get(name, False) or job is failed
        span = _job_span(job, zone)
        if span is not None:
            run.seconds += max(0.0, (span[1] - span[0]).total_seconds())
            run.timed = True
            run.end = span[1] if run.end is None else max(run.end, span[1])
    return runs


def _first_start(jobs: Sequence[Mapping[str, Any]], zone: ZoneInfo) -> datetime | None:
    spans = [span for job in jobs if (span := _job_span(job, zone)) is not None]
    return min(span[0] for span in spans) if spans else None


def _day(moment: datetime) -> date:
    return timezone.localdate(moment)


def month_of(day: date) -> date:
    """The first day of the day's month: the key of the monthly rollups."""
    return day.replace(day=1)


# --- accumulating before writing ----------------------------------------------------


@dataclass
class _Timing:
    count: int = 0
    observed: int = 0
    total: float = 0.0
    buckets: list[int] = field(default_factory=histogram.empty)

    def add(self, seconds: float, *, observed: bool = False) -> None:
        self.count += 1
        self.observed += int(observed)
        self.total += seconds
        histogram.add(self.buckets, seconds)

    def absorb(self, other: _Timing) -> None:
        self.count += other.count
        self.observed += other.observed
        self.total += other.total
        self.buckets = histogram.merged([self.buckets, other.buckets])


def _timings_by_month(
    timings: Mapping[tuple[str, str, date], _Timing],
) -> dict[tuple[str, str, date], _Timing]:
    """Daily timings (of a group or a decision) added up per month."""
    months: dict[tuple[str, str, date], _Timing] = defaultdict(_Timing)
    for (pipeline, name, day), timing in timings.items():
        months[(pipeline, name, month_of(day))].absorb(timing)
    return months


def _failures_by_month(
    failures: Mapping[tuple[str, str, str, date], list[int]],
) -> dict[tuple[str, str, str, date], list[int]]:
    months: dict[tuple[str, str, str, date], list[int]] = defaultdict(lambda: [0, 0])
    for (pipeline, group, job, day), (runs, failed) in failures.items():
        counts = months[(pipeline, group, job, month_of(day))]
        counts[0] += runs
        counts[1] += failed
    return months


@dataclass
class _Batch:
    """Rollup increments of one poll, written in one transaction."""

    started: dict[tuple[str, date], list[int]] = field(
        default_factory=lambda: defaultdict(lambda: [0, 0, 0])
    )
    stages: dict[tuple[str, str, date], _Timing] = field(
        default_factory=lambda: defaultdict(_Timing)
    )
    waits: dict[tuple[str, str, date], _Timing] = field(
        default_factory=lambda: defaultdict(_Timing)
    )
    failures: dict[tuple[str, str, str, date], list[int]] = field(
        default_factory=lambda: defaultdict(lambda: [0, 0])
    )

    def unit_started(self, unit: Unit, moment: datetime, *, observed: bool) -> None:
        counts = self.started[(unit.pipeline, _day(moment))]
        counts[0 if unit.kind == "transfer" else 1] += 1
        counts[2] += int(observed)

    def unit_finished(self, unit: Unit, jobs: Sequence[Mapping[str, Any]], zone: ZoneInfo) -> None:
        failed = _failed_job(jobs) if unit.status == "FAILED" else None
        fallback = unit.status_since or unit.updated_at
        for group, run in _group_runs(jobs, zone, failed).items():
            day = _day(run.end or fallback)
            if run.timed:
                self.stages[(unit.pipeline, group, day)].add(run.seconds)
            group_failed = any(run.jobs.values())
            self._failure(unit.pipeline, group, "", day, failed=group_failed)
            for job, job_failed in run.jobs.items():
                self._failure(unit.pipeline, group, job, day, failed=job_failed)

    def _failure(self, pipeline: str, group: str, job: str, day: date, *, failed: bool) -> None:
        counts = self.failures[(pipeline, group[:255], job[:255], day)]
        counts[0] += 1
        counts[1] += int(failed)

    def wait_ended(
        self, pipeline: str, decision: str, start: datetime, end: datetime, *, observed: bool
    ) -> None:
        seconds = max(0.0, (end - start).total_seconds())
        self.waits[(pipeline, decision[:255], _day(end))].add(seconds, observed=observed)

    def write(self) -> None:
        with transaction.atomic():
            self._write_started()
            self._write_timings(StageDuration, "group", self.stages)
            self._write_timings(
                MonthlyStageDuration, "group", _timings_by_month(self.stages), "month"
            )
            self._write_timings(DecisionWait, "decision", self.waits)
            self._write_timings(
                MonthlyDecisionWait, "decision", _timings_by_month(self.waits), "month"
            )
            self._write_failures(FailureCount, self.failures, "day")
            self._write_failures(MonthlyFailureCount, _failures_by_month(self.failures), "month")

    def _write_started(self) -> None:
        if not self.started:
            return
        existing = _existing(DailyThroughput, self.started, ("pipeline", "day"))
        new = []
        added: dict[int, dict[str, float]] = {}
        for key, (transfers, sips, observed) in self.started.items():
            pk = existing.get(key)
            if pk is None:
                new.append(
                    DailyThroughput(
                        pipeline=key[0],
                        day=key[1],
                        transfers_started=transfers,
                        sips_started=sips,
                        started_observed=observed,
                    )
                )
            else:
                added[pk] = _nonzero(
                    transfers_started=transfers, sips_started=sips, started_observed=observed
                )
        DailyThroughput.objects.bulk_create(new, batch_size=500)
        _add_to_rows(DailyThroughput, added)

    def _write_timings(
        self,
        model: type[StageDuration]
        | type[DecisionWait]
        | type[MonthlyStageDuration]
        | type[MonthlyDecisionWait],
        name: str,
        timings: Mapping[tuple[str, str, date], _Timing],
        period: str = "day",
    ) -> None:
        if not timings:
            return
        existing = _existing(model, timings, ("pipeline", name, period))
        waits = model in (DecisionWait, MonthlyDecisionWait)
        new: list[Any] = []
        added: dict[int, dict[str, float]] = {}
        for key, timing in timings.items():
            pk = existing.get(key)
            if pk is None:
                row = model(pipeline=key[0], **{name: key[1], period: key[2]})
                row.count, row.total_seconds = timing.count, timing.total
                row.histogram = timing.buckets
                if isinstance(row, DecisionWait | MonthlyDecisionWait):
                    row.observed_count = timing.observed
                new.append(row)
            else:
                added[pk] = _amounts(timing, observed=waits)
        _add_to_rows(model, added)
        model.objects.bulk_create(new, batch_size=500)

    def _write_failures(
        self,
        model: type[FailureCount] | type[MonthlyFailureCount],
        failures: Mapping[tuple[str, str, str, date], list[int]],
        period: str,
    ) -> None:
        if not failures:
            return
        existing = _existing(model, failures, ("pipeline", "group", "job", period))
        new: list[Any] = []
        added: dict[int, dict[str, float]] = {}
        for key, (runs, failed) in failures.items():
            pk = existing.get(key)
            if pk is None:
                new.append(
                    model(
                        pipeline=key[0],
                        group=key[1],
                        job=key[2],
                        runs=runs,
                        failures=failed,
                        **{period: key[3]},
                    )
                )
            else:
                added[pk] = _nonzero(runs=runs, failures=failed)
        model.objects.bulk_create(new, batch_size=500)
        _add_to_rows(model, added)


def _amounts(timing: _Timing, *, observed: bool) -> dict[str, float]:
    """What `timing` adds to each column of a duration rollup row that it makes grow."""
    amounts: dict[str, float] = {"count": timing.count, "total_seconds": timing.total}
    for name, count in zip(BUCKET_FIELDS, timing.buckets, strict=True):
        if count:
            amounts[name] = count
    if observed and timing.observed:
        amounts["observed_count"] = timing.observed
    return amounts


def _nonzero(**amounts: float) -> dict[str, float]:
    return {name: amount for name, amount in amounts.items() if amount}


def _add_to_rows(model: type[Model], added: Mapping[int, Mapping[str, float]]) -> None:
    """Add to existing rows (by primary key) in the database, so that concurrent
    additions add up: each column that grows gets each row's own amount.

    One UPDATE for many rows (a finished unit touches a row per workflow group and
    job), as few statements as the database's limit on parameters allows, and only the
    columns that grow (a poll's few waits touch a few of the 49 buckets). Plain SQL: the
    ORM takes milliseconds to build a CASE of a few hundred branches.
    """
    added = {pk: amounts for pk, amounts in added.items() if amounts}
    if not added:
        return
    limit = connection.features.max_query_params or 5000
    chunk: dict[int, Mapping[str, float]] = {}
    size = 0
    for key, amounts in added.items():
        needed = 2 * len(amounts) + 1
        if chunk and size + needed > limit:
            _add_in_one_update(model, chunk)
            chunk, size = {}, 0
        chunk[key] = amounts
        size += needed
    if chunk:
        _add_in_one_update(model, chunk)


def _add_in_one_update(model: type[Model], added: Mapping[int, Mapping[str, float]]) -> None:
    quote = connection.ops.quote_name
    key = quote(model._meta.pk.column)
    columns = {field.attname: field.column for field in model._meta.concrete_fields}
    sets: list[str] = []
    params: list[Any] = []
    for name in sorted({name for amounts in added.values() for name in amounts}):
        column = quote(columns[name])
        cases = []
        for pk, amounts in added.items():
            if name in amounts:
                cases.append("WHEN %s THEN %s")
                params += [pk, amounts[name]]
        sets.append(f"{column} = {column} + CASE {key} {' '.join(cases)} ELSE 0 END")
    params += list(added)
    marks = ", ".join(["%s"] * len(added))
    sql = f"UPDATE {quote(model._meta.db_table)} SET {', '.join(sets)} WHERE {key} IN ({marks})"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _existing(
    model: type[Model], keys: Iterable[tuple[Any, ...]], names: tuple[str, ...]
) -> dict[tuple[Any, ...], int]:
    """The primary keys of the rows of `model` with these keys (the values of `names`),
    locked for the update."""
    keys = list(keys)
    columns = {f"{name}__in": {key[index] for key in keys} for index, name in enumerate(names)}
    rows = model._default_manager.select_for_update().filter(**columns)
    wanted = set(keys)
    found = {}
    for pk, *values in rows.values_list("pk", *names):
        key = tuple(values)
        if key in wanted:
            found[key] = pk
    return found


# --- hooks called by the pollers ----------------------------------------------------


def _finished(unit: Unit) -> bool:
    return unit.status in FINAL_STATUSES and not unit.awaiting_sip_uuid


def _tally_unit(
    batch: _Batch, unit: Unit, jobs: Sequence[Mapping[str, Any]], zone: ZoneInfo, tally: UnitTally
) -> bool:
    """Add what this unit has not added yet; True when the tally changed."""
    changed = False
    if not tally.started and unit.kind in ("transfer", "sip"):
        start = _first_start(jobs, zone)
        batch.unit_started(unit, start or unit.first_seen_at, observed=start is None)
        tally.started = changed = True
    if not tally.finished and _finished(unit) and jobs:
        batch.unit_finished(unit, jobs, zone)
        tally.finished = changed = True
    return changed


def _has_news(unit: Unit, tally: UnitTally | None) -> bool:
    return tally is None or not tally.started or (not tally.finished and _finished(unit))


def units_jobs_record(
    *, entries: Sequence[tuple[Unit, Sequence[Mapping[str, Any]]]], time_zone: str
) -> None:
    """The jobs refresh stored these units' jobs (plain data, oldest first).

    One query finds what the units already added (in a quiet cycle, all of it); what is
    new is written in one transaction, with the tallies locked so nothing counts twice.
    """
    known = {
        tally.unit_id: tally
        for tally in UnitTally.objects.filter(unit_id__in=[unit.pk for unit, _ in entries])
    }
    todo = [(unit, jobs) for unit, jobs in entries if _has_news(unit, known.get(unit.pk))]
    if not todo:
        return
    zone = ZoneInfo(time_zone)
    with transaction.atomic():
        locked = {
            tally.unit_id: tally
            for tally in UnitTally.objects.select_for_update().filter(
                unit_id__in=[unit.pk for unit, _ in todo]
            )
        }
        batch = _Batch()
        new: list[UnitTally] = []
        changed: list[UnitTally] = []
        for unit, jobs in todo:
            tally = locked.get(unit.pk)
            if tally is None:
                new.append(UnitTally(unit=unit))
                _tally_unit(batch, unit, jobs, zone, new[-1])
            elif _tally_unit(batch, unit, jobs, zone, tally):
                changed.append(tally)
        batch.write()
        # A tally made meanwhile by another process fails the insert: nothing is counted.
        UnitTally.objects.bulk_create(new)
        UnitTally.objects.bulk_update(changed, ["started", "finished"])


def unit_jobs_record(*, unit: Unit, jobs: Sequence[Mapping[str, Any]], time_zone: str) -> None:
    """`units_jobs_record` for one unit."""
    units_jobs_record(entries=[(unit, jobs)], time_zone=time_zone)


# Pipelines this process has seen covered: a coverage row is never deleted by Lookout
# (only ever moved earlier), so a poll need not look for it again. Remembered once the
# row is committed (a rolled-back transaction, e.g. a test's, leaves nothing behind),
# forgotten when the rows are deleted or the tables flushed (`coverage_forget`).
_covered: set[str] = set()


def coverage_forget() -> None:
    """Forget which pipelines are covered: the next poll looks for their rows again."""
    _covered.clear()


def _remember_covered(pipeline: str) -> None:
    transaction.on_commit(lambda: _covered.add(pipeline))


def _watching(pipeline: str, since: datetime) -> None:
    coverage, created = AnalyticsCoverage.objects.get_or_create(
        pipeline=pipeline, defaults={"watching_since": since}
    )
    if not created and since < coverage.watching_since:
        AnalyticsCoverage.objects.filter(pk=coverage.pk).update(watching_since=since)


def _hour(moment: datetime) -> datetime:
    return moment.replace(minute=0, second=0, microsecond=0)


def workflow_cycle_record(
    *,
    pipeline: str,
    units: Mapping[str, Unit],
    before: Mapping[str, Sequence[Any]],
    fields: Sequence[str],
    now: datetime,
) -> None:
    """After a workflow poll: waits that ended, the hour's queue sample, coverage.

    `before` holds each loaded unit's `fields` values as the cycle found them.
    """
    position = {name: index for index, name in enumerate(fields)}
    batch = _Batch()
    active = waiting = 0
    for uuid, unit in units.items():
        if unit.hidden:
            continue
        if unit.awaiting_decision:
            waiting += 1
        elif unit.status not in FINAL_STATUSES and unit.status != "UNKNOWN":
            active += 1
        old = before.get(uuid)
        if old is None or not old[position["awaiting_decision"]] or unit.awaiting_decision:
            continue
        since = old[position["waiting_since"]]
        decision = old[position["decision"]]
        if since is not None and decision:
            observed = old[position["waiting_since_from"]] != TimesFrom.UPSTREAM
            batch.wait_ended(pipeline, decision, since, now, observed=observed)
    if batch.waits:
        batch.write()
    _queue_sample(pipeline, _hour(now), active, waiting)
    if pipeline not in _covered:
        if not AnalyticsCoverage.objects.filter(pipeline=pipeline).exists():
            _watching(pipeline, now)
        _remember_covered(pipeline)


def _queue_sample(pipeline: str, hour: datetime, active: int, waiting: int) -> None:
    """The hour's sample is the last poll's counts: written only when they differ (a
    read is cheaper than a write, and most polls of an hour see the same counts). Not
    remembered in the process: the next poll of the pipeline may run in another worker."""
    sampled = QueueSample.objects.filter(pipeline=pipeline, hour=hour)
    found = sampled.values_list("active", "waiting").first()
    if found is None:
        QueueSample.objects.create(pipeline=pipeline, hour=hour, active=active, waiting=waiting)
    elif found != (active, waiting):
        sampled.update(active=active, waiting=waiting)


def _day_range(day: date) -> tuple[datetime, datetime]:
    start = timezone.make_aware(datetime.combine(day, datetime.min.time()))
    return start, start + timedelta(days=1)


def aips_stored_record(*, stored_dates: Iterable[datetime | None]) -> None:
    """Count again the AIPs stored on the days of these (just synced) packages."""
    days = {_day(moment) for moment in stored_dates if moment is not None}
    for day in sorted(days):
        start, end = _day_range(day)
        packages = list(
            StoragePackage.objects.filter(
                package_type=AIP, stored_date__gte=start, stored_date__lt=end
            ).values_list("uuid", "size")
        )
        owners = dict(
            Unit.objects.filter(uuid__in=[uuid for uuid, _ in packages], kind="sip").values_list(
                "uuid", "pipeline"
            )
        )
        totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for uuid, size in packages:
            counts = totals[owners.get(uuid, "")]
            counts[0] += 1
            counts[1] += size or 0
        with transaction.atomic():
            DailyThroughput.objects.filter(day=day).exclude(pipeline__in=totals).update(
                aips_stored=0, bytes_stored=0
            )
            for pipeline, (count, size) in totals.items():
                updated = DailyThroughput.objects.filter(pipeline=pipeline, day=day).update(
                    aips_stored=count, bytes_stored=size
                )
                if not updated:
                    DailyThroughput.objects.create(
                        pipeline=pipeline, day=day, aips_stored=count, bytes_stored=size
                    )


# --- back-fill ----------------------------------------------------------------------


@dataclass(frozen=True)
class BackfillSummary:
    units: int
    waits: int
    aip_days: int


def _waits_from_history(batch: _Batch, pipelines: set[str] | None) -> int:
    """Waits for a decision from the history: from a change to USER_INPUT to the next
    change of the same unit (both times seen by Lookout)."""
    changes = StatusChange.objects.order_by("pipeline", "unit_uuid", "at", "id").values_list(
        "pipeline", "unit_uuid", "to_status", "microservice", "at"
    )
    count = 0
    previous: tuple[Any, ...] | None = None
    for row in changes.iterator(chunk_size=5000):
        if pipelines is not None and row[0] not in pipelines:
            previous = None
            continue
        if (
            previous is not None
            and previous[:2] == row[:2]
            and previous[2] == "USER_INPUT"
            and previous[3]
        ):
            batch.wait_ended(row[0], previous[3], previous[4], row[4], observed=True)
            count += 1
        previous = row
    return count


def rollups_rebuild(*, time_zones: Mapping[str, str]) -> BackfillSummary:
    """Build every rollup from the record, replacing what was there.

    `time_zones` maps each pipeline slug to the time zone of its task times. Queue
    samples are not rebuilt: they are what the polls saw, hour by hour.
    """
    batch = _Batch()
    tallies: list[UnitTally] = []
    units = (
        Unit.objects.exclude(kind="")
        .select_related("job_list")
        .order_by("pk")
        .iterator(chunk_size=2000)
    )
    count = 0
    for unit in units:
        entry: UnitJobs | None = getattr(unit, "job_list", None)
        jobs: list[Mapping[str, Any]] = list(entry.jobs) if entry is not None else []
        if not jobs and unit.needs_details:
            continue  # found already finished before Lookout watched: no times to count
        zone = ZoneInfo(time_zones.get(unit.pipeline, "UTC"))
        tally = UnitTally(unit=unit)
        _tally_unit(batch, unit, jobs, zone, tally)
        tallies.append(tally)
        count += 1
    waits = _waits_from_history(batch, None)
    coverage_forget()
    with transaction.atomic():
        for model in (
            DailyThroughput,
            StageDuration,
            MonthlyStageDuration,
            DecisionWait,
            MonthlyDecisionWait,
            FailureCount,
            MonthlyFailureCount,
            UnitTally,
        ):
            model.objects.all().delete()
        batch.write()
        UnitTally.objects.bulk_create(tallies, batch_size=2000)
        for row in StatusChange.objects.values("pipeline").annotate(first=Min("at")).order_by():
            _watching(row["pipeline"], row["first"])
        for row in (
            Unit.objects.filter(needs_details=False)
            .values("pipeline")
            .annotate(first=Min("first_seen_at"))
            .order_by()
        ):
            _watching(row["pipeline"], row["first"])
    stored = StoragePackage.objects.filter(package_type=AIP, stored_date__isnull=False)
    days = list(stored.datetimes("stored_date", "day"))
    aips_stored_record(stored_dates=days)
    return BackfillSummary(units=count, waits=waits, aip_days=len(days))
