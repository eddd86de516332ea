"""The simulation object and the two threaded HTTP servers that expose it."""

from __future__ import annotations

import json
import signal
import socketserver
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from types import FrameType
from typing import Any
from wsgiref.headers import Headers
from wsgiref.simple_server import ServerHandler, WSGIRequestHandler, WSGIServer

from simulator.clock import SimClock
from simulator.config import SimulatorConfig
from simulator.dashboard_auth import Sessions
from simulator.faults import FaultSettings, with_faults
from simulator.job_server import JobServer, QueuedAnswer
from simulator.storage import Pipeline, StorageState
from simulator.storage_api import make_storage_app
from simulator.workflow import WorkflowState
from simulator.workflow_api import make_workflow_app, workflow_error_body
from simulator.wsgi import WsgiApp

STORAGE_ERROR_MESSAGE = "Sorry, this request could not be processed. Please try again later."


class WorkflowService:
    """One pipeline's workflow service: its units, fault rates, job server and dashboard
    sessions. The clock, the lock, the storage service and the records are shared."""

    def __init__(self, simulation: Simulation, number: int) -> None:
        base = simulation.config
        self.simulation = simulation
        self.number = number
        # Pipeline 1 keeps the configured seed (its data is what it always was); the
        # others draw their own units from seeds of their own.
        self.config = base if number == 1 else replace(base, seed=base.seed + 1000 * (number - 1))
        self.speed = base.pipeline_speed(number)
        self.faults = FaultSettings(
            seed=self.config.seed,
            error_rate=base.error_rate,
            timeout_rate=base.timeout_rate,
            malformed_rate=base.malformed_rate,
            timeout_seconds=base.timeout_seconds,
            latency_ms=base.latency_ms,
        )
        self.job_server = JobServer(
            wait_seconds=base.job_server_wait_seconds,
            hang_seconds=base.job_server_hang_seconds,
        )
        # Its own dashboard account: a session signed in on one service is unknown to
        # the others.
        self.sessions = Sessions(
            user=base.dashboard_user,
            password=base.dashboard_password,
            max_age=base.session_max_age,
            idle=base.session_idle_seconds,
        )
        self.workflow = WorkflowState(self)

    @property
    def clock(self) -> SimClock:
        return self.simulation.clock

    @property
    def lock(self) -> threading.RLock:
        return self.simulation.lock

    @property
    def storage(self) -> StorageState:
        return self.simulation.storage

    @property
    def pipeline(self) -> Pipeline:
        return self.simulation.storage.simulated_pipelines[self.number - 1]

    @property
    def actions(self) -> list[dict[str, Any]]:
        return self.simulation.actions

    @property
    def starts(self) -> list[dict[str, Any]]:
        return self.simulation.starts

    @property
    def services(self) -> list[WorkflowService]:
        return self.simulation.services

    def record_action(self, action: str, target: str) -> None:
        self.simulation.record_action(action, target, pipeline=self.number)

    def record_start(self, name: str, unit_uuid: str) -> None:
        """Note a transfer this service was asked to start (the caller holds `lock`)."""
        self.simulation.starts.append(
            {
                "pipeline": self.number,
                "name": name,
                "uuid": unit_uuid,
                "at": self.clock.now().isoformat(),
            }
        )

    def carry_out(self, answer: QueuedAnswer) -> None:
        """Answer a decision as the job server does: silently ignored when not taken."""
        now = self.sync()
        with self.lock:
            self.workflow.answer_decision(job_uuid=answer.job_uuid, choice=answer.choice, now=now)

    def sync(self) -> datetime:
        return self.simulation.sync()


class Simulation:
    """Every fake service's state, one clock and one lock: one storage service and one
    workflow service per pipeline (`services`, pipeline 1 first).

    Handlers call `sync()` first, then read or change state under `lock`. The attributes
    of a single workflow service (`workflow`, `faults`, ...) are pipeline 1's.
    """

    def __init__(self, config: SimulatorConfig) -> None:
        self.config = config
        self.clock = SimClock(config.speed, config.start)
        self.lock = threading.RLock()
        # Every operation a client asked for that took effect, in order: the soak checks
        # from these that each action Lookout sent happened exactly once.
        self.actions: list[dict[str, Any]] = []
        # Every transfer start a workflow service took, in order, for "exactly N starts".
        self.starts: list[dict[str, Any]] = []
        # Storage first: the workflow side reads its pipelines and sources.
        self.storage = StorageState(self)
        self.storage.seed(packages=config.packages)
        self.services = [WorkflowService(self, number) for number in range(1, config.pipelines + 1)]
        for service in self.services:
            service.workflow.seed(
                units=config.units,
                history_days=config.history_days,
                history_per_day=config.history_per_day,
            )

    @property
    def first(self) -> WorkflowService:
        return self.services[0]

    @property
    def workflow(self) -> WorkflowState:
        return self.first.workflow

    @property
    def faults(self) -> FaultSettings:
        # Pipeline 1's fault rates apply to the storage service too.
        return self.first.faults

    @property
    def job_server(self) -> JobServer:
        return self.first.job_server

    @property
    def sessions(self) -> Sessions:
        return self.first.sessions

    @property
    def pipeline(self) -> Pipeline:
        return self.first.pipeline

    @property
    def number(self) -> int:
        return 1

    @property
    def speed(self) -> float:
        return self.first.speed

    def set_addresses(self, workflow_urls: list[str]) -> None:
        """Name each pipeline's workflow service URL as its `remote_name`, as a real
        storage service knows each pipeline by its address (host and port)."""
        with self.lock:
            for service, url in zip(self.services, workflow_urls, strict=True):
                service.pipeline.remote_name = url

    def service_for(self, pipeline_uuid: str) -> WorkflowService | None:
        """The workflow service of the pipeline with that UUID, if one is simulated."""
        return next((s for s in self.services if s.pipeline.uuid == pipeline_uuid), None)

    def record_action(self, action: str, target: str, pipeline: int | None = None) -> None:
        """Note an operation that took effect (the caller holds `lock`)."""
        entry: dict[str, Any] = {
            "action": action,
            "target": target,
            "at": self.clock.now().isoformat(),
        }
        if pipeline is not None:
            entry["pipeline"] = pipeline
        self.actions.append(entry)

    def record_start(self, name: str, unit_uuid: str) -> None:
        self.first.record_start(name, unit_uuid)

    def carry_out(self, answer: QueuedAnswer) -> None:
        self.first.carry_out(answer)

    def sync(self) -> datetime:
        """Materialise every state change due by now, on every pipeline; returns that now."""
        with self.lock:
            now = self.clock.now()
            for service in self.services:
                service.workflow.advance_to(now)
            self.storage.add_due_source_items(now)
            return now


