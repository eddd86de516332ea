"""Benchmark: full discovery from the workflow dashboard's status lists (service account).

    .venv/bin/python bench/dashboard_discovery.py --units 1000 --runs 3
    .venv/bin/python bench/dashboard_discovery.py --units 10000 --runs 1 --page-runs 10
    .venv/bin/python bench/dashboard_discovery.py --units 1000 --runs 0 --upstream-minutes 10
    .venv/bin/python bench/dashboard_discovery.py --units 100 --runs 1   # a quick run

Set-up (not measured): the simulator starts with N seeded units (about 45 jobs each on
average; 1,000 units answer about 12 MB, 10,000 about 120 MB), its clock frozen, and the
dashboard account `demo`. Lookout's database is a scratch SQLite file (or PostgreSQL with
`--database postgres` and DATABASE_URL).

Measured, in a fresh child process standing in for the worker (its peak RSS is its own
high-water mark, `VmHWM`): one `workflow_poll` with every source read (`poll --once`: both status
lists, the public lists), which learns every unit, then `--runs` more such cycles, the
steady state. Per cycle: CPU of the whole process (`time.process_time`), CPU of the
thread that reads and parses the lists (`time.thread_time`), wall time, upstream
requests and bytes (counted at the transport adapters; streamed answers by the chunks
read), database queries. Meanwhile the parent times the pages in Django's test client
(p95 over `--page-runs`), and again once the child has finished, as the baseline.

With `--upstream-minutes M`: after that, and after the cycles that read once the details
of the units first seen finished (a first start's catch-up, reported apart), the child
runs the worker's schedule in real
time for M minutes (a cycle every LOOKOUT_WORKFLOW_POLL_INTERVAL seconds, lists read when
due: the adaptive interval and the less frequent completed lists), logs every upstream
request, and the report scales its counts to an hour beside one browser tab of the
dashboard's own UI (which reads /transfer/status/ 10 s after each answer and /status/
every 5 s), computed from the measured answer time and size.

Targets: CPU per discovery poll <= 1.5 s at 1,000 units and <= 12 s at 10,000; worker
RSS <= 250 MB; pages no slower than their targets (`/` 50 ms, `/units/` 100 ms, a unit
page 30 ms, `/api/v1/summary/` 30 ms, p95); upstream at most half of one browser tab.
The machine is shared: CPU times are the verdict, wall times are noisy.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.memory import peak_rss_mb  # noqa: E402
from bench.poll_cycle import configure_django, scratch_database, simulator_env  # noqa: E402

CYCLE_STEP = timedelta(minutes=10)
TARGET_CPU_SECONDS = {1000: 1.5, 10000: 12.0}
TARGET_RSS_MB = 250.0
PAGE_TARGETS_MS = {"/": 50, "/units/": 100, "unit page": 30, "/api/v1/summary/": 30}
TAB_PAUSE_SECONDS = 10  # the dashboard's UI asks again this long after an answer
TAB_STATUS_EVERY_SECONDS = 5
STATUS_ANSWER_BYTES = 40  # `{"sip": n, "transfer": n, "dip": 0}`
DASHBOARD_USER, DASHBOARD_PASSWORD = "demo", "demo-password"


# --- the worker (child process) ---------------------------------------------------


class RequestLog:
    """Every upstream request of the worker: (path group, bytes), counted at the adapter."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests: Counter[str] = Counter()
        self.bytes: Counter[str] = Counter()

    def reset(self) -> None:
        with self.lock:
            self.requests.clear()
            self.bytes.clear()

    def add(self, group: str, size: int) -> None:
        with self.lock:
            self.bytes[group] += size

    def instrument(self, session: Any, base_url: str) -> None:
        adapter = session.get_adapter(base_url)
        send = adapter.send

        def counting_send(request: Any, **kwargs: Any) -> Any:
            group = path_group(urlsplit(request.url).path)
            with self.lock:
                self.requests[group] += 1
            response = send(request, **kwargs)
            if kwargs.get("stream"):
                chunks = response.iter_content

                def counted(*args: Any, **kw: Any) -> Any:
                    for chunk in chunks(*args, **kw):
                        self.add(group, len(chunk))
                        yield chunk

                response.iter_content = counted
            else:
                self.add(group, len(response.content))
            return response

        adapter.send = counting_send


