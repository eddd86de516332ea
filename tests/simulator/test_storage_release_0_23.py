"""Contract tests: the fake storage service answers as release 0.23.0 does.

Each test states one fact of the notes on the real service ("Operations, as the real
service carries them out" and the list sections), in the service's own words, and
checks the simulator's default mode against it over real HTTP. They are written from
those facts, not from Lookout's client, so the two cannot share a misreading.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Iterator
from typing import Any
from xml.etree import ElementTree

import pytest
import requests

from tests.support.simulator_process import SimulatorProcess

pytestmark = pytest.mark.integration

CANNED_500 = {
    "error_message": "Sorry, this request could not be processed. Please try again later."
}
UNKNOWN_UUID = "00000000-0000-4000-8000-000000000000"


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorProcess]:
    with SimulatorProcess(units=2, packages=1200, seed=23) as running:
        yield running


def call(sim: SimulatorProcess, method: str, path: str, **kwargs: Any) -> requests.Response:
    return requests.request(
        method,
        f"{sim.storage_url}{path}",
        headers={**sim.auth_header, **kwargs.pop("headers", {})},
        allow_redirects=False,
        timeout=30,
        **kwargs,
    )


def listed(sim: SimulatorProcess, **params: Any) -> dict[str, Any]:
    response = call(sim, "GET", "/api/v2/file/", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def one(sim: SimulatorProcess, **params: Any) -> dict[str, Any]:
    return listed(sim, limit=1, **params)["objects"][0]


def pipeline(sim: SimulatorProcess) -> dict[str, Any]:
    response = call(sim, "GET", "/api/v2/pipeline/", params={"description": "Simulated pipeline"})
    return response.json()["objects"][0]


def register(sim: SimulatorProcess, package_type: str = "AIP", compressed: bool = True) -> str:
    """A fresh UPLOADED package of the given type, stored by the main pipeline."""
    package_uuid = str(uuid.uuid4())
    purpose = {"AIP": "AS", "AIC": "AS", "DIP": "DS", "transfer": "BL"}[package_type]
    name = f"minutes-{package_uuid}" + (".7z" if compressed else "")
    body = {
        "uuid": package_uuid,
        "origin_location": "/api/v2/location/default/CP/",
        "origin_path": name,
        "current_location": f"/api/v2/location/default/{purpose}/",
        "current_path": name,
        "package_type": package_type,
        "size": 2048,
        "origin_pipeline": pipeline(sim)["resource_uri"],
    }
    response = call(sim, "POST", "/api/v2/file/", json=body)
    assert response.status_code == 201, response.text
    return package_uuid


def request_body(sim: SimulatorProcess, **overrides: Any) -> dict[str, Any]:
    return {
        "event_reason": "Superseded",
        "pipeline": pipeline(sim)["uuid"],
        "user_id": 3,
        "user_email": "archivist@example.org",
        **overrides,
    }


def post_request(sim: SimulatorProcess, package_uuid: str, endpoint: str, **overrides: Any):
    return call(
        sim,
        "POST",
        f"/api/v2/file/{package_uuid}/{endpoint}/",
        json=request_body(sim, **overrides),
    )


def status_of(sim: SimulatorProcess, package_uuid: str) -> str:
    return call(sim, "GET", f"/api/v2/file/{package_uuid}/").json()["status"]


def reingests(sim: SimulatorProcess) -> list[dict[str, str]]:
    state = requests.get(f"{sim.storage_url}/_simulator/state/", timeout=10).json()
    return state["reingests"]


# --- Deletion and recovery requests --------------------------------------------------------------


@pytest.mark.parametrize("endpoint", ["delete_aip", "recover_aip"])
def test_a_request_naming_the_pipeline_by_its_uri_is_refused_as_not_a_uuid(sim, endpoint):
    package_uuid = register(sim)
    uri = pipeline(sim)["resource_uri"]

    response = post_request(sim, package_uuid, endpoint, pipeline=uri)

    assert response.status_code == 400
    assert response.json() == {"error": f"['\u201c{uri}\u201d is not a valid UUID.']"}
    assert status_of(sim, package_uuid) == "UPLOADED"


@pytest.mark.parametrize("package_type", ["AIP", "AIC", "transfer"])
def test_deletion_is_requested_for_aips_aics_and_transfers_by_bare_pipeline_uuid(sim, package_type):
    package_uuid = register(sim, package_type)

    response = post_request(sim, package_uuid, "delete_aip")

    assert response.status_code == 202
    assert response.json()["message"] == "Delete request created successfully."
    assert isinstance(response.json()["id"], int)
    assert status_of(sim, package_uuid) == "DEL_REQ"


def test_deletion_of_a_dip_is_not_allowed(sim):
    package_uuid = register(sim, "DIP", compressed=False)

    response = post_request(sim, package_uuid, "delete_aip")

    assert response.status_code == 405
    assert response.json() == {"message": "Deletes not allowed on this package type."}
    assert status_of(sim, package_uuid) == "UPLOADED"


@pytest.mark.parametrize("package_type", ["AIP", "AIC"])
def test_recovery_is_requested_for_aips_and_aics_by_bare_pipeline_uuid(sim, package_type):
    package_uuid = register(sim, package_type)

    response = post_request(sim, package_uuid, "recover_aip")

    assert response.status_code == 202
    assert isinstance(response.json()["id"], int)
    assert status_of(sim, package_uuid) == "RECOVER_REQ"


@pytest.mark.parametrize(("package_type", "compressed"), [("DIP", False), ("transfer", False)])
def test_recovery_of_other_package_types_is_not_allowed(sim, package_type, compressed):
    package_uuid = register(sim, package_type, compressed=compressed)

    response = post_request(sim, package_uuid, "recover_aip")

    assert response.status_code == 405
    assert response.json() == {"message": "Recovery not allowed on this package type."}


@pytest.mark.parametrize(
    ("endpoint", "key"), [("delete_aip", "message"), ("recover_aip", "error_message")]
)
def test_a_second_request_while_one_waits_is_a_200_without_an_id(sim, endpoint, key):
    package_uuid = register(sim)
    assert post_request(sim, package_uuid, endpoint).status_code == 202

    again = post_request(sim, package_uuid, endpoint)

    assert again.status_code == 200
    assert set(again.json()) == {key}


# --- Reingest -----------------------------------------------------------------------------------


def reingest(sim: SimulatorProcess, package_uuid: str, reingest_type: str) -> requests.Response:
    body = {"pipeline": pipeline(sim)["uuid"], "reingest_type": reingest_type}
    return call(sim, "POST", f"/api/v2/file/{package_uuid}/reingest/", json=body)


@pytest.mark.parametrize(
    ("reingest_type", "sent"),
    [("metadata", "metadata"), ("OBJECTS", "objects"), ("Full", "full")],
)
def test_a_reingest_type_is_compared_lower_cased(sim, reingest_type, sent):
    package_uuid = register(sim)

    response = reingest(sim, package_uuid, reingest_type)

    assert response.status_code == 202 and response.json()["error"] is False
    assert reingests(sim)[-1] == {
        "package": package_uuid,
        "pipeline": pipeline(sim)["uuid"],
        "reingest_type": reingest_type,
        "sent": sent,
    }


@pytest.mark.parametrize("reingest_type", ["METADATA_ONLY", "partial"])
def test_any_other_reingest_type_is_accepted_and_sends_only_the_mets(sim, reingest_type):
    package_uuid = register(sim)

    response = reingest(sim, package_uuid, reingest_type)

    assert response.status_code == 202
    assert reingests(sim)[-1]["package"] == package_uuid
    assert reingests(sim)[-1]["sent"] == "mets"


def test_a_second_reingest_is_a_conflict(sim):
    package_uuid = register(sim)
    assert reingest(sim, package_uuid, "metadata").status_code == 202

    again = reingest(sim, package_uuid, "metadata")

    assert again.status_code == 409
    assert again.json()["error"] is True


# --- Package fields and processing configurations ------------------------------------------------


def test_every_package_size_is_an_integer(sim):
    for offset in (0, 1000, 2000):
        for item in listed(sim, limit=0, offset=offset)["objects"]:
            assert type(item["size"]) is int, item


def test_package_types_are_spelled_as_the_service_spells_them(sim):
    types = {item["package_type"] for item in listed(sim, limit=0)["objects"]}

    assert types == {"AIP", "AIC", "DIP", "transfer"}
    assert listed(sim, package_type="transfer")["meta"]["total_count"] > 0
    assert listed(sim, package_type="TRANSFER")["meta"]["total_count"] == 0


@pytest.mark.parametrize("name", ["default", "automated"])
def test_processing_configurations_choose_chains_by_uuid(sim, name):
    response = requests.get(
        f"{sim.workflow_url}/api/processing-configuration/{name}",
        headers={**sim.auth_header, "Accept": "*/*"},
        timeout=10,
    )
    choices = ElementTree.fromstring(response.content).findall(".//preconfiguredChoice")

    assert choices
    for choice in choices:
        value = choice.findtext("goToChain")
        if value.startswith("/api/v2/location/"):
            continue  # the storage location decisions name a location, as real files do
        uuid.UUID(value)


# --- Lists --------------------------------------------------------------------------------------


def test_a_page_holds_20_by_default_and_1000_for_limit_zero(sim):
    assert listed(sim)["meta"]["limit"] == 20 and len(listed(sim)["objects"]) == 20
    first = listed(sim, limit=0)
    assert first["meta"]["limit"] == 1000 and len(first["objects"]) == 1000
    assert first["meta"]["next"].endswith("limit=1000&offset=1000")


@pytest.mark.parametrize("order_by", ["uuid", "-stored_date", "size", "nothing"])
def test_any_ordering_is_refused(sim, order_by):
    response = call(sim, "GET", "/api/v2/file/", params={"order_by": order_by})

    assert response.status_code == 400
    assert "ordering" in response.json()["error"]


def test_a_location_uri_as_current_location_is_refused(sim):
    location_uri = one(sim, package_type="AIP")["current_location"]

    response = call(sim, "GET", "/api/v2/file/", params={"current_location": location_uri})

    assert response.status_code == 400
    assert response.json() == {"error": f"['\u201c{location_uri}\u201d is not a valid UUID.']"}


def test_the_package_filters_of_the_notes_work(sim):
    aip = one(sim, package_type="AIP", status="UPLOADED")
    location_uuid = aip["current_location"].split("/")[-2]
    dip = one(sim, package_type="DIP")
    other = one(sim, package_type="transfer")

    def uuids(**params: Any) -> set[str]:
        return {item["uuid"] for item in listed(sim, limit=0, **params)["objects"]}

    assert aip["uuid"] in uuids(current_location__uuid=location_uuid, status="UPLOADED")
    assert uuids(uuid=aip["uuid"]) == {aip["uuid"]}
    assert uuids(uuid__in=f"{aip['uuid']},{other['uuid']}") == {aip["uuid"], other["uuid"]}
    assert {item["status"] for item in listed(sim, status__in="DELETED,FAIL")["objects"]} <= {
        "DELETED",
        "FAIL",
    }
    stored = aip["stored_date"]
    assert aip["uuid"] in uuids(stored_date__gte=stored, package_type="AIP")
    assert aip["uuid"] not in uuids(stored_date__lt=stored, package_type="AIP")
    assert aip["uuid"] in uuids(stored_date__year=stored[:4], package_type="AIP")
    related = dip["related_packages"][0].split("/")[-2]
    assert dip["uuid"] in uuids(related_packages=related)
    assert call(sim, "GET", "/api/v2/file/", params={"path": "x"}).status_code == 200


# --- Fixity, download, pointer file and browse of unusual packages -------------------------------


def deleted_compressed_aip(sim: SimulatorProcess) -> dict[str, Any]:
    candidates = listed(sim, limit=0, package_type="AIP", status="DELETED")["objects"]
    return next(
        item
        for item in candidates
        if item["current_path"].endswith(".7z") and "tape" not in item["current_full_path"]
    )


def test_the_download_of_a_deleted_aip_fails_with_the_canned_500(sim):
    aip = deleted_compressed_aip(sim)

    response = call(sim, "GET", f"{aip['resource_uri']}download/")

    assert response.status_code == 500
    assert response.json() == CANNED_500


def test_the_fixity_check_of_a_deleted_aip_fails_with_500(sim):
    response = call(sim, "GET", f"{deleted_compressed_aip(sim)['resource_uri']}check_fixity/")

    assert response.status_code == 500


def test_the_pointer_file_of_an_uncompressed_package_is_a_plain_text_404(sim):
    package_uuid = register(sim, compressed=False)

    response = call(sim, "GET", f"/api/v2/file/{package_uuid}/pointer_file/")

    assert response.status_code == 404
    assert response.text == f"Resource with UUID {package_uuid} does not have a pointer file"


def test_the_pointer_file_of_a_deleted_compressed_aip_is_not_found(sim):
    response = call(sim, "GET", f"{deleted_compressed_aip(sim)['resource_uri']}pointer_file/")

    assert response.status_code == 404
    assert response.text == "File not found"


def browse(sim: SimulatorProcess, location_uuid: str, path: bytes) -> requests.Response:
    encoded = base64.b64encode(path).decode("ascii")
    return call(sim, "GET", f"/api/v2/location/{location_uuid}/browse/", params={"path": encoded})


def test_browsing_a_path_that_names_a_file_fails_with_500(sim):
    response = call(sim, "GET", "/api/v2/location/default/TS/")
    source = call(sim, "GET", response.headers["Location"]).json()

    assert browse(sim, source["uuid"], b"dir with space/objects").status_code == 200
    failed = browse(sim, source["uuid"], b"dir with space/objects/data with spaces.csv")

    assert failed.status_code == 500
    assert failed.json() == CANNED_500
    assert browse(sim, source["uuid"], b"no/such/path").json()["entries"] == []


# --- Move ---------------------------------------------------------------------------------------


def test_a_moved_package_shows_moving_then_is_uploaded_in_its_new_location(sim):
    package_uuid = register(sim)
    before = call(sim, "GET", f"/api/v2/file/{package_uuid}/").json()
    stores = call(sim, "GET", "/api/v2/location/", params={"purpose": "AS"}).json()["objects"]
    target = next(
        item
        for item in stores
        if item["resource_uri"] != before["current_location"] and "tape" not in item["path"]
    )

    response = call(
        sim, "POST", f"/api/v2/file/{package_uuid}/move/", data={"location_uuid": target["uuid"]}
    )

    assert response.status_code == 202
    moving = call(sim, "GET", f"/api/v2/file/{package_uuid}/").json()
    assert moving["status"] == "MOVING"
    assert moving["current_location"] == before["current_location"]
    sim.control("advance", {"seconds": 2})
    moved = call(sim, "GET", f"/api/v2/file/{package_uuid}/").json()
    assert (moved["status"], moved["current_location"]) == ("UPLOADED", target["resource_uri"])
