"""`simulate --pipelines N --source-items M`: several workflow services (own ports, own
units, own pace, own dashboard) beside one storage service that knows every pipeline,
a folder `batch/` of items in the default transfer source, and a record of every start."""

from __future__ import annotations

import base64
import random
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from simulator.config import SimulatorConfig
from simulator.scenario import Outcome, transfer_route
from simulator.server import Simulation
from simulator.storage import source_item_names
from tests.support.dashboard_session import sign_in
from tests.support.simulator_process import SimulatorProcess

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorProcess]:
    options = {"units": 8, "packages": 0, "seed": 4, "source_items": 25}
    with SimulatorProcess(pipelines=2, history_days=2, speed=0, **options) as process:
        yield process


def get(sim: SimulatorProcess, url: str, **params: Any) -> Any:
    response = requests.get(url, headers=sim.auth_header, params=params, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def storage_list(sim: SimulatorProcess, resource: str, **params: Any) -> list[dict[str, Any]]:
    return get(sim, f"{sim.storage_url}/api/v2/{resource}/", limit=1000, **params)["objects"]


def transfer_source(sim: SimulatorProcess) -> str:
    location, _ = sim.control("state")["transfer_sources"][0]
    return location


def start(sim: SimulatorProcess, pipeline: int, name: str, path: str) -> requests.Response:
    url = sim.workflow_urls[pipeline - 1]
    encoded = b64(f"{transfer_source(sim)}:{path}")
    form = {"name": name, "type": "standard", "paths[]": [encoded], "row_ids[]": [""]}
    return requests.post(
        f"{url}/api/transfer/start_transfer/", data=form, headers=sim.auth_header, timeout=10
    )


def test_each_pipeline_answers_with_its_own_units_on_its_own_port(sim):
    first, second = sim.workflow_urls
    assert first != second
    units = [{u["uuid"] for u in sim.control("units", pipeline=n)["units"]} for n in (1, 2)]
    assert units[0] and units[1]
    assert not units[0] & units[1]
    a_unit_of_the_first = sorted(units[0])[0]
    elsewhere = requests.get(
        f"{second}/api/transfer/status/{a_unit_of_the_first}/",
        headers=sim.auth_header,
        timeout=10,
    )
    assert elsewhere.status_code != 200


def test_the_storage_service_lists_both_pipelines_each_with_its_processing_location(sim):
    uuids = [sim.control("state", pipeline=n)["pipeline_uuid"] for n in (1, 2)]
    assert uuids[0] != uuids[1]
    listed = {p["uuid"]: p for p in storage_list(sim, "pipeline")}
    assert listed[uuids[0]]["description"] == "Simulated pipeline"
    assert listed[uuids[1]]["description"] == "Simulated pipeline 2"
    # Known by address, as a real storage service knows each pipeline.
    assert [listed[uuid]["remote_name"] for uuid in uuids] == sim.workflow_urls
    processing = storage_list(sim, "location", purpose="CP")
    for uuid in uuids:
        own = [loc for loc in processing if loc["pipeline"] == [f"/api/v2/pipeline/{uuid}/"]]
        assert len(own) == 1, processing
    shared_paths = {loc["path"] for loc in processing if len(loc["pipeline"]) == 1}
    assert len(shared_paths) >= 2  # not the same directory


def test_the_storage_service_holds_packages_stored_by_each_pipeline(sim):
    origins = {p["origin_pipeline"] for p in storage_list(sim, "file", package_type="AIP")}
    for n in (1, 2):
        uuid = sim.control("state", pipeline=n)["pipeline_uuid"]
        assert f"/api/v2/pipeline/{uuid}/" in origins


def test_source_items_are_listed_by_the_location_browse(sim):
    location = transfer_source(sim)
    top = get(sim, f"{sim.storage_url}/api/v2/location/{location}/browse/")
    assert b64("batch") in top["directories"]
    batch = get(sim, f"{sim.storage_url}/api/v2/location/{location}/browse/", path=b64("batch"))
    names = [base64.b64decode(entry).decode() for entry in batch["entries"]]
    assert names == source_item_names(25)
    zips = [name for name in names if name.endswith(".zip")]
    assert zips == ["item-010.zip", "item-020.zip"]
    folders = {base64.b64decode(entry).decode() for entry in batch["directories"]}
    assert folders == set(names) - set(zips)
    assert batch["properties"][b64("item-001")]["object count"] >= 1


def test_a_source_item_starts_a_transfer_named_after_it_on_either_pipeline(sim):
    for pipeline, item in ((1, "item-005"), (2, "item-020.zip")):
        name = item.removesuffix(".zip")
        answer = start(sim, pipeline, name, f"batch/{item}")
        assert answer.status_code == 200, answer.text
        url = sim.workflow_urls[pipeline - 1]
        unapproved = get(sim, f"{url}/api/transfer/unapproved")["results"]
        assert name in {entry["directory"] for entry in unapproved}
        other = sim.workflow_urls[2 - pipeline]
        assert name not in {
            e["directory"] for e in get(sim, f"{other}/api/transfer/unapproved")["results"]
        }


def test_each_pipeline_has_its_own_dashboard_sessions(sim):
    session, answer = sign_in(sim, pipeline=2)
    assert answer.status_code == 302
    second, first = sim.workflow_urls[1], sim.workflow_urls[0]
    assert session.get(f"{second}/status/", allow_redirects=False, timeout=10).status_code == 200
    elsewhere = session.get(f"{first}/status/", allow_redirects=False, timeout=10)
    assert elsewhere.status_code == 302


def test_fault_rates_are_set_per_pipeline():
    with SimulatorProcess(pipelines=2, units=2, packages=0, speed=0) as process:
        process.control("faults", {"error_rate": 1.0}, pipeline=2)
        broken = requests.get(
            f"{process.workflow_urls[1]}/api/transfer/completed",
            headers=process.auth_header,
            timeout=10,
        )
        fine = requests.get(
            f"{process.workflow_urls[0]}/api/transfer/completed",
            headers=process.auth_header,
            timeout=10,
        )
    assert broken.status_code == 500
    assert fine.status_code == 200


def test_every_start_is_recorded_per_pipeline_and_per_name():
    with SimulatorProcess(pipelines=2, units=0, packages=0, speed=0, source_items=5) as process:
        assert process.control("starts")["total"] == 0
        for pipeline, item in ((1, "item-001"), (2, "item-002"), (1, "item-003")):
            assert start(process, pipeline, item, f"batch/{item}").status_code == 200
        package = requests.post(
            f"{process.workflow_urls[1]}/api/v2beta/package/",
            json={"name": "item-004", "path": b64(f"{transfer_source(process)}:batch/item-004")},
            headers=process.auth_header,
            timeout=10,
        )
        assert package.status_code == 202
        refused = start(process, 2, "missing", "batch/no-such-item")
        assert refused.status_code == 500
        # Every workflow service answers for all of them.
        answers = [process.control("starts", pipeline=n) for n in (1, 2)]
    assert answers[0]["total"] == answers[1]["total"] == 4
    assert answers[0]["by_pipeline"] == {"1": 2, "2": 2}
    assert answers[0]["by_name"] == {f"item-00{n}": 1 for n in range(1, 5)}
    assert [s["pipeline"] for s in answers[0]["starts"]] == [1, 2, 1, 2]
    assert answers[0]["starts"][3]["uuid"] == package.json()["id"]


def test_a_pipeline_works_at_its_own_pace():
    simulation = Simulation(
        SimulatorConfig(pipelines=2, units=0, packages=0, pipeline_speeds=(1, 0.5))
    )
    route = transfer_route("standard", Outcome.SIP, None)
    plans = [
        service.workflow._plan(route, random.Random("same"), 5) for service in simulation.services
    ]
    assert plans[1].main_end == pytest.approx(2 * plans[0].main_end)
    assert [s.speed for s in simulation.services] == [1.0, 0.5]


def test_new_source_items_keep_appearing_at_the_hourly_rate():
    simulation = Simulation(
        SimulatorConfig(units=0, packages=0, speed=0, source_items=2, source_items_per_hour=6)
    )
    location = simulation.storage.transfer_source_paths()[0][0]

    def listed() -> list[str]:
        simulation.sync()
        batch = simulation.storage.source_trees[location].find([b"batch"])
        assert batch is not None
        return sorted(name.decode() for name in batch.children)

    assert listed() == ["item-001", "item-002"]
    simulation.clock.advance(30 * 60 + 1)
    assert listed() == [*source_item_names(5)]
    simulation.clock.advance(50 * 60)
    assert listed()[-1] == "item-010.zip"
