from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.cache import cache


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
