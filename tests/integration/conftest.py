from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.cache import cache

from tests.support.databases import scratch_database


@pytest.fixture
def redis_cache(settings, redis_url: str) -> Iterator[str]:
    """Point Django's cache at the private test Redis, emptied before and after."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": "dashboard",
        }
    }
    cache.clear()
    yield redis_url
    cache.clear()


@pytest.fixture
def scratch_database_url(tmp_path: Path) -> Iterator[str]:
    """An empty database for a subprocess: SQLite, or PostgreSQL on the PostgreSQL pass."""
    with scratch_database(tmp_path, "scratch") as url:
        yield url


def point_at(settings, sim) -> None:
    settings.LOOKOUT_PIPELINES = [
        {
            "slug": "default",
            "name": "Default pipeline",
            "url": sim.workflow_url,
            "user": sim.user,
            "key": sim.key,
        }
    ]
    settings.LOOKOUT_STORAGE = {"url": sim.storage_url, "user": sim.user, "key": sim.key}
