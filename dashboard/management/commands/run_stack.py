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
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

# The simulator's arrivals for the demo: a transfer every two minutes on average, and
# about once an hour a burst of five more.
DEMO_ARRIVALS_PER_HOUR = 30.0
DEMO_ARRIVAL_BURST = 5
# Four weeks of finished work before the start, so the analytics page has something to
# show on first start (Lookout learns it from the completed lists and the units' jobs).
DEMO_HISTORY_DAYS = 28.0


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
        return ports

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
        for name, command in self._commands(options):
            process = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
            )
            children.append((name, process))
            threading.Thread(target=relay, args=(name, process), daemon=True).start()
        self.stdout.write(
            f"Lookout is starting on http://{options['host']}:{options['port']}/ "
            "(Ctrl-C stops everything)"
        )
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
