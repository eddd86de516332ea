"""Soak: the wall screen in headless Chromium for 30 simulated hours, through outages.

    .venv/bin/python bench/wall_soak.py --sim-hours 30 --speed 720 --refresh 0.5

Starts the simulator at --speed simulated seconds per real second and keeps starting
transfers (--transfers-per-hour, in simulated hours) so units keep moving, waiting and
failing. Lookout runs in this process: its pollers in a loop (the same services Celery
beat calls) and its web server in a thread. Chromium (Debian's, through Playwright)
opens the wall with a --refresh-second refresh. Part-way through, the upstream services
fail (every request a 500) and later the Lookout server itself goes away (connection
refused), then answers 502s; the wall must show that and recover.

Every --sample seconds it records, after a forced garbage collection: DOM elements,
DOM nodes (CDP, detached ones included), JS heap used, JS event listeners. It prints
the series and compares the first and last thirds of normal operation: stable means
neither the heap nor the node count grew by more than 10%. Exit status 1 if not.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"]
# Fractions of the run: upstream answers 500s, then Lookout refuses connections, then 502s.
UPSTREAM_DOWN = (0.40, 0.50)
LOOKOUT_GONE = (0.62, 0.68)
LOOKOUT_502 = (0.68, 0.74)
GROWTH_LIMIT = 1.10


def configure_django(workdir: str, sim: Any, refresh: float) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ["LOOKOUT_VAR_DIR"] = workdir
    os.environ["DATABASE_URL"] = f"sqlite:///{workdir}/soak.sqlite3"
    os.environ["LOOKOUT_WORKFLOW_URL"] = sim.workflow_url
    os.environ["LOOKOUT_STORAGE_URL"] = sim.storage_url
    os.environ["LOOKOUT_WORKFLOW_POLL_INTERVAL"] = "2"
    os.environ["LOOKOUT_STORAGE_POLL_INTERVAL"] = "10"
    os.environ.pop("REDIS_URL", None)
    # Playwright's sync API keeps an event loop in this thread; the ORM calls around it
    # are still plain synchronous code.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    import django
    from django.conf import settings

    django.setup()
    # One process: an in-memory cache is shared by the poller and the server thread.
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.LOOKOUT_WALL_REFRESH_SECONDS = refresh
    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


class WallGate:
    """WSGI wrapper: counts the wall's refreshes and can answer 502 for a while."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.refreshes = 0
        self.bad_gateway = False
        self._lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if environ.get("PATH_INFO", "").startswith("/wall/") and environ.get("HTTP_HX_REQUEST"):
            with self._lock:
                self.refreshes += 1
            if self.bad_gateway:
                start_response("502 Bad Gateway", [("Content-Type", "text/plain")])
                return [b"bad gateway"]
        return self.app(environ, start_response)


class LookoutServer:
    """Lookout's WSGI app on a fixed port in a thread; stop and start it again at will."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.port = 0
        self._server: Any = None
        self._connections: set[socket.socket] = set()

    def start(self) -> None:
        from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler

        connections = self._connections

        class Quiet(WSGIRequestHandler):
            def setup(self) -> None:
                super().setup()
                connections.add(self.connection)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadedWSGIServer(("127.0.0.1", self.port), Quiet, allow_reuse_address=True)
        self._server.set_app(self.app)
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        """Gone for real: no listener, and the browser's kept-alive connections cut."""
        self._server.shutdown()
        self._server.server_close()
        for connection in list(self._connections):
            with contextlib.suppress(OSError):  # already closed by its handler
                connection.shutdown(socket.SHUT_RDWR)
        self._connections.clear()
        self._server = None

    @property
    def running(self) -> bool:
        return self._server is not None


def control(sim: Any, path: str, payload: dict[str, Any] | None = None) -> Any:
    url = f"{sim.workflow_url}/_simulator/{path}"
    data = None if payload is None else json.dumps(payload).encode()
    request = urllib.request.Request(url, data=data, method="POST" if data else "GET")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


