"""The workflow service's job server, as far as its dashboard and approvals notice it.

While it is "down" (the control route `/_simulator/mcp/`):
- the status lists answer `{"objects": {}, "mcp": false}` after `wait_seconds` (as usual
  if it comes back meanwhile);
- `/status/` and `/mcp/execute/` get no answer until it is back, or until
  `hang_seconds` pass (then 504, as a proxy in front of the service would answer);
- a decision sent meanwhile is queued and carried out when it comes back;
- an approval waits `wait_seconds`, then 500 "Unable to start the transfer.".
While up, `slow_seconds` is added to every call that goes through it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class QueuedAnswer:
    job_uuid: str
    choice: str


class JobServer:
    def __init__(self, *, wait_seconds: float, hang_seconds: float) -> None:
        self.up = True
        self.wait_seconds = wait_seconds
        self.hang_seconds = hang_seconds
        self.slow_seconds = 0.0
        self._queued: list[QueuedAnswer] = []
        self._changed = threading.Condition()

    def as_dict(self) -> dict[str, Any]:
        with self._changed:
            return {
                "up": self.up,
                "wait_seconds": self.wait_seconds,
                "hang_seconds": self.hang_seconds,
                "slow_seconds": self.slow_seconds,
                "queued": len(self._queued),
            }

    def update(self, changes: dict[str, Any], carry_out: Callable[[QueuedAnswer], None]) -> None:
        """Apply {"up": bool, "wait_seconds", "hang_seconds", "slow_seconds": N};
        ValueError on a bad one. Coming back up carries out the queued answers, in order."""
        numbers = {"wait_seconds", "hang_seconds", "slow_seconds"}
        unknown = set(changes) - numbers - {"up"}
        if unknown:
            raise ValueError(f"unknown job server setting(s): {', '.join(sorted(unknown))}")
        if "up" in changes and not isinstance(changes["up"], bool):
            raise ValueError("up must be true or false")
        for name in numbers & set(changes):
            value = changes[name]
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ValueError(f"{name} must be a number of seconds")
        with self._changed:
            for name in numbers & set(changes):
                setattr(self, name, float(changes[name]))
            if changes.get("up") is True and not self.up:
                queued, self._queued = self._queued, []
                for answer in queued:
                    carry_out(answer)
            if "up" in changes:
                self.up = changes["up"]
            self._changed.notify_all()

    def queue_if_down(self, answer: QueuedAnswer) -> bool:
        """Queue an answer while down (carried out on coming back); False when up."""
        with self._changed:
            if self.up:
                return False
            self._queued.append(answer)
            return True

    def wait_until_up(self, timeout: float | None = None) -> bool:
        """Block until the job server is up; False when `timeout` (by default
        `hang_seconds`) passed first."""
        with self._changed:
            limit = self.hang_seconds if timeout is None else timeout
            return self._changed.wait_for(lambda: self.up, timeout=limit)
