"""Contract tests over HTTP: jobs, tasks, administration, configuration and beta endpoints."""

from __future__ import annotations

import base64
import re
import uuid
from collections.abc import Iterator
from typing import Any
from xml.etree import ElementTree

import pytest
import requests

from tests.support.simulator_process import SimulatorProcess

pytestmark = pytest.mark.integration

UNKNOWN = "9b2e4f3c-1d5a-4c6b-8e7f-0a1b2c3d4e5f"
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")
JOB_STATUSES = {"USER_INPUT", "PROCESSING", "COMPLETE", "FAILED", "UNKNOWN"}
CSV = "text/csv; charset=utf-8"


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorProcess]:
    with SimulatorProcess(units=30, seed=5, speed=0, start="2024-06-03T09:00:00") as process:
        yield process


def call(sim: SimulatorProcess, method: str, path: str, **kwargs: Any) -> requests.Response:
    kwargs.setdefault("headers", sim.auth_header)
    kwargs.setdefault("allow_redirects", False)
    return requests.request(method, sim.workflow_url + path, timeout=10, **kwargs)


def encoded_source(sim: SimulatorProcess) -> str:
    location, path = sim.control("state")["transfer_sources"][0]
    return base64.b64encode(f"{location}:{path}".encode()).decode()


def a_completed_sip(sim: SimulatorProcess) -> str:
    return call(sim, "GET", "/api/ingest/completed").json()["results"][0]


def create_package(sim: SimulatorProcess, **body: Any) -> requests.Response:
    payload = {"name": "Package", "path": encoded_source(sim), **body}
    return call(sim, "POST", "/api/v2beta/package/", json=payload)


# -- jobs and tasks ---------------------------------------------------------


def test_jobs_are_a_top_level_array_in_creation_order(sim: SimulatorProcess) -> None:
    response = call(sim, "GET", f"/api/v2beta/jobs/{a_completed_sip(sim)}")
    jobs = response.json()

    assert response.status_code == 200
    assert isinstance(jobs, list) and len(jobs) >= 94
    assert jobs[0]["name"] == "Move to processing directory"
    for job in jobs:
        assert set(job) == {"uuid", "name", "status", "microservice", "link_uuid", "tasks"}
        assert job["status"] in JOB_STATUSES
        uuid.UUID(job["uuid"])
        for task in job["tasks"]:
            assert set(task) == {"uuid", "exit_code"}
            assert isinstance(task["exit_code"], int)
    assert any(job["tasks"] == [] for job in jobs)


def test_a_sip_lists_its_dip_jobs_too(sim: SimulatorProcess) -> None:
    groups = [
        {job["microservice"] for job in call(sim, "GET", f"/api/v2beta/jobs/{sip}").json()}
        for sip in call(sim, "GET", "/api/ingest/completed").json()["results"]
    ]

    assert any("Upload DIP" in found for found in groups)


def test_job_filters_strip_their_prefixes(sim: SimulatorProcess) -> None:
    sip = a_completed_sip(sim)
    by_group = call(
        sim, "GET", f"/api/v2beta/jobs/{sip}/", params={"microservice": "Microservice: Store AIP"}
    ).json()
    by_name = call(
        sim, "GET", f"/api/v2beta/jobs/{sip}", params={"name": "Job: Store the AIP"}
    ).json()
    by_link = call(
        sim, "GET", f"/api/v2beta/jobs/{sip}", params={"link_uuid": by_name[0]["link_uuid"]}
    ).json()
    nothing = call(sim, "GET", f"/api/v2beta/jobs/{sip}", params={"name": "No such job"})

    assert {job["microservice"] for job in by_group} == {"Store AIP"}
    assert len(by_group) == 10
    assert [job["name"] for job in by_name] == ["Store the AIP"]
    assert by_link == by_name
    assert (nothing.status_code, nothing.json()) == (200, [])