@dataclass
class Sample:
    seconds: float
    sim_time: str
    refreshes: int
    elements: int
    nodes: int
    heap_mb: float
    listeners: int
    documents: int
    stale_banners: int
    offline_notice: bool
    phase: str


def sample(
    page: Any, cdp: Any, started: float, sim_time: str, gate: WallGate, phase: str
) -> Sample:
    cdp.send("HeapProfiler.collectGarbage")
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    shown = page.evaluate(
        """() => [document.getElementsByTagName('*').length,
                  document.querySelectorAll('.stale-banner').length,
                  !document.getElementById('wall-connection').hidden]"""
    )
    return Sample(
        seconds=time.monotonic() - started,
        sim_time=sim_time,
        refreshes=gate.refreshes,
        elements=shown[0],
        nodes=int(metrics["Nodes"]),
        heap_mb=metrics["JSHeapUsedSize"] / 1e6,
        listeners=int(metrics["JSEventListeners"]),
        documents=int(metrics["Documents"]),
        stale_banners=shown[1],
        offline_notice=bool(shown[2]),
        phase=phase,
    )


def phase_at(fraction: float) -> str:
    if UPSTREAM_DOWN[0] <= fraction < UPSTREAM_DOWN[1]:
        return "upstream-500"
    if LOOKOUT_GONE[0] <= fraction < LOOKOUT_GONE[1]:
        return "lookout-gone"
    if LOOKOUT_502[0] <= fraction < LOOKOUT_502[1]:
        return "lookout-502"
    return "normal"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sim-hours", type=float, default=30.0)
    parser.add_argument(
        "--speed", type=float, default=720.0, help="simulated seconds per real second"
    )
    parser.add_argument("--refresh", type=float, default=0.5, help="wall refresh, seconds")
    parser.add_argument("--poll", type=float, default=2.0, help="seconds between workflow polls")
    parser.add_argument("--sample", type=float, default=5.0, help="seconds between samples")
    parser.add_argument("--transfers-per-hour", type=int, default=6)
    args = parser.parse_args()
    real_seconds = args.sim_hours * 3600 / args.speed

    from tests.support.simulator_process import SimulatorProcess

    with (
        tempfile.TemporaryDirectory() as workdir,
        SimulatorProcess(units=40, packages=60, seed=11, speed=args.speed) as sim,
    ):
        configure_django(workdir, sim, args.refresh)
        from django.core.handlers.wsgi import WSGIHandler
        from playwright.sync_api import sync_playwright

        from dashboard.clients.workflow import WorkflowClient, WorkflowError
        from dashboard.lib.pipelines import pipeline_list
        from dashboard.services import storage as storage_services
        from dashboard.services import units as unit_services
        from dashboard.services import wall_links

        pipeline = pipeline_list()[0]
        starter = WorkflowClient(sim.workflow_url, sim.user, sim.key)
        sources = [tuple(pair) for pair in control(sim, "state")["transfer_sources"]]
        gate = WallGate(WSGIHandler())
        server = LookoutServer(gate)
        server.start()
        token = wall_links.wall_link_create(name="soak").token
        url = f"http://127.0.0.1:{server.port}/wall/{token}/"
        unit_services.workflow_poll(pipeline=pipeline)
        storage_services.storage_poll()

        samples: list[Sample] = []
        started_transfers = 0
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
            )
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            page.goto(url)
            page.wait_for_selector("#wall-live")
            cdp = page.context.new_cdp_session(page)
            cdp.send("Performance.enable")

            started = time.monotonic()
            next_poll = next_sample = started
            polls = 0
            sim_hour_seen = None
            phase = "normal"
            while (now := time.monotonic()) < started + real_seconds:
                fraction = (now - started) / real_seconds
                wanted = phase_at(fraction)
                if wanted != phase:
                    control(sim, "faults", {"error_rate": 1.0 if wanted == "upstream-500" else 0.0})
                    if wanted == "lookout-gone":
                        server.stop()
                    elif not server.running:
                        server.start()
                    gate.bad_gateway = wanted == "lookout-502"
                    phase = wanted
                sim_now = control(sim, "state")["now"]
                sim_hour = sim_now[:13]
                if sim_hour != sim_hour_seen and phase != "upstream-500":
                    sim_hour_seen = sim_hour
                    for n in range(args.transfers_per_hour):
                        location, path = sources[(started_transfers + n) % len(sources)]
                        try:
                            uuid = starter.create_package(
                                name=f"soak-{started_transfers + n}",
                                location_uuid=location,
                                path=path,
                                auto_approve=n % 3 != 0,
                            )
                        except WorkflowError as exc:
                            print(f"could not start a transfer: {exc}", file=sys.stderr)
                            continue
                        unit_services.unit_register(
                            pipeline=pipeline.slug, uuid=uuid, kind="transfer"
                        )
                    started_transfers += args.transfers_per_hour
                if now >= next_poll:
                    unit_services.workflow_poll(pipeline=pipeline)
                    polls += 1
                    if polls % 5 == 0:
                        storage_services.storage_poll()
                    next_poll = now + args.poll
                if now >= next_sample:
                    samples.append(sample(page, cdp, started, sim_now, gate, phase))
                    next_sample = now + args.sample
                page.wait_for_timeout(200)  # lets the browser and Playwright run
            samples.append(sample(page, cdp, started, sim_now, gate, phase))
            browser.close()
        if server.running:
            server.stop()

    return report(args, samples, started_transfers)


