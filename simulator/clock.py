"""Simulated time shared by both fake services.

Simulated time runs `speed` times faster than real time and can be pushed
forward by hand, so tests can skip ahead without sleeping.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta


class SimClock:
    """Naive-UTC clock: start + real elapsed x speed + manual offset."""

    def __init__(self, speed: float = 1.0, start: datetime | None = None) -> None:
        if speed < 0:
            raise ValueError("speed must not be negative")
        self.speed = speed
        # Default to the real current time so the demo shows believable dates;
        # pass a fixed start to make timestamps repeatable too.
        if start is None:
            start = datetime.now(UTC)
        if start.tzinfo is not None:
            start = start.astimezone(UTC)
        self.start = start.replace(tzinfo=None, microsecond=0)
        self._real_start = time.monotonic()
        self._offset_seconds = 0.0
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            elapsed = (time.monotonic() - self._real_start) * self.speed
            return self.start + timedelta(seconds=elapsed + self._offset_seconds)

    def set_speed(self, speed: float) -> None:
        """Run at `speed` from now on (0 stops the clock) without a jump in time."""
        if speed < 0:
            raise ValueError("speed must not be negative")
        with self._lock:
            elapsed = (time.monotonic() - self._real_start) * self.speed
            self._offset_seconds += elapsed
            self._real_start = time.monotonic()
            self.speed = speed

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        with self._lock:
            self._offset_seconds += seconds