def test_detailed_jobs_expand_every_task(sim: SimulatorProcess) -> None:
    jobs = call(sim, "GET", f"/api/v2beta/jobs/{a_completed_sip(sim)}?detailed").json()
    tasks = [task for job in jobs for task in job["tasks"]]

    assert tasks
    for task in tasks:
        assert set(task) == {
            "uuid",
            "exit_code",
            "file_uuid",
            "file_name",
            "time_created",
            "time_started",
            "time_ended",
            "duration",
        }
        assert TIMESTAMP.fullmatch(task["time_ended"])
        assert task["duration"] == "< 1" or isinstance(task["duration"], int)
    assert any(task["file_uuid"] is None and task["file_name"] == "" for task in tasks)
    assert any(task["file_uuid"] and task["file_name"] for task in tasks)


def test_a_unit_without_jobs_is_a_400(sim: SimulatorProcess) -> None:
    response = call(sim, "GET", f"/api/v2beta/jobs/{UNKNOWN}/")

    assert response.status_code == 400
    assert response.json() == {"error": True, "message": f"No jobs found for unit: {UNKNOWN}"}


def test_a_task_is_fetched_by_the_uuid_its_job_lists(sim: SimulatorProcess) -> None:
    jobs = call(sim, "GET", f"/api/v2beta/jobs/{a_completed_sip(sim)}?detailed").json()
    listed = next(task for job in jobs for task in job["tasks"] if task["file_uuid"])

    response = call(sim, "GET", f"/api/v2beta/task/{listed['uuid']}/")

    assert response.status_code == 200
    assert response.json() == listed


def test_an_unknown_task_is_a_400(sim: SimulatorProcess) -> None:
    response = call(sim, "GET", f"/api/v2beta/task/{UNKNOWN}")

    assert response.status_code == 400
    assert response.json() == {"error": True, "message": f"Task with UUID {UNKNOWN} does not exist"}


# -- administration -----------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/api/administration/dips/accessapp/levels/",
        "/api/administration/dips/accessapp/fetch_levels/",
    ],
)
def test_levels_of_description_are_one_key_objects(sim: SimulatorProcess, path: str) -> None:
    levels = call(sim, "GET", path).json()

    assert isinstance(levels, list) and levels
    for level in levels:
        ((level_uuid, name),) = level.items()
        uuid.UUID(level_uuid)
        assert isinstance(name, str) and name


# -- other ------------------------------------------------------------------


def test_path_metadata_stores_a_level_of_description(sim: SimulatorProcess) -> None:
    levels = call(sim, "GET", "/api/administration/dips/accessapp/levels/").json()
    ((level_uuid, level_name),) = levels[2].items()

    before = call(sim, "GET", "/api/filesystem/metadata/", params={"path": "/arrange/box1/"})
    saved = call(
        sim,
        "POST",
        "/api/filesystem/metadata/",
        data={"path": "/arrange/box1/", "level_of_description": level_uuid},
    )
    after = call(sim, "GET", "/api/filesystem/metadata/", params={"path": "/arrange/box1/"})
    missing = call(sim, "GET", "/api/filesystem/metadata/", params={"path": "/elsewhere/"})

    assert before.json() == {"level_of_description": ""}
    assert (saved.status_code, saved.json()) == (201, {"success": True})
    assert after.json() == {"level_of_description": level_name}
    assert missing.status_code == 404 and missing.headers["Content-Type"].startswith("text/html")


def test_processing_configurations_are_listed_by_name(sim: SimulatorProcess) -> None:
    body = call(sim, "GET", "/api/processing-configuration/").json()

    assert body == {"processing_configurations": ["automated", "default"]}


def test_a_processing_configuration_is_an_xml_document(sim: SimulatorProcess) -> None:
    response = call(sim, "GET", "/api/processing-configuration/default")
    root = ElementTree.fromstring(response.content)

    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/xml"
    assert root.tag == "processingMCP"
    choices = root.findall("./preconfiguredChoices/preconfiguredChoice")
    assert choices
    for choice in choices:
        uuid.UUID(choice.findtext("appliesTo"))
        assert choice.findtext("goToChain")


