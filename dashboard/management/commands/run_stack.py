"""`manage.py run_stack`: the whole demo in one terminal.

Starts the simulator, a Celery worker, Celery beat and the web server as child
processes, prefixes their output with their name, and stops them all together.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Run the simulator, Celery worker and beat, and the web server until Ctrl-C."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument(
            "--no-simulator",
            action="store_true",
            help="do not start the simulator (Lookout is pointed at real services)",
        )
        parser.add_argument("--units", type=int, default=60, help="simulator units")
        parser.add_argument("--packages", type=int, default=300, help="simulator packages")

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
                        "8001",
                        "--storage-port",
                        "8002",
                        "--units",
                        str(options["units"]),
                        "--packages",
                        str(options["packages"]),
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
                    "-b",
                    f"{options['host']}:{options['port']}",
                    "-w",
                    "2",
                    "--threads",
                    "4",
                    "--access-logfile",
                    "-",
                ],
            ),
        ]
        return commands

    def handle(self, *args: Any, **options: Any) -> None:
        children: list[tuple[str, subprocess.Popen[str]]] = []
        stopping = threading.Event()

        def relay(name: str, process: subprocess.Popen[str]) -> None:
            assert process.stdout is not None
            for line in process.stdout:
                self.stdout.write(f"{name:>9} | {line.rstrip()}")

        def stop(*_: Any) -> None:
            stopping.set()

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
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
                    if process.poll() is not None:
                        self.stderr.write(f"{name} exited with {process.returncode}; stopping")
                        stopping.set()
                time.sleep(0.5)
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