def path_group(path: str) -> str:
    if path.startswith(("/api/v2beta/", "/api/transfer/status/", "/api/ingest/status/")):
        return path.rsplit("/", 2)[0] + "/<uuid>" if path.count("/") > 3 else path
    return path


def measure(args: argparse.Namespace) -> None:
    configure_django({})
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from dashboard.clients.workflow import get_workflow_client
    from dashboard.clients.workflow_dashboard import get_workflow_dashboard_client
    from dashboard.lib.pipelines import pipeline_list
    from dashboard.models import Unit
    from dashboard.services import units as units_service

    pipeline = pipeline_list()[0]
    assert pipeline.full_view, "the bench needs the pipeline's service account"
    client = get_workflow_client(pipeline.client_config())
    dashboard_client = get_workflow_dashboard_client(pipeline)
    assert dashboard_client is not None
    log = RequestLog()
    log.instrument(client.session, client.base_url)
    log.instrument(dashboard_client.session, pipeline.url)

    lists = {"cpu": 0.0, "seconds": 0.0, "reads": 0}
    read = units_service.dashboard_lists_read

    def timed_read(**kwargs: Any) -> Any:
        cpu, started = time.thread_time(), time.perf_counter()
        listing = read(**kwargs)
        if listing.complete:
            lists["cpu"] += time.thread_time() - cpu
            lists["seconds"] += time.perf_counter() - started
            lists["reads"] += 1
        return listing

    units_service.dashboard_lists_read = timed_read

    def cycle(now: datetime, every_source: bool = True) -> dict[str, Any]:
        log.reset()
        lists.update(cpu=0.0, seconds=0.0, reads=0)
        with CaptureQueriesContext(connection) as queries:
            cpu, started = time.process_time(), time.perf_counter()
            summary = units_service.workflow_poll(
                pipeline=pipeline,
                client=client,
                dashboard_client=dashboard_client,
                now=now,
                every_source=every_source,
            )
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        assert summary.ok, summary.line()
        return {
            "seconds": seconds,
            "cpu_seconds": cpu,
            "list_cpu_seconds": lists["cpu"],
            "list_seconds": lists["seconds"],
            "list_reads": lists["reads"],
            "requests": sum(log.requests.values()),
            "bytes": sum(log.bytes.values()),
            "queries": len(queries),
            "discovered": summary.discovered,
            "by_path": {g: [log.requests[g], log.bytes[g]] for g in sorted(log.requests)},
        }

    start = timezone.now()
    results: dict[str, Any] = {"first": cycle(start), "cycles": []}
    print("first cycle done", file=sys.stderr, flush=True)
    for run in range(1, args.runs + 1):
        results["cycles"].append(cycle(start + CYCLE_STEP * run))
    results["peak_rss_mb"] = peak_rss_mb()
    results["units_in_db"] = Unit.objects.filter(pipeline=pipeline.slug).count()
    if args.upstream_minutes:
        results["catch_up"] = catch_up(cycle, start + CYCLE_STEP * (args.runs + 1))
        results["schedule"] = run_schedule(args.upstream_minutes, cycle, log, lists)
    print(json.dumps(results))


def catch_up(cycle: Any, now: datetime) -> dict[str, int]:
    """The cycles of a first start that read, once each and within the per-cycle budget,
    the details of the units first seen finished: what follows is the steady state."""
    from dashboard.models import Unit

    cycles = requests = 0
    while Unit.objects.filter(needs_details=True, hidden=False).exists() and cycles < 100:
        requests += cycle(now + CYCLE_STEP * cycles)["requests"]
        cycles += 1
    return {"cycles": cycles, "requests": requests}


