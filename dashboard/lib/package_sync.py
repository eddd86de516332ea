"""Where the package mirror stands between storage polls, as a typed value."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass
class PackageSyncState:
    """Where the package mirror stands; kept in the database between cycles."""

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
