"""The simulator with several workflow services beside one storage service, served in
this process over real sockets, with a folder of items to ingest.

Each extra pipeline is a second `WorkflowState` on the same simulation (one clock, one
lock, one storage service that stores every pipeline's AIPs), with its own seed so its
UUIDs differ. Every transfer a workflow service holds was started through its API
(nothing is seeded), so `starts()` counts the starts each service received.

    with IngestSimulator(pipelines=2, speed=150) as sim:
        sim.add_items(b"batch", 30)
        settings.LOOKOUT_PIPELINES = sim.pipelines_setting()
"""

from __future__ import annotations

import dataclasses
import threading
from collections import Counter
from datetime import datetime
from typing import Any

from simulator.config import SimulatorConfig
from simulator.faults import with_faults
from simulator.server import Simulation, build_apps, make_server
from simulator.units import NoJobsYet
from simulator.workflow import WorkflowState
from simulator.workflow_api import make_workflow_app, workflow_error_body


class _PipelineView:
    """The simulation as one more workflow service sees it: its own units, the rest shared."""

    def __init__(self, main: Simulation, seed: int) -> None:
        self._main = main
        self.config = dataclasses.replace(main.config, seed=seed)
        self.workflow = WorkflowState(self)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._main, name)

    def sync(self) -> datetime:
        with self._main.lock:
            now = self._main.clock.now()
            self.workflow.advance_to(now)
            return now


class IngestSimulator:
    def __init__(self, *, pipelines: int = 2, speed: float = 150.0, seed: int = 7) -> None:
        self.count = pipelines
        self.config = SimulatorConfig(units=0, packages=0, seed=seed, speed=speed)
        self.user, self.key = self.config.user, self.config.key
        self.sim: Simulation | None = None
        self.views: list[Any] = []
        self.workflow_urls: list[str] = []
        self.storage_url = ""
        self._servers: list[Any] = []

    def __enter__(self) -> IngestSimulator:
        sim = self.sim = Simulation(self.config)
        workflow_app, storage_app = build_apps(sim)
        self.views = [sim] + [
            _PipelineView(sim, self.config.seed + 1000 * n) for n in range(1, self.count)
        ]
        apps = [workflow_app] + [
            with_faults(make_workflow_app(view), sim.faults, workflow_error_body)
            for view in self.views[1:]
        ]
        for app in [*apps, storage_app]:
            server = make_server("127.0.0.1", 0, app)
            threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
            self._servers.append(server)
        urls = [f"http://127.0.0.1:{server.server_address[1]}" for server in self._servers]
        self.workflow_urls, self.storage_url = urls[:-1], urls[-1]
        return self

    def __exit__(self, *exc: object) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()

    @property
    def slugs(self) -> list[str]:
        return [f"p{n + 1}" for n in range(self.count)]

    @property
    def location(self) -> str:
        """The default transfer source location's UUID."""
        assert self.sim is not None
        return self.sim.storage.transfer_source_paths()[0][0]

    def add_items(self, folder: bytes, count: int, *, start: int = 1, zips: int = 0) -> list[str]:
        """`count` folders `item-NNN` (the last `zips` as `.zip` files) under `folder`."""
        assert self.sim is not None
        names = []
        with self.sim.lock:
            tree = self.sim.storage.source_trees[self.location]
            for number in range(start, start + count):
                name = f"item-{number:03d}"
                if number >= start + count - zips:
                    tree.add_file(folder + b"/" + name.encode() + b".zip", 2048 + number)
                else:
                    tree.add_file(folder + b"/" + name.encode() + b"/objects/a.txt", 100 + number)
                names.append(name)
        return names

    def pipelines_setting(self) -> list[dict[str, Any]]:
        return [
            {
                "slug": slug,
                "name": f"Pipeline {slug}",
                "url": url,
                "user": self.user,
                "key": self.key,
                "time_zone": "UTC",
                "ui_url": "",
                "processing_configs": ["default", "automated"],
            }
            for slug, url in zip(self.slugs, self.workflow_urls, strict=True)
        ]

    def storage_setting(self) -> dict[str, str]:
        return {"url": self.storage_url, "user": self.user, "key": self.key}

    def starts(self) -> dict[str, Counter[str]]:
        """Transfers each workflow service was asked to start, by name."""
        assert self.sim is not None
        with self.sim.lock:
            return {
                slug: Counter(
                    unit.name for unit in view.workflow.units.values() if unit.is_transfer
                )
                for slug, view in zip(self.slugs, self.views, strict=True)
            }

    def status(self, slug: str, uuid: str) -> dict[str, Any]:
        """The upstream status record of a unit now ({"status": "PENDING"} before its
        first job)."""
        assert self.sim is not None
        view = self.views[self.slugs.index(slug)]
        with self.sim.lock:
            now = view.sync()
            unit = view.workflow.by_uuid[uuid]
            try:
                return dict(unit.status(view.workflow.seconds(now)))
            except NoJobsYet:
                return {"status": "PENDING"}

    def outcome(self, slug: str, transfer_uuid: str) -> str:
        """What became of a transfer upstream: "stored" (its SIP completed and the
        storage service holds the AIP), "failed" (the transfer or its SIP failed or was
        rejected, or it went to the backlog: no AIP), or "running"."""
        assert self.sim is not None
        transfer = self.status(slug, transfer_uuid)
        if transfer["status"] in ("FAILED", "REJECTED"):
            return "failed"
        sip_uuid = transfer.get("sip_uuid")
        if transfer["status"] != "COMPLETE" or not sip_uuid:
            return "running"
        if sip_uuid == "BACKLOG":
            return "failed"
        sip = self.status(slug, sip_uuid)["status"]
        if sip in ("FAILED", "REJECTED"):
            return "failed"
        with self.sim.lock:
            stored = self.sim.storage.packages.get(sip_uuid) is not None
        return "stored" if sip == "COMPLETE" and stored else "running"
