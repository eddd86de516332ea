"""Contract tests of `--legacy-quirks`: big integers as releases before 0.17 sent them.

Under tastypie 0.13 (storage service up to 0.16) big-integer columns went out as
numeric strings: package sizes, space and location usage, location quotas. The
default mode answers as release 0.23.0 (integers, `test_storage_release_0_23.py`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.support.simulator_process import SimulatorProcess

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorProcess]:
    with SimulatorProcess(units=2, packages=400, seed=5, legacy_quirks=True) as running:
        yield running


def objects(sim: SimulatorProcess, path: str, **params: Any) -> list[dict[str, Any]]:
    response = requests.get(
        f"{sim.storage_url}{path}",
        headers=sim.auth_header,
        params={"limit": 0, **params},
        timeout=10,
    )
    assert response.status_code == 200, response.text
    return response.json()["objects"]


def test_it_sends_most_sizes_as_numbers_and_some_as_strings(sim):
    sizes = [item["size"] for item in objects(sim, "/api/v2/file/")]
    as_strings = [size for size in sizes if isinstance(size, str)]
    assert as_strings and all(size.isdigit() for size in as_strings)
    assert len(as_strings) < len(sizes) / 2
    assert all(isinstance(size, int) for size in sizes if not isinstance(size, str))


def test_it_sends_space_usage_as_a_string(sim):
    for item in objects(sim, "/api/v2/space/"):
        assert isinstance(item["used"], str) and item["used"].isdigit()
        assert item["size"] is None or isinstance(item["size"], int)


def test_it_sends_location_usage_and_quota_as_strings(sim):
    locations = objects(sim, "/api/v2/location/")
    assert any(item["quota"] is not None for item in locations)
    for item in locations:
        assert isinstance(item["used"], str) and item["used"].isdigit()
        assert item["quota"] is None or item["quota"].isdigit()