def run_schedule(minutes: float, cycle: Any, log: RequestLog, lists: dict) -> dict[str, Any]:
    """The worker's own schedule, in real time, from a fresh adaptive state."""
    from django.conf import settings
    from django.core.cache import cache

    cache.clear()  # as a worker that just started: lists due now, then on their interval
    interval = settings.LOOKOUT_WORKFLOW_POLL_INTERVAL
    requests: Counter[str] = Counter()
    sizes: Counter[str] = Counter()
    list_reads, cycles = [], 0
    started = time.monotonic()
    while time.monotonic() - started < minutes * 60:
        began = time.monotonic()
        from django.utils import timezone

        result = cycle(timezone.now(), every_source=False)
        cycles += 1
        for group, (count, size) in result["by_path"].items():
            requests[group] += count
            sizes[group] += size
        if result["list_reads"]:
            list_reads.append(round(time.monotonic() - started, 1))
        time.sleep(max(0.0, interval - (time.monotonic() - began)))
    return {
        "seconds": time.monotonic() - started,
        "cycles": cycles,
        "list_reads_at": list_reads,
        "requests": dict(requests),
        "bytes": dict(sizes),
    }


# --- the parent: set-up, pages, report ----------------------------------------------


def list_answers(sim: Any) -> dict[str, tuple[float, int, int]]:
    """Each status list's answer time, size and unit count, as a browser gets them."""
    from tests.support.dashboard_session import signed_in

    session = signed_in(sim)
    answers = {}
    for path in ("/transfer/status/", "/ingest/status/"):
        started = time.perf_counter()
        response = session.get(sim.workflow_url + path, timeout=600)
        seconds = time.perf_counter() - started
        response.raise_for_status()
        answers[path] = (seconds, len(response.content), len(response.json()["objects"]))
        del response
    return answers


def page_paths() -> dict[str, str]:
    from dashboard.models import Unit

    unit = Unit.objects.order_by("pk").first()
    assert unit is not None, "no unit discovered"
    return {
        "/": "/",
        "/units/": "/units/",
        "unit page": f"/units/{unit.uuid}/",
        "/api/v1/summary/": "/api/v1/summary/",
        "/waiting/": "/waiting/",
    }


