from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from django.core.cache import cache
from hypothesis import settings as hypothesis_settings

from config.celery import app as celery_app
from tests.support.redis_server import redis_server

# The same examples on every run, so a red CI means a change broke something; set
# HYPOTHESIS_PROFILE=explore to search new inputs while developing.
hypothesis_settings.register_profile("default", derandomize=True)
hypothesis_settings.register_profile("explore", derandomize=False, max_examples=1000)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

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


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--only-database-tests",
        action="store_true",
        default=False,
        help="run only the tests that use a database (the PostgreSQL pass of `make test`)",
    )


def _uses_database(item: pytest.Item) -> bool:
    """What pytest-django lets reach the test database, and tests marked `database`
    (their subprocesses migrate a database of their own). Other tests cannot touch one."""
    return (
        item.get_closest_marker("django_db") is not None
        or item.get_closest_marker("database") is not None
        or "_django_db_helper" in getattr(item, "fixturenames", ())
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if any(item.get_closest_marker(name) for name in SOCKET_MARKERS):
            item.add_marker(pytest.mark.allow_hosts(LOOPBACK))
        if item.get_closest_marker("browser") is not None:
            # A real browser against a live server on a loaded 2-core machine can miss a
            # poll's timing; a failure that is real fails all three runs.
            item.add_marker(pytest.mark.flaky(reruns=2, reruns_delay=1))
    if not config.getoption("only_database_tests"):
        return
    kept = [item for item in items if _uses_database(item)]
    dropped = [item for item in items if not _uses_database(item)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


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
