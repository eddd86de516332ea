"""Contract tests of the fake storage service's writes, package actions and downloads,
over real HTTP against a simulator process."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.support.simulator_process import SimulatorProcess

pytestmark = pytest.mark.integration

UNKNOWN_UUID = "00000000-0000-4000-8000-000000000000"
CANNED_500 = {
    "error_message": "Sorry, this request could not be processed. Please try again later."
}


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorProcess]:
    with SimulatorProcess(units=2, packages=600, seed=11) as running:
        yield running


def call(sim: SimulatorProcess, method: str, path: str, **kwargs: Any) -> requests.Response:
    headers = {**sim.auth_header, **kwargs.pop("headers", {})}
    return requests.request(
        method,
        f"{sim.storage_url}{path}",
        headers=headers,
        allow_redirects=False,
        timeout=30,
        **kwargs,
    )


def get_json(sim: SimulatorProcess, path: str, **params: Any) -> Any:
    response = call(sim, "GET", path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def uploaded(sim: SimulatorProcess, package_type: str, **params: Any) -> list[dict[str, Any]]:
    return get_json(
        sim, "/api/v2/file/", package_type=package_type, status="UPLOADED", limit=0, **params
    )["objects"]


def default_location(sim: SimulatorProcess, purpose: str) -> dict[str, Any]:
    response = call(sim, "GET", f"/api/v2/location/default/{purpose}/")
    return get_json(sim, response.headers["Location"])


def main_pipeline(sim: SimulatorProcess) -> dict[str, Any]:
    return get_json(sim, "/api/v2/pipeline/", description="Simulated pipeline")["objects"][0]


def new_uuid() -> str:
    return str(uuid.uuid4())


def registration(sim: SimulatorProcess, **overrides: Any) -> dict[str, Any]:
    package_uuid = overrides.pop("uuid", new_uuid())
    return {
        "uuid": package_uuid,
        "origin_location": default_location(sim, "CP")["resource_uri"],
        "origin_path": f"currentlyProcessing/minutes-{package_uuid}.7z",
        "current_location": default_location(sim, "AS")["resource_uri"],
        "current_path": f"minutes-{package_uuid}.7z",
        "package_type": "AIP",
        "size": 4096,
        "origin_pipeline": main_pipeline(sim)["resource_uri"],
        **overrides,
    }


def register(sim: SimulatorProcess, **overrides: Any) -> dict[str, Any]:
    response = call(sim, "POST", "/api/v2/file/", json=registration(sim, **overrides))
    assert response.status_code == 201, response.text
    return response.json()


def request_body(sim: SimulatorProcess, **overrides: Any) -> dict[str, Any]:
    return {
        "event_reason": "No longer needed",
        "pipeline": main_pipeline(sim)["uuid"],
        "user_id": 1,
        "user_email": "archivist@example.org",
        **overrides,
    }


# --- Creating pipelines, spaces and locations ----------------------------------------------------


def test_it_creates_a_pipeline_and_links_default_locations(sim):
    pipeline_uuid = new_uuid()
    body = {
        "uuid": pipeline_uuid,
        "description": "Second pipeline",
        "api_username": "u",
        "api_key": "k",
        "create_default_locations": True,
        "shared_path": "/var/second/shared",
    }
    response = call(sim, "POST", "/api/v2/pipeline/", json=body)
    assert response.status_code == 201
    assert response.headers["Location"] == f"/api/v2/pipeline/{pipeline_uuid}/"
    created = response.json()
    assert created["remote_name"] == "127.0.0.1"
    assert created["create_default_locations"] is True and "api_key" not in created
    assert set(get_json(sim, created["resource_uri"])) == {
        "description",
        "remote_name",
        "resource_uri",
        "uuid",
    }
    linked = get_json(sim, "/api/v2/location/", pipeline__uuid=pipeline_uuid, limit=0)["objects"]
    assert {"TS", "AS", "DS", "BL", "AR", "CP"} <= {item["purpose"] for item in linked}
    assert "SS" not in {item["purpose"] for item in linked}


def test_it_fails_with_the_canned_500_on_a_duplicate_pipeline(sim):
    response = call(sim, "POST", "/api/v2/pipeline/", json={"uuid": main_pipeline(sim)["uuid"]})
    assert response.status_code == 500
    assert response.json() == CANNED_500


def test_it_creates_a_space(sim):
    body = {
        "access_protocol": "FS",
        "path": "/srv/space2",
        "staging_path": "/srv/space2/staging",
        "size": 10**9,
    }
    response = call(sim, "POST", "/api/v2/space/", json=body)
    assert response.status_code == 201
    created = response.json()
    assert (created["path"], created["size"], created["used"]) == ("/srv/space2", 10**9, 0)
    assert get_json(sim, created["resource_uri"]) == created


def test_it_reports_space_form_errors_keyed_by_resource(sim):
    response = call(sim, "POST", "/api/v2/space/", json={"access_protocol": "FS"})
    assert response.status_code == 400
    assert response.json() == {
        "space": {"__all__": ["Path is required"], "staging_path": ["This field is required."]}
    }


def test_it_creates_a_location_that_can_become_the_default(sim):
    space = default_location(sim, "AS")["space"]
    body = {
        "space": space,
        "relative_path": "aips2",
        "purpose": "AS",
        "description": "Second AIP store",
        "pipeline": [main_pipeline(sim)["resource_uri"]],
        "quota": 500000000,
        "default": True,
    }
    response = call(sim, "POST", "/api/v2/location/", json=body)
    assert response.status_code == 201
    created = response.json()
    assert created["default"] is True and created["quota"] == 500000000 and created["used"] == 0
    assert default_location(sim, "AS")["uuid"] == created["uuid"]


def test_a_location_without_pipelines_is_refused_but_left_behind(sim):
    before = get_json(sim, "/api/v2/location/")["meta"]["total_count"]
    space = default_location(sim, "DS")["space"]
    response = call(
        sim, "POST", "/api/v2/location/", json={"space": space, "relative_path": "orphan"}
    )
    assert response.status_code == 400
    assert response.json() == {
        "error": "The 'pipeline' field has no data and doesn't allow a null value."
    }
    assert get_json(sim, "/api/v2/location/")["meta"]["total_count"] == before + 1


def test_it_refuses_a_location_in_an_unknown_space(sim):
    space = f"/api/v2/space/{UNKNOWN_UUID}/"
    response = call(
        sim, "POST", "/api/v2/location/", json={"space": space, "purpose": "AS", "pipeline": []}
    )
    assert response.status_code == 400
    assert response.json() == {
        "error": f"Could not find the provided space object via resource URI '{space}'."
    }


def test_it_moves_untracked_files_between_locations_of_one_pipeline(sim):
    source, processing = default_location(sim, "TS"), default_location(sim, "CP")
    body = {
        "origin_location": source["resource_uri"],
        "pipeline": main_pipeline(sim)["resource_uri"],
        "files": [{"source": "dir with space/objects", "destination": "tmp/objects"}],
    }
    response = call(sim, "POST", processing["resource_uri"], json=body)
    assert response.status_code == 200
    assert response.json() == {"error": None, "message": "Files moved successfully"}
    body["files"] = [{"source": "missing", "destination": "x"}]
    assert call(sim, "POST", processing["resource_uri"], json=body).status_code == 400


# --- Registering packages ------------------------------------------------------------------------


def test_it_registers_a_package_and_counts_its_size(sim):
    store_before = int(default_location(sim, "AS")["used"])
    created = register(sim, size=123456)
    assert created["status"] == "UPLOADED" and created["stored_date"] is not None
    assert created["origin_path"].endswith(".7z")
    assert get_json(sim, created["resource_uri"])["size"] == 123456
    assert int(default_location(sim, "AS")["used"]) == store_before + 123456


def test_it_resolves_the_default_location_alias_when_registering(sim):
    aip = register(sim)
    dip_uuid = new_uuid()
    dip = register(
        sim,
        uuid=dip_uuid,
        package_type="DIP",
        current_location="/api/v2/location/default/DS/",
        current_path=f"minutes-{aip['uuid']}",
        related_package_uuid=aip["uuid"],
    )
    assert dip["current_location"] == default_location(sim, "DS")["resource_uri"]
    assert dip["related_packages"] == [aip["resource_uri"]]
    assert get_json(sim, aip["resource_uri"])["related_packages"] == [dip["resource_uri"]]


def test_it_refuses_a_registration_with_a_missing_field(sim):
    body = registration(sim)
    del body["current_location"]
    response = call(sim, "POST", "/api/v2/file/", json=body)
    assert response.status_code == 400
    message = "The 'current_location' field has no data and doesn't allow a default or null value."
    assert response.json() == {"error": message}


def test_it_refuses_a_body_that_is_not_json(sim):
    response = call(
        sim, "POST", "/api/v2/file/", data="{not json", headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json() == {"error": "Request is not valid JSON."}


def test_it_fails_with_the_canned_500_on_a_duplicate_package(sim):
    existing = register(sim)
    response = call(sim, "POST", "/api/v2/file/", json=registration(sim, uuid=existing["uuid"]))
    assert response.status_code == 500
    assert response.json() == CANNED_500


def test_it_registers_asynchronously_after_a_few_seconds(sim):
    body = registration(sim)
    response = call(sim, "POST", "/api/v2/file/async/", json=body)
    assert response.status_code == 202
    assert response.content == b""
    task_uri = response.headers["Location"]
    assert task_uri.startswith("/api/v2/async/")
    waiting = get_json(sim, task_uri)
    assert (waiting["completed"], waiting["was_error"], waiting["completed_time"]) == (
        False,
        False,
        None,
    )
    sim.control("advance", {"seconds": 10})
    done = get_json(sim, task_uri)
    assert done["completed"] is True and done["result"]["uuid"] == body["uuid"]
    assert get_json(sim, f"/api/v2/file/{body['uuid']}/")["status"] == "UPLOADED"
    assert call(sim, "GET", "/api/v2/async/999999/").status_code == 404


def test_it_updates_a_package_with_patch(sim):
    created = register(sim)
    response = call(sim, "PATCH", created["resource_uri"], json={"status": "VERIFIED"})
    assert response.status_code == 202
    assert response.json()["status"] == "VERIFIED"
    assert response.json()["misc_attributes"]["reingest"] is None


# --- Delete and recover requests -----------------------------------------------------------------


def test_it_files_a_delete_request_once(sim):
    aip = register(sim)
    response = call(sim, "POST", f"{aip['resource_uri']}delete_aip/", json=request_body(sim))
    assert response.status_code == 202
    assert response.json()["message"] == "Delete request created successfully."
    assert isinstance(response.json()["id"], int)
    assert get_json(sim, aip["resource_uri"])["status"] == "DEL_REQ"
    again = call(sim, "POST", f"{aip['resource_uri']}delete_aip/", json=request_body(sim))
    assert again.status_code == 200
    assert again.json() == {"message": "A deletion request already exists for this AIP."}


@pytest.mark.parametrize(
    "change",
    [{"user_id": 0}, {"user_id": "someone"}, {"user_email": None}],
)
def test_it_refuses_an_incomplete_or_invalid_delete_request(sim, change):
    aip = register(sim)
    body = {key: value for key, value in request_body(sim, **change).items() if value is not None}
    response = call(sim, "POST", f"{aip['resource_uri']}delete_aip/", json=body)
    assert response.status_code == 400
    assert response.json()["success"] is False
    assert get_json(sim, aip["resource_uri"])["status"] == "UPLOADED"


def test_it_answers_a_request_for_an_unknown_package_with_plain_text(sim):
    response = call(sim, "POST", f"/api/v2/file/{UNKNOWN_UUID}/delete_aip/", json=request_body(sim))
    assert response.status_code == 404
    assert response.text == f"Resource with UUID {UNKNOWN_UUID} does not exist"


def test_it_files_a_recover_request(sim):
    aip = register(sim)
    response = call(sim, "POST", f"{aip['resource_uri']}recover_aip/", json=request_body(sim))
    assert response.status_code == 202
    assert response.json()["message"] == "Recover request created successfully."
    assert get_json(sim, aip["resource_uri"])["status"] == "RECOVER_REQ"


# --- Reingest and move ---------------------------------------------------------------------------


def test_it_sends_an_aip_to_reingest_once(sim):
    aip = register(sim)
    pipeline = main_pipeline(sim)
    body = {"pipeline": pipeline["uuid"], "reingest_type": "metadata_only"}
    response = call(sim, "POST", f"{aip['resource_uri']}reingest/", json=body)
    assert response.status_code == 202
    receipt = response.json()
    assert receipt["error"] is False and receipt["status_code"] == 202
    assert uuid.UUID(receipt["reingest_uuid"])
    assert (
        get_json(sim, aip["resource_uri"])["misc_attributes"]["reingest_pipeline"]
        == pipeline["uuid"]
    )
    again = call(sim, "POST", f"{aip['resource_uri']}reingest/", json=body)
    assert again.status_code == 409
    assert again.json()["error"] is True and again.json()["status_code"] == 409


def test_it_refuses_to_reingest_on_an_unknown_pipeline_or_a_dip(sim):
    aip = register(sim)
    unknown = call(
        sim,
        "POST",
        f"{aip['resource_uri']}reingest/",
        json={"pipeline": UNKNOWN_UUID, "reingest_type": "FULL"},
    )
    assert unknown.status_code == 400 and unknown.json()["error"] is True
    dip = uploaded(sim, "DIP")[0]
    not_aip = call(
        sim,
        "POST",
        f"{dip['resource_uri']}reingest/",
        json={"pipeline": main_pipeline(sim)["uuid"], "reingest_type": "FULL"},
    )
    assert not_aip.status_code == 405 and not_aip.json()["status_code"] == 405


def test_it_moves_a_package_to_another_location_of_the_same_purpose(sim):
    aip = register(sim, size=777)
    stores = get_json(sim, "/api/v2/location/", purpose="AS")["objects"]
    target = next(
        item
        for item in stores
        if item["resource_uri"] != aip["current_location"]
        and item["space"] == default_location(sim, "DS")["space"]
    )
    used_before = int(target["used"])
    response = call(
        sim, "POST", f"{aip['resource_uri']}move/", data={"location_uuid": target["uuid"]}
    )
    assert response.status_code == 202
    sim.control("advance", {"seconds": 5})
    assert get_json(sim, aip["resource_uri"])["current_location"] == target["resource_uri"]
    assert int(get_json(sim, target["resource_uri"])["used"]) == used_before + 777


def test_it_refuses_to_move_a_package_to_a_location_of_another_purpose(sim):
    aip = register(sim)
    response = call(
        sim,
        "POST",
        f"{aip['resource_uri']}move/",
        json={"location_uuid": default_location(sim, "DS")["uuid"]},
    )
    assert response.status_code == 400
    assert "same purpose" in response.text


# --- Downloads and files -------------------------------------------------------------------------


def test_it_streams_a_compressed_aip_with_its_size_and_name(sim):
    aip = register(sim, size=300_000)
    response = call(sim, "GET", f"{aip['resource_uri']}download/", stream=True)
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "application/x-7z-compressed"
    assert (
        response.headers["Content-Disposition"]
        == f'attachment; filename="minutes-{aip["uuid"]}.7z"'
    )
    body = b"".join(response.iter_content(65536))
    assert len(body) == 300_000
    repeat = call(sim, "GET", f"{aip['resource_uri']}download/").content
    assert repeat == body


def test_it_answers_head_on_a_download_with_headers_only(sim):
    aip = register(sim, size=5000)
    response = call(sim, "HEAD", f"{aip['resource_uri']}download/")
    assert response.status_code == 200
    assert response.headers["Content-Length"] == "5000"
    assert response.content == b""


def test_it_serves_an_uncompressed_package_as_a_tar(sim):
    transfer = uploaded(sim, "transfer")[0]
    response = call(sim, "GET", f"{transfer['resource_uri']}download/1/", stream=True)
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "application/x-tar"
    assert ".tar" in response.headers["Content-Disposition"]
    response.close()


def test_it_answers_202_for_a_package_in_the_external_store(sim):
    remote_space = get_json(sim, "/api/v2/space/", access_protocol="EAS")["objects"][0]
    location = get_json(sim, "/api/v2/location/", space=remote_space["uuid"])["objects"][0]
    package = uploaded(sim, "AIP", current_location__uuid=location["uuid"])[0]
    for endpoint in ("download/", "extract_file/?relative_path_to_file=x"):
        response = call(sim, "GET", f"{package['resource_uri']}{endpoint}")
        assert response.status_code == 202
        assert response.json()["error"] is False
        assert response.json()["message"].startswith("File is not locally available.")


def test_it_keeps_its_memory_flat_while_streaming_200_megabytes(sim):
    status = Path(f"/proc/{sim._process.pid}/status")  # the process handle is private to the helper
    if not status.exists():
        pytest.skip("needs /proc to read the simulator's memory")

    def peak_resident_kib() -> int:
        # The high-water mark: a body built in memory and freed again still shows.
        line = next(line for line in status.read_text().splitlines() if line.startswith("VmHWM:"))
        return int(line.split()[1])

    aip = register(sim, size=200 * 1024 * 1024)
    before = peak_resident_kib()
    response = call(sim, "GET", f"{aip['resource_uri']}download/", stream=True)
    received = sum(len(chunk) for chunk in response.iter_content(1024 * 1024))
    assert received == 200 * 1024 * 1024
    assert peak_resident_kib() - before < 30 * 1024


def test_it_extracts_the_mets_file_of_an_aip(sim):
    aip = register(sim)
    path = f"minutes-{aip['uuid']}/data/METS.{aip['uuid']}.xml"
    response = call(
        sim, "GET", f"{aip['resource_uri']}extract_file/", params={"relative_path_to_file": path}
    )
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "application/xml"
    assert aip["uuid"] in response.text
    missing = call(sim, "GET", f"{aip['resource_uri']}extract_file/")
    assert missing.status_code == 400


def test_it_serves_pointer_files_of_compressed_aips_only(sim):
    aip = register(sim)
    response = call(sim, "GET", f"{aip['resource_uri']}pointer_file/")
    assert response.status_code == 200
    assert aip["uuid"] in response.text and response.text.startswith("<?xml")
    dip = uploaded(sim, "DIP")[0]
    refused = call(sim, "GET", f"{dip['resource_uri']}pointer_file/")
    assert refused.status_code == 404
    assert refused.text.endswith("does not have a pointer file")


def test_it_checks_fixity_of_bags_and_cannot_scan_other_packages(sim):
    aip = register(sim)
    result = get_json(sim, f"{aip['resource_uri']}check_fixity/", force_local="true")
    assert set(result) == {"success", "message", "failures", "timestamp"}
    assert result["success"] in (True, False)
    assert set(result["failures"]["files"]) == {"missing", "changed", "untracked"}
    dip = uploaded(sim, "DIP")[0]
    assert get_json(sim, f"{dip['resource_uri']}check_fixity/")["success"] is None
    assert call(sim, "GET", f"/api/v2/file/{UNKNOWN_UUID}/check_fixity/").status_code == 404


def test_it_runs_no_callbacks_after_storage(sim):
    aip = register(sim)
    assert call(sim, "GET", f"{aip['resource_uri']}send_callback/post_store/").status_code == 204


def test_it_adds_lists_and_removes_file_records(sim):
    aip = register(sim)
    record = {
        "relative_path": f"minutes-{aip['uuid']}/data/objects/a.pdf",
        "fileuuid": new_uuid(),
        "accessionid": "2024-001",
        "sipuuid": aip["uuid"],
        "origin": main_pipeline(sim)["uuid"],
    }
    put = call(sim, "PUT", f"{aip['resource_uri']}contents/", json=[record])
    assert put.status_code == 201
    assert put.json() == [record]
    contents = get_json(sim, f"{aip['resource_uri']}contents/")
    assert contents["success"] is True and contents["package"] == aip["uuid"]
    assert record["fileuuid"] in [item["source_id"] for item in contents["files"]]
    found = get_json(sim, "/api/v2/file/metadata/", fileuuid=record["fileuuid"])
    assert found[0]["filename"] == "a.pdf" and found[0]["file_extension"] == "pdf"
    assert call(sim, "DELETE", f"{aip['resource_uri']}contents/").status_code == 204
    assert get_json(sim, f"{aip['resource_uri']}contents/")["files"] == []
    assert call(sim, "GET", "/api/v2/file/metadata/").status_code == 400


def test_it_answers_sword_routes_with_a_stub(sim):
    location = default_location(sim, "AS")
    assert call(sim, "GET", f"{location['resource_uri']}sword/collection/").status_code == 501
