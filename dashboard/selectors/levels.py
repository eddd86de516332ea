"""Levels of description and arranged paths' levels, as the tasks stored them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.core.cache import cache
from django.utils import timezone

from dashboard.lib.cache_state import (
    levels_key,
    levels_request_key,
    path_metadata_key,
    path_metadata_request_key,
)

# Stored levels older than this are fetched again when a page shows them.
LEVELS_MAX_AGE = timedelta(minutes=10)
PATH_METADATA_MAX_AGE = timedelta(minutes=1)


@dataclass(frozen=True)
class StoredLevels:
    levels: tuple[tuple[str, str], ...]  # (UUID, name), in the service's order
    fetched_at: datetime
    listed_at: datetime | None
    error: str
    refreshing: bool

    @property
    def stale(self) -> bool:
        return timezone.now() - self.fetched_at > LEVELS_MAX_AGE


@dataclass(frozen=True)
class StoredPathMetadata:
    path: str
    level: str  # the level's name, "" when none is set
    missing: bool  # the service does not know this arranged path
    error: str
    fetched_at: datetime
    refreshing: bool

    @property
    def stale(self) -> bool:
        return timezone.now() - self.fetched_at > PATH_METADATA_MAX_AGE


def levels_get(*, pipeline: str) -> StoredLevels | None:
    found = cache.get_many([levels_key(pipeline), levels_request_key(pipeline)])
    stored = found.get(levels_key(pipeline))
    if stored is None:
        return None
    return StoredLevels(
        levels=tuple((uuid, name) for uuid, name in stored["levels"]),
        fetched_at=stored["fetched_at"],
        listed_at=stored.get("listed_at"),
        error=stored.get("error", ""),
        refreshing=levels_request_key(pipeline) in found,
    )


def path_metadata_get(*, pipeline: str, path: str) -> StoredPathMetadata | None:
    key, request_key = path_metadata_key(pipeline, path), path_metadata_request_key(pipeline, path)
    found = cache.get_many([key, request_key])
    stored = found.get(key)
    if stored is None:
        return None
    return StoredPathMetadata(
        path=stored["path"],
        level=stored["level"],
        missing=stored["missing"],
        error=stored["error"],
        fetched_at=stored["fetched_at"],
        refreshing=request_key in found,
    )
