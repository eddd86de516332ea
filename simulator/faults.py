"""Fault and latency injection around each fake service.

Rates can change at run time (the `/_simulator/faults` endpoint), so they
live in a small mutable object shared by both services. Test-control paths
under `/_simulator/` are never delayed or faulted.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from simulator.wsgi import Environ, StartResponse, WsgiApp, status_line

CONTROL_PREFIX = "/_simulator/"

# The body of a "500" in the style of one service: (content type, body).
ErrorBody = Callable[[], tuple[str, bytes]]


@dataclass
class FaultDecision:
    error: bool = False
    timeout: bool = False
    malformed: bool = False


class FaultSettings:
    """Current fault rates plus the random stream that draws from them."""

    def __init__(
        self,
        *,
        seed: int,
        error_rate: float = 0.0,
        timeout_rate: float = 0.0,
        malformed_rate: float = 0.0,
        timeout_seconds: float = 30.0,
        latency_ms: int = 0,
    ) -> None:
        self.error_rate = error_rate
        self.timeout_rate = timeout_rate
        self.malformed_rate = malformed_rate
        self.timeout_seconds = timeout_seconds
        self.latency_ms = latency_ms
        self._rng = random.Random(f"{seed}:faults")
        self._lock = threading.Lock()

    def update(self, changes: dict[str, float]) -> None:
        """Set any of error_rate, timeout_rate, malformed_rate; ValueError on a bad value."""
        allowed = {"error_rate", "timeout_rate", "malformed_rate"}
        unknown = set(changes) - allowed
        if unknown:
            raise ValueError(f"unknown fault setting(s): {', '.join(sorted(unknown))}")
        checked = {}
        for name, value in changes.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{name} must be a number")
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1")
            checked[name] = float(value)
        with self._lock:
            for name, value in checked.items():
                setattr(self, name, value)

    def as_dict(self) -> dict[str, float]:
        return {
            "error_rate": self.error_rate,
            "timeout_rate": self.timeout_rate,
            "malformed_rate": self.malformed_rate,
        }

    def chance(self, rate: float) -> bool:
        if rate <= 0:
            return False
        with self._lock:
            return self._rng.random() < rate

    def decide(self) -> FaultDecision:
        # One draw per knob keeps each fault kind independent of the others.
        return FaultDecision(
            error=self.chance(self.error_rate),
            timeout=self.chance(self.timeout_rate),
            malformed=self.chance(self.malformed_rate),
        )


def garble(body: bytes) -> bytes:
    """A JSON body cut short, so that it no longer parses."""
    if len(body) > 2:
        return body[: len(body) // 2]
    return b'{"'


def with_faults(app: WsgiApp, settings: FaultSettings, error_body: ErrorBody) -> WsgiApp:
    """Wrap `app` so that requests get latency, 500s, hangs and garbled bodies."""

    def middleware(environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO", "").startswith(CONTROL_PREFIX):
            return app(environ, start_response)
        if settings.latency_ms:
            time.sleep(settings.latency_ms / 1000)
        decision = settings.decide()
        if decision.timeout:
            time.sleep(settings.timeout_seconds)
        if decision.error:
            content_type, body = error_body()
            start_response(
                status_line(500),
                [("Content-Type", content_type), ("Content-Length", str(len(body)))],
            )
            return [body]
        if decision.malformed:
            return _garbled(app, environ, start_response)
        return app(environ, start_response)

    return middleware


def _garbled(app: WsgiApp, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
    def discard(status: str, headers: list[tuple[str, str]], exc_info: object = None) -> None:
        """The real status and headers are replaced below."""

    body = b"".join(app(environ, discard))
    garbled = garble(body)
    start_response(
        status_line(200),
        [("Content-Type", "application/json"), ("Content-Length", str(len(garbled)))],
    )
    return [garbled]
