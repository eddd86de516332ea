"""`manage.py run_stack`: the whole demo in one terminal.

Starts the simulator, a Celery worker, Celery beat and the web server as child
processes, prefixes their output with their name, and stops them all together.
Before anything starts (and before `make run` prints the demo login, through
`--check-ports`), every port it will listen on must be free; a busy one is named in
one line and the command exits 1. A child that dies stops the others, and the command
exits with 1 after naming it and its exit code.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from config.pipelines import simulator_pipeline_entries

# The simulator's arrivals for the demo: a transfer every two minutes on average, and
# about once an hour a burst of five more.
DEMO_ARRIVALS_PER_HOUR = 30.0
DEMO_ARRIVAL_BURST = 5
# Four weeks of finished work before the start, so the analytics page has something to
# show on first start (Lookout learns it from the completed lists and the units' jobs).
DEMO_HISTORY_DAYS = 28.0
# Two pipelines side by side; the second works at 70 % of the first one's pace, so the
# overview, the wall and the analytics show them apart.
DEMO_PIPELINES = 2
DEMO_PIPELINE_SPEEDS = "1,0.7"
# A folder `batch/` of items in the default transfer source, for the demo's watched
# ingest run (manage.py demo_ingest), and a new item every ten minutes.
DEMO_SOURCE_ITEMS = 40
DEMO_SOURCE_ITEMS_PER_HOUR = 6.0
# The variable the demo's pipelines file names for the simulated pipelines' key; only
# the web server, worker and beat `run_stack` starts get it.
SIMULATOR_KEY_VARIABLE = "LOOKOUT_SIMULATOR_WORKFLOW_KEY"
SIMULATOR_USER, SIMULATOR_KEY = "demo", "demo-key"


def port_is_free(host: str, port: int) -> bool:
    """Whether a server could listen on host:port now (as gunicorn does, SO_REUSEADDR)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            if error.errno in (errno.EADDRINUSE, errno.EACCES):
                return False
            raise
    return True


# The simulated dashboards' account, which the first pipeline signs in with; a new
# password each time the stack starts (it is nobody's secret, but it is not a fixed one).
DEMO_DASHBOARD_USER = "lookout-demo"


def _demo_dashboard_password(options: dict[str, Any]) -> str:
    password: str = options.setdefault("demo_dashboard_password", secrets.token_urlsafe(18))
    return password


