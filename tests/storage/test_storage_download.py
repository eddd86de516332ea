"""Package operations through Lookout against the simulator over real HTTP."""

from __future__ import annotations

import re
import tracemalloc
import uuid as uuid_module
from collections.abc import Iterator

import pytest
import requests
from django.contrib.messages import get_messages
from django.urls import reverse

from dashboard.models import AuditEntry, FixityCheck
from dashboard.services import storage as storage_services
from tests.support.simulator_process import SimulatorProcess

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

MB = 1024 * 1024
BIG = 200 * MB


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorProcess]:
    with SimulatorProcess(packages=300, seed=21) as process:
        yield process


@pytest.fixture(autouse=True)
def pointed(settings, sim) -> None:
    settings.LOOKOUT_STORAGE = {"url": sim.storage_url, "user": sim.user, "key": sim.key}


def _get(sim, path: str) -> dict:
    response = requests.get(f"{sim.storage_url}{path}", headers=sim.auth_header, timeout=10)
    response.raise_for_status()
    return response.json()


def _register(sim, *, size: int, location: str = "/api/v2/location/default/AS/") -> str:
    """Record a new AIP of `size` bytes (the simulator streams that many bytes back)."""
    package_uuid = str(uuid_module.uuid4())
    pipeline = _get(sim, "/api/v2/pipeline/")["objects"][0]["resource_uri"]
    body = {
        "uuid": package_uuid,
        "origin_location": "/api/v2/location/default/CP/",
        "origin_path": f"big-{package_uuid}.7z",
        "current_location": location,
        "current_path": f"{package_uuid[:4]}/big-{package_uuid}.7z",
        "package_type": "AIP",
        "size": size,
        "origin_pipeline": pipeline,
    }
    response = requests.post(
        f"{sim.storage_url}/api/v2/file/", json=body, headers=sim.auth_header, timeout=10
    )
    assert response.status_code == 201, response.text
    storage_services.package_refresh(uuid=package_uuid)
    return package_uuid


def _confirmed_post(client, name: str, package_uuid: str, **fields):
    url = reverse(f"dashboard:storage-package-{name}", args=[package_uuid])
    page = client.get(url).content.decode()
    key = re.search(r'name="idempotency_key" value="([^"]+)"', page).group(1)
    return client.post(url, {**fields, "idempotency_key": key})


def test_a_200_mb_download_keeps_memory_flat(client, operator, sim):
    package_uuid = _register(sim, size=BIG)
    client.force_login(operator)

    tracemalloc.start()
    try:
        response = _confirmed_post(client, "download", package_uuid)
        assert response.status_code == 200 and response.streaming
        # Memory already in use (the request, lazily imported modules) is not the stream's.
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        received = 0
        # Reading to the end closes the response: the test client wraps the stream so.
        # A second close() here would end the test's database connection (SQLite
        # ignores that for its in-memory database, PostgreSQL does not).
        for chunk in response.streaming_content:
            received += len(chunk)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert received == BIG
    growth = peak - before
    assert growth < 8 * MB, f"{growth / MB:.1f} MB more while streaming {BIG / MB:.0f} MB"
    assert response["Content-Length"] == str(BIG)
    assert response["Content-Type"] == "application/x-7z-compressed"
    assert f"big-{package_uuid}.7z" in response["Content-Disposition"]
    assert AuditEntry.objects.get().outcome == AuditEntry.Outcome.DONE


def test_a_package_on_the_external_store_is_not_available_locally(client, operator, sim):
    tape = next(
        loc
        for loc in _get(sim, "/api/v2/location/?purpose=AS")["objects"]
        if "tape" in (loc["description"] or "")
    )
    package_uuid = _register(sim, size=10 * MB, location=tape["resource_uri"])
    client.force_login(operator)

    response = _confirmed_post(client, "download", package_uuid)

    assert response.status_code == 302
    texts = [str(m) for m in get_messages(response.wsgi_request)]
    assert any("not locally available" in text for text in texts)
    entry = AuditEntry.objects.get()
    assert entry.outcome == AuditEntry.Outcome.REFUSED and entry.upstream_status == 202


def test_a_fixity_check_runs_against_the_storage_service_and_is_kept(
    client, operator, sim, django_capture_on_commit_callbacks, queued
):
    from dashboard.tasks import check_package_fixity

    package_uuid = _register(sim, size=MB)
    client.force_login(operator)
    with django_capture_on_commit_callbacks(execute=True):
        _confirmed_post(client, "fixity", package_uuid)
    ((name, (check_id,)),) = [q for q in queued if q[0].endswith("check_package_fixity")]

    assert check_package_fixity.run(check_id) == "passed"
    check = FixityCheck.objects.get(pk=check_id)
    assert check.success is True and check.error == ""


def test_package_details_come_from_the_storage_service(sim):
    package_uuid = _register(sim, size=MB)

    details = storage_services.package_details_refresh(uuid=package_uuid)

    assert details["pointer"] and "premis" in details["pointer"]
    assert details["files_error"] == ""