def storage_error_body() -> tuple[str, bytes]:
    body = json.dumps({"error_message": STORAGE_ERROR_MESSAGE}).encode("utf-8")
    return "application/json", body


class _KeepAliveServerHandler(ServerHandler):
    """Answers in HTTP/1.1; closes the connection when it cannot be reused safely."""

    http_version = "1.1"
    keep_alive = True
    headers: Headers  # set by start_response; typeshed leaves it out

    def cleanup_headers(self) -> None:
        super().cleanup_headers()
        # Without a length the body ends when the connection does (streamed downloads).
        if "Content-Length" not in self.headers:
            self.keep_alive = False
        if not self.keep_alive:
            self.headers["Connection"] = "close"


class QuietHandler(WSGIRequestHandler):
    """HTTP/1.1 with keep-alive, like the real services' servers: clients reuse connections."""

    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes: without this, Nagle's algorithm and
    # delayed ACKs hold every kept-alive answer back by ~40 ms.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: object) -> None:
        """Per-request logging would drown the demo's output."""

    def handle(self) -> None:
        self.close_connection = True
        self._handle_one()
        while not self.close_connection:
            self._handle_one()

    def _handle_one(self) -> None:
        self.raw_requestline = self.rfile.readline(65537)
        if not self.raw_requestline:
            self.close_connection = True
            return
        if len(self.raw_requestline) > 65536:
            self.send_error(414)
            self.close_connection = True
            return
        if not self.parse_request():
            return
        handler = _KeepAliveServerHandler(
            self.rfile,
            self.wfile,  # type: ignore[arg-type]  # typeshed: a BufferedIOBase, not IO[bytes]
            self.get_stderr(),
            self.get_environ(),
            multithread=True,
        )
        # A request body the app may not have read would corrupt the next request.
        handler.keep_alive = not self.close_connection and not self.headers.get("Content-Length")
        handler.request_handler = self  # type: ignore[attr-defined]
        handler.run(self.server.get_app())  # type: ignore[attr-defined]
        if not handler.keep_alive:
            self.close_connection = True


class ThreadingWSGIServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True
    request_queue_size = 128

    def server_bind(self) -> None:
        # HTTPServer.server_bind does a reverse DNS lookup, slow on some hosts.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name = str(host)
        self.server_port = int(port)
        self.setup_environ()


def make_server(host: str, port: int, app: WsgiApp) -> ThreadingWSGIServer:
    server = ThreadingWSGIServer((host, port), QuietHandler)
    server.set_app(app)
    return server


def build_apps(sim: Simulation) -> tuple[WsgiApp, WsgiApp]:
    """Pipeline 1's workflow service and the storage service."""
    workflow_app = build_workflow_app(sim.first)
    storage_app = with_faults(make_storage_app(sim), sim.faults, storage_error_body)
    return workflow_app, storage_app


def build_workflow_app(service: WorkflowService) -> WsgiApp:
    return with_faults(make_workflow_app(service), service.faults, workflow_error_body)


def service_label(number: int) -> str:
    """How a workflow service is named in the "listening on" lines."""
    return "workflow service" if number == 1 else f"workflow service {number}"


def serve(config: SimulatorConfig, announce: Callable[[str], None] | None = None) -> int:
    """Serve every service until SIGTERM or SIGINT; returns the exit code."""
    say = announce or _print_flushed
    sim = Simulation(config)
    workflow_app, storage_app = build_apps(sim)
    ports = config.workflow_ports()
    servers = [("workflow service", make_server(config.host, ports[0], workflow_app))]
    for service, port in zip(sim.services[1:], ports[1:], strict=True):
        app = build_workflow_app(service)
        servers.append((service_label(service.number), make_server(config.host, port, app)))
    servers.append(("storage service", make_server(config.host, config.storage_port, storage_app)))
    sim.set_addresses([_url(server) for _, server in servers[:-1]])
    for _, server in servers:
        # A short poll interval keeps shutdown quick.
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    for label, server in servers:
        say(f"{label} listening on {_url(server)}")

    stop = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    stop.wait()
    for _, server in servers:
        server.shutdown()
        server.server_close()
    return 0


def _url(server: ThreadingWSGIServer) -> str:
    host, port = server.server_address[:2]
    return f"http://{host!s}:{port}"


def _print_flushed(line: str) -> None:
    print(line, file=sys.stdout, flush=True)
