"""Benchmark: the analytics page and API at 100,000 finished units, 1,000,000 changes.

    .venv/bin/python bench/analytics.py --units 100000 --changes 1000000
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test .venv/bin/python bench/analytics.py

Bulk-creates finished units spread over a year and the status history, plus stored jobs
for `--with-jobs` of them spread over every day (so every rollup row a year can hold
exists: each workflow group, each job, each day) and a year of hourly queue samples,
builds the rollups with the back-fill command, then times the page and the API for every
period (p95 of `--runs` requests). Target: p95 at most 150 ms for any period.

Then what the rollup hooks add to a poll cycle (target: at most 5 %). The measure is the
time spent inside the hooks as a share of the cycles' time (wall clock, and CPU time of
this process); the medians of cycles run alternately with and without the hooks are
printed too, but the work outside the hooks varies more from cycle to cycle than they
cost. Per cycle, the waits ended, units started and finished units tallied are printed,
so what the hooks had to do is visible.

- Steady state against the in-process fake client (no network): `--active` SIPs, every
  one known and tallied first; each cycle polls every one of them and refreshes the jobs
  of up to `--jobs-per-cycle`; `--finishing` % of them complete each cycle (their jobs
  stored and tallied as finished units) and as many new ones arrive. Three scenarios:
  no unit changing status, `--changing` of them, and all of them (the worst case: half of
  them end a wait every cycle, and the jobs refresh has more changed units than it
  fetches in a cycle, so it takes them in turn). `--cycles` cycles each with the hooks
  timed, then as many pairs. What the fake service does between cycles, and making
  Lookout's active units due, is not timed.
- Against the simulator over HTTP (`--http-cycles`, 0 skips it), the simulated pipeline
  busy with arrivals. First start: after 12 cycles, the history still being learned
  (most refreshed units are finished ones tallied for the first time). Then cycles until
  no finished unit is left to learn (its details or its jobs), or that number stopped
  falling for 5 cycles, or after `--http-learn-cycles`; then the steady state, measured
  the same way.

SQLite in a temporary folder, or, when DATABASE_URL names a PostgreSQL server, a scratch
database on it that is dropped at the end.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import uuid as uuidlib
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def configure_django(workdir: str, database_url: str) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ["LOOKOUT_VAR_DIR"] = workdir
    os.environ["DATABASE_URL"] = database_url
    os.environ.pop("REDIS_URL", None)
    import django
    from django.conf import settings

    django.setup()
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.ALLOWED_HOSTS = ["*"]
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _naive(moment) -> str:
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat()


def seed(units: int, changes: int, with_jobs: int) -> None:
    from django.utils import timezone

    from dashboard.lib.workflow_order import INGEST_GROUPS, TRANSFER_GROUPS
    from dashboard.models import (
        QueueSample,
        StatusChange,
        StoragePackage,
        TimesFrom,
        Unit,
        UnitJobs,
    )

    rng = random.Random(1)
    now = timezone.now()
    batch: list[Unit] = []
    packages: list[StoragePackage] = []
    for n in range(units):
        start = now - timedelta(days=rng.uniform(1, 365))
        kind = "sip" if n % 2 else "transfer"
        failed = rng.random() < 0.05
        batch.append(
            Unit(
                pipeline="default",
                uuid=str(uuidlib.UUID(int=rng.getrandbits(128), version=4)),
                kind=kind,
                name=f"unit-{n}",
                status="FAILED" if failed else "COMPLETE",
                # History: its times come from upstream (a failure Lookout saw happen
                # would have its jobs fetched once, and be wanted by every refresh until).
                failed_at_from=TimesFrom.UPSTREAM,
                first_seen_at=start,
                updated_at=start + timedelta(hours=1),
                status_since=start + timedelta(hours=1),
            )
        )
        if kind == "sip" and not failed:
            packages.append(
                StoragePackage(
                    uuid=batch[-1].uuid,
                    package_type="AIP",
                    status="UPLOADED",
                    size=rng.randint(10**6, 10**10),
                    stored_date=start + timedelta(hours=1),
                    first_seen_at=start,
                    seen_at=start,
                )
            )
    Unit.objects.bulk_create(batch, batch_size=5000)
    StoragePackage.objects.bulk_create(packages, batch_size=5000)
    uuids = [u.uuid for u in batch]
    history = []
    for n in range(changes):
        unit = batch[n % units]
        at = unit.first_seen_at + timedelta(seconds=n // units * 60)
        status = "USER_INPUT" if (n // units) % 3 == 1 else "PROCESSING"
        history.append(
            StatusChange(
                pipeline="default",
                unit_uuid=uuids[n % units],
                unit_kind=unit.kind,
                to_status=status,
                microservice="Normalize" if status == "PROCESSING" else "Select normalization",
                at=at,
            )
        )
        if len(history) >= 20000:
            StatusChange.objects.bulk_create(history)
            history = []
    StatusChange.objects.bulk_create(history)
    # Stored jobs for a sample, one per day and group at least, every group and job.
    groups = list(TRANSFER_GROUPS + INGEST_GROUPS)
    rows = []
    saved = list(Unit.objects.order_by("?")[:with_jobs])
    for index, unit in enumerate(saved):
        moment = timezone.now() - timedelta(days=index % 365, hours=2)
        unit.updated_at = moment
        jobs = []
        for group in groups:
            for job in range(3):
                seconds = rng.lognormvariate(3, 1.5)
                end = moment + timedelta(seconds=seconds)
                jobs.append(
                    {
                        "uuid": str(uuidlib.uuid4()),
                        "name": f"{group}: job {job}",
                        "status": "COMPLETE",
                        "microservice": group,
                        "tasks": [{"time_started": _naive(moment), "time_ended": _naive(end)}],
                    }
                )
                moment = end
        rows.append(
            UnitJobs(unit=unit, fetched_at=moment, unit_updated_at=unit.updated_at, jobs=jobs)
        )
    UnitJobs.objects.bulk_create(rows, batch_size=500)
    # A year of hourly queue samples, as a year of polls leaves them.
    hour = now.replace(minute=0, second=0, microsecond=0)
    QueueSample.objects.bulk_create(
        [
            QueueSample(
                pipeline="default",
                hour=hour - timedelta(hours=n),
                active=rng.randint(0, 200),
                waiting=rng.randint(0, 40),
            )
            for n in range(365 * 24)
        ],
        batch_size=5000,
    )


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[max(0, int(len(ordered) * 0.95 + 0.999) - 1)]


def time_requests(runs: int) -> dict[str, float]:
    from django.test import Client

    from tests.support.users import make_user

    client = Client()
    client.force_login(make_user("bench", "viewer"))
    today = time.strftime("%Y-%m-%d")
    periods = {
        "24h": {"period": "24h"},
        "7d": {"period": "7d"},
        "30d": {"period": "30d"},
        "12m": {"period": "12m"},
        "custom 3 years": {"period": "custom", "start": "2024-01-01", "end": today},
    }
    results = {}
    for name, params in periods.items():
        for label, url in (("page", "/analytics/"), ("API", "/api/v1/analytics/")):
            client.get(url, params)  # warm
            samples = []
            for _ in range(runs):
                started = time.perf_counter()
                response = client.get(url, params)
                samples.append((time.perf_counter() - started) * 1000)
                assert response.status_code == 200, response.status_code
            results[f"{label} {name}"] = p95(samples)
    return results


class _HookTimer:
    """Wraps the rollup hooks to add up the time spent inside them (wall and CPU)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.cpu = 0.0

    def wrap(self, hook):
        def timed(*args, **kwargs):
            started, cpu = time.perf_counter(), time.process_time()
            try:
                return hook(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started
                self.cpu += time.process_time() - cpu

        return timed

    @contextmanager
    def hooks_timed(self):
        from unittest import mock

        from dashboard.services import analytics

        with (
            mock.patch.object(
                analytics, "workflow_cycle_record", self.wrap(analytics.workflow_cycle_record)
            ),
            mock.patch.object(
                analytics, "units_jobs_record", self.wrap(analytics.units_jobs_record)
            ),
        ):
            yield


@contextmanager
def _hooks_off():
    from unittest import mock

    from dashboard.services import analytics

    with (
        mock.patch.object(analytics, "workflow_cycle_record"),
        mock.patch.object(analytics, "units_jobs_record"),
    ):
        yield


@dataclass
class _Measure:
    """Cycles run with the hooks on and timed, then alternately with and without them."""

    cycles: list[float] = field(default_factory=list)
    cycles_cpu: list[float] = field(default_factory=list)
    hooks: float = 0.0
    hooks_cpu: float = 0.0
    with_hooks: list[float] = field(default_factory=list)
    without: list[float] = field(default_factory=list)
    counts: dict[str, float] = field(default_factory=dict)

    def timed(self, cycle, prepare=None) -> None:
        if prepare is not None:
            prepare()
        timer = _HookTimer()
        started, cpu = time.perf_counter(), time.process_time()
        with timer.hooks_timed():
            cycle()
        self.cycles.append(time.perf_counter() - started)
        self.cycles_cpu.append(time.process_time() - cpu)
        self.hooks += timer.seconds
        self.hooks_cpu += timer.cpu

    def alternate(self, cycle, pairs: int, prepare=None) -> None:
        for _ in range(pairs):
            if prepare is not None:
                prepare()
            started = time.perf_counter()
            cycle()
            self.with_hooks.append(time.perf_counter() - started)
            if prepare is not None:
                prepare()
            with _hooks_off():
                started = time.perf_counter()
                cycle()
                self.without.append(time.perf_counter() - started)

    def line(self) -> str:
        share = self.hooks / sum(self.cycles) * 100
        share_cpu = self.hooks_cpu / sum(self.cycles_cpu) * 100
        text = (
            f"hooks {self.hooks / len(self.cycles) * 1000:.1f} ms of a "
            f"{statistics.mean(self.cycles) * 1000:.0f} ms cycle: {share:.1f} % "
            f"({share_cpu:.1f} % of its CPU time)"
        )
        if self.without:
            with_hooks = statistics.median(self.with_hooks) * 1000
            without = statistics.median(self.without) * 1000
            text += (
                f"; alternating medians {without:.0f} ms without, {with_hooks:.0f} ms with "
                f"({(with_hooks - without) / without * 100:+.1f} %)"
            )
        return text


def _rollup_counts(pipeline: str) -> dict[str, int]:
    from django.db.models import Sum

    from dashboard.models import DecisionWait, UnitTally

    tallies = UnitTally.objects.filter(unit__pipeline=pipeline)
    waits = DecisionWait.objects.filter(pipeline=pipeline).aggregate(n=Sum("count"))["n"]
    return {
        "waits ended": waits or 0,
        "units started": tallies.filter(started=True).count(),
        "finished units tallied": tallies.filter(finished=True).count(),
    }


def _counted(measure: _Measure, pipeline: str, before: dict[str, int], cycles: int) -> None:
    after = _rollup_counts(pipeline)
    measure.counts = {name: (after[name] - before[name]) / cycles for name in after}


def _jobs_for(rng: random.Random, uuid: str, groups: tuple[str, ...], moment):
    """The jobs of a unit that ran these groups (two jobs each, one task per job)."""
    from dashboard.clients.workflow import Job, JobStatus, Task

    jobs = []
    for index, group in enumerate(groups):
        for job in range(2):
            seconds = rng.lognormvariate(3, 1.5)
            end = moment + timedelta(seconds=seconds)
            jobs.append(
                Job(
                    uuid=f"{uuid[:24]}{index:06d}{job:06d}",
                    name=f"{group}: job {job}",
                    status=JobStatus.COMPLETE,
                    microservice=group,
                    link_uuid=None,
                    tasks=(
                        Task(
                            uuid=f"{uuid[:24]}{index:06d}{job:06d}",
                            exit_code=0,
                            file_uuid=None,
                            file_name="",
                            time_created=moment,
                            time_started=moment,
                            time_ended=end,
                            duration_seconds=int(seconds),
                            duration_under_one_second=seconds < 1,
                        ),
                    ),
                )
            )
            moment = end
    return tuple(jobs)


def time_poll(
    active: int, cycles: int, changing: list[int], finishing: float, jobs_per_cycle: int
) -> list[tuple[int, _Measure]]:
    """The steady state against the in-process fake client (no network): `active` SIPs,
    all already tallied; each cycle `changing` of them move between USER_INPUT and
    PROCESSING (half of those end a wait), `finishing` % of them complete (their jobs
    are refreshed and they are tallied as finished units) and as many new ones arrive.
    A cycle is one workflow poll, every unit due, and one jobs refresh."""
    from django.utils import timezone

    from dashboard.clients.workflow import UnitKind, UnitStatusValue
    from dashboard.lib.pipelines import pipeline_list
    from dashboard.lib.workflow_order import INGEST_GROUPS
    from dashboard.models import FINAL_STATUSES, Unit, UnitTally
    from dashboard.services import units as unit_services
    from tests.fakes import FakeUnit, FakeWorkflowClient

    @dataclass
    class BenchClient(FakeWorkflowClient):
        """The fake client, with jobs with task times as a real SIP has them."""

        jobs: dict = field(default_factory=dict)

        def list_jobs(self, unit_uuid, *, microservice=None, link_uuid=None, name=None,
                      detailed=False):  # fmt: skip
            self._call("list_jobs", unit_uuid)
            return self.jobs.get(unit_uuid, ())

    rng = random.Random(2)
    pipeline = pipeline_list()[0]
    client = BenchClient()
    now = timezone.now() - timedelta(hours=12)
    serial = iter(range(10**9))
    moving: list[str] = []

    def arrive(waiting: bool) -> None:
        n = next(serial)
        uuid = f"20000000-0000-4000-8000-{n:012d}"
        status = UnitStatusValue.USER_INPUT if waiting else UnitStatusValue.PROCESSING
        decision = f"Decision {n % 7}"
        client.add(FakeUnit(uuid, kind=UnitKind.SIP, status=status, microservice=decision))
        client.jobs[uuid] = _jobs_for(rng, uuid, INGEST_GROUPS, now)
        moving.append(uuid)

    for _ in range(active):
        arrive(waiting=True)  # the fake's lists name only waiting units
    step = 0
    finished_per_cycle = round(active * finishing / 100)

    def prepare(changes: int) -> None:
        """The service moves on and every unit still active in Lookout is due (not
        timed: an UPDATE of the whole table would be the bench's own cost)."""
        nonlocal step
        step += 1
        moment = now + timedelta(minutes=step)
        for uuid in moving[:finished_per_cycle]:
            client.units[uuid].status = UnitStatusValue.COMPLETE
        del moving[:finished_per_cycle]
        for _ in range(finished_per_cycle):
            arrive(waiting=True)
        for offset in range(min(changes, len(moving))):
            unit = client.units[moving[(step * changes + offset) % len(moving)]]
            waiting = unit.status is UnitStatusValue.USER_INPUT
            unit.status = UnitStatusValue.PROCESSING if waiting else UnitStatusValue.USER_INPUT
        Unit.objects.filter(pipeline=pipeline.slug).exclude(status__in=FINAL_STATUSES).update(
            next_poll_at=moment
        )

    def cycle() -> None:
        moment = now + timedelta(minutes=step)
        unit_services.workflow_poll(pipeline=pipeline, client=client, now=moment)
        unit_services.jobs_refresh(
            pipeline=pipeline, client=client, now=moment, limit=jobs_per_cycle
        )

    # Every unit known, half of them moving on, and all tallied before anything is
    # measured.
    unit_services.workflow_poll(pipeline=pipeline, client=client, now=now)
    for uuid in moving[1::2]:
        client.units[uuid].status = UnitStatusValue.PROCESSING
    Unit.objects.filter(pipeline=pipeline.slug).update(next_poll_at=now)
    unit_services.workflow_poll(pipeline=pipeline, client=client, now=now)
    unit_services.jobs_refresh(pipeline=pipeline, client=client, now=now, limit=active)
    tallied = UnitTally.objects.filter(unit__uuid__in=moving, started=True).count()
    assert tallied == active, (tallied, active)

    results = []
    for changes in changing:
        prepare(changes)  # the scenario's first changes, not measured
        cycle()
        measure = _Measure()
        before = _rollup_counts(pipeline.slug)
        for _ in range(cycles):
            measure.timed(cycle, lambda changes=changes: prepare(changes))
        _counted(measure, pipeline.slug, before, cycles)
        measure.alternate(cycle, cycles, lambda changes=changes: prepare(changes))
        results.append((changes, measure))
    return results


def _history_left(pipeline: str) -> int:
    """Units found already finished that are still to learn: their details, or (once
    known) their jobs, fetched once for the analytics."""
    from django.db.models import Q

    from dashboard.models import Unit

    return (
        Unit.objects.filter(pipeline=pipeline, hidden=False)
        .filter(Q(needs_details=True) | (Q(learn_jobs=True) & ~Q(kind="")))
        .count()
    )


def time_poll_http(cycles: int, active_per_hour: float, learn_cycles: int) -> dict[str, Any]:
    """Poll cycles (workflow poll + jobs refresh) against the simulator over HTTP, the
    simulated pipeline busy with arrivals, one simulated 10 s between cycles.

    First start: after 12 cycles, `cycles` alternating with and without the hooks,
    while the history is still being learned. Then cycles with the hooks until the
    history is learned (`_history_left` is 0), or it stopped falling for 5 cycles, or
    after `learn_cycles`; then the steady state, measured the same way."""
    from django.conf import settings

    from dashboard.lib.pipelines import pipeline_list
    from dashboard.models import Unit
    from dashboard.services import units as unit_services
    from tests.support.simulator_process import SimulatorProcess

    with SimulatorProcess(
        units=200,
        packages=0,
        seed=3,
        speed=10,
        arrivals_per_hour=active_per_hour,
        arrival_burst=20,
        history_days=1,
        history_per_day=300,
    ) as sim:
        settings.LOOKOUT_PIPELINES = [
            {"slug": "sim", "name": "Simulator", "url": sim.workflow_url, "user": sim.user,
             "key": sim.key}
        ]  # fmt: skip
        pipeline = pipeline_list()[0]

        def cycle() -> None:
            time.sleep(1)  # ten simulated seconds: units move on
            unit_services.workflow_poll(pipeline=pipeline)
            unit_services.jobs_refresh(pipeline=pipeline)

        def known() -> tuple[int, int]:
            units = Unit.objects.filter(pipeline="sim")
            active = units.exclude(status__in=("COMPLETE", "FAILED", "REJECTED"))
            return units.count(), active.count()

        for _ in range(12):
            cycle()
        first = _Measure()
        before = _rollup_counts("sim")
        for _ in range(cycles):
            first.timed(cycle)
        _counted(first, "sim", before, cycles)
        first.alternate(cycle, cycles)
        first_known, first_left = known(), _history_left("sim")

        learned = 0
        left = best = first_left
        stalled = 0
        while left and learned < learn_cycles and stalled < 5:
            cycle()
            learned += 1
            left = _history_left("sim")
            stalled = 0 if left < best else stalled + 1
            best = min(best, left)

        steady = _Measure()
        before = _rollup_counts("sim")
        for _ in range(cycles):
            steady.timed(cycle)
        _counted(steady, "sim", before, cycles)
        steady.alternate(cycle, cycles)
        return {
            "first": first,
            "first_known": first_known,
            "first_left": first_left,
            "learn_cycles": learned,
            "left": left,
            "steady": steady,
            "steady_known": known(),
        }


def _counts_text(measure: _Measure) -> str:
    return ", ".join(f"{value:.1f} {name}" for name, value in measure.counts.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=100_000)
    parser.add_argument("--changes", type=int, default=1_000_000)
    parser.add_argument("--with-jobs", type=int, default=3_650)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--active", type=int, default=1000, help="units moving (fake client)")
    parser.add_argument("--cycles", type=int, default=5, help="measured cycles per scenario")
    parser.add_argument(
        "--changing", type=int, default=100,
        help="units changing status per cycle in the main scenario (0 and all also run)",
    )  # fmt: skip
    parser.add_argument(
        "--finishing", type=float, default=1.5, help="%% of the units completing per cycle"
    )
    parser.add_argument(
        "--jobs-per-cycle", type=int, default=150,
        help="the jobs refresh's limit against the fake client (the setting's default is 50)",
    )  # fmt: skip
    parser.add_argument("--http-cycles", type=int, default=10)
    parser.add_argument("--http-arrivals-per-hour", type=float, default=1200)
    parser.add_argument(
        "--http-learn-cycles", type=int, default=60,
        help="at most this many cycles to learn the history before the steady state",
    )  # fmt: skip
    args = parser.parse_args()
    from tests.support.databases import scratch_database

    with tempfile.TemporaryDirectory() as workdir, scratch_database(Path(workdir), "bench") as url:
        configure_django(workdir, url)
        from django.db import connection

        print(f"database: {connection.vendor}", flush=True)
        started = time.perf_counter()
        seed(args.units, args.changes, args.with_jobs)
        print(f"seeded in {time.perf_counter() - started:.1f} s", flush=True)
        from django.core.management import call_command

        from dashboard.models import DecisionWait, FailureCount, StageDuration

        started = time.perf_counter()
        call_command("analytics_backfill")
        print(f"back-fill in {time.perf_counter() - started:.1f} s", flush=True)
        print(
            f"rollup rows: {StageDuration.objects.count()} stage, "
            f"{FailureCount.objects.count()} failure, {DecisionWait.objects.count()} wait"
        )
        for name, value in time_requests(args.runs).items():
            print(f"p95 {name}: {value:.1f} ms")
        finishing = round(args.active * args.finishing / 100)
        scenarios = sorted({0, min(args.changing, args.active), args.active})
        print(
            f"poll cycle, steady state, in-process fake client (no network): {args.active} "
            f"SIPs already tallied, every one polled each cycle, {finishing} completing and "
            f"{finishing} arriving per cycle, jobs refresh limit {args.jobs_per_cycle}; "
            f"{args.cycles} cycles with the hooks timed, then {args.cycles} pairs with and "
            "without them",
            flush=True,
        )
        for changes, measure in time_poll(
            args.active, args.cycles, scenarios, args.finishing, args.jobs_per_cycle
        ):
            label = "all" if changes == args.active else str(changes)
            print(f"  {label} changing per cycle: {measure.line()}")
            print(f"    per cycle: {_counts_text(measure)}", flush=True)
        if args.http_cycles:
            http = time_poll_http(
                args.http_cycles, args.http_arrivals_per_hour, args.http_learn_cycles
            )
            units, active = http["first_known"]
            print(
                "poll cycle against the simulator over HTTP, first start (after 12 cycles; "
                f"{units} units known, {active} active, {http['first_left']} finished ones "
                f"still to learn): {http['first'].line()}"
            )
            print(f"    per cycle: {_counts_text(http['first'])}")
            units, active = http["steady_known"]
            state = (
                "history learned"
                if not http["left"]
                else f"{http['left']} finished units still to learn"
            )
            print(
                f"poll cycle against the simulator over HTTP, steady state (after "
                f"{http['learn_cycles']} more cycles: {state}; {units} units known, "
                f"{active} active): {http['steady'].line()}"
            )
            print(f"    per cycle: {_counts_text(http['steady'])}")
        from django.db import connections

        connections.close_all()  # so the scratch PostgreSQL database can be dropped


if __name__ == "__main__":
    main()
