"""Contract tests of the fake storage service's read endpoints, over real HTTP.

They run the simulator as a separate process and check what a client of the real
service must cope with: auth failures, redirects, list envelopes, filters and base64
browsing. Numbers sent as strings (older releases) are in `test_storage_http_legacy.py`.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
import requests

from tests.support.simulator_process import SimulatorProcess

pytestmark = pytest.mark.integration

UNKNOWN_UUID = "00000000-0000-4000-8000-000000000000"
URI = re.compile(r"^/api/v2/(pipeline|space|location|file)/[0-9a-f-]{36}/$")
CANNED_500 = {
    "error_message": "Sorry, this request could not be processed. Please try again later."
}


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorProcess]:
    with SimulatorProcess(units=2, packages=1500, seed=5) as running:
        yield running


def get(sim: SimulatorProcess, path: str, *, auth: bool = True, **kwargs: Any) -> requests.Response:
    headers = {**(sim.auth_header if auth else {}), **kwargs.pop("headers", {})}
    return requests.get(
        f"{sim.storage_url}{path}", headers=headers, allow_redirects=False, timeout=10, **kwargs
    )


def objects(sim: SimulatorProcess, path: str, **params: Any) -> list[dict[str, Any]]:
    response = get(sim, path, params={"limit": 0, **params})
    assert response.status_code == 200, response.text
    return response.json()["objects"]


def b64(text: str | bytes) -> str:
    raw = text.encode("utf-8") if isinstance(text, str) else text
    return base64.b64encode(raw).decode("ascii")


def unb64(value: str) -> bytes:
    return base64.b64decode(value)


def location_of(sim: SimulatorProcess, purpose: str) -> dict[str, Any]:
    response = get(sim, f"/api/v2/location/default/{purpose}/")
    assert response.status_code == 302
    return get(sim, response.headers["Location"]).json()


def assert_empty_401(response: requests.Response) -> None:
    assert response.status_code == 401
    assert response.content == b""
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert response.headers["WWW-Authenticate"] == 'Basic Realm="django-tastypie"'


# --- Authentication ------------------------------------------------------------------------------


def test_it_lists_the_resources_at_the_root_without_a_key(sim):
    response = get(sim, "/api/v2/", auth=False)
    assert response.status_code == 200
    assert set(response.json()) == {"async", "file", "location", "pipeline", "space"}
    assert response.json()["file"] == {
        "list_endpoint": "/api/v2/file/",
        "schema": "/api/v2/file/schema/",
    }


@pytest.mark.parametrize(
    "path",
    [
        "/api/v2/pipeline/",
        "/api/v2/file/",
        "/api/v2/location/schema/",
        f"/api/v2/file/{UNKNOWN_UUID}/",
    ],
)
def test_it_answers_401_with_an_empty_body_without_a_key(sim, path):
    assert_empty_401(get(sim, path, auth=False))


def test_it_answers_401_to_an_unauthenticated_post(sim):
    response = requests.post(f"{sim.storage_url}/api/v2/pipeline/", json={}, timeout=10)
    assert_empty_401(response)


@pytest.mark.parametrize(
    "header",
    ["ApiKey demo:wrong-key", "ApiKey someone:demo-key", "ApiKey demo demo-key", "Bearer demo-key"],
)
def test_it_answers_401_to_wrong_or_malformed_credentials(sim, header):
    assert_empty_401(get(sim, "/api/v2/file/", auth=False, headers={"Authorization": header}))


def test_it_matches_the_auth_scheme_in_any_case(sim):
    response = get(
        sim, "/api/v2/file/", auth=False, headers={"Authorization": "apikey demo:demo-key"}
    )
    assert response.status_code == 200


def test_it_accepts_credentials_in_the_query_and_repeats_them_in_next(sim):
    response = get(
        sim, "/api/v2/file/", auth=False, params={"username": "demo", "api_key": "demo-key"}
    )
    assert response.status_code == 200
    next_link = response.json()["meta"]["next"]
    assert next_link.startswith("/api/v2/file/?")
    assert "username=demo" in next_link and "api_key=demo-key" in next_link


def test_it_rejects_query_credentials_on_pipelines_because_they_have_an_api_key_field(sim):
    response = get(
        sim, "/api/v2/pipeline/", auth=False, params={"username": "demo", "api_key": "demo-key"}
    )
    assert response.status_code == 400
    assert response.json() == {"error": "The 'api_key' field does not allow filtering."}


# --- Slashes, routes, methods --------------------------------------------------------------------


def test_it_redirects_to_the_slashed_url_keeping_the_query(sim):
    response = get(sim, "/api/v2/location", params={"purpose": "AS"})
    assert response.status_code == 301
    assert response.headers["Location"] == f"{sim.storage_url}/api/v2/location/?purpose=AS"


def test_it_redirects_a_post_without_the_slash_too(sim):
    response = requests.post(
        f"{sim.storage_url}/api/v2/pipeline",
        json={},
        headers=sim.auth_header,
        allow_redirects=False,
        timeout=10,
    )
    assert response.status_code == 301
    assert response.headers["Location"] == f"{sim.storage_url}/api/v2/pipeline/"


def test_it_redirects_detail_urls_without_the_slash(sim):
    response = get(sim, f"/api/v2/file/{UNKNOWN_UUID}")
    assert response.status_code == 301
    assert response.headers["Location"].endswith(f"/api/v2/file/{UNKNOWN_UUID}/")


@pytest.mark.parametrize("path", ["/api/v2/nothing/", "/api/v3/", "/api/v2/nothing"])
def test_it_answers_unknown_routes_with_an_html_page(sim, path):
    response = get(sim, path)
    assert response.status_code == 404
    assert response.headers["Content-Type"].startswith("text/html")
    assert "<html" in response.text


def test_it_answers_405_with_the_allowed_methods(sim):
    response = requests.delete(
        f"{sim.storage_url}/api/v2/pipeline/", headers=sim.auth_header, timeout=10
    )
    assert response.status_code == 405
    assert response.headers["Allow"] == "GET,POST"
    assert response.text == "GET,POST"


def test_it_refuses_head_on_a_list(sim):
    response = requests.head(f"{sim.storage_url}/api/v2/file/", headers=sim.auth_header, timeout=10)
    assert response.status_code == 405


# --- Lists and paging ----------------------------------------------------------------------------


def test_it_wraps_lists_in_meta_and_objects_with_twenty_by_default(sim):
    body = get(sim, "/api/v2/file/").json()
    assert set(body) == {"meta", "objects"}
    assert set(body["meta"]) == {"limit", "next", "offset", "previous", "total_count"}
    assert body["meta"]["limit"] == 20 and len(body["objects"]) == 20
    assert body["meta"]["total_count"] == 1500
    assert body["meta"]["previous"] is None


def test_it_reads_limit_zero_as_a_thousand(sim):
    body = get(sim, "/api/v2/file/", params={"limit": 0}).json()
    assert body["meta"]["limit"] == 1000 and len(body["objects"]) == 1000
    assert body["meta"]["next"].endswith("limit=1000&offset=1000")


def test_it_links_to_the_previous_page_relatively(sim):
    meta = get(sim, "/api/v2/file/", params={"limit": 2, "offset": 2}).json()["meta"]
    assert meta["previous"] == "/api/v2/file/?limit=2&offset=0"
    assert meta["next"] == "/api/v2/file/?limit=2&offset=4"


def test_it_returns_an_empty_page_beyond_the_end(sim):
    body = get(sim, "/api/v2/pipeline/", params={"limit": 2, "offset": 100}).json()
    assert body["objects"] == []
    assert body["meta"]["next"] is None
    assert body["meta"]["previous"] == "/api/v2/pipeline/?limit=2&offset=98"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"limit": "abc"}, "Invalid limit 'abc' provided. Please provide a positive integer."),
        (
            {"offset": "-1"},
            "Invalid offset '-1' provided. Please provide a positive integer &gt;= 0.",
        ),
        ({"order_by": "-stored_date"}, "The 'stored_date' field does not allow ordering."),
        (
            {"origin_pipeline__uuid": UNKNOWN_UUID},
            "The 'origin_pipeline' field does not allow filtering.",
        ),
        ({"uuid": "not-a-uuid"}, "['\u201cnot-a-uuid\u201d is not a valid UUID.']"),
    ],
)
def test_it_rejects_bad_list_queries_with_400_json(sim, params, message):
    response = get(sim, "/api/v2/file/", params=params)
    assert response.status_code == 400
    assert response.json() == {"error": message}


def test_it_ignores_unknown_parameters(sim):
    assert get(sim, "/api/v2/file/", params={"bogus": 1}).json()["meta"]["total_count"] == 1500


# --- Package filters and fields ------------------------------------------------------------------


def test_it_filters_packages_by_type_and_status(sim):
    aips = objects(sim, "/api/v2/file/", package_type="AIP", status__in="UPLOADED,DEL_REQ")
    assert aips
    assert {item["package_type"] for item in aips} == {"AIP"}
    assert {item["status"] for item in aips} <= {"UPLOADED", "DEL_REQ"}
    total = get(sim, "/api/v2/file/", params={"package_type": "AIP"}).json()["meta"]["total_count"]
    everything = objects(sim, "/api/v2/file/", limit=0, offset=0) + objects(
        sim, "/api/v2/file/", offset=1000
    )
    assert total == sum(1 for item in everything if item["package_type"] == "AIP")


def test_it_filters_packages_by_their_location(sim):
    backlog = location_of(sim, "BL")
    in_backlog = objects(sim, "/api/v2/file/", current_location__uuid=backlog["uuid"])
    assert in_backlog and {item["current_location"] for item in in_backlog} == {
        backlog["resource_uri"]
    }
    by_purpose = objects(sim, "/api/v2/file/", current_location__purpose="BL")
    assert {item["uuid"] for item in by_purpose} == {item["uuid"] for item in in_backlog}


def test_it_filters_packages_by_size_and_stored_date(sim):
    big = objects(sim, "/api/v2/file/", size__gt=10**9)
    assert big and all(int(item["size"]) > 10**9 for item in big)
    recent = objects(sim, "/api/v2/file/", stored_date__gte="2026-01-01", package_type="DIP")
    assert all(
        datetime.fromisoformat(item["stored_date"]) >= datetime(2026, 1, 1) for item in recent
    )


def test_it_describes_packages_with_the_documented_fields(sim):
    for item in objects(sim, "/api/v2/file/", package_type="AIP"):
        assert set(item) == {
            "current_full_path",
            "current_location",
            "current_path",
            "encrypted",
            "misc_attributes",
            "origin_pipeline",
            "package_type",
            "related_packages",
            "replicas",
            "replicated_package",
            "resource_uri",
            "size",
            "status",
            "stored_date",
            "uuid",
        }
        assert URI.match(item["current_location"]) and URI.match(item["resource_uri"])
        assert item["current_full_path"].endswith(item["current_path"])
        assert isinstance(item["misc_attributes"], dict)


def test_it_sends_naive_stored_dates_and_none_for_transfers(sim):
    for item in objects(sim, "/api/v2/file/", package_type="DIP"):
        assert datetime.fromisoformat(item["stored_date"]).tzinfo is None
    assert {
        item["stored_date"] for item in objects(sim, "/api/v2/file/", package_type="transfer")
    } == {None}


def test_it_relates_dips_to_aips_with_slashed_uris(sim):
    dip = objects(sim, "/api/v2/file/", package_type="DIP")[0]
    (aip_uri,) = dip["related_packages"]
    assert URI.match(aip_uri)
    aip = get(sim, aip_uri).json()
    assert dip["resource_uri"] in aip["related_packages"]
    assert dip["current_path"].endswith(aip["uuid"])


def test_it_shows_a_package_detail_like_its_list_item(sim):
    item = objects(sim, "/api/v2/file/", package_type="AIC")[0]
    assert get(sim, item["resource_uri"]).json() == item


def test_it_answers_an_unknown_detail_with_an_empty_404(sim):
    for resource in ("pipeline", "space", "location", "file"):
        response = get(sim, f"/api/v2/{resource}/{UNKNOWN_UUID}/")
        assert response.status_code == 404
        assert response.content == b""


def test_it_answers_a_malformed_uuid_with_400(sim):
    response = get(sim, "/api/v2/location/not-a-uuid/")
    assert response.status_code == 400
    assert response.json() == {"error": "['\u201cnot-a-uuid\u201d is not a valid UUID.']"}


# --- Pipelines, spaces, locations ----------------------------------------------------------------


def test_it_lists_only_enabled_pipelines_with_four_fields(sim):
    pipelines = objects(sim, "/api/v2/pipeline/")
    assert len(pipelines) >= 2
    for item in pipelines:
        assert set(item) == {"description", "remote_name", "resource_uri", "uuid"}
    chosen = pipelines[1]
    assert objects(sim, "/api/v2/pipeline/", uuid=chosen["uuid"]) == [chosen]
    assert objects(sim, "/api/v2/pipeline/", description=chosen["description"]) == [chosen]
    assert get(sim, chosen["resource_uri"]).json() == chosen


def test_it_refuses_to_filter_pipelines_by_remote_name(sim):
    response = get(sim, "/api/v2/pipeline/", params={"remote_name": "x"})
    assert response.json() == {"error": "The 'remote_name' field does not allow filtering."}


def test_it_sends_space_usage_as_an_integer(sim):
    spaces = objects(sim, "/api/v2/space/")
    assert {"FS", "S3"} <= {item["access_protocol"] for item in spaces}
    for item in spaces:
        assert isinstance(item["used"], int)
        assert item["size"] is None or isinstance(item["size"], int)
        assert isinstance(item["id"], int) and item["space"] == item["uuid"]
        assert item["verified"] is False and item["last_verified"] is None
    assert all(
        item["access_protocol"] == "FS"
        for item in objects(sim, "/api/v2/space/", access_protocol="FS")
    )


def test_it_sends_location_usage_and_quota_as_integers(sim):
    locations = objects(sim, "/api/v2/location/")
    assert any(item["quota"] is not None for item in locations)
    for item in locations:
        assert isinstance(item["used"], int)
        assert item["quota"] is None or isinstance(item["quota"], int)
        assert item["enabled"] is True
        assert URI.match(item["space"]) and all(URI.match(uri) for uri in item["pipeline"])
    internal = [item for item in locations if item["purpose"] == "SS"]
    assert internal and all(item["pipeline"] == [] for item in internal)


def test_it_adds_up_the_sizes_of_stored_packages_into_location_usage(sim):
    backlog = location_of(sim, "BL")
    stored = objects(
        sim,
        "/api/v2/file/",
        current_location__uuid=backlog["uuid"],
        status__in="UPLOADED,VERIFIED,DEL_REQ,RECOVER_REQ,STAGING,MOVING",
    )
    assert int(backlog["used"]) == sum(int(item["size"]) for item in stored)


def test_it_filters_locations_like_the_real_service(sim):
    pipeline = objects(sim, "/api/v2/pipeline/")[0]
    aip_stores = objects(sim, "/api/v2/location/", purpose="AS")
    assert len(aip_stores) >= 2 and {item["purpose"] for item in aip_stores} == {"AS"}
    assert len(objects(sim, "/api/v2/location/", purpose__in="AS,DS")) > len(aip_stores)
    linked = objects(sim, "/api/v2/location/", pipeline__uuid=pipeline["uuid"])
    assert linked and all(pipeline["resource_uri"] in item["pipeline"] for item in linked)
    assert objects(sim, "/api/v2/location/", pipeline__uuid=UNKNOWN_UUID) == []
    space_uuid = aip_stores[0]["space"].split("/")[-2]
    by_space = objects(sim, "/api/v2/location/", space=space_uuid)
    assert by_space == objects(sim, "/api/v2/location/", space__uuid=space_uuid)
    assert {item["space"] for item in by_space} == {aip_stores[0]["space"]}
    described = objects(sim, "/api/v2/location/", description__icontains="transfer source")
    assert described and all("transfer source" in item["description"].lower() for item in described)


def test_it_refuses_to_filter_locations_on_enabled(sim):
    response = get(sim, "/api/v2/location/", params={"enabled": "true"})
    assert response.status_code == 400
    assert response.json() == {"error": "The 'enabled' field does not allow filtering."}


def test_it_redirects_a_default_location_alias(sim):
    response = get(sim, "/api/v2/location/default/AS/")
    assert response.status_code == 302
    assert URI.match(response.headers["Location"])
    missing = get(sim, "/api/v2/location/default/XX/")
    assert missing.status_code == 404
    assert missing.text == "Default location not defined for this purpose."


def test_it_describes_each_resource_in_a_schema(sim):
    schema = get(sim, "/api/v2/location/schema/").json()
    assert schema["filtering"] == {
        "description": 1,
        "pipeline": 2,
        "purpose": 1,
        "quota": 1,
        "relative_path": 1,
        "space": 2,
        "used": 1,
        "uuid": 1,
    }
    assert schema["default_limit"] == 20
    assert schema["allowed_detail_http_methods"] == ["get", "post"]
    assert schema["fields"]["pipeline"]["related_type"] == "to_many"
    assert schema["fields"]["description"]["readonly"] is True
    for resource in ("pipeline", "space", "file", "async"):
        response = get(sim, f"/api/v2/{resource}/schema/")
        assert response.status_code == 200 and "fields" in response.json()


# --- Browsing ------------------------------------------------------------------------------------


def browse(
    sim: SimulatorProcess, location_uuid: str, path: bytes | None = None
) -> requests.Response:
    params = {} if path is None else {"path": b64(path)}
    return get(sim, f"/api/v2/location/{location_uuid}/browse/", params=params)


def test_it_browses_a_transfer_source_in_base64(sim):
    source = location_of(sim, "TS")
    body = browse(sim, source["uuid"]).json()
    assert set(body) == {"directories", "entries", "properties"}
    assert body["entries"] == sorted(body["entries"], key=unb64)
    assert set(body["directories"]) <= set(body["entries"])
    assert set(body["properties"]) == set(body["entries"])
    names = {unb64(entry): entry for entry in body["entries"]}
    assert b"dir with space" in names
    assert body["properties"][names[b"dir with space"]] == {"object count": 2}
    assert body["properties"][names[b"large-image-series"]] == {"object count": "5000+"}


def test_it_browses_into_a_directory_with_sizes_and_a_name_that_is_not_utf8(sim):
    source = location_of(sim, "TS")
    body = browse(sim, source["uuid"], b"legacy-encodings/objects").json()
    assert body["directories"] == []
    names = [unb64(entry) for entry in body["entries"]]
    assert b"caf\xe9-menu-1962.txt" in names
    for entry in body["entries"]:
        assert set(body["properties"][entry]) == {"size"}


def test_it_round_trips_utf8_names(sim):
    source = location_of(sim, "TS")
    body = browse(sim, source["uuid"], b"dir with space/objects").json()
    assert "\u00e9-file.txt".encode() in [unb64(entry) for entry in body["entries"]]


def test_it_returns_empty_lists_for_a_path_that_does_not_exist(sim):
    body = browse(sim, location_of(sim, "TS")["uuid"], b"no/such/dir").json()
    assert body == {"directories": [], "entries": [], "properties": {}}


def test_it_refuses_a_path_outside_the_location(sim):
    response = browse(sim, location_of(sim, "TS")["uuid"], b"../../")
    assert response.status_code == 400
    assert response.text == "The path parameter must be relative to the location path"


def test_it_fails_with_the_canned_500_on_a_path_that_is_not_base64(sim):
    response = get(
        sim,
        f"/api/v2/location/{location_of(sim, 'TS')['uuid']}/browse/",
        params={"path": "transfer1"},
    )
    assert response.status_code == 500
    assert response.json() == CANNED_500


def test_it_answers_a_browse_of_an_unknown_location_with_plain_text(sim):
    response = get(sim, f"/api/v2/location/{UNKNOWN_UUID}/browse/")
    assert response.status_code == 404
    assert response.text == f"Resource with UUID {UNKNOWN_UUID} does not exist"


def test_it_browses_a_space_with_a_plain_path_and_plain_property_keys(sim):
    source = location_of(sim, "TS")
    space_uuid = source["space"].split("/")[-2]
    response = get(sim, f"/api/v2/space/{space_uuid}/browse/", params={"path": source["path"]})
    body = response.json()
    names = [unb64(entry).decode() for entry in body["entries"]]
    assert "dir with space" in names
    assert body["properties"]["dir with space"] == {"object count": 2}
