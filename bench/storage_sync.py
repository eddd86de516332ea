"""Benchmark: the package mirror at 100,000 packages, and the pages that read it.

    .venv/bin/python bench/storage_sync.py --packages 100000 --runs 30

Starts the simulator with N packages and times, against a SQLite file database:
- the first full sync (every package, pages of 1,000) and its request count;
- an incremental cycle right after it (what every later poll costs);
- a second full resync (what the hourly pass costs once rows exist);
- the package list page and API for typical filters (a location too), sorts and deep pages;
- a 200 MB download streamed through Lookout, with the Python memory it needed.
Targets: first sync under 60 s; an incremental cycle under 2 s and 20 requests;
package pages and API under 150 ms median (500 ms for a page of 1,000 API objects);
download memory growth under 8 MB.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
import uuid
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PAGE_QUERIES = [
    "",
    "?page=1000",
    "?package_type=AIP&sort=-size",
    "?status=DEL_REQ",
    "?q=board-minutes",
    "?sort=name&page=500",
]
API_QUERIES = [
    "?limit=50",
    "?limit=50&offset=99000",
    "?package_type=DIP&sort=stored",
    "?limit=1000&offset=90000",
]
MB = 1024 * 1024
TARGET_PAGE_MS = 150
# A page of 1,000 API objects is mostly serialisation: it gets its own target.
TARGET_LARGE_API_MS = 500


def configure_django(workdir: str, sim) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ["LOOKOUT_VAR_DIR"] = workdir
    os.environ["DATABASE_URL"] = f"sqlite:///{workdir}/bench.sqlite3"
    os.environ["LOOKOUT_STORAGE_URL"] = sim.storage_url
    os.environ.pop("REDIS_URL", None)
    import django
    from django.conf import settings

    django.setup()
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.ALLOWED_HOSTS = ["*"]
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def timed(func):  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    result = func()
    return result, time.perf_counter() - started


def sync_figures(sim) -> list[tuple[str, float, int, str]]:
    from dashboard.clients.storage import StorageClient
    from dashboard.services import storage as storage_services

    client = StorageClient(sim.storage_url, sim.user, sim.key)
    rows = []
    first, seconds = timed(
        lambda: storage_services.storage_poll(client=client, budget_seconds=float("inf"))
    )
    assert first.ok, first.line()
    rows.append(
        (
            "first poll: summary + full sync",
            seconds,
            first.requests,
            "< 60 s" + (": met" if seconds < 60 else ": MISSED"),
        )
    )
    incremental, seconds = timed(
        lambda: storage_services.packages_sync(client=client, budget_seconds=30)
    )
    ok = seconds < 2 and incremental.requests < 20
    rows.append(
        (
            "incremental cycle",
            seconds,
            incremental.requests,
            "< 2 s, < 20 requests" + (": met" if ok else ": MISSED"),
        )
    )
    resync, seconds = timed(
        lambda: storage_services.packages_sync(client=client, budget_seconds=None, full=True)
    )
    rows.append(("full resync (rows exist)", seconds, resync.requests, "for information"))
    return rows


def page_figures(runs: int) -> list[tuple[str, float, float]]:
    from django.test import Client

    from dashboard.selectors import storage as storage_selectors
    from tests.support.users import make_user

    client = Client()
    client.force_login(make_user("bench-operator", "operator"))
    locations = (storage_selectors.storage_summary() or {}).get("locations", [])
    aip_store = next(loc["uuid"] for loc in locations if loc["purpose"] == "AS")
    page_queries = [*PAGE_QUERIES, f"?location={aip_store}"]
    urls = [f"/storage/packages/{q}" for q in page_queries] + [
        f"/api/v1/packages/{q}" for q in API_QUERIES
    ]
    figures = []
    for url in urls:
        for _ in range(2):
            assert client.get(url).status_code == 200, url
        samples = []
        for _ in range(runs):
            _, seconds = timed(lambda url=url: client.get(url))
            samples.append(seconds * 1000)
        ordered = sorted(samples)
        figures.append((url, statistics.median(samples), ordered[round(0.95 * (len(ordered) - 1))]))
    return figures


def download_figures(sim) -> tuple[float, float]:
    """Seconds and Python memory growth (MB) to stream a 200 MB package through Lookout."""
    import re

    import requests
    from django.test import Client

    from dashboard.services import storage as storage_services
    from tests.support.users import make_user

    package_uuid = str(uuid.uuid4())
    pipeline = requests.get(
        f"{sim.storage_url}/api/v2/pipeline/", headers=sim.auth_header, timeout=10
    ).json()["objects"][0]["resource_uri"]
    response = requests.post(
        f"{sim.storage_url}/api/v2/file/",
        headers=sim.auth_header,
        json={
            "uuid": package_uuid,
            "origin_location": "/api/v2/location/default/CP/",
            "origin_path": "big.7z",
            "current_location": "/api/v2/location/default/AS/",
            "current_path": f"big-{package_uuid}.7z",
            "package_type": "AIP",
            "size": 200 * MB,
            "origin_pipeline": pipeline,
        },
        timeout=10,
    )
    assert response.status_code == 201, response.text
    storage_services.package_refresh(uuid=package_uuid)
    client = Client()
    client.force_login(make_user("bench-downloader", "operator"))
    url = f"/storage/packages/{package_uuid}/download/"
    key = re.search(r'name="idempotency_key" value="([^"]+)"', client.get(url).content.decode())
    tracemalloc.start()
    started = time.perf_counter()
    streamed = client.post(url, {"idempotency_key": key.group(1)})
    tracemalloc.reset_peak()
    before, _ = tracemalloc.get_traced_memory()
    received = sum(len(chunk) for chunk in streamed.streaming_content)
    seconds = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert received == 200 * MB
    return seconds, (peak - before) / MB


def report(args, sync_rows, pages, download, mirrored: int) -> str:  # type: ignore[no-untyped-def]
    command = "python bench/storage_sync.py " + " ".join(sys.argv[1:])
    lines = [
        f"Command: `{command.strip()}`",
        "",
        f"{mirrored} packages in the simulator and the mirror (SQLite file database), "
        f"{args.runs} runs per page, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.1f} at the end.",
        "",
        "| step | seconds | requests | target |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {name} | {seconds:.2f} | {count} | {target} |"
        for name, seconds, count, target in sync_rows
    ]
    lines += ["", "| page or API call | median ms | p95 ms | target |", "|---|---|---|---|"]
    for url, median, p95 in pages:
        target = TARGET_LARGE_API_MS if "limit=1000" in url else TARGET_PAGE_MS
        verdict = "met" if median < target else "MISSED"
        lines.append(f"| `{url}` | {median:.1f} | {p95:.1f} | < {target} ms: {verdict} |")
    seconds, growth = download
    verdict = "met" if growth < 8 else "MISSED"
    lines += [
        "",
        f"200 MB download through Lookout: {seconds:.1f} s ({200 / seconds:.0f} MB/s), Python "
        f"memory growth while streaming {growth:.1f} MB (target < 8 MB: {verdict}).",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument(
        "--write", action="store_true", help="append the figures to docs/benchmarks/storage.md"
    )
    args = parser.parse_args()

    from tests.support.simulator_process import SimulatorProcess

    with (
        tempfile.TemporaryDirectory() as workdir,
        SimulatorProcess(packages=args.packages, units=5, seed=7) as sim,
    ):
        configure_django(workdir, sim)
        from dashboard.models import StoragePackage

        sync_rows = sync_figures(sim)
        pages = page_figures(args.runs)
        download = download_figures(sim)
        text = report(args, sync_rows, pages, download, StoragePackage.objects.count())
    print(text)
    if args.write:
        target = ROOT / "docs" / "benchmarks" / "storage.md"
        existing = target.read_text() if target.exists() else "# Benchmarks: storage\n"
        stamp = datetime.now(UTC).strftime("%Y-%m-%d")
        heading = f"## Storage: package mirror, pages and download at {args.packages} packages"
        target.write_text(f"{existing.rstrip()}\n\n{heading} ({stamp})\n\n{text}\n")


if __name__ == "__main__":
    main()
