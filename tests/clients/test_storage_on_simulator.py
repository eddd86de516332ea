"""The storage client against the simulator process, in both of its modes.

The mocked tests beside this one check what the client sends; these check that what
it sends does what it means on a service that answers as release 0.23.0 does. With
the old client (a pipeline URI for recovery, `METADATA_ONLY` for a metadata reingest)
both tests of the first part fail, although the client's own tests and the
simulator's contract tests each passed with those mistakes.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from dashboard.clients.storage import PackageStatus, PackageType, ReingestType, StorageClient
from tests.support.simulator_process import SimulatorProcess

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorProcess]:
    with SimulatorProcess(units=2, packages=300, seed=13) as running:
        yield running


@pytest.fixture
def client(sim) -> StorageClient:
    return StorageClient(sim.storage_url, sim.user, sim.key)


def uploaded_aips(client: StorageClient, sim: SimulatorProcess) -> Iterator[str]:
    """UUIDs of uploaded AIPs of the simulated pipeline (the one that can reingest)."""
    main = next(p for p in client.list_pipelines() if p.description == "Simulated pipeline")
    for package in client.list_packages(package_type="AIP", status="UPLOADED", limit=1000):
        if package.origin_pipeline_uuid == main.uuid and not package.misc_attributes:
            yield package.uuid


def test_a_recovery_request_reaches_the_service(client, sim):
    aip = next(uploaded_aips(client, sim))
    pipeline = next(p for p in client.list_pipelines() if p.description == "Simulated pipeline")

    receipt = client.request_recovery(
        aip, pipeline_uuid=pipeline.uuid, reason="Damaged copy", user_id=2, user_email="a@b.test"
    )

    assert receipt.request_id is not None
    assert client.get_package(aip).status == PackageStatus.RECOVER_REQ


def test_a_metadata_only_reingest_reingests_the_metadata(client, sim):
    aip = next(uploaded_aips(client, sim))
    pipeline = next(p for p in client.list_pipelines() if p.description == "Simulated pipeline")

    client.reingest(aip, pipeline_uuid=pipeline.uuid, reingest_type=ReingestType.METADATA_ONLY)

    state = requests.get(f"{sim.storage_url}/_simulator/state/", timeout=10).json()
    assert state["reingests"][-1]["package"] == aip
    assert state["reingests"][-1]["sent"] == "metadata"


def test_numbers_sent_as_strings_by_older_releases_are_read_as_numbers():
    with SimulatorProcess(units=2, packages=300, seed=13, legacy_quirks=True) as legacy:
        client = StorageClient(legacy.storage_url, legacy.user, legacy.key)
        packages = list(client.list_packages(limit=1000))
        spaces = list(client.list_spaces())
        locations = list(client.list_locations())
        raw = requests.get(
            f"{legacy.storage_url}/api/v2/space/", headers=legacy.auth_header, timeout=10
        ).json()

    assert isinstance(raw["objects"][0]["used"], str)  # the quirk is really there
    assert len(packages) == 300 and all(isinstance(p.size, int) for p in packages)
    assert {p.package_type for p in packages} <= set(PackageType)
    assert all(isinstance(space.used, int) for space in spaces)
    assert any(location.quota for location in locations)
    assert all(isinstance(location.used, int) for location in locations)