@pytest.mark.parametrize("accept", [None, "application/json", "text/html"])
def test_a_processing_configuration_needs_an_xml_accept_header(
    sim: SimulatorProcess, accept: str | None
) -> None:
    headers = {**sim.auth_header, "Accept": accept}
    response = call(sim, "GET", "/api/processing-configuration/default", headers=headers)

    assert response.status_code == 415
    assert response.content == b""


def test_xml_accept_headers_are_fine(sim: SimulatorProcess) -> None:
    headers = {**sim.auth_header, "Accept": "application/xml"}

    assert (
        call(sim, "GET", "/api/processing-configuration/automated", headers=headers).status_code
        == 200
    )


def test_an_unknown_processing_configuration_is_a_404_json(sim: SimulatorProcess) -> None:
    response = call(sim, "GET", "/api/processing-configuration/nosuchconfig")

    assert response.status_code == 404
    assert response.json() == {
        "success": False,
        "error": 'No such processing config "nosuchconfig".',
    }


def test_a_processing_configuration_name_is_cut_at_16_word_characters(
    sim: SimulatorProcess,
) -> None:
    long_name = call(sim, "GET", "/api/processing-configuration/abcdefghijklmnopqrstuvwxyz")
    dashed = call(sim, "GET", "/api/processing-configuration/default-copy")

    assert long_name.json()["error"] == 'No such processing config "abcdefghijklmnop".'
    assert dashed.status_code == 200


def test_deleting_a_built_in_configuration_is_undone_by_the_next_read(
    sim: SimulatorProcess,
) -> None:
    deleted = call(sim, "DELETE", "/api/processing-configuration/automated")
    listed = call(sim, "GET", "/api/processing-configuration").json()
    again = call(sim, "DELETE", "/api/processing-configuration/automated")
    restored = call(sim, "GET", "/api/processing-configuration/automated")

    assert (deleted.status_code, deleted.json()) == (200, {"success": True})
    assert listed == {"processing_configurations": ["default"]}
    assert again.status_code == 404
    assert restored.status_code == 200


# -- beta -------------------------------------------------------------------


def test_a_package_is_accepted_then_has_no_status_for_a_while(sim: SimulatorProcess) -> None:
    response = create_package(sim, name="Async package")
    package_uuid = response.json()["id"]

    early = call(sim, "GET", f"/api/transfer/status/{package_uuid}")
    sim.control("advance", {"seconds": 60})
    later = call(sim, "GET", f"/api/transfer/status/{package_uuid}")

    assert response.status_code == 202
    assert early.status_code == 400
    assert early.json() == {
        "error": True,
        "message": f"Unable to determine the status of the unit {package_uuid}",
    }
    assert later.status_code == 200
    assert later.json()["name"] == "Async package"


def test_a_package_without_auto_approve_waits_for_approval(sim: SimulatorProcess) -> None:
    package_uuid = create_package(sim, name="Manual package", auto_approve=False).json()["id"]
    sim.control("advance", {"seconds": 60})

    listed = call(sim, "GET", "/api/transfer/unapproved").json()["results"]

    assert {"type": "standard", "directory": "Manual package", "uuid": package_uuid} in listed


def test_a_package_from_an_absolute_path_uses_the_default_source(sim: SimulatorProcess) -> None:
    location, path = sim.control("state")["transfer_sources"][0]
    listed = requests.get(
        f"{sim.storage_url}/api/v2/location/{location}/", headers=sim.auth_header, timeout=10
    ).json()
    absolute = base64.b64encode(f"{listed['path'].rstrip('/')}/{path}".encode()).decode()

    response = call(sim, "POST", "/api/v2beta/package", json={"name": "Absolute", "path": absolute})
    sim.control("advance", {"seconds": 60})

    assert response.status_code == 202
    assert call(sim, "GET", f"/api/transfer/status/{response.json()['id']}").status_code == 200


