"""Paging through a large package list of the fake storage service by following `next`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.support.simulator_process import SimulatorProcess

pytestmark = pytest.mark.integration

PACKAGES = 12_000


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorProcess]:
    with SimulatorProcess(units=2, packages=PACKAGES, seed=3) as running:
        yield running


def walk(
    sim: SimulatorProcess, first: str, **kwargs: Any
) -> tuple[list[dict[str, Any]], list[int]]:
    """Every object of a list, following `next` links; also each page's total_count."""
    found: list[dict[str, Any]] = []
    totals: list[int] = []
    url: str | None = first
    while url is not None:
        response = requests.get(f"{sim.storage_url}{url}", timeout=30, **kwargs)
        assert response.status_code == 200, response.text
        body = response.json()
        found += body["objects"]
        totals.append(body["meta"]["total_count"])
        url = body["meta"]["next"]
    return found, totals


def test_following_next_with_query_credentials_visits_every_package_once(sim):
    packages, totals = walk(sim, "/api/v2/file/?limit=0&username=demo&api_key=demo-key")
    assert set(totals) == {PACKAGES}
    assert len(packages) == PACKAGES
    assert len({item["uuid"] for item in packages}) == PACKAGES


def test_following_next_of_a_filtered_list_visits_every_match_once(sim):
    matches, totals = walk(
        sim,
        "/api/v2/file/?package_type=AIP&status__in=UPLOADED,VERIFIED&limit=500",
        headers=sim.auth_header,
    )
    assert len(set(totals)) == 1
    assert len(matches) == totals[0] > PACKAGES // 2
    assert len({item["uuid"] for item in matches}) == len(matches)
    assert {item["package_type"] for item in matches} == {"AIP"}
    assert {item["status"] for item in matches} <= {"UPLOADED", "VERIFIED"}


def test_the_last_page_has_no_next_and_links_back(sim):
    response = requests.get(
        f"{sim.storage_url}/api/v2/file/",
        params={"offset": PACKAGES - 5},
        headers=sim.auth_header,
        timeout=30,
    )
    body = response.json()
    assert len(body["objects"]) == 5
    assert body["meta"]["next"] is None
    assert body["meta"]["previous"] == f"/api/v2/file/?limit=20&offset={PACKAGES - 25}"
