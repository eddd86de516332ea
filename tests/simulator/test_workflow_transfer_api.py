"""Contract tests over HTTP: auth, routing quirks, transfer and ingest endpoints."""

from __future__ import annotations

import base64
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.support.simulator_process import SimulatorProcess

pytestmark = pytest.mark.integration

FORBIDDEN = {"message": "API key not valid.", "error": True}
UNKNOWN = "9b2e4f3c-1d5a-4c6b-8e7f-0a1b2c3d4e5f"


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorProcess]:
    # speed 0: simulated time only moves through /_simulator/advance.
    with SimulatorProcess(units=40, seed=3, speed=0, start="2024-06-03T09:00:00") as process:
        yield process


def call(sim: SimulatorProcess, method: str, path: str, **kwargs: Any) -> requests.Response:
    kwargs.setdefault("headers", sim.auth_header)
    kwargs.setdefault("allow_redirects", False)
    return requests.request(method, sim.workflow_url + path, timeout=10, **kwargs)


def source_path(sim: SimulatorProcess, index: int = 0) -> str:
    location, path = sim.control("state")["transfer_sources"][index]
    return base64.b64encode(f"{location}:{path}".encode()).decode()


def start_form(sim: SimulatorProcess, **changes: Any) -> requests.Response:
    form = {"name": "Broken", "type": "standard", "paths[]": [source_path(sim)], "row_ids[]": [""]}
    return call(sim, "POST", "/api/transfer/start_transfer/", data={**form, **changes})


def start(sim: SimulatorProcess, name: str) -> requests.Response:
    return start_form(sim, name=name)


def unapproved(sim: SimulatorProcess) -> list[dict[str, str]]:
    return call(sim, "GET", "/api/transfer/unapproved").json()["results"]


def approve(sim: SimulatorProcess, directory: str) -> requests.Response:
    return call(
        sim, "POST", "/api/transfer/approve", data={"type": "standard", "directory": directory}
    )


def started_uuid(sim: SimulatorProcess, name: str) -> str:
    assert start(sim, name).status_code == 200
    return next(entry["uuid"] for entry in unapproved(sim) if entry["directory"] == name)


def transfer_statuses(sim: SimulatorProcess) -> dict[str, dict[str, Any]]:
    completed = call(sim, "GET", "/api/transfer/completed").json()["results"]
    return {u: call(sim, "GET", f"/api/transfer/status/{u}/").json() for u in completed}


# -- authentication ---------------------------------------------------------


def test_it_accepts_the_api_key_header_with_any_scheme_case(sim: SimulatorProcess) -> None:
    for scheme in ("ApiKey", "apikey", "APIKEY"):
        headers = {"Authorization": f"{scheme} {sim.user}:{sim.key}"}
        assert call(sim, "GET", "/api/transfer/completed", headers=headers).status_code == 200


def test_it_accepts_credentials_in_the_query_or_the_form(sim: SimulatorProcess) -> None:
    query = call(
        sim, "GET", f"/api/ingest/waiting?username={sim.user}&api_key={sim.key}", headers={}
    )
    form = call(
        sim,
        "POST",
        "/api/transfer/approve",
        headers={},
        data={"username": sim.user, "api_key": sim.key, "directory": "nope"},
    )

    assert query.status_code == 200
    assert form.status_code == 500  # authenticated, then the approval itself fails


def test_it_returns_403_json_for_a_missing_or_wrong_key(sim: SimulatorProcess) -> None:
    missing = call(sim, "GET", "/api/transfer/completed", headers={})
    wrong = call(
        sim, "GET", "/api/transfer/completed", headers={"Authorization": f"ApiKey {sim.user}:wrong"}
    )
    colon_form = call(
        sim,
        "GET",
        "/api/transfer/completed",
        headers={"Authorization": f"ApiKey: {sim.user}:{sim.key}"},
    )

    for response in (missing, wrong, colon_form):
        assert response.status_code == 403
        assert response.headers["Content-Type"] == "application/json"
        assert response.json() == FORBIDDEN


def test_a_wrong_method_gets_405_with_allow_before_auth(sim: SimulatorProcess) -> None:
    response = call(sim, "GET", "/api/transfer/approve", headers={})

    assert response.status_code == 405
    assert response.content == b""
    assert response.headers["Allow"] == "POST"


# -- routing ----------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/api/transfer/completed",
        "/api/transfer/completed/",
        "/api/transfer/unapproved",
        "/api/transfer/unapproved/",
        "/api/ingest/waiting",
        "/api/ingest/waiting/",
        "/api/ingest/completed",
        "/api/ingest/completed/",
        "/api/processing-configuration",
        "/api/processing-configuration/",
    ],
)
def test_unanchored_routes_take_the_trailing_slash_optionally(
    sim: SimulatorProcess, path: str
) -> None:
    assert call(sim, "GET", path).status_code == 200


