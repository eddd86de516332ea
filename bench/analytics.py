"""Benchmark: the analytics page and API at 100,000 finished units, 1,000,000 changes.

    .venv/bin/python bench/analytics.py --units 100000 --changes 1000000
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test .venv/bin/python bench/analytics.py

Bulk-creates finished units spread over a year and the status history, plus stored jobs
for `--with-jobs` of them spread over every day (so every rollup row a year can hold
exists: each workflow group, each job, each day) and a year of hourly queue samples,
builds the rollups with the back-fill command, then times the page and the API for every
period (p95 of `--runs` requests), and poll cycles with and without the rollup update:
against the in-process fake client (no network), and against the simulator over HTTP
(`--http-cycles`, 0 skips it). Targets: p95 at most 150 ms for any period; the rollup
update adds at most 5 % to a poll cycle. SQLite in a temporary folder, or, when
DATABASE_URL names a PostgreSQL server, a scratch database on it that is dropped at the end.
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
from datetime import UTC, timedelta
from pathlib import Path

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
    from dashboard.models import QueueSample, StatusChange, StoragePackage, Unit, UnitJobs

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


def time_poll(active: int, cycles: int) -> dict[str, float]:
    """One workflow poll and one jobs refresh of `active` units moving every cycle,
    with the rollup update and with it replaced by a no-op."""
    from unittest import mock

    from django.utils import timezone

    from dashboard.clients.workflow import UnitKind, UnitStatusValue
    from dashboard.lib.pipelines import pipeline_list
    from dashboard.services import analytics
    from dashboard.services import units as unit_services
    from tests.fakes import FakeUnit, FakeWorkflowClient

    pipeline = pipeline_list()[0]
    client = FakeWorkflowClient()
    for n in range(active):
        uuid = f"20000000-0000-4000-8000-{n:012d}"
        client.add(
            FakeUnit(
                uuid,
                kind=UnitKind.SIP,
                status=UnitStatusValue.USER_INPUT,
                microservice=f"Decision {n % 7}",
            )
        )
    now = timezone.now()
    unit_services.workflow_poll(pipeline=pipeline, client=client, now=now)

    def cycle(step: int) -> float:
        moment = now + timedelta(minutes=step)
        for n, unit in enumerate(client.units.values()):
            waiting = (step + n) % 2 == 0
            unit.status = UnitStatusValue.USER_INPUT if waiting else UnitStatusValue.PROCESSING
        from dashboard.models import Unit

        Unit.objects.filter(pipeline=pipeline.slug).update(next_poll_at=moment)
        started = time.perf_counter()
        unit_services.workflow_poll(pipeline=pipeline, client=client, now=moment)
        unit_services.jobs_refresh(pipeline=pipeline, client=client, now=moment, limit=50)
        return time.perf_counter() - started

    with_rollups, without = [], []
    for step in range(1, cycles * 2 + 1):
        if step % 2:
            with_rollups.append(cycle(step))
        else:
            with (
                mock.patch.object(analytics, "workflow_cycle_record"),
                mock.patch.object(analytics, "units_jobs_record"),
            ):
                without.append(cycle(step))
    return {
        "with": statistics.median(with_rollups) * 1000,
        "without": statistics.median(without) * 1000,
    }


class _HookTimer:
    """Wraps the rollup hooks to add up the time spent inside them."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def wrap(self, hook):
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return hook(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started

        return timed


def time_poll_http(cycles: int, active_per_hour: float) -> dict[str, float]:
    """Poll cycles (workflow poll + jobs refresh) against the simulator over HTTP, the
    simulated pipeline busy with arrivals; odd cycles with the rollup hooks, even ones
    without. Also the time spent inside the hooks, as a share of the cycles with them."""
    from unittest import mock

    from django.conf import settings

    from dashboard.lib.pipelines import pipeline_list
    from dashboard.services import analytics
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

        def cycle() -> float:
            started = time.perf_counter()
            unit_services.workflow_poll(pipeline=pipeline)
            unit_services.jobs_refresh(pipeline=pipeline)
            return time.perf_counter() - started

        # A first start learns the history (200 details and 50 jobs a cycle); measure after.
        for _ in range(12):
            cycle()
        timer = _HookTimer()
        with_rollups, without = [], []
        for step in range(cycles * 2):
            time.sleep(1)  # ten simulated seconds: units move on
            if step % 2 == 0:
                with (
                    mock.patch.object(
                        analytics, "workflow_cycle_record",
                        timer.wrap(analytics.workflow_cycle_record),
                    ),
                    mock.patch.object(
                        analytics, "units_jobs_record", timer.wrap(analytics.units_jobs_record)
                    ),
                ):  # fmt: skip
                    with_rollups.append(cycle())
            else:
                with (
                    mock.patch.object(analytics, "workflow_cycle_record"),
                    mock.patch.object(analytics, "units_jobs_record"),
                ):
                    without.append(cycle())
        from dashboard.models import Unit

        active = Unit.objects.filter(pipeline="sim").exclude(
            status__in=("COMPLETE", "FAILED", "REJECTED")
        )
        return {
            "with": statistics.median(with_rollups) * 1000,
            "without": statistics.median(without) * 1000,
            "hooks_share": timer.seconds / sum(with_rollups) * 100,
            "units": Unit.objects.filter(pipeline="sim").count(),
            "active": active.count(),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=100_000)
    parser.add_argument("--changes", type=int, default=1_000_000)
    parser.add_argument("--with-jobs", type=int, default=3_650)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--active", type=int, default=1000)
    parser.add_argument("--cycles", type=int, default=5)
    parser.add_argument("--http-cycles", type=int, default=10)
    parser.add_argument("--http-arrivals-per-hour", type=float, default=1200)
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
        poll = time_poll(args.active, args.cycles)
        overhead = (poll["with"] - poll["without"]) / poll["without"] * 100
        print(
            f"poll cycle ({args.active} units, workflow poll + jobs refresh, no network): "
            f"{poll['without']:.0f} ms without rollups, {poll['with']:.0f} ms with "
            f"({overhead:+.1f} %)"
        )
        if args.http_cycles:
            http = time_poll_http(args.http_cycles, args.http_arrivals_per_hour)
            overhead = (http["with"] - http["without"]) / http["without"] * 100
            print(
                f"poll cycle against the simulator over HTTP ({http['units']} units known, "
                f"{http['active']} active at the end, workflow poll + jobs refresh): "
                f"{http['without']:.0f} ms without rollups, {http['with']:.0f} ms with "
                f"({overhead:+.1f} %); time inside the rollup hooks: "
                f"{http['hooks_share']:.1f} % of the cycles with them"
            )
        from django.db import connections

        connections.close_all()  # so the scratch PostgreSQL database can be dropped


if __name__ == "__main__":
    main()
