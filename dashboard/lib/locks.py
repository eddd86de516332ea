"""A lock held in the shared cache, so overlapping poller runs skip instead of piling up."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from django.core.cache import cache


@contextmanager
def cache_lock(name: str, *, ttl: int) -> Iterator[bool]:
    """Yield True if this caller got the lock. The TTL frees it if the holder dies."""
    key = f"lock:{name}"
    token = uuid.uuid4().hex
    acquired = cache.add(key, token, ttl)
    try:
        yield acquired
    finally:
        # Only release our own lock: it may have expired and been taken by another run.
        if acquired and cache.get(key) == token:
            cache.delete(key)
