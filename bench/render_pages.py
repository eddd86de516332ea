"""Benchmark: full-page renders of the unit pages from a database holding N units.

    .venv/bin/python bench/render_pages.py --units 1000 --history 100000 --runs 50 [--write]
    DATABASE_URL=postgres://user@host:port/db .venv/bin/python bench/render_pages.py \
        --database postgres ...   (works in a scratch database beside it, dropped after)

Seeds the database the way the pollers do (N units in mixed states, each with its jobs
and tasks, about a tenth waiting for a decision, plus `--history` finished units),
logs in an operator, and times full GETs of `/`, `/units/`, `/waiting/`, a unit page,
`/api/v1/units/` and `/api/v1/summary/`, and the htmx polls of the overview and the wall,
through Django's test client (middleware, session, auth, template rendering): median
and p95 time and median CPU per request. With `--server SECONDS` it then starts gunicorn
(2 workers x 4 threads, a private Redis as the cache, as deployed) on loopback and loads
the trivial view, the overview and the wall for that long each from 8 client threads,
for requests per second "on the same server". `--write` writes the figures and the
command into docs/benchmarks/unit-pages.md, replacing an older run's with the same unit
counts and database. Targets (p95, 1,000 active and 100,000 finished): `/` 50 ms, `/units/` 100 ms,
a unit page 30 ms, `/api/v1/summary/` 30 ms; the overview and the wall at least 25 % of
the trivial view's requests per second.
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

METRICS_TOKEN = "bench-metrics-token"
# A view that reads nothing: the login form.
TRIVIAL = "/accounts/login/"
UNIT_PAGE = "/units/00000000-0000-4000-8000-000000000001/"
HTMX = {"HX-Request": "true"}
# Not a header: the bench empties the cache before each such request (a cache miss, as
# after every poll of the pipelines).
COLD = {"X-Bench-Cold": "1"}
# (label, path, extra headers): the htmx polls are what an open page sends every few seconds.
PAGES: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("/", "/", {}),
    ("/ (htmx poll)", "/", HTMX),
    ("/ (htmx poll, cache miss)", "/", {**HTMX, **COLD}),
    ("/units/", "/units/", {}),
    ("/units/?status=FAILED", "/units/?status=FAILED", {}),
    ("/waiting/", "/waiting/", {}),
    (UNIT_PAGE, UNIT_PAGE, {}),
    ("/api/v1/units/", "/api/v1/units/", {}),
    ("/api/v1/summary/", "/api/v1/summary/", {}),
    # /metrics wants its bearer token; the API would take the same header for an API token.
    ("/metrics", "/metrics", {"Authorization": f"Bearer {METRICS_TOKEN}"}),
    ("/wall/", "/wall/", {}),
    ("/wall/ (htmx poll)", "/wall/", HTMX),
    ("/wall/ (htmx poll, cache miss)", "/wall/", {**HTMX, **COLD}),
)
SERVER_PAGES = (
    (TRIVIAL, TRIVIAL, {}),
    ("/", "/", {}),
    ("/ (htmx poll)", "/", HTMX),
    ("/wall/", "/wall/", {}),
    ("/wall/ (htmx poll)", "/wall/", HTMX),
)
SERVER_CLIENTS = 8
TARGET_P95_MS = {
    "/": 50.0,
    "/units/": 100.0,
    "/units/?status=FAILED": 100.0,
    UNIT_PAGE: 30.0,
    "/api/v1/summary/": 30.0,
}
TARGET_SHARE = 0.25  # of the trivial view's requests per second, for the overview and wall
STATUS_CYCLE = (
    "PROCESSING",
    "COMPLETE",
    "COMPLETE",
    "COMPLETE",
    "FAILED",
    "PROCESSING",
    "COMPLETE",
    "REJECTED",
    "COMPLETE",
    "USER_INPUT",
)


def configure_django(workdir: str, cache: str, database_url: str) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ["LOOKOUT_VAR_DIR"] = workdir
    os.environ["DATABASE_URL"] = database_url
    os.environ.pop("REDIS_URL", None)
    import django
    from django.conf import settings

    django.setup()
    if cache == "locmem":
        settings.CACHES = {
            "default": {
                "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                "KEY_PREFIX": "dashboard",
            }
        }
    settings.ALLOWED_HOSTS = ["testserver"]
    settings.LOOKOUT_METRICS_TOKEN = METRICS_TOKEN
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    if cache == "db":
        call_command("createcachetable", verbosity=0)


def seed(units: int, history: int) -> None:
    """N units and their jobs, `history` finished units, and fresh poll records."""
    from dashboard.models import ServicePoll, Unit, UnitJobs

    now = datetime.now(UTC)
    slug = "default"
    rows = []
    for number in range(units):
        status = STATUS_CYCLE[number % len(STATUS_CYCLE)]
        waiting = status == "USER_INPUT"
        rows.append(
            Unit(
                pipeline=slug,
                uuid=f"00000000-0000-4000-8000-{number:012d}",
                kind="sip" if number % 3 == 0 else "transfer",
                first_seen_at=now - timedelta(days=2),
                updated_at=now - timedelta(seconds=number * 37),
                name=f"transfer-{number:05d}",
                status=status,
                microservice="Approve standard transfer" if waiting else "Scan for viruses",
                path=f"/var/processing/transfer-{number:05d}/",
                directory=f"transfer-{number:05d}",
                transfer_type="standard",
                awaiting_decision=waiting,
                awaiting_approval=waiting and number % 20 == 9,
                decision="Approve standard transfer" if waiting else "",
                waiting_since=now - timedelta(minutes=number % 300) if waiting else None,
                last_polled_at=now,
            )
        )
    rows += [
        Unit(
            pipeline=slug,
            uuid=f"90000000-0000-4000-8000-{number:012d}",
            kind="sip",
            first_seen_at=now - timedelta(days=400),
            updated_at=now - timedelta(days=3, seconds=number * 200),
            name=f"archived-{number:06d}",
            status="COMPLETE" if number % 20 else "FAILED",
            microservice="Remove the processing directory",
            directory=f"archived-{number:06d}",
        )
        for number in range(history)
    ]
    Unit.objects.bulk_create(rows, batch_size=2000)
    jobs = [
        {
            "uuid": f"10000000-0000-4000-8000-{job:012d}",
            "name": f"Job {job}",
            "status": "COMPLETE",
            "microservice": f"Group {job // 3}",
            "link_uuid": None,
            "tasks": [
                {"uuid": f"20000000-0000-4000-8000-{job * 10 + t:012d}", "exit_code": 0}
                for t in range(3)
            ],
        }
        for job in range(30)
    ]
    UnitJobs.objects.bulk_create(
        [
            UnitJobs(unit=unit, fetched_at=now, unit_updated_at=unit.updated_at, jobs=jobs)
            for unit in Unit.objects.filter(pipeline=slug, uuid__startswith="00000000")
        ],
        batch_size=500,
    )
    for service in (f"workflow:{slug}", "storage"):
        ServicePoll.objects.create(service=service, last_attempt_at=now, last_success_at=now)
    from dashboard.services.units import unit_status_counts_fold

    unit_status_counts_fold()  # as the poller does after each cycle
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")  # as autovacuum would have done by then


def time_pages(runs: int) -> dict[str, tuple[list[float], list[float]]]:
    """Per page: wall-clock ms and CPU ms of each request."""
    from django.test import Client

    from tests.support.users import make_user

    client = Client()
    client.force_login(make_user("bench-operator", "operator"))
    timings: dict[str, tuple[list[float], list[float]]] = {}
    for label, path, headers in PAGES:
        timings[label] = _timed(client, path, headers, runs)
    # The yardstick: a trivial view through the same middleware, anonymous.
    timings[TRIVIAL] = _timed(Client(), TRIVIAL, {}, runs)
    return timings


def _timed(client, path: str, headers: dict[str, str], runs: int):
    from django.core.cache import cache

    cold = headers.keys() >= COLD.keys()
    for _ in range(3):  # warm template and URL caches
        assert client.get(path, headers=headers).status_code == 200, path
    elapsed, cpu = [], []
    for _ in range(runs):
        if cold:
            cache.clear()  # the session lives in the database, not here
        started, started_cpu = time.perf_counter(), time.process_time()
        response = client.get(path, headers=headers)
        elapsed.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
        assert response.status_code == 200, path
    return elapsed, cpu


# --- through a real server ----------------------------------------------------


def _children_cpu_seconds(pid: int) -> float:
    """CPU time of gunicorn's workers so far (the master only watches them)."""
    total = 0.0
    with open(f"/proc/{pid}/task/{pid}/children") as children:
        for child in children.read().split():
            with open(f"/proc/{child}/stat") as stat:
                fields = stat.read().rpartition(")")[2].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _load(port: int, path: str, headers: dict[str, str], seconds: float) -> int:
    """Requests answered by the server in `seconds`, from SERVER_CLIENTS kept-alive
    connections on loopback; stops by itself."""
    deadline = time.perf_counter() + seconds
    counts = [0] * SERVER_CLIENTS

    def client(index: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while time.perf_counter() < deadline:
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            response.read()
            if response.status != 200:
                raise SystemExit(f"{path}: HTTP {response.status}")
            counts[index] += 1
        connection.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(SERVER_CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(counts)


def serve_pages(workdir: str, database_url: str, seconds: float) -> dict[str, tuple[float, float]]:
    """Requests per second and server CPU ms per request, per page, through gunicorn."""
    from django.db import connections
    from django.test import Client

    from tests.support.redis_server import free_port, redis_server
    from tests.support.users import make_user

    login = Client()
    login.force_login(make_user("bench-server-operator", "operator"))
    cookie = f"sessionid={login.cookies['sessionid'].value}"
    connections.close_all()
    port = free_port()
    results: dict[str, tuple[float, float]] = {}
    with redis_server() as redis_url:
        env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "LOOKOUT_VAR_DIR": workdir,
            "REDIS_URL": redis_url,
            "ALLOWED_HOSTS": "127.0.0.1",
        }
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "config.wsgi", "--workers", "2", "--threads", "4"]
            + ["--bind", f"127.0.0.1:{port}", "--log-level", "warning"],
            cwd=ROOT,
            env=env,
        )
        try:
            _wait_for(port)
            for label, path, headers in SERVER_PAGES:
                sent = {**headers, "Cookie": cookie} if path != TRIVIAL else dict(headers)
                _load(port, path, sent, min(2.0, seconds))  # warm both workers
                before = _children_cpu_seconds(server.pid)
                answered = _load(port, path, sent, seconds)
                used = _children_cpu_seconds(server.pid) - before
                results[label] = (answered / seconds, used / answered * 1000)
        finally:
            server.terminate()
            server.wait(timeout=30)
    return results