@pytest.mark.parametrize("body", [{"path": "%%%"}, {"name": "No path"}])
def test_a_package_path_that_does_not_decode_is_a_400(
    sim: SimulatorProcess, body: dict[str, Any]
) -> None:
    response = call(sim, "POST", "/api/v2beta/package/", json=body)

    assert response.status_code == 400
    assert response.json() == {"error": True, "message": 'Parameter "path" cannot be decoded.'}


@pytest.mark.parametrize("body", [{"name": ""}, {"type": "sideways"}, {"auto_approve": "yes"}])
def test_a_package_the_service_rejects_is_a_500(
    sim: SimulatorProcess, body: dict[str, Any]
) -> None:
    response = create_package(sim, **body)

    assert response.status_code == 500
    assert response.json() == {"error": True, "message": "Package cannot be created"}


def test_a_package_from_a_bad_source_is_accepted_and_never_appears(sim: SimulatorProcess) -> None:
    path = base64.b64encode(f"{UNKNOWN}:nothing".encode()).decode()
    response = call(sim, "POST", "/api/v2beta/package/", json={"name": "Lost", "path": path})
    sim.control("advance", {"seconds": 600})

    status = call(sim, "GET", f"/api/transfer/status/{response.json()['id']}")
    assert response.status_code == 202
    assert status.status_code == 400
    assert status.json()["message"].startswith("Cannot fetch unitTransfer")


def test_listing_packages_is_not_implemented(sim: SimulatorProcess) -> None:
    response = call(sim, "GET", "/api/v2beta/package/")

    assert response.status_code == 501
    assert response.content == b""


RIGHTS_OK = (
    "file,basis,status,start_date,end_date\nobjects/a.tif,copyright,copyrighted,2001-02-03,open\n"
)
RIGHTS_BAD = "file,basis\nobjects/a.tif,whim\n"
MANIFEST_OK = "Collection one,archivist@example.org\nTitle,Date Issued,File\nLetter,1921,a.mp4\n"
MANIFEST_BAD = "Collection one,archivist@example.org\nTitle,File\nLetter,a.mp4\n"


@pytest.mark.parametrize("validator,body", [("rights", RIGHTS_OK), ("media_manifest", MANIFEST_OK)])
def test_a_valid_csv_validates(sim: SimulatorProcess, validator: str, body: str) -> None:
    response = call(
        sim,
        "POST",
        f"/api/v2beta/validate/{validator}",
        data=body.encode(),
        headers={**sim.auth_header, "Content-Type": CSV},
    )

    assert (response.status_code, response.json()) == (200, {"valid": True})


@pytest.mark.parametrize(
    "validator,body", [("rights", RIGHTS_BAD), ("media_manifest", MANIFEST_BAD)]
)
def test_an_invalid_csv_gets_a_reason(sim: SimulatorProcess, validator: str, body: str) -> None:
    response = call(
        sim,
        "POST",
        f"/api/v2beta/validate/{validator}/",
        data=body.encode(),
        headers={**sim.auth_header, "Content-Type": CSV},
    )

    assert response.status_code == 400
    assert response.json()["valid"] is False
    assert response.json()["reason"]


def test_validation_needs_the_exact_csv_content_type(sim: SimulatorProcess) -> None:
    response = call(
        sim,
        "POST",
        "/api/v2beta/validate/rights",
        data=RIGHTS_OK.encode(),
        headers={**sim.auth_header, "Content-Type": "text/csv"},
    )

    assert response.status_code == 400
    assert response.json() == {
        "error": True,
        "message": 'Content type should be "text/csv; charset=utf-8"',
    }


def test_an_unknown_validator_is_a_404_listing_the_known_ones(sim: SimulatorProcess) -> None:
    response = call(
        sim,
        "POST",
        "/api/v2beta/validate/spreadsheet",
        data=b"a,b",
        headers={**sim.auth_header, "Content-Type": CSV},
    )

    assert response.status_code == 404
    assert response.json() == {
        "error": True,
        "message": "Unknown validator. Accepted values: media_manifest,rights",
    }