@pytest.mark.parametrize(
    "method,path",
    [
        ("POST", "/api/transfer/start_transfer"),
        ("DELETE", f"/api/transfer/{UNKNOWN}/delete"),
        ("DELETE", f"/api/ingest/{UNKNOWN}/delete"),
        ("POST", "/api/ingest/copy_metadata_files"),
        ("GET", "/api/filesystem/metadata?path=/arrange/x/"),
        ("GET", "/api/administration/dips/accessapp/levels"),
        ("GET", "/api/administration/dips/accessapp/fetch_levels"),
    ],
)
def test_slash_required_routes_redirect_permanently_without_it(
    sim: SimulatorProcess, method: str, path: str
) -> None:
    response = call(sim, method, path, headers={})
    bare, _, query = path.partition("?")

    assert response.status_code == 301
    assert response.headers["Location"] == bare + "/" + (f"?{query}" if query else "")


def test_a_path_segment_not_shaped_like_a_uuid_is_a_404_html_page(sim: SimulatorProcess) -> None:
    response = call(sim, "GET", "/api/transfer/status/not-a-uuid/")

    assert response.status_code == 404
    assert response.headers["Content-Type"].startswith("text/html")


# -- transfer ---------------------------------------------------------------


def test_starting_a_transfer_copies_it_and_leaves_it_awaiting_approval(
    sim: SimulatorProcess,
) -> None:
    response = start(sim, "Fresh copy")
    listed = [entry for entry in unapproved(sim) if entry["directory"] == "Fresh copy"]

    assert response.status_code == 200
    assert response.json()["message"] == "Copy successful."
    assert response.json()["path"].endswith("/activeTransfers/standardTransfer/Fresh copy/")
    assert len(listed) == 1 and listed[0]["type"] == "standard"
    uuid.UUID(listed[0]["uuid"])


def test_starting_a_transfer_accepts_a_json_body(sim: SimulatorProcess) -> None:
    body = {"name": "From JSON", "type": "standard", "paths": [source_path(sim, 1)]}
    response = call(sim, "POST", "/api/transfer/start_transfer/", json=body)

    assert response.status_code == 200
    assert "From JSON" in [entry["directory"] for entry in unapproved(sim)]


def test_a_colliding_name_is_suffixed_and_only_the_path_tells(sim: SimulatorProcess) -> None:
    start(sim, "Twice")
    second = start(sim, "Twice")

    assert second.json()["path"].endswith("/Twice_1/")
    assert {"Twice", "Twice_1"} <= {entry["directory"] for entry in unapproved(sim)}


@pytest.mark.parametrize(
    "form,message",
    [
        ({"name": ""}, "No transfer name provided."),
        ({"paths[]": []}, "No path provided."),
    ],
)
def test_starting_without_a_name_or_paths_is_a_500_json_error(
    sim: SimulatorProcess, form: dict[str, Any], message: str
) -> None:
    response = start_form(sim, **form)

    assert response.status_code == 500
    assert response.json() == {"error": True, "message": message}


def test_starting_from_a_location_outside_the_pipeline_is_a_500(sim: SimulatorProcess) -> None:
    path = base64.b64encode(f"{UNKNOWN}:anything".encode()).decode()
    response = start_form(sim, **{"paths[]": [path]})

    assert response.status_code == 500
    assert response.json()["error"] is True
    assert UNKNOWN in response.json()["message"]


def test_approving_moves_the_transfer_out_of_the_unapproved_list(sim: SimulatorProcess) -> None:
    transfer_uuid = started_uuid(sim, "To approve")

    response = approve(sim, "To approve")
    sim.control("advance", {"seconds": 120})
    status = call(sim, "GET", f"/api/transfer/status/{transfer_uuid}").json()

    assert response.status_code == 200
    assert response.json() == {"message": "Approval successful.", "uuid": transfer_uuid}
    assert transfer_uuid not in [entry["uuid"] for entry in unapproved(sim)]
    assert status["microservice"] != "Approve standard transfer"


def test_approving_accepts_a_json_body(sim: SimulatorProcess) -> None:
    transfer_uuid = started_uuid(sim, "JSON approval")

    response = call(
        sim,
        "POST",
        "/api/transfer/approve/",
        json={"type": "standard", "directory": "JSON approval"},
    )

    assert response.json()["uuid"] == transfer_uuid


@pytest.mark.parametrize(
    "form,message",
    [
        ({"type": "standard"}, "Please specify a transfer directory."),
        ({"type": "sideways", "directory": "x"}, "Invalid transfer type."),
        ({"type": "standard", "directory": "never started"}, "Unable to start the transfer."),
    ],
)
def test_every_approval_failure_is_a_500(
    sim: SimulatorProcess, form: dict[str, str], message: str
) -> None:
    response = call(sim, "POST", "/api/transfer/approve", data=form)

    assert response.status_code == 500
    assert response.json() == {"error": True, "message": message}


