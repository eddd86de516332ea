"""Benchmark: the simulator's list endpoints at a large pipeline's size.

    .venv/bin/python bench/simulator_lists.py --units 5000 --packages 100000
    .venv/bin/python bench/simulator_lists.py --status-lists --units 10000 --packages 10 --runs 2

Starts the simulator, then times each list endpoint of both services over real HTTP
(median and worst of N requests). Target: about 100 ms per answer.

With `--status-lists`: the dashboard's own status lists instead (signed in), with their
size and the simulator's peak memory, which must stay flat while ~120 MB goes out.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.memory import peak_rss_mb  # noqa: E402
from tests.support.dashboard_session import signed_in  # noqa: E402
from tests.support.simulator_process import SimulatorProcess  # noqa: E402

WORKFLOW_LISTS = [
    "/api/transfer/unapproved/",
    "/api/ingest/waiting",
    "/api/transfer/completed/",
    "/api/ingest/completed/",
]
STORAGE_LISTS = [
    "/api/v2/pipeline/",
    "/api/v2/space/",
    "/api/v2/location/",
    "/api/v2/file/",
    "/api/v2/file/?package_type=AIP&status=UPLOADED&offset=5000",
    "/api/v2/file/?current_location__purpose=AS&size__gt=1000000&limit=100",
    "/api/v2/file/?status__in=DEL_REQ,RECOVER_REQ",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=5000)
    parser.add_argument("--packages", type=int, default=100000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--status-lists", action="store_true")
    args = parser.parse_args()
    if args.status_lists:
        bench_status_lists(args.units, args.packages, args.runs)
        return

    started = time.perf_counter()
    with SimulatorProcess(units=args.units, packages=args.packages, seed=1) as sim:
        startup = time.perf_counter() - started
        session = requests.Session()
        session.headers.update(sim.auth_header)
        print(
            f"simulator --units {args.units} --packages {args.packages}: started in {startup:.1f} s"
        )
        print("| endpoint | median ms | worst ms |")
        print("|---|---|---|")
        for base, paths in ((sim.workflow_url, WORKFLOW_LISTS), (sim.storage_url, STORAGE_LISTS)):
            for path in paths:
                times = []
                for _ in range(args.runs):
                    t0 = time.perf_counter()
                    response = session.get(base + path, timeout=30)
                    times.append((time.perf_counter() - t0) * 1000)
                    response.raise_for_status()
                print(f"| `{path}` | {statistics.median(times):.0f} | {max(times):.0f} |")


def bench_status_lists(units: int, packages: int, runs: int) -> None:
    with SimulatorProcess(units=units, packages=packages, seed=1) as sim:
        session = signed_in(sim)
        print(f"simulator --units {units}: peak RSS after start {peak_rss_mb(sim.pid):.0f} MB")
        print("| endpoint | median s | worst s | MB | units |")
        print("|---|---|---|---|---|")
        for path in ("/transfer/status/", "/ingest/status/"):
            times, size, count = [], 0, 0
            for _ in range(runs):
                t0 = time.perf_counter()
                response = session.get(sim.workflow_url + path, timeout=300)
                times.append(time.perf_counter() - t0)
                response.raise_for_status()
                size, count = len(response.content), len(response.json()["objects"])
            median, worst = statistics.median(times), max(times)
            print(f"| `{path}` | {median:.2f} | {worst:.2f} | {size / 1e6:.1f} | {count} |")
        print(f"simulator peak RSS after the lists: {peak_rss_mb(sim.pid):.0f} MB")


if __name__ == "__main__":
    main()