def _wait_for(port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", TRIVIAL)
            if connection.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("gunicorn did not start within 30 s")


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def report(
    timings: dict[str, tuple[list[float], list[float]]],
    served: dict[str, tuple[float, float]],
    args: argparse.Namespace,
    command: str,
) -> str:
    lines = [
        f"Command: `{command}`",
        "",
        f"{args.units} active and {args.history} finished units in {args.database} "
        f"({args.cache} cache), {args.runs} runs per page through Django's test client, "
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.1f} at the end (other work on the machine inflates the "
        "times; the CPU column is this process's own). Cached live regions are kept per "
        "data generation and refresh interval, so the runs of a page mostly read them "
        "from the cache, as an open page's polls do between two polls of the pipelines.",
        "",
        "| page | median ms | p95 ms | CPU ms (median) | target (p95) "
        "| req/s vs the trivial view |",
        "|---|---|---|---|---|---|",
    ]
    trivial = statistics.median(timings[TRIVIAL][0])
    for page, (samples, cpu) in timings.items():
        target = TARGET_P95_MS.get(page)
        verdict = (
            f"{target:.0f} ms: {'met' if p95(samples) <= target else 'MISSED'}" if target else "-"
        )
        share = trivial / statistics.median(samples)
        lines.append(
            f"| `{page}` | {statistics.median(samples):.1f} | {p95(samples):.1f} "
            f"| {statistics.median(cpu):.1f} | {verdict} | {share:.0%} |"
        )
    if served:
        lines += [
            "",
            f"Through gunicorn (2 workers x 4 threads, Redis cache) on loopback, "
            f"{SERVER_CLIENTS} kept-alive client connections for {args.server:.0f} s per "
            "page; the load generator runs on the same 2 cores.",
            "",
            "| page | requests/s | server CPU ms per request | share of the trivial view | "
            "target |",
            "|---|---|---|---|---|",
        ]
        base = served[TRIVIAL][0]
        for page, (rate, cpu) in served.items():
            share = rate / base
            target = (
                f"{TARGET_SHARE:.0%}: {'met' if share >= TARGET_SHARE else 'MISSED'}"
                if page != TRIVIAL
                else "-"
            )
            lines.append(f"| `{page}` | {rate:.0f} | {cpu:.1f} | {share:.0%} | {target} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=1000)
    parser.add_argument("--history", type=int, default=0, help="finished units besides")
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument(
        "--cache",
        choices=("locmem", "db"),
        default="locmem",
        help="locmem measures rendering; db is the embedded default deployment",
    )
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument(
        "--server",
        type=float,
        default=0,
        metavar="SECONDS",
        help="also load gunicorn for this many seconds per page (0: not)",
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="write the figures into docs/benchmarks/unit-pages.md (replacing an older run)",
    )
    args = parser.parse_args()
    command = ".venv/bin/python bench/render_pages.py " + " ".join(sys.argv[1:])
    if args.database == "postgres":
        command = "DATABASE_URL=postgres://... " + command

    from poll_cycle import scratch_database

    with (
        tempfile.TemporaryDirectory() as workdir,
        scratch_database(args.database, workdir, "pagebench") as database_url,
    ):
        configure_django(workdir, args.cache, database_url)
        seed(args.units, args.history)
        timings = time_pages(args.runs)
        served = serve_pages(workdir, database_url, args.server) if args.server else {}
        text = report(timings, served, args, command.strip())
        from django.db import connections

        connections.close_all()  # before the scratch database is dropped
    print(text)
    if args.write:
        target = ROOT / "docs" / "benchmarks" / "unit-pages.md"
        heading = (
            f"## Unit pages: {args.units} active, {args.history} finished units, {args.database}"
        )
        existing = target.read_text() if target.exists() else "# Benchmarks: unit pages\n"
        stamp = datetime.now(UTC).strftime("%Y-%m-%d")
        section = f"{heading} ({stamp})\n\n{text}\n"
        target.write_text(replace_section(existing, heading, section))


def replace_section(document: str, heading: str, section: str) -> str:
    """Put `section` where the section starting with `heading` was, or at the end."""
    start = document.find(f"\n{heading}")
    if start == -1:
        return f"{document.rstrip()}\n\n{section}"
    following = document.find("\n## ", start + 1)
    rest = document[following:] if following != -1 else "\n"
    return f"{document[:start].rstrip()}\n\n{section}{rest}"


if __name__ == "__main__":
    main()
