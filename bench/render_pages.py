"""Benchmark: full-page renders of the unit pages from a database holding N units.

    .venv/bin/python bench/render_pages.py --units 1000 --history 100000 --runs 50 [--write]

Seeds the database the way the pollers do (N units in mixed states, each with its jobs
and tasks, about a tenth waiting for a decision, plus `--history` finished units),
logs in an operator, and times full GETs of `/`, `/units/`, `/waiting/`, a unit page,
`/api/v1/units/` and `/api/v1/summary/` through Django's test client (middleware,
session, auth, template rendering). Prints the median and p95 per page; `--write`
writes the figures and the command into BENCHMARKS.md, replacing an older run's with the
same unit counts. Targets (p95, 1,000 active and 100,000 finished): `/` 50 ms, `/units/`
100 ms, a unit page 30 ms, `/api/v1/summary/` 30 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

METRICS_TOKEN = "bench-metrics-token"
# A view that reads nothing: the login form.
TRIVIAL = "/accounts/login/"
UNIT_PAGE = "/units/00000000-0000-4000-8000-000000000001/"
PAGES = (
    "/",
    "/units/",
    "/waiting/",
    UNIT_PAGE,
    "/api/v1/units/",
    "/api/v1/summary/",
    "/metrics",
    "/wall/",
)
TARGET_P95_MS = {"/": 50.0, "/units/": 100.0, UNIT_PAGE: 30.0, "/api/v1/summary/": 30.0}
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


def configure_django(workdir: str, cache: str) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ["LOOKOUT_VAR_DIR"] = workdir
    os.environ["DATABASE_URL"] = f"sqlite:///{workdir}/bench.sqlite3"
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


def time_pages(runs: int) -> dict[str, list[float]]:
    from django.test import Client

    from tests.support.users import make_user

    client = Client()
    client.force_login(make_user("bench-operator", "operator"))
    # /metrics wants its bearer token; the other pages ignore the header.
    client.defaults["HTTP_AUTHORIZATION"] = f"Bearer {METRICS_TOKEN}"
    timings: dict[str, list[float]] = {}
    for page in PAGES:
        for _ in range(3):  # warm template and URL caches
            assert client.get(page).status_code == 200
        samples = []
        for _ in range(runs):
            started = time.perf_counter()
            response = client.get(page)
            samples.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, page
        timings[page] = samples
    # The yardstick: a trivial view through the same middleware, anonymous.
    anonymous = Client()
    for _ in range(3):
        anonymous.get(TRIVIAL)
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        assert anonymous.get(TRIVIAL).status_code == 200
        samples.append((time.perf_counter() - started) * 1000)
    timings[TRIVIAL] = samples
    return timings


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def report(timings: dict[str, list[float]], args: argparse.Namespace, command: str) -> str:
    lines = [
        f"Command: `{command}`",
        "",
        f"{args.units} active and {args.history} finished units in SQLite ({args.cache} cache), "
        f"{args.runs} runs per page, "
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.1f} at the end (other work on the machine inflates the p95).",
        "",
        "| page | median ms | p95 ms | target (p95) | req/s vs the trivial view |",
        "|---|---|---|---|---|",
    ]
    trivial = statistics.median(timings[TRIVIAL])
    for page, samples in timings.items():
        target = TARGET_P95_MS.get(page)
        verdict = (
            f"{target:.0f} ms: {'met' if p95(samples) <= target else 'MISSED'}" if target else "-"
        )
        share = trivial / statistics.median(samples)
        lines.append(
            f"| `{page}` | {statistics.median(samples):.1f} | {p95(samples):.1f} | {verdict} "
            f"| {share:.0%} |"
        )
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
    parser.add_argument(
        "--write",
        action="store_true",
        help="write the figures into BENCHMARKS.md (replacing an older run)",
    )
    args = parser.parse_args()
    command = "python bench/render_pages.py " + " ".join(sys.argv[1:])

    with tempfile.TemporaryDirectory() as workdir:
        configure_django(workdir, args.cache)
        seed(args.units, args.history)
        text = report(time_pages(args.runs), args, command.strip())
    print(text)
    if args.write:
        target = ROOT / "BENCHMARKS.md"
        heading = f"## Unit pages: {args.units} active, {args.history} finished units"
        existing = target.read_text() if target.exists() else "# Benchmarks\n"
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
