from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.cache import cache

from config.celery import app as celery_app
from tests.support.redis_server import redis_server

# Tasks enqueued by views in tests go to an in-process broker, never to files in var/.
celery_app.conf.broker_url = "memory://"

LOCMEM = {
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "KEY_PREFIX": "dashboard",
        "TIMEOUT": 3600,
    }
}


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


@pytest.fixture(autouse=True)
def _no_poll_records_from_earlier_tests(request: pytest.FixtureRequest) -> None:
    """Start every database test with no poll record.

    A live-server thread of a browser test can still be answering (and recording) after
    its test's flush; freshness decides whole pages, so no test may inherit one.
    """
    if request.node.get_closest_marker("django_db") is None and "db" not in request.fixturenames:
        return
    request.getfixturevalue("_django_db_helper")
    from dashboard.models import ServicePoll

    ServicePoll.objects.all().delete()


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url
