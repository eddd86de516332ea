"""The one value still kept only in Django's cache: the storage service's summary.

Pipelines, spaces and locations as the last storage poll listed them; a flushed cache
is refilled by the next storage poll (every minute). Units, jobs, freshness and the
package mirror live in the database.
"""

from __future__ import annotations

from typing import Any

from django.core.cache import cache

STATE_TTL = 7 * 24 * 3600


def storage_summary_load() -> dict[str, Any] | None:
    return cache.get("storage:summary")


def storage_summary_save(summary: dict[str, Any]) -> None:
    cache.set("storage:summary", summary, STATE_TTL)
