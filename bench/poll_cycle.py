"""Benchmark: one full status refresh of N active units, against a naive baseline.

    .venv/bin/python bench/poll_cycle.py --units 1000 --latency-ms 20

Starts the simulator with the given per-request latency, starts N transfers through the
workflow API (as Lookout's "start transfer" would, so Lookout tracks them), lets the
poller learn them, then times:
- Lookout: one `workflow_poll` cycle in which every unit is due (discovery + refresh
  with bounded concurrency), counting upstream requests;
- baseline: the same units refreshed one after another with one status call each, as
  common automation scripts do.
Targets: N units in at most 2 s, at most N+10 requests, at least 10x the baseline.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def configure_django(workdir: str, sim) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ["LOOKOUT_VAR_DIR"] = workdir
    os.environ["DATABASE_URL"] = f"sqlite:///{workdir}/bench.sqlite3"
    os.environ["LOOKOUT_WORKFLOW_URL"] = sim.workflow_url
    os.environ["LOOKOUT_STORAGE_URL"] = sim.storage_url
    os.environ.pop("REDIS_URL", None)
    import django
    from django.conf import settings

    django.setup()
    # The cache backend is not what is measured: keep it in memory.
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def transfer_source(sim) -> tuple[str, str]:
    import base64

    import requests

    headers = sim.auth_header
    locations = requests.get(
        f"{sim.storage_url}/api/v2/location/", params={"purpose": "TS"}, headers=headers, timeout=10
    ).json()["objects"]
    location = locations[0]["uuid"]
    browse = requests.get(
        f"{sim.storage_url}/api/v2/location/{location}/browse/", headers=headers, timeout=10
    ).json()
    first = base64.b64decode(browse["directories"][0]).decode()
    return location, first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=1000)
    parser.add_argument("--latency-ms", type=int, default=20)
    parser.add_argument("--concurrency", type=int, default=None)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    from tests.support.simulator_process import SimulatorProcess

    with (
        tempfile.TemporaryDirectory() as workdir,
        SimulatorProcess(units=20, packages=50, latency_ms=args.latency_ms, seed=7) as sim,
    ):
        configure_django(workdir, sim)
        from django.conf import settings
        from django.utils import timezone

        from dashboard.clients.workflow import WorkflowClient, WorkflowError
        from dashboard.lib.pipelines import pipeline_list
        from dashboard.services import units as unit_services

        if args.concurrency:
            settings.LOOKOUT_POLL_CONCURRENCY = args.concurrency
        pipeline = pipeline_list()[0]
        location, path = transfer_source(sim)
        starter = WorkflowClient(sim.workflow_url, sim.user, sim.key)

        def start(n: int) -> str:
            return starter.create_package(
                name=f"bench-{n}", location_uuid=location, path=path, auto_approve=True
            )

        with ThreadPoolExecutor(max_workers=32) as pool:
            uuids = list(pool.map(start, range(args.units)))
        for uuid in uuids:
            unit_services.unit_register(pipeline=pipeline.slug, uuid=uuid, kind="transfer")

        counted = {"requests": 0}

        def counting_client() -> WorkflowClient:
            client = WorkflowClient(
                sim.workflow_url, sim.user, sim.key, timeout=settings.LOOKOUT_HTTP_TIMEOUT
            )
            client.session.hooks["response"].append(
                lambda response, *a, **k: counted.__setitem__("requests", counted["requests"] + 1)
            )
            return client

        now = timezone.now()
        unit_services.workflow_poll(
            pipeline=pipeline, client=counting_client(), now=now
        )  # learn them

        lookout_times, lookout_requests = [], []
        for run in range(1, args.runs + 1):
            counted["requests"] = 0
            client = counting_client()
            later = now + timedelta(seconds=11 * run)  # every unit due again
            started = time.perf_counter()
            summary = unit_services.workflow_poll(pipeline=pipeline, client=client, now=later)
            lookout_times.append(time.perf_counter() - started)
            lookout_requests.append(counted["requests"])
            assert summary.ok, summary.line()

        baseline_client = WorkflowClient(sim.workflow_url, sim.user, sim.key)
        started = time.perf_counter()
        for uuid in uuids:
            with contextlib.suppress(WorkflowError):
                baseline_client.get_transfer_status(uuid)
        baseline = time.perf_counter() - started

    best = min(lookout_times)
    print(
        f"units: {args.units}, simulator latency: {args.latency_ms} ms, "
        f"concurrency: {settings.LOOKOUT_POLL_CONCURRENCY}"
    )
    print(
        f"lookout full refresh: best {best:.2f} s, median {statistics.median(lookout_times):.2f} s "
        f"over {args.runs} runs; upstream requests per cycle: {max(lookout_requests)} "
        f"(target <= {args.units + 10})"
    )
    print(f"naive sequential baseline: {baseline:.2f} s ({args.units} requests)")
    print(f"speed-up: {baseline / best:.1f}x (target >= 10x)")


if __name__ == "__main__":
    main()
