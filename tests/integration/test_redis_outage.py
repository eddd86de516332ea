"""A real Redis stopped mid-run and started again: pages keep answering from the database,
the pollers keep polling, what a user did is kept, and everything recovers by itself."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator

import pytest
from django.core.cache import cache
from django.test import Client

from dashboard.lib.pipelines import pipeline_list
from dashboard.models import AuditEntry, Unit
from dashboard.selectors import storage as storage_selectors
from dashboard.selectors import units as unit_selectors
from dashboard.services import storage as storage_services
from dashboard.services import units as unit_services
from tests.integration.conftest import point_at
from tests.support.redis_server import free_port
from tests.support.simulator_process import SimulatorProcess
from tests.support.users import make_user

pytestmark = [pytest.mark.integration, pytest.mark.django_db]


class RedisProcess:
    """A private redis-server on a fixed port that can be stopped and started again."""

    def __init__(self) -> None:
        self.port = free_port()
        self.workdir = tempfile.mkdtemp(prefix="lookout-redis-outage-")
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed: run `make test`")
        self.process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
            + ["--appendonly", "no", "--dir", self.workdir],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


@pytest.fixture
def redis() -> Iterator[RedisProcess]:
    server = RedisProcess()
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.workdir, ignore_errors=True)


@pytest.fixture
def resilient_cache(settings, redis: RedisProcess) -> RedisProcess:
    """Django's cache as production configures it, on the private Redis."""
    settings.CACHES = {
        "default": {
            "BACKEND": "config.cache.ResilientRedisCache",
            "LOCATION": redis.url,
            "KEY_PREFIX": "dashboard",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 2},
        }
    }
    return redis


def pages(unit_uuid: str, package_uuid: str) -> list[str]:
    return [
        "/",
        "/units/",
        f"/units/{unit_uuid}/",
        "/waiting/",
        "/audit/",
        "/storage/",
        "/storage/packages/",
        f"/storage/packages/{package_uuid}/",
        "/wall/",
        "/api/v1/units/",
        "/api/v1/waiting/",
        "/api/v1/health/",
        "/api/v1/locations/",
    ]


def answers(client: Client, urls: list[str]) -> dict[str, int]:
    return {url: client.get(url).status_code for url in urls}


def test_pages_pollers_and_actions_live_through_a_redis_outage_and_recover(
    settings, resilient_cache
):
    redis = resilient_cache
    with SimulatorProcess(units=30, packages=20, seed=11) as sim:
        point_at(settings, sim)
        pipeline = pipeline_list()[0]
        assert unit_services.workflow_poll(pipeline=pipeline).ok
        assert storage_services.storage_poll().ok
        unit = unit_selectors.unit_list()[0]
        package = storage_selectors.package_list().first()
        assert package is not None
        urls = pages(str(unit.uuid), str(package.uuid))
        viewer = Client()
        viewer.force_login(make_user("vera", "admin"))
        before = answers(viewer, urls)
        assert set(before.values()) == {200}, before
        shown_before = viewer.get("/units/").content.decode().count("<tr")
        assert storage_selectors.storage_summary()  # from the cache

        redis.stop()

        # Pages: the same answers, from the database; nothing is a 500.
        assert answers(viewer, urls) == before
        assert viewer.get("/units/").content.decode().count("<tr") == shown_before
        assert Client().get("/healthz").status_code == 503  # the cache is said to be down
        # The pollers keep polling: the record is the database.
        assert unit_services.workflow_poll(pipeline=pipeline).ok
        # What a user does is kept: an approval goes upstream once and is audited.
        waiting = Unit.objects.filter(awaiting_approval=True).first()
        assert waiting is not None, "the simulator's seed has a transfer awaiting approval"
        confirm = viewer.get(f"/transfers/{waiting.uuid}/approve/confirm/").content.decode()
        token = re.search(r'name="idempotency_key" value="([^"]+)"', confirm).group(1)
        approved = viewer.post(f"/transfers/{waiting.uuid}/approve/", {"idempotency_key": token})
        assert approved.status_code == 302
        entry = AuditEntry.objects.get(action="transfer_approve", target=str(waiting.uuid))
        assert entry.outcome == AuditEntry.Outcome.DONE, entry.upstream_message

        redis.start()  # same port, empty: a Redis that restarted

        # Recovery without a restart: the cache works again and refills.
        deadline = time.monotonic() + 10
        while cache.get("probe") is None and time.monotonic() < deadline:
            cache.set("probe", 1, 30)
            time.sleep(0.2)
        assert cache.get("probe") == 1
        assert storage_services.storage_poll().ok
        assert storage_selectors.storage_summary()
        assert answers(viewer, urls) == before
        assert Client().get("/healthz").status_code in (200, 503)