def time_pages_while(child: subprocess.Popen | None, runs: int) -> dict[str, list[float]]:
    """Page times (ms) in rounds over every page until `child` ends (at least `runs`
    rounds, at most 2,000), or `runs` rounds when there is no child. Each page's own CPU
    time goes under "<label> cpu": on two cores shared with the worker and the
    simulator, the wall time also counts the time the page waited for a core."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from tests.support.users import make_user

    user = get_user_model().objects.filter(username="bench-operator").first()
    client = Client()
    client.force_login(user or make_user("bench-operator", "operator"))
    paths = page_paths()
    for path in paths.values():  # warm template and URL caches
        client.get(path)
    times: dict[str, list[float]] = {label: [] for label in paths}
    times.update({f"{label} cpu": [] for label in paths})
    rounds = 0
    while rounds < 2000 and (rounds < runs or (child is not None and child.poll() is None)):
        for label, path in paths.items():
            cpu, started = time.thread_time(), time.perf_counter()
            response = client.get(path)
            times[label].append((time.perf_counter() - started) * 1000)
            times[f"{label} cpu"].append((time.thread_time() - cpu) * 1000)
            assert response.status_code == 200, (path, response.status_code)
        rounds += 1
        if child is not None and rounds >= runs:
            time.sleep(0.2)  # keep sampling, without taking a whole core from the worker
    return times


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else float("nan")


def report(
    args: argparse.Namespace,
    command: str,
    result: dict,
    answers: dict,
    pages: dict[str, dict[str, list[float]]],
) -> str:
    lines = [
        f"Command: `{command}`. Commit {git_head()}, load average {os.getloadavg()[0]:.1f} "
        f"at the end (2 cores, shared with other sessions' tests).",
        "",
        "The simulator's status lists, read once as a browser does:",
        "",
        "| list | answer s | MB | units |",
        "|---|---|---|---|",
    ]
    for path, (seconds, size, count) in answers.items():
        lines.append(f"| `{path}` | {seconds:.2f} | {size / 1e6:.1f} | {count} |")
    target = TARGET_CPU_SECONDS.get(args.units)
    goal = f"≤ {target:.1f} s" if target else "none at this size"
    lines += [
        "",
        f"Worker cycles (`workflow_poll`, every source read; target CPU {goal}):",
        "",
        "| cycle | CPU s (process) | CPU s (lists read and parsed) | wall s | lists wall s "
        "| requests | MB in | queries |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, c in [("first (learns)", result["first"])] + [
        (f"steady {n}", c) for n, c in enumerate(result["cycles"], 1)
    ]:
        lines.append(
            f"| {name} | {c['cpu_seconds']:.2f} | {c['list_cpu_seconds']:.2f} | "
            f"{c['seconds']:.2f} | {c['list_seconds']:.2f} | {c['requests']} | "
            f"{c['bytes'] / 1e6:.1f} | {c['queries']} |"
        )
    rss = result["peak_rss_mb"]
    lines += [
        "",
        f"Worker peak RSS: {rss:.0f} MB (target ≤ {TARGET_RSS_MB:.0f} MB: "
        f"{'met' if rss <= TARGET_RSS_MB else 'NOT met'}). Units in the database: "
        f"{result['units_in_db']}.",
        "",
        "Pages, p95 ms in Django's test client (samples):",
        "",
        "| page | target | while the worker polls | its CPU then | after |",
        "|---|---|---|---|---|",
    ]
    during, after = pages["during"], pages["after"]
    for label in (label for label in during if not label.endswith(" cpu")):
        page_goal = PAGE_TARGETS_MS.get(label)
        lines.append(
            f"| `{label}` | {page_goal or '-'} | {p95(during[label]):.1f} ({len(during[label])}) | "
            f"{p95(during[f'{label} cpu']):.1f} | {p95(after[label]):.1f} ({len(after[label])}) |"
        )
    if "schedule" in result:
        caught = result["catch_up"]
        lines += [
            "",
            f"Before the schedule, {caught['cycles']} more cycles read the details of the "
            f"units first seen finished ({caught['requests']} requests, once per unit, "
            "within the per-cycle backfill budget): the schedule below is the steady state.",
            "",
            *upstream_report(result["schedule"], answers),
        ]
    return "\n".join(lines)


def upstream_report(schedule: dict, answers: dict) -> list[str]:
    scale = 3600 / schedule["seconds"]
    seconds, size, _ = answers["/transfer/status/"]
    tab_lists = 3600 / (seconds + TAB_PAUSE_SECONDS)
    tab_status = 3600 / TAB_STATUS_EVERY_SECONDS
    tab_requests = tab_lists + tab_status
    tab_bytes = tab_lists * size + tab_status * STATUS_ANSWER_BYTES
    mine_requests = sum(schedule["requests"].values()) * scale
    mine_bytes = sum(schedule["bytes"].values()) * scale
    reads = schedule["list_reads_at"]
    gaps = [b - a for a, b in zip(reads, reads[1:], strict=False)]
    lines = [
        f"Upstream over {schedule['seconds'] / 60:.1f} real minutes of the worker's schedule "
        f"({schedule['cycles']} cycles), scaled ×{scale:.1f} to an hour:",
        "",
        "| path | requests / h | MB / h |",
        "|---|---|---|",
    ]
    for group in sorted(schedule["requests"]):
        lines.append(
            f"| `{group}` | {schedule['requests'][group] * scale:.0f} | "
            f"{schedule['bytes'].get(group, 0) * scale / 1e6:.1f} |"
        )
    verdict = mine_requests <= tab_requests / 2 and mine_bytes <= tab_bytes / 2
    # The dashboard's own endpoints (what the account adds); the rest is the public API,
    # which Lookout reads without an account too.
    own = [group for group in schedule["requests"] if not group.startswith("/api/")]
    own_requests = sum(schedule["requests"][group] for group in own) * scale
    own_bytes = sum(schedule["bytes"].get(group, 0) for group in own) * scale
    lines += [
        f"| **Lookout, all** | **{mine_requests:.0f}** | **{mine_bytes / 1e6:.1f}** |",
        f"| one browser tab (computed) | {tab_requests:.0f} | {tab_bytes / 1e6:.1f} |",
        "",
        f"The tab: `/transfer/status/` every {seconds:.1f} s answer + {TAB_PAUSE_SECONDS} s "
        f"({tab_lists:.0f}/h of {size / 1e6:.1f} MB) and `/status/` every "
        f"{TAB_STATUS_EVERY_SECONDS} s ({tab_status:.0f}/h). Target: Lookout at most half: "
        f"requests {mine_requests / tab_requests:.0%}, bytes {mine_bytes / tab_bytes:.0%} of "
        f"the tab: {'met' if verdict else 'NOT met'}. The dashboard's own endpoints alone "
        f"(sign-in and status lists): {own_requests:.0f} requests/h "
        f"({own_requests / tab_requests:.0%}), {own_bytes / 1e6:.1f} MB/h "
        f"({own_bytes / tab_bytes:.0%}).",
        f"Status lists read at {reads} s; intervals between reads {[round(g) for g in gaps]} s.",
    ]
    return lines


def git_head() -> str:
    return subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=1000, help="units the simulator lists")
    parser.add_argument("--runs", type=int, default=3, help="steady cycles after the first")
    parser.add_argument("--page-runs", type=int, default=20, help="rounds of page timings")
    parser.add_argument(
        "--upstream-minutes", type=float, default=0, help="real minutes of the worker's schedule"
    )
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure(args)
        return
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    command = ".venv/bin/python bench/dashboard_discovery.py " + " ".join(sys.argv[1:])
    from tests.support.simulator_process import SimulatorProcess

    with (
        tempfile.TemporaryDirectory() as workdir,
        scratch_database(args.database, workdir, "discoverybench") as database_url,
        SimulatorProcess(units=args.units, packages=10, seed=1, speed=0) as sim,
    ):
        env = {
            **simulator_env(sim, workdir, database_url),
            "LOOKOUT_WORKFLOW_DASHBOARD_USER": DASHBOARD_USER,
            "LOOKOUT_WORKFLOW_DASHBOARD_PASSWORD": DASHBOARD_PASSWORD,
            # 10,000 SIPs take the simulator about 35 s to list on this machine.
            "LOOKOUT_DASHBOARD_READ_TIMEOUT": "300",
        }
        configure_django(env)
        from django.conf import settings
        from django.core.management import call_command

        settings.ALLOWED_HOSTS = ["testserver"]
        call_command("migrate", verbosity=0)
        from django.db import connections

        connections.close_all()
        logging.disable(logging.INFO)  # the parent's page sign-ins, not the report
        answers = list_answers(sim)
        print(f"lists: {answers}", file=sys.stderr, flush=True)
        child = subprocess.Popen(
            [sys.executable, __file__, "--measure", "--runs", str(args.runs)]
            + ["--upstream-minutes", str(args.upstream_minutes)],
            env={**os.environ, **env},
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        # Pages are timed once the first cycle has stored units to show.
        from dashboard.models import Unit

        deadline = time.monotonic() + 1800
        while not Unit.objects.exists() and child.poll() is None:
            if time.monotonic() > deadline:
                child.kill()
                raise SystemExit("no unit stored after 30 minutes")
            time.sleep(0.5)
        during = time_pages_while(child, args.page_runs)
        stdout, _ = child.communicate(timeout=3600)
        if child.returncode:
            raise SystemExit(f"the worker failed ({child.returncode})")
        after = time_pages_while(None, args.page_runs)
        result = json.loads([line for line in stdout.splitlines() if line[:1] == "{"][-1])
    text = report(args, command, result, answers, {"during": during, "after": after})
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"## Dashboard discovery, {args.units} units ({stamp})\n\n{text}")


if __name__ == "__main__":
    main()
