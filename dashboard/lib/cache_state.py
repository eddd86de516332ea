"""Where the pollers keep what they learnt: named keys in Django's cache.

Pages and the API read only from here; only the services in `dashboard.services`
write. Keys are namespaced by the cache KEY_PREFIX ("dashboard") and by pipeline.
Entries live for a week, so an upstream outage leaves the last state readable.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.cache import cache

from dashboard.lib.locks import cache_lock
from dashboard.lib.snapshots import UnitSnapshot

STATE_TTL = 7 * 24 * 3600
JOBS_TTL = 2 * 24 * 3600


def _units_key(pipeline: str) -> str:
    return f"units:{pipeline}"


def units_load(pipeline: str) -> dict[str, UnitSnapshot]:
    raw = cache.get(_units_key(pipeline)) or {}
    return {uuid: UnitSnapshot.from_dict(data) for uuid, data in raw.items()}


def units_save(pipeline: str, units: dict[str, UnitSnapshot]) -> None:
    cache.set(
        _units_key(pipeline), {uuid: unit.to_dict() for uuid, unit in units.items()}, STATE_TTL
    )


def jobs_load(pipeline: str, unit_uuid: str) -> dict[str, Any] | None:
    entry: dict[str, Any] | None = cache.get(f"jobs:{pipeline}:{unit_uuid}")
    return entry


def jobs_load_many(pipeline: str, unit_uuids: list[str]) -> dict[str, dict[str, Any]]:
    """One round trip for many units' jobs entries (missing ones are left out)."""
    keys = {f"jobs:{pipeline}:{uuid}": uuid for uuid in unit_uuids}
    return {keys[key]: entry for key, entry in cache.get_many(list(keys)).items()}


def jobs_wanted_key(pipeline: str) -> str:
    return f"jobs-wanted:{pipeline}"


def jobs_save(pipeline: str, unit_uuid: str, entry: dict[str, Any]) -> None:
    cache.set(f"jobs:{pipeline}:{unit_uuid}", entry, JOBS_TTL)


def registrations_key(pipeline: str) -> str:
    return f"registrations:{pipeline}"


@dataclass(frozen=True)
class Freshness:
    service: str
    last_attempt_at: datetime | None = None
    last_success_at: datetime | None = None
    last_error: str = ""
    last_error_at: datetime | None = None
    last_duration_ms: int | None = None
    last_request_count: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def freshness_load(service: str) -> Freshness:
    data = cache.get(f"freshness:{service}")
    if not data:
        return Freshness(service=service)
    return Freshness(**{**data, "service": service})


def freshness_save(freshness: Freshness) -> None:
    cache.set(f"freshness:{freshness.service}", freshness.to_dict(), STATE_TTL)


def storage_summary_load() -> dict[str, Any] | None:
    summary: dict[str, Any] | None = cache.get("storage:summary")
    return summary


def storage_summary_save(summary: dict[str, Any]) -> None:
    cache.set("storage:summary", summary, STATE_TTL)


def generation_get() -> int:
    return cache.get("generation") or 0


def generation_bump() -> int:
    """Bumped after each successful poll; pages use it to skip unchanged re-renders."""
    try:
        return cache.incr("generation")
    except ValueError:
        cache.set("generation", 1, None)
        return 1


def hidden_load(pipeline: str) -> set[str]:
    """Units hidden through Lookout; kept apart from the unit index the poller rewrites."""
    return set(cache.get(f"hidden:{pipeline}") or ())


def hidden_add(pipeline: str, unit_uuid: str) -> None:
    hidden = hidden_load(pipeline)
    hidden.add(unit_uuid)
    cache.set(f"hidden:{pipeline}", sorted(hidden), STATE_TTL)


# --- mailboxes: requests from pages and actions, taken by the next poll ----------

MAILBOX_LOCK_WAIT = 2.0


def _with_mailbox_lock(key: str, change: Callable[[list[Any]], list[Any] | None]) -> list[Any]:
    """Read-modify-write one mailbox under its lock; returns what it held before."""
    deadline = time.monotonic() + MAILBOX_LOCK_WAIT
    while True:
        with cache_lock(key, ttl=10) as acquired:
            if acquired or time.monotonic() >= deadline:
                held = list(cache.get(key) or [])
                kept = change(held)
                if kept:
                    cache.set(key, kept, STATE_TTL)
                else:
                    cache.delete(key)
                return held
        time.sleep(0.05)


def mailbox_put(key: str, item: Any) -> None:
    _with_mailbox_lock(key, lambda held: [*held, item])


def mailbox_take(key: str) -> list[Any]:
    """Everything left in the mailbox, which is emptied."""
    return _with_mailbox_lock(key, lambda held: None)
