from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.cache import cache

from config.celery import app as celery_app
from tests.support.redis_server import redis_server

# Tasks enqueued by views in tests go to an in-process broker, never to files in var/.
celery_app.conf.broker_url = "memory://"

# Where tests marked integration or browser may connect (pytest-socket); others get no socket.
LOOPBACK = ["127.0.0.1", "localhost", "::1"]
SOCKET_MARKERS = ("integration", "browser")

LOCMEM = {
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "KEY_PREFIX": "dashboard",
        "TIMEOUT": 3600,
    }
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if any(item.get_closest_marker(name) for name in SOCKET_MARKERS):
            item.add_marker(pytest.mark.allow_hosts(LOOPBACK))


@pytest.fixture(autouse=True)
def _isolated_cache(request: pytest.FixtureRequest, settings) -> Iterator[None]:
    """Unit tests get a fresh in-memory cache; integration tests bring their own Redis."""
    # Fast hashing: the tests create many users; production keeps Django's default.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    if request.node.get_closest_marker("integration") is not None:
        yield  # these tests point the cache at their own Redis
        return
    settings.CACHES = LOCMEM
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url