class Command(BaseCommand):
    help = "Run the simulator, Celery worker and beat, and the web server until Ctrl-C."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument(
            "--port", type=int, default=None, help="web server port (default: LOOKOUT_PORT, 8000)"
        )
        parser.add_argument(
            "--no-simulator",
            action="store_true",
            help="do not start the simulator (Lookout is pointed at real services)",
        )
        parser.add_argument("--units", type=int, default=60, help="simulator units")
        parser.add_argument("--packages", type=int, default=300, help="simulator packages")
        # The demo never runs dry: new transfers keep arriving (tests leave them off).
        parser.add_argument(
            "--arrivals-per-hour",
            type=float,
            default=DEMO_ARRIVALS_PER_HOUR,
            help=f"new transfers per hour in the simulator (default {DEMO_ARRIVALS_PER_HOUR:g})",
        )
        parser.add_argument(
            "--arrival-burst",
            type=int,
            default=DEMO_ARRIVAL_BURST,
            help=f"transfers arriving together about once an hour (default {DEMO_ARRIVAL_BURST})",
        )
        parser.add_argument(
            "--history-days",
            type=float,
            default=DEMO_HISTORY_DAYS,
            help=f"days of back-dated history in the simulator (default {DEMO_HISTORY_DAYS:g})",
        )
        parser.add_argument(
            "--pipelines",
            type=int,
            choices=range(1, 10),
            default=DEMO_PIPELINES,
            help=f"simulated pipelines (default {DEMO_PIPELINES}); the second listens on "
            "LOOKOUT_SIMULATOR_SECOND_WORKFLOW_PORT, the next ones on the ports after it",
        )
        parser.add_argument(
            "--source-items",
            type=int,
            default=DEMO_SOURCE_ITEMS,
            help=f"items in the simulator's batch/ folder (default {DEMO_SOURCE_ITEMS})",
        )
        parser.add_argument(
            "--no-demo-ingest",
            action="store_true",
            help="do not create the demo's watched ingest run over batch/ (manage.py "
            "demo_ingest, run once the simulator answers)",
        )
        parser.add_argument(
            "--check-ports",
            action="store_true",
            help="only check that every port the stack needs is free, print nothing if so",
        )

    def _ports(self, options: dict[str, Any]) -> list[tuple[str, str, int]]:
        """(what, the setting that moves it, port) for every port the stack listens on."""
        ports = [("web server", "LOOKOUT_PORT", options["port"])]
        if not options["no_simulator"]:
            ports += [
                (
                    "simulator's workflow service",
                    "LOOKOUT_SIMULATOR_WORKFLOW_PORT",
                    settings.LOOKOUT_SIMULATOR_WORKFLOW_PORT,
                ),
                (
                    "simulator's storage service",
                    "LOOKOUT_SIMULATOR_STORAGE_PORT",
                    settings.LOOKOUT_SIMULATOR_STORAGE_PORT,
                ),
            ]
            ports += [
                (
                    f"simulator's workflow service {number}",
                    "LOOKOUT_SIMULATOR_SECOND_WORKFLOW_PORT",
                    port,
                )
                for number, port in enumerate(self._more_workflow_ports(options), start=2)
            ]
        return ports

    @staticmethod
    def _more_workflow_ports(options: dict[str, Any]) -> list[int]:
        """The ports of pipelines 2, 3, ...: from LOOKOUT_SIMULATOR_SECOND_WORKFLOW_PORT on."""
        first = settings.LOOKOUT_SIMULATOR_SECOND_WORKFLOW_PORT
        return [first + index for index in range(options["pipelines"] - 1)]

    def _workflow_urls(self, options: dict[str, Any]) -> list[str]:
        ports = [settings.LOOKOUT_SIMULATOR_WORKFLOW_PORT, *self._more_workflow_ports(options)]
        return [f"http://{options['host']}:{port}" for port in ports]

    def _pipelines_file(self, options: dict[str, Any]) -> str:
        """Write the pipelines file for the simulated pipelines 2, 3, ...; its path.

        Pipeline 1 is the LOOKOUT_WORKFLOW_* one, whose URL defaults to the simulator's.
        """
        entries = [
            {**entry, "key_env": SIMULATOR_KEY_VARIABLE}
            for entry in simulator_pipeline_entries(
                self._workflow_urls(options), user=SIMULATOR_USER
            )[1:]
        ]
        path = settings.VAR_DIR / "demo-pipelines.json"
        path.write_text(json.dumps(entries, indent=2) + "\n")
        return str(path)

    def _child_env(self, options: dict[str, Any]) -> dict[str, str]:
        """The environment of the web server, worker and beat: with the simulator on, a
        service account on the first pipeline's dashboard (the others stay API only, so
        the demo shows both modes), and with more than one pipeline, a pipelines file
        naming the others (unless one is set)."""
        env = dict(os.environ)
        if not options["no_simulator"] and not env.get("LOOKOUT_WORKFLOW_DASHBOARD_USER"):
            env["LOOKOUT_WORKFLOW_DASHBOARD_USER"] = DEMO_DASHBOARD_USER
            env["LOOKOUT_WORKFLOW_DASHBOARD_PASSWORD"] = _demo_dashboard_password(options)
        if options["no_simulator"] or options["pipelines"] < 2:
            return env
        if env.get("LOOKOUT_PIPELINES_FILE"):
            self.stdout.write(
                "LOOKOUT_PIPELINES_FILE is set: the simulator's pipelines 2 and up are not "
                "added to it"
            )
            return env
        env["LOOKOUT_PIPELINES_FILE"] = self._pipelines_file(options)
        env[SIMULATOR_KEY_VARIABLE] = SIMULATOR_KEY
        return env

    def _demo_ingest(
        self, options: dict[str, Any], env: dict[str, str], stopping: threading.Event
    ) -> None:
        """Once the storage service answers, run `demo_ingest` beside the stack; its
        failure is told in a line and stops nothing."""
        storage = (options["host"], settings.LOOKOUT_SIMULATOR_STORAGE_PORT)
        deadline = time.monotonic() + 60
        while not stopping.is_set() and port_is_free(*storage):
            if time.monotonic() > deadline:
                return
            time.sleep(0.5)
        if stopping.is_set():
            return
        command = [sys.executable, str(settings.BASE_DIR / "manage.py"), "demo_ingest"]
        try:
            done = subprocess.run(
                command, env=env, capture_output=True, text=True, timeout=180, check=False
            )
        except subprocess.TimeoutExpired:
            self.stdout.write(f"{'demo':>9} | demo_ingest gave no answer within 180 s")
            return
        for line in (done.stdout + done.stderr).splitlines():
            self.stdout.write(f"{'demo':>9} | {line.rstrip()}")

    def _simulator_line(self, options: dict[str, Any]) -> str:
        """One line naming the simulated pipelines and the storage service."""
        pipelines = ", ".join(
            f"{'default' if number == 1 else f'pipeline-{number}'} on {url}"
            for number, url in enumerate(self._workflow_urls(options), start=1)
        )
        storage = f"http://{options['host']}:{settings.LOOKOUT_SIMULATOR_STORAGE_PORT}"
        return f"Simulated pipelines: {pipelines}; storage service on {storage}"

    def _check_ports(self, options: dict[str, Any]) -> None:
        for what, variable, port in self._ports(options):
            if not port_is_free(options["host"], port):
                self.stderr.write(
                    f"Port {port} on {options['host']} ({what}) is already in use: stop "
                    f"what is using it or set {variable} to a free port."
                )
                raise SystemExit(1)

    def _commands(self, options: dict[str, Any]) -> list[tuple[str, list[str]]]:
        python = sys.executable
        settings.VAR_DIR.mkdir(parents=True, exist_ok=True)
        commands = []
        if not options["no_simulator"]:
            commands.append(
                (
                    "simulator",
                    [
                        python,
                        "-m",
                        "simulator",
                        "--workflow-port",
                        str(settings.LOOKOUT_SIMULATOR_WORKFLOW_PORT),
                        "--storage-port",
                        str(settings.LOOKOUT_SIMULATOR_STORAGE_PORT),
                        "--units",
                        str(options["units"]),
                        "--packages",
                        str(options["packages"]),
                        "--arrivals-per-hour",
                        str(options["arrivals_per_hour"]),
                        "--arrival-burst",
                        str(options["arrival_burst"]),
                        "--history-days",
                        str(options["history_days"]),
                        "--pipelines",
                        str(options["pipelines"]),
                        "--extra-workflow-ports",
                        ",".join(str(port) for port in self._more_workflow_ports(options)),
                        "--pipeline-speeds",
                        DEMO_PIPELINE_SPEEDS,
                        "--source-items",
                        str(options["source_items"]),
                        "--source-items-per-hour",
                        str(DEMO_SOURCE_ITEMS_PER_HOUR),
                        "--dashboard-user",
                        DEMO_DASHBOARD_USER,
                        "--dashboard-password",
                        _demo_dashboard_password(options),
                    ],
                )
            )
        commands += [
            (
                "worker",
                [
                    python,
                    "-m",
                    "celery",
                    "-A",
                    "config",
                    "worker",
                    "-l",
                    "info",
                    "-c",
                    "2",
                    "--without-gossip",
                    "--without-mingle",
                ],
            ),
            (
                "beat",
                [
                    python,
                    "-m",
                    "celery",
                    "-A",
                    "config",
                    "beat",
                    "-l",
                    "info",
                    "-s",
                    settings.CELERY_BEAT_SCHEDULE_FILENAME,
                ],
            ),
            (
                "web",
                [
                    python,
                    "-m",
                    "gunicorn",
                    "config.wsgi",
                    # The image's configuration: its access log scrubs wall-screen tokens.
                    "--config",
                    "python:config.gunicorn",
                    "-b",
                    f"{options['host']}:{options['port']}",
                    "-w",
                    "2",
                    "--threads",
                    "4",
                ],
            ),
        ]
        return commands

    def handle(self, *args: Any, **options: Any) -> None:
        if options["port"] is None:
            options["port"] = settings.LOOKOUT_PORT
        self._check_ports(options)
        if options["check_ports"]:
            return
        children: list[tuple[str, subprocess.Popen[str]]] = []
        stopping = threading.Event()
        failed: list[str] = []

        def relay(name: str, process: subprocess.Popen[str]) -> None:
            assert process.stdout is not None
            for line in process.stdout:
                self.stdout.write(f"{name:>9} | {line.rstrip()}")

        def stop(*_: Any) -> None:
            stopping.set()

        previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        env = self._child_env(options)
        for name, command in self._commands(options):
            process = subprocess.Popen(
                command,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                bufsize=1,
                env=env,
            )
            children.append((name, process))
            threading.Thread(target=relay, args=(name, process), daemon=True).start()
        self.stdout.write(
            f"Lookout is starting on http://{options['host']}:{options['port']}/ "
            "(Ctrl-C stops everything)"
        )
        if not options["no_simulator"]:
            self.stdout.write(self._simulator_line(options))
            if not options["no_demo_ingest"]:
                threading.Thread(
                    target=self._demo_ingest, args=(options, env, stopping), daemon=True
                ).start()
        try:
            while not stopping.is_set():
                for name, process in children:
                    if process.poll() is not None and not stopping.is_set():
                        failed.append(name)
                        self.stderr.write(
                            f"{name} stopped with exit code {process.returncode}; "
                            "stopping the others"
                        )
                        stopping.set()
                time.sleep(0.2)
        finally:
            for _, process in children:
                if process.poll() is None:
                    process.terminate()
            deadline = time.monotonic() + 10
            for _, process in children:
                try:
                    process.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    process.kill()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        if failed:
            raise SystemExit(1)
