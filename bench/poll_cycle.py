"""Benchmark: one workflow poll cycle of N active units, with finished units in history.

    .venv/bin/python bench/poll_cycle.py --units 1000 --history 100000 --latency-ms 20 [--write]
    DATABASE_URL=postgres://... .venv/bin/python bench/poll_cycle.py --database postgres ...

Set-up (not measured): the simulator starts with no seeded units and simulated time
frozen (`--speed 0`); N transfers are started through `v2beta/package`, the clock is
moved on 22 s so every one of them is running a job, and each is registered with
`unit_register`, as Lookout does for a transfer it starts. (A few fail in their first
seconds, as in the simulator's normal odds; the report says how many stayed active.)
`--history` finished units are bulk-created in the `Unit` table as COMPLETE (one in
twenty FAILED) with two `StatusChange` rows each; the simulator does not list them.

Measured, in `--processes` fresh child processes one after the other, each standing in
for the worker: one cycle (in the first process it learns every unit), then `--runs`
`workflow_poll` cycles in which every unit is due again. Time stands still upstream, so
the units stay active and a cycle does the steady-state work: discovery (4 list
requests), one status request per unit with `LOOKOUT_POLL_CONCURRENCY` in flight, and
the writes. Per cycle: wall time, CPU time of Lookout and of the simulator, upstream
requests, database queries (`CaptureQueriesContext`) and RSS growth; per process, its
peak RSS (`VmHWM`). `--max-load` waits for a quieter machine before each process. On
PostgreSQL the first process runs `VACUUM ANALYZE` after its first cycle, as autovacuum
would within a minute of that cycle's rewrites (a million units marked hidden upstream,
with `--dashboard`, and the counts the seeding left folded); the report names each
cycle's slowest statements.

With `--dashboard` (the simulator's service account) every other cycle reads the status
lists, as their own interval has it, and the others fall between two reads. A cycle that
reads them waits for the service to answer (seconds at a thousand units: upstream's time,
not Lookout's); the report gives its parts apart, and judges the wall-time target on the
cycles between reads.

Targets at 20 ms latency and 32 in flight: 1,000 units in at most 0.8 s (the latency
bound is 1000 / 32 x 20 ms = 0.625 s); 10,000 in at most 8 s with the worker's RSS at
most 250 MB; 100,000 finished units in history cost at most 20 % more than none.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.memory import peak_rss_mb, rss_mb  # noqa: E402

# The simulator's clock is moved on this far after the transfers are queued: every one
# has started its first job by then (they queue for 3-21 s); a few in a thousand fail in
# these first seconds, as the simulator's odds have it, and the report counts them.
ADVANCE_SECONDS = 22
# Lookout's clock between measured cycles: more than the longest poll interval (5 min),
# so every unit is due again in every cycle.
CYCLE_STEP = timedelta(minutes=10)
TARGET_SECONDS = {1000: 0.8, 10000: 8.0}
TARGET_RSS_MB = 250.0


# --- database -----------------------------------------------------------------


@contextmanager
def scratch_database(kind: str, workdir: str, suffix: str = "pollbench") -> Iterator[str]:
    """A DATABASE_URL for an empty database that is dropped afterwards (named after
    DATABASE_URL's database and `suffix`, one per bench)."""
    if kind == "sqlite":
        yield f"sqlite:///{workdir}/bench.sqlite3"
        return
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        raise SystemExit(
            "skipped: --database postgres needs DATABASE_URL=postgres://user@host:port/db "
            "(a server where the user may create databases)"
        )
    import psycopg

    parts = urlsplit(url)
    name = f"{parts.path.lstrip('/') or 'postgres'}_{suffix}"
    try:
        admin = psycopg.connect(url, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        raise SystemExit(
            f"skipped: PostgreSQL at {parts.hostname}:{parts.port} unreachable: {exc}"
        ) from None
    with admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(parts._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def simulator_env(sim: Any, workdir: str, database_url: str) -> dict[str, str]:
    """The settings of a worker pointed at the simulator, in a scratch folder and database."""
    return {
        "LOOKOUT_VAR_DIR": workdir,
        "DATABASE_URL": database_url,
        "LOOKOUT_WORKFLOW_URL": sim.workflow_url,
        "LOOKOUT_WORKFLOW_USER": sim.user,
        "LOOKOUT_WORKFLOW_KEY": sim.key,
        "LOOKOUT_STORAGE_URL": sim.storage_url,
    }


def configure_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ.pop("REDIS_URL", None)
    import django
    from django.conf import settings

    django.setup()
    # The cache is not what is measured (the poller does not use it): keep it in memory.
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


# --- set-up -------------------------------------------------------------------


def start_transfers(sim, count: int) -> list[str]:
    """Queue `count` transfers through the workflow API; returns their UUIDs."""
    from dashboard.clients.workflow import WorkflowClient

    location, path = sim.control("state")["transfer_sources"][0]
    client = WorkflowClient(sim.workflow_url, sim.user, sim.key)

    def start(number: int) -> str:
        return client.create_package(
            name=f"bench-{number:05d}", location_uuid=location, path=path, auto_approve=True
        )

    with ThreadPoolExecutor(max_workers=32) as pool:
        return list(pool.map(start, range(count)))


def register(slug: str, uuids: list[str]) -> None:
    from django.db import transaction

    from dashboard.services.units import unit_register

    with transaction.atomic():
        for uuid in uuids:
            unit_register(pipeline=slug, uuid=uuid, kind="transfer")


def seed_history(slug: str, count: int, batch: int = 5000) -> None:
    """`count` finished units as earlier polls left them, each with two history rows."""
    from django.db import connection, transaction

    now = datetime.now(UTC)
    with transaction.atomic():
        _seed_history(slug, count, batch, now)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")  # as autovacuum would have done by then


def _seed_history(slug: str, count: int, batch: int, now: datetime) -> None:
    from dashboard.models import StatusChange, Unit

    for first in range(0, count, batch):
        units, changes = [], []
        for number in range(first, min(count, first + batch)):
            uuid = f"90000000-0000-4000-8000-{number:012d}"
            finished_at = now - timedelta(days=3, seconds=number * 200)
            status = "FAILED" if number % 20 == 0 else "COMPLETE"
            units.append(
                Unit(
                    pipeline=slug,
                    uuid=uuid,
                    kind="sip",
                    name=f"archived-{number:06d}",
                    status=status,
                    microservice="Remove the processing directory",
                    directory=f"archived-{number:06d}",
                    first_seen_at=finished_at - timedelta(hours=2),
                    updated_at=finished_at,
                    status_since=finished_at,
                    last_polled_at=finished_at,
                )
            )
            for from_status, to_status, at in (
                ("", "PROCESSING", finished_at - timedelta(hours=2)),
                ("PROCESSING", status, finished_at),
            ):
                changes.append(
                    StatusChange(
                        pipeline=slug,
                        unit_uuid=uuid,
                        unit_kind="sip",
                        unit_name=f"archived-{number:06d}",
                        from_status=from_status,
                        to_status=to_status,
                        microservice="Remove the processing directory",
                        at=at,
                    )
                )
        Unit.objects.bulk_create(units, batch_size=1000)
        StatusChange.objects.bulk_create(changes, batch_size=1000)


# --- the measured child process ------------------------------------------------


def process_cpu_seconds(pid: str) -> float:
    """User and system CPU time of another process so far (its threads included)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(args: argparse.Namespace) -> None:
    """Runs in a fresh process (the worker): learn the units, then time `runs` cycles."""
    configure_django({})
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from dashboard.clients.workflow import get_workflow_client
    from dashboard.lib.pipelines import pipeline_list
    from dashboard.models import FINAL_STATUSES, Unit
    from dashboard.services import units as units_service
    from dashboard.services.dashboard_discovery import _state_key

    pipeline = pipeline_list()[0]
    counted = {"requests": 0}
    client = get_workflow_client(pipeline.client_config())
    # Counted at the transport adapter, under every path a request takes: a session hook
    # would send each status call through `Session.request`, the slower path the client
    # skips for plain GETs, and so measure a cycle production never runs.
    adapter = client.session.get_adapter(client.base_url)
    send = adapter.send

    lock = threading.Lock()

    def counting_send(*args: Any, **kwargs: Any) -> Any:
        with lock:
            counted["requests"] += 1
        return send(*args, **kwargs)

    adapter.send = counting_send  # type: ignore[method-assign]

    lists = {"seconds": 0.0, "cpu": 0.0, "read": False}
    read_lists = units_service.dashboard_lists_read

    def timed_lists_read(**kwargs: Any) -> Any:
        cpu, started = time.thread_time(), time.perf_counter()
        listing = read_lists(**kwargs)
        if listing.complete:
            lists.update(
                seconds=time.perf_counter() - started, cpu=time.thread_time() - cpu, read=True
            )
        return listing

    units_service.dashboard_lists_read = timed_lists_read

    def lists_not_due(now: datetime) -> None:
        """As between two reads of the status lists: the next one is not due yet."""
        state = cache.get(_state_key(pipeline.slug)) or {}
        cache.set(_state_key(pipeline.slug), {**state, "next_at": now + CYCLE_STEP}, None)

    def cycle(now: datetime) -> dict[str, float]:
        counted["requests"] = 0
        lists.update(seconds=0.0, cpu=0.0, read=False)
        before = rss_mb()
        simulator = os.environ["BENCH_SIMULATOR_PID"]
        simulator_cpu = process_cpu_seconds(simulator)
        with CaptureQueriesContext(connection) as queries:
            cpu = time.process_time()
            started = time.perf_counter()
            summary = units_service.workflow_poll(pipeline=pipeline, client=client, now=now)
            seconds = time.perf_counter() - started
            cpu = time.process_time() - cpu
        simulator_cpu = process_cpu_seconds(simulator) - simulator_cpu
        assert summary.ok, summary.line()
        return {
            "seconds": seconds,
            "cpu_seconds": cpu,
            "simulator_cpu_seconds": simulator_cpu,
            "requests": counted["requests"],
            "queries": len(queries),
            # The slowest statements: where a cycle waits on the database.
            "slowest_queries": sorted(
                ((float(q["time"]), q["sql"][:160]) for q in queries.captured_queries),
                reverse=True,
            )[:3],
            "refreshed": summary.refreshed,
            "changed": summary.changed,
            "rss_growth_mb": rss_mb() - before,
            "lists_read": lists["read"],
            "lists_seconds": lists["seconds"],
            "lists_cpu_seconds": lists["cpu"],
        }

    # Later processes start their clock past every unit's next poll of the ones before.
    start = timezone.now() + CYCLE_STEP * (args.runs + 1) * args.process
    results = {"first": cycle(start), "cycles": []}
    if connection.vendor == "postgresql" and args.process == 0:
        # The first cycle may have rewritten every row (a million marked hidden upstream
        # once) and folded the counts the seeding's million inserts left: autovacuum
        # cleans and re-analyzes those tables within a minute or so, the cycles below
        # come seconds apart, so do its work here.
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
    for run in range(1, args.runs + 1):
        now = start + CYCLE_STEP * run
        if pipeline.full_view and run % 2 == 0:
            lists_not_due(now)  # every other cycle falls between two reads of the lists
        results["cycles"].append(cycle(now))
    results["peak_rss_mb"] = peak_rss_mb()
    results["rss_mb"] = rss_mb()
    units = Unit.objects.filter(pipeline=pipeline.slug)
    results["active_after"] = units.exclude(status__in=FINAL_STATUSES).count()
    results["finished_after"] = units.filter(status__in=FINAL_STATUSES).count()
    print(json.dumps(results))


# --- report -------------------------------------------------------------------


def report(args: argparse.Namespace, command: str, results: list[dict], setup: dict) -> str:
    every = [c for result in results for c in result["cycles"]]
    # With the service account, the cycles that read the status lists wait for the
    # service to answer them (seconds, at a thousand units); those between reads are the
    # cycles the target is about. Without it, every cycle is one of those.
    between = [c for c in every if not c.get("lists_read")]
    seconds = [c["seconds"] for c in between]
    median = statistics.median(seconds)
    peak = max(result["peak_rss_mb"] for result in results)
    target = TARGET_SECONDS.get(args.units)
    verdicts = []
    if target is not None:
        verdicts.append(f"at most {target:g} s: {'met' if median <= target else 'MISSED'}")
    if args.units >= 10000:
        verdicts.append(
            f"worker RSS at most {TARGET_RSS_MB:.0f} MB: "
            f"{'met' if peak <= TARGET_RSS_MB else 'MISSED'}"
        )
    bound = args.units / args.concurrency * args.latency_ms / 1000
    first = results[0]["first"]
    lines = [
        f"Command: `{command}`",
        "",
        f"{args.units} active units ({results[-1]['active_after']} still active at the end), "
        f"{args.history} finished units in history, {args.database}; simulator latency "
        f"{args.latency_ms} ms, {args.concurrency} requests in flight (latency bound "
        f"{bound:.2f} s). Python {sys.version.split()[0]}, {os.cpu_count()} CPUs. Set-up: "
        f"{setup['start_seconds']:.1f} s to start the transfers, {setup['history_seconds']:.1f} s "
        "to write the history. The first process's first cycle learns every unit (all "
        f"statuses new): {first['seconds']:.2f} s, {first['cpu_seconds']:.2f} s of CPU, "
        f"{first['queries']} queries, {first['changed']} changed.",
        "",
        "| process | load average before, after | all-due cycles: median s (min-max) "
        "| CPU s Lookout, simulator (median) | upstream requests | DB queries "
        "| refreshed | peak RSS MB | RSS growth per cycle MB (max) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for number, result in enumerate(results, 1):
        cycles = result["cycles"]
        times = [c["seconds"] for c in cycles]

        def median_of(key: str, cycles: list[dict] = cycles) -> float:
            return statistics.median(c[key] for c in cycles)

        lines.append(
            f"| {number} | {result['load_before']:.1f}, {result['load_after']:.1f} "
            f"| {statistics.median(times):.2f} ({min(times):.2f}-{max(times):.2f}) "
            f"| {median_of('cpu_seconds'):.2f}, {median_of('simulator_cpu_seconds'):.2f} "
            f"| {max(c['requests'] for c in cycles)} | {max(c['queries'] for c in cycles)} "
            f"| {min(c['refreshed'] for c in cycles)} | {result['peak_rss_mb']:.0f} "
            f"| {max(c['rss_growth_mb'] for c in cycles):.1f} |"
        )
    reading = [c for c in every if c.get("lists_read")]
    if reading:

        def median_over(key: str) -> float:
            return statistics.median(c[key] for c in reading)

        rest = statistics.median(c["seconds"] - c["lists_seconds"] for c in reading)
        lines += [
            "",
            f"Of these, {len(reading)} cycles read the status lists (the others fall between "
            f"two reads): median {median_over('seconds'):.2f} s, of which the lists "
            f"{median_over('lists_seconds'):.2f} s (the service's answer, streamed and "
            f"parsed: {median_over('lists_cpu_seconds'):.2f} s of Lookout's CPU) and the "
            f"rest of the cycle {rest:.2f} s; Lookout's CPU for the whole cycle "
            f"{median_over('cpu_seconds'):.2f} s.",
        ]
    slowest = sorted(
        (query for c in every for query in c.get("slowest_queries", [])), reverse=True
    )[:3]
    if slowest:
        lines += ["", "The slowest database statements of these cycles:", ""]
        lines += [f"- {seconds_taken * 1000:.0f} ms: `{sql}`" for seconds_taken, sql in slowest]
    lines += [
        "",
        f"Median of the {len(seconds)} all-due cycles between reads of the lists "
        f"(every cycle without an account): {median:.2f} s; worker peak RSS "
        f"{peak:.0f} MB (the first process, which also learnt the units, "
        f"{results[0]['peak_rss_mb']:.0f} MB)."
        + (f" Targets: {'; '.join(verdicts)}." if verdicts else ""),
    ]
    return "\n".join(lines)


def wait_for_load(limit: float | None, patience: float = 300) -> None:
    """Wait (up to `patience` seconds) for the 1-minute load average to drop below `limit`."""
    deadline = time.monotonic() + patience
    while limit is not None and os.getloadavg()[0] >= limit and time.monotonic() < deadline:
        time.sleep(5)


def replace_section(document: str, heading: str, section: str) -> str:
    """Put `section` where the section starting with `heading` was, or at the end."""
    start = document.find(f"\n{heading}")
    if start == -1:
        return f"{document.rstrip()}\n\n{section}"
    following = document.find("\n## ", start + 1)
    rest = document[following:] if following != -1 else "\n"
    return f"{document[:start].rstrip()}\n\n{section}{rest}"


# --- main ---------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=1000, help="active units")
    parser.add_argument("--history", type=int, default=0, help="finished units in the database")
    parser.add_argument("--latency-ms", type=int, default=20)
    parser.add_argument(
        "--concurrency", type=int, default=None, help="LOOKOUT_POLL_CONCURRENCY (default 32)"
    )
    parser.add_argument("--runs", type=int, default=5, help="all-due cycles per process")
    parser.add_argument(
        "--processes", type=int, default=3, help="measured processes, one after the other"
    )
    parser.add_argument(
        "--max-load",
        type=float,
        default=None,
        help="before each process, wait up to 5 min for the load average to drop below this",
    )
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument(
        "--dashboard",
        action="store_true",
        help="with the pipeline's service account: full discovery from the status lists",
    )
    parser.add_argument(
        "--write", action="store_true", help="write the figures into docs/benchmarks/pollers.md"
    )
    parser.add_argument(
        "--profile", metavar="FILE", help="record the measured process with py-spy (raw stacks)"
    )
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--process", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure(args)
        return
    args.concurrency = args.concurrency or int(os.environ.get("LOOKOUT_POLL_CONCURRENCY", 32))
    # Stopped from outside: still stop the simulator and drop the scratch database.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    command = ".venv/bin/python bench/poll_cycle.py " + " ".join(sys.argv[1:])
    if args.database == "postgres":
        command = "DATABASE_URL=postgres://... " + command

    from tests.support.simulator_process import SimulatorProcess

    with (
        tempfile.TemporaryDirectory() as workdir,
        scratch_database(args.database, workdir) as database_url,
        SimulatorProcess(units=0, packages=20, latency_ms=args.latency_ms, seed=7, speed=0) as sim,
    ):
        env = {
            **simulator_env(sim, workdir, database_url),
            "LOOKOUT_POLL_CONCURRENCY": str(args.concurrency),
            "BENCH_SIMULATOR_PID": str(sim.pid),
        }
        if args.dashboard:
            # The simulator's own account (`demo`); the lists are read when due, as in
            # the worker: the first cycle, then no sooner than their adaptive interval.
            env["LOOKOUT_WORKFLOW_DASHBOARD_USER"] = "demo"
            env["LOOKOUT_WORKFLOW_DASHBOARD_PASSWORD"] = "demo-password"
        configure_django(env)
        from django.core.management import call_command
        from django.db import connections

        from dashboard.lib.pipelines import pipeline_list

        call_command("migrate", verbosity=0)
        slug = pipeline_list()[0].slug
        setup = {}
        started = time.perf_counter()
        uuids = start_transfers(sim, args.units)
        sim.control("advance", {"seconds": ADVANCE_SECONDS})
        setup["start_seconds"] = time.perf_counter() - started
        register(slug, uuids)
        started = time.perf_counter()
        seed_history(slug, args.history)
        setup["history_seconds"] = time.perf_counter() - started
        print(f"simulator: {sim.control('state')['units']}", file=sys.stderr)
        connections.close_all()

        results = []
        for process in range(args.processes):
            wait_for_load(args.max_load)
            load_before = os.getloadavg()[0]
            profiler = ["py-spy", "record", "--gil", "--format", "raw", "-o", args.profile, "--"]
            child = subprocess.run(
                [
                    *(profiler if args.profile and process == 0 else []),
                    *(sys.executable, __file__, "--measure", "--runs", str(args.runs)),
                    *("--process", str(process)),
                ],
                env={**os.environ, **env},
                cwd=ROOT,
                check=True,
                stdout=subprocess.PIPE,
                text=True,
            )
            # The last JSON line (py-spy, when profiling, prints its own lines after it).
            lines = [line for line in child.stdout.splitlines() if line[:1] == "{"]
            result = json.loads(lines[-1])
            result.update(load_before=load_before, load_after=os.getloadavg()[0])
            results.append(result)
            cycles = ", ".join(f"{c['seconds']:.2f}" for c in result["cycles"])
            print(f"process {process + 1}: {cycles} s", file=sys.stderr)

    text = report(args, command.strip(), results, setup)
    print(text)
    if args.write:
        target = ROOT / "docs" / "benchmarks" / "pollers.md"
        heading = (
            f"## Pollers: one workflow poll cycle, {args.units} active and {args.history} "
            f"finished units, {args.database}"
        )
        stamp = datetime.now(UTC).strftime("%Y-%m-%d")
        section = f"{heading} ({stamp})\n\n{text}\n"
        target.write_text(replace_section(target.read_text(), heading, section))


if __name__ == "__main__":
    main()