def test_transfer_status_has_the_documented_fields(sim: SimulatorProcess) -> None:
    transfer_uuid = started_uuid(sim, "Status <b>check</b> é")
    body = call(sim, "GET", f"/api/transfer/status/{transfer_uuid}/").json()

    assert body == {
        "status": "USER_INPUT",
        "name": "Status <b>check</b> é",
        "microservice": "Approve standard transfer",
        "directory": "Status <b>check</b> é",
        "path": body["path"],
        "message": f"Fetched status for {transfer_uuid} successfully.",
        "type": "transfer",
        "uuid": transfer_uuid,
    }
    assert body["path"].endswith("/Status <b>check</b> é/")


def test_completed_transfers_name_their_sip_or_the_backlog(sim: SimulatorProcess) -> None:
    statuses = transfer_statuses(sim)

    assert statuses
    assert {body["status"] for body in statuses.values()} == {"COMPLETE"}
    assert "BACKLOG" in {body.get("sip_uuid") for body in statuses.values()}
    for body in statuses.values():
        if body["sip_uuid"] != "BACKLOG":
            sip = call(sim, "GET", f"/api/ingest/status/{body['sip_uuid']}/")
            assert sip.json()["type"] == "SIP"


def test_status_of_an_unknown_unit_is_a_400_naming_the_unit_type(sim: SimulatorProcess) -> None:
    transfer = call(sim, "GET", f"/api/transfer/status/{UNKNOWN}")
    sip = call(sim, "GET", f"/api/ingest/status/{UNKNOWN}/")

    assert transfer.status_code == 400
    assert transfer.json() == {
        "type": "transfer",
        "message": f"Cannot fetch unitTransfer with UUID {UNKNOWN}",
        "error": True,
    }
    assert sip.status_code == 400
    assert sip.json() == {
        "type": "SIP",
        "message": f"Cannot fetch unitSIP with UUID {UNKNOWN}",
        "error": True,
    }


def test_hiding_needs_a_finished_unit_and_only_works_once(sim: SimulatorProcess) -> None:
    running = started_uuid(sim, "Still running")
    finished = next(iter(transfer_statuses(sim)))

    busy = call(sim, "DELETE", f"/api/transfer/{running}/delete/")
    first = call(sim, "DELETE", f"/api/transfer/{finished}/delete/")
    again = call(sim, "DELETE", f"/api/transfer/{finished}/delete/")
    unknown = call(sim, "DELETE", f"/api/transfer/{UNKNOWN}/delete/")
    garbage = call(sim, "DELETE", "/api/transfer/zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz/delete/")

    assert (busy.status_code, busy.json()) == (409, {"removed": False})
    assert (first.status_code, first.json()) == (200, {"removed": True})
    assert (again.status_code, again.json()) == (409, {"removed": False})
    assert unknown.status_code == 409
    assert (garbage.status_code, garbage.json()) == (500, {"removed": False})
    assert finished not in call(sim, "GET", "/api/transfer/completed").json()["results"]
    assert call(sim, "GET", f"/api/transfer/status/{finished}").status_code == 200


def test_transfer_reingest_needs_name_and_uuid(sim: SimulatorProcess) -> None:
    missing = call(sim, "POST", "/api/transfer/reingest", data={"name": "x"})
    created = call(
        sim,
        "POST",
        "/api/transfer/reingest",
        data={"name": "Reingested AIP", "uuid": str(uuid.uuid4())},
    )

    assert (missing.status_code, missing.json()) == (
        400,
        {"error": True, "message": '"name" and "uuid" are required.'},
    )
    assert created.status_code == 200
    assert created.json()["message"] == "Approval successful."
    assert created.json()["reingest_uuid"] in [entry["uuid"] for entry in unapproved(sim)]


# -- ingest -----------------------------------------------------------------


def test_ingest_status_is_served_with_and_without_the_api_prefix(sim: SimulatorProcess) -> None:
    sip_uuid = call(sim, "GET", "/api/ingest/completed").json()["results"][0]

    with_prefix = call(sim, "GET", f"/api/ingest/status/{sip_uuid}/")
    documented = call(sim, "GET", f"/ingest/status/{sip_uuid}/")

    assert with_prefix.status_code == documented.status_code == 200
    assert with_prefix.json() == documented.json()
    assert with_prefix.json()["type"] == "SIP"
    assert with_prefix.json()["status"] == "COMPLETE"
    assert "sip_uuid" not in with_prefix.json()


def test_ingest_status_uses_both_spellings_of_the_microservice_key(sim: SimulatorProcess) -> None:
    keys = set()
    for sip_uuid in call(sim, "GET", "/api/ingest/completed").json()["results"]:
        body = call(sim, "GET", f"/api/ingest/status/{sip_uuid}").json()
        present = {"microservice", "microservices"} & set(body)
        assert len(present) == 1
        keys |= present

    assert keys == {"microservice", "microservices"}


