"""What Lookout keeps only in Django's cache, and the names it keeps it under.

Everything here can be fetched again from upstream, and is: the storage service's
summary (pipelines, spaces, locations; refilled by the next storage poll), a package's
contents and pointer file, a directory listing, and the package mirror's sync cursor (a
lost cursor means one full resync). Units, jobs, freshness, locks and the package
mirror itself live in the database.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.cache import cache

STATE_TTL = 7 * 24 * 3600


def storage_summary_load() -> dict[str, Any] | None:
    summary: dict[str, Any] | None = cache.get("storage:summary")
    return summary


def storage_summary_save(summary: dict[str, Any]) -> None:
    cache.set("storage:summary", summary, STATE_TTL)


SYNC_KEY = "storage:package-sync"


DETAILS_TTL = 24 * 3600


def details_key(package_uuid: str) -> str:
    return f"storage:package-details:{package_uuid}"


@dataclass
class PackageSyncState:
    """Where the package mirror stands; kept in the cache between cycles."""

    last_full_sync_at: datetime | None = None
    last_incremental_at: datetime | None = None
    # A full resync under way: when it started and how far it got.
    full_sync_started_at: datetime | None = None
    full_sync_offset: int = 0
    full_sync_requested: bool = False
    # Newest `stored_date` seen, naive, in the storage server's clock (as the filter wants).
    stored_date_cursor: datetime | None = None
    upstream_total: int | None = None

    @property
    def has_baseline(self) -> bool:
        return self.last_full_sync_at is not None


def package_sync_state_load() -> PackageSyncState:
    data = cache.get(SYNC_KEY) or {}
    known = {name for name in PackageSyncState.__dataclass_fields__}
    return PackageSyncState(**{k: v for k, v in data.items() if k in known})


def package_sync_state_save(sync: PackageSyncState) -> None:
    cache.set(SYNC_KEY, dict(sync.__dict__), STATE_TTL)


# The database is the record, the cache only caches. A browse listing is no record of
# Lookout's: it is a view of one directory upstream that can be fetched again at any
# time, so the cache is the right place for it, and an evicted or expired listing is
# simply fetched again when someone opens the directory.
LISTING_TTL = 3600


# How long a queued fetch counts as under way: the page waits for it that long at most,
# and no other fetch of the directory is queued meanwhile (a lost task frees it then).
LISTING_REQUEST_TTL = 120


def listing_id(location_uuid: str, path: bytes) -> str:
    """A short, key-safe name for one directory: paths are raw bytes of any length."""
    return f"{location_uuid}:{hashlib.sha256(path).hexdigest()}"


def listing_key(location_uuid: str, path: bytes) -> str:
    return f"storage:listing:{listing_id(location_uuid, path)}"


def listing_request_key(location_uuid: str, path: bytes) -> str:
    return f"storage:listing-requested:{listing_id(location_uuid, path)}"
