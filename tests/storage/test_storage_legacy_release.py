"""Lookout's storage layer against the simulator's `--legacy-quirks` mode.

Releases before 0.17 sent big integers as strings: package sizes, location usage. The
poll must store and cache them as numbers all the same.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from dashboard.clients.storage import StorageClient
from dashboard.models import StoragePackage
from dashboard.selectors import storage as storage_selectors
from dashboard.services import storage as storage_services
from tests.support.simulator_process import SimulatorProcess

pytestmark = [pytest.mark.integration, pytest.mark.django_db]


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorProcess]:
    with SimulatorProcess(packages=600, seed=11, legacy_quirks=True) as process:
        yield process


@pytest.fixture
def polled(sim) -> SimulatorProcess:
    client = StorageClient(sim.storage_url, sim.user, sim.key)
    assert storage_services.storage_poll(client=client, budget_seconds=float("inf")).ok
    return sim


def raw_objects(sim: SimulatorProcess, resource: str) -> list[dict]:
    response = requests.get(
        f"{sim.storage_url}/api/v2/{resource}/?limit=0", headers=sim.auth_header, timeout=10
    )
    return response.json()["objects"]


def test_sizes_sent_as_strings_are_stored_as_numbers(polled):
    as_strings = [p for p in raw_objects(polled, "file") if isinstance(p["size"], str)]
    assert as_strings, "the simulator sends some sizes as strings"

    for raw in as_strings:
        assert StoragePackage.objects.get(uuid=raw["uuid"]).size == int(raw["size"])


def test_location_usage_sent_as_strings_is_cached_as_numbers(polled):
    raw = raw_objects(polled, "location")
    assert all(isinstance(loc["used"], str) for loc in raw)

    cached = {loc["uuid"]: loc for loc in storage_selectors.storage_summary()["locations"]}
    for loc in raw:
        assert cached[loc["uuid"]]["used"] == int(loc["used"])