def test_waiting_lists_transfers_and_sips_awaiting_a_decision(sim: SimulatorProcess) -> None:
    transfer_uuid = started_uuid(sim, "Waiting one")
    body = call(sim, "GET", "/api/ingest/waiting").json()

    assert body["message"] == "Fetched units successfully."
    for entry in body["results"]:
        assert set(entry) == {"sip_directory", "sip_uuid", "sip_name", "microservice"}
    microservices = {entry["microservice"] for entry in body["results"]}
    assert {
        "sip_directory": "Waiting one",
        "sip_uuid": transfer_uuid,
        "sip_name": "Waiting one",
        "microservice": "Approve standard transfer",
    } in body["results"]
    assert microservices - {"Approve standard transfer"}


def test_completed_ingests_carry_the_transfers_message(sim: SimulatorProcess) -> None:
    body = call(sim, "GET", "/api/ingest/completed").json()

    assert body["message"] == "Fetched completed transfers successfully."
    for sip_uuid in body["results"]:
        uuid.UUID(sip_uuid)


def test_ingest_reingest_returns_the_aip_uuid_and_refuses_a_second_one(
    sim: SimulatorProcess,
) -> None:
    aip_uuid = str(uuid.uuid4())
    first = call(sim, "POST", "/api/ingest/reingest", data={"name": "AIP", "uuid": aip_uuid})
    second = call(sim, "POST", "/api/ingest/reingest", data={"name": "AIP", "uuid": aip_uuid})

    assert first.json() == {"message": "Approval successful.", "reingest_uuid": aip_uuid}
    assert second.status_code == 400
    assert second.json()["error"] is True


def test_copy_metadata_files_adds_files_to_a_sip(sim: SimulatorProcess) -> None:
    sip_uuid = call(sim, "GET", "/api/ingest/completed").json()["results"][0]
    response = call(
        sim,
        "POST",
        "/api/ingest/copy_metadata_files/",
        data={"sip_uuid": sip_uuid, "source_paths[]": [source_path(sim)]},
    )

    assert response.status_code == 201
    assert response.json() == {"error": False, "message": "Metadata files added successfully."}


def test_copy_metadata_files_needs_both_fields(sim: SimulatorProcess) -> None:
    response = call(sim, "POST", "/api/ingest/copy_metadata_files/", data={"sip_uuid": UNKNOWN})

    assert response.status_code == 400
    assert response.json() == {
        "error": True,
        "message": "sip_uuid and source_paths[] both required.",
    }


def test_copy_metadata_files_from_a_foreign_location_is_a_500(sim: SimulatorProcess) -> None:
    sip_uuid = call(sim, "GET", "/api/ingest/completed").json()["results"][0]
    path = base64.b64encode(f"{UNKNOWN}:/metadata.csv".encode()).decode()
    response = call(
        sim,
        "POST",
        "/api/ingest/copy_metadata_files/",
        data={"sip_uuid": sip_uuid, "source_paths[]": [path]},
    )

    assert response.status_code == 500
    assert response.json() == {
        "error": True,
        "message": f"Location {UNKNOWN} is not associated with this pipeline",
    }


def test_a_partial_reingest_waits_for_its_approval_then_runs(sim: SimulatorProcess) -> None:
    aip_uuid = str(uuid.uuid4())
    early = call(sim, "POST", "/api/ingest/reingest/approve", data={"uuid": aip_uuid})
    started = call(sim, "POST", "/api/ingest/reingest", data={"name": "Minutes", "uuid": aip_uuid})

    sim.control("advance", {"seconds": 5})
    waiting = [
        entry
        for entry in call(sim, "GET", "/api/ingest/waiting").json()["results"]
        if entry["sip_uuid"] == aip_uuid
    ]
    status = call(sim, "GET", f"/api/ingest/status/{aip_uuid}/").json()["status"]
    approved = call(sim, "POST", "/api/ingest/reingest/approve/", data={"uuid": aip_uuid})
    again = call(sim, "POST", "/api/ingest/reingest/approve/", data={"uuid": aip_uuid})
    missing = call(sim, "POST", "/api/ingest/reingest/approve/", data={})

    assert early.status_code == 400
    assert early.json() == {"error": True, "message": "Unable to approve the partial reingest."}
    assert started.json()["reingest_uuid"] == aip_uuid
    assert waiting and waiting[0]["microservice"] == "Approve AIP reingest"
    assert status == "USER_INPUT"
    assert approved.status_code == 200
    assert approved.json() == {"message": "Approval successful."}
    assert again.status_code == 400
    assert missing.json() == {"error": True, "message": '"uuid" is required.'}
