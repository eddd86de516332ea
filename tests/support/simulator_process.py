"""Run the simulator as a separate process for tests that talk real HTTP.

    with SimulatorProcess(units=10, seed=3) as sim:
        requests.get(f"{sim.workflow_url}/api/transfer/completed", headers=sim.auth_header)

Keyword options map to the CLI flags (`latency_ms=5` -> `--latency-ms 5`, and
`legacy_quirks=True` -> `--legacy-quirks`). With `pipelines=N` it serves N workflow
services on free ports (`workflow_urls`, pipeline 1 first) beside one storage service;
`lookout_pipelines()` gives Lookout's LOOKOUT_PIPELINES for them.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
import urllib.request
from collections import deque
from pathlib import Path
from typing import IO, Any, NoReturn

from config.pipelines import simulator_pipelines

PROJECT_ROOT = Path(__file__).resolve().parents[2]
LISTENING = " listening on "
START_TIMEOUT_SECONDS = 20.0


class SimulatorStartError(RuntimeError):
    pass


class SimulatorProcess:
    def __init__(self, **options: Any) -> None:
        self.options = {"workflow_port": 0, "storage_port": 0, **options}
        self.user: str = str(self.options.get("user", "demo"))
        self.key: str = str(self.options.get("key", "demo-key"))
        self.pipelines = int(self.options.get("pipelines", 1))
        if self.pipelines > 1 and self.options["workflow_port"] == 0:
            self.options.setdefault("extra_workflow_ports", ",".join(["0"] * (self.pipelines - 1)))
        self.workflow_url = ""
        self.workflow_urls: list[str] = []
        self.storage_url = ""
        self._process: subprocess.Popen[str] | None = None
        # stderr is drained continuously so a chatty process never blocks on a full pipe.
        self._stderr_tail: deque[str] = deque(maxlen=400)
        self._stderr_reader: threading.Thread | None = None
        self._stdout_reader: threading.Thread | None = None

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    @property
    def auth_header(self) -> dict[str, str]:
        return {"Authorization": f"ApiKey {self.user}:{self.key}"}

    def command(self) -> list[str]:
        args = [sys.executable, "-m", "simulator"]
        for name, value in self.options.items():
            flag = f"--{name.replace('_', '-')}"
            if isinstance(value, bool):
                # Switches such as `legacy_quirks=True` take no value.
                args += [flag] if value else []
            else:
                args += [flag, str(value)]
        return args

    def start(self) -> SimulatorProcess:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self._process = subprocess.Popen(
            self.command(),
            cwd=PROJECT_ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self._process.stderr is not None
        self._stderr_reader = threading.Thread(
            target=_collect, args=(self._process.stderr, self._stderr_tail), daemon=True
        )
        self._stderr_reader.start()
        urls = self._read_listening_lines(self._process)
        self.workflow_url = urls["workflow service"]
        self.workflow_urls = [self.workflow_url] + [
            urls[f"workflow service {number}"] for number in range(2, self.pipelines + 1)
        ]
        self.storage_url = urls["storage service"]
        return self

    def lookout_pipelines(self) -> list[dict[str, Any]]:
        """LOOKOUT_PIPELINES for every workflow service (slugs default, pipeline-2, ...)."""
        return simulator_pipelines(self.workflow_urls, user=self.user, key=self.key)

    def lookout_storage(self) -> dict[str, str]:
        """LOOKOUT_STORAGE for the storage service."""
        return {"url": self.storage_url, "user": self.user, "key": self.key}

    def _read_listening_lines(self, process: subprocess.Popen[str]) -> dict[str, str]:
        assert process.stdout is not None
        lines: queue.Queue[str | None] = queue.Queue()
        self._stdout_reader = threading.Thread(
            target=_pump, args=(process.stdout, lines), daemon=True
        )
        self._stdout_reader.start()
        urls: dict[str, str] = {}
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while len(urls) < self.pipelines + 1:
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self._fail(f"did not announce every service within {START_TIMEOUT_SECONDS:.0f} s")
            if line is None:
                self._fail("exited before announcing every service")
            elif LISTENING in line:
                label, url = line.strip().split(LISTENING, 1)
                urls[label] = url
        return urls

    def _fail(self, reason: str) -> NoReturn:
        self.stop()
        raise SimulatorStartError(f"simulator {reason}; stderr:\n{self.stderr}")

    def control(
        self, path: str, payload: dict[str, Any] | None = None, *, pipeline: int = 1
    ) -> Any:
        """GET (no payload) or POST JSON to `/_simulator/<path>` on that pipeline's workflow
        service; returns the decoded JSON."""
        url = f"{self.workflow_urls[pipeline - 1]}/_simulator/{path.strip('/')}"
        data = None if payload is None else json.dumps(payload).encode("utf-8")
        request = urllib.request.Request(url, data=data, method="GET" if data is None else "POST")
        request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read().decode("utf-8"))

    @property
    def stderr(self) -> str:
        """What the process wrote to stderr so far (the last few hundred lines)."""
        return "".join(self._stderr_tail)

    def stop(self) -> None:
        if self._process is None:
            return
        self._terminate(self._process)
        # The readers end at EOF once the process is gone; close the pipes after them.
        for reader in (self._stdout_reader, self._stderr_reader):
            if reader is not None:
                reader.join(timeout=5)
        for stream in (self._process.stdout, self._process.stderr):
            if stream is not None:
                stream.close()
        self._process = None

    @staticmethod
    def _terminate(process: subprocess.Popen[str]) -> None:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def __enter__(self) -> SimulatorProcess:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _pump(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)  # end of output: the process died


def _collect(stream: IO[str], tail: deque[str]) -> None:
    for line in stream:
        tail.append(line)