def report(args: argparse.Namespace, samples: list[Sample], started_transfers: int) -> int:
    print(
        f"command: .venv/bin/python bench/wall_soak.py --sim-hours {args.sim_hours:g} "
        f"--speed {args.speed:g} --refresh {args.refresh:g} --poll {args.poll:g} "
        f"--sample {args.sample:g} --transfers-per-hour {args.transfers_per_hour}"
    )
    print(f"transfers started: {started_transfers}; wall refreshes: {samples[-1].refreshes}")
    print(
        f"{'t(s)':>6} {'simulated time':>19} {'refr':>5} {'elems':>6} {'nodes':>6} "
        f"{'heap MB':>8} {'lstnrs':>6} {'docs':>5} {'stale':>5} {'offline':>7}  phase"
    )
    for s in samples:
        print(
            f"{s.seconds:6.0f} {s.sim_time:>19} {s.refreshes:5d} {s.elements:6d} "
            f"{s.nodes:6d} {s.heap_mb:8.2f} {s.listeners:6d} {s.documents:5d} {s.stale_banners:5d} "
            f"{'yes' if s.offline_notice else 'no':>7}  {s.phase}"
        )

    normal = [s for s in samples[1:] if s.phase == "normal"]
    third = max(1, len(normal) // 3)
    first, last = normal[:third], normal[-third:]
    verdicts = []
    for label, value in (
        ("JS heap (MB)", "heap_mb"),
        ("DOM nodes", "nodes"),
        ("event listeners", "listeners"),
    ):
        before = statistics.median(getattr(s, value) for s in first)
        after = statistics.median(getattr(s, value) for s in last)
        grew = after > before * GROWTH_LIMIT
        verdicts.append(grew)
        print(
            f"{label}: first third median {before:.2f}, last third median {after:.2f}, "
            f"max {max(getattr(s, value) for s in samples):.2f} "
            f"-> {'GROWING' if grew else 'stable'}"
        )
    saw = {
        "stale banner during the upstream outage": any(
            s.stale_banners for s in samples if s.phase == "upstream-500"
        ),
        "connection-lost notice while Lookout was gone": any(
            s.offline_notice for s in samples if s.phase in ("lookout-gone", "lookout-502")
        ),
        "recovered at the end (no notice, no stale banner)": not samples[-1].offline_notice
        and samples[-1].stale_banners == 0,
    }
    for what, ok in saw.items():
        print(f"{what}: {'yes' if ok else 'NO'}")
    ok = not any(verdicts) and all(saw.values())
    print(f"verdict: {'STABLE' if ok else 'NOT STABLE'} ({datetime.now():%Y-%m-%d %H:%M})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
