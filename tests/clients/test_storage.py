"""The storage service client against recorded-shape answers (HTTP mocked with `responses`)."""

from __future__ import annotations

import base64
import gzip
import io
import json
import logging
from datetime import datetime
from urllib.parse import parse_qs, parse_qsl, urlsplit

import pytest
import requests
from responses import matchers

from dashboard.clients.storage import (
    LocationPurpose,
    PackageNotLocal,
    PackageStatus,
    PackageType,
    ReingestType,
    StorageAuthError,
    StorageClient,
    StorageConfigError,
    StorageNotFound,
    StorageResponseError,
    StorageUnavailable,
    get_storage_client,
)
from tests.clients.conftest import KEY, STORAGE_URL

PACKAGE = "aaaaaaaa-1111-4111-8111-000000000001"
DIP = "aaaaaaaa-1111-4111-8111-000000000002"
LOCATION = "bbbbbbbb-2222-4222-8222-000000000001"
OTHER_LOCATION = "bbbbbbbb-2222-4222-8222-000000000002"
SPACE = "cccccccc-3333-4333-8333-000000000001"
PIPELINE = "dddddddd-4444-4444-8444-000000000001"
REINGEST = "eeeeeeee-5555-4555-8555-000000000001"

FILES_URL = f"{STORAGE_URL}/api/v2/file/"
PACKAGE_URL = f"{FILES_URL}{PACKAGE}/"


def b64(text: str | bytes) -> str:
    raw = text if isinstance(text, bytes) else text.encode()
    return base64.b64encode(raw).decode()


def package(uuid=PACKAGE, **overrides):
    body = {
        "uuid": uuid,
        "resource_uri": f"/api/v2/file/{uuid}/",
        "package_type": "AIP",
        "status": "UPLOADED",
        "size": 1024,
        "current_location": f"/api/v2/location/{LOCATION}/",
        "current_path": f"aaaa/aaaa/1111/4111/8111/0000/0000/0001/photos-{uuid}.7z",
        "current_full_path": f"/var/aipstore/photos-{uuid}.7z",
        "origin_pipeline": f"/api/v2/pipeline/{PIPELINE}/",
        "related_packages": [f"/api/v2/file/{DIP}/"],
        "replicas": [],
        "replicated_package": None,
        "encrypted": False,
        "misc_attributes": {},
        "stored_date": "2026-11-21T20:31:57.250200",
    }
    body.update(overrides)
    return body


def page(objects, *, next_link=None, previous=None, offset=0, limit=20, total=None):
    meta = {
        "limit": limit,
        "next": next_link,
        "offset": offset,
        "previous": previous,
        "total_count": len(objects) if total is None else total,
    }
    return {"meta": meta, "objects": objects}


def query_of(call):
    return parse_qs(urlsplit(call.request.url).query, keep_blank_values=True)


# --- errors and slashes


def test_it_raises_auth_error_for_a_401_with_an_empty_body(mocked, storage):
    mocked.get(
        PACKAGE_URL,
        status=401,
        body=b"",
        content_type="text/html; charset=utf-8",
        headers={"WWW-Authenticate": 'Basic Realm="django-tastypie"'},
    )

    with pytest.raises(StorageAuthError) as caught:
        storage.get_package(PACKAGE)

    assert caught.value.status == 401
    assert caught.value.body == ""
    assert caught.value.service == "storage"


def test_it_raises_not_found_for_a_404_with_an_empty_body(mocked, storage):
    mocked.get(PACKAGE_URL, status=404, body=b"", content_type="text/html; charset=utf-8")

    with pytest.raises(StorageNotFound) as caught:
        storage.get_package(PACKAGE)

    assert caught.value.upstream_message is None


def test_it_raises_not_found_with_the_plain_text_of_a_custom_404(mocked, storage):
    text = f"Resource with UUID {PACKAGE} does not exist"
    mocked.get(f"{PACKAGE_URL}check_fixity/", status=404, body=text, content_type="text/html")

    with pytest.raises(StorageNotFound) as caught:
        storage.check_fixity(PACKAGE)

    assert caught.value.upstream_message == text


def test_it_raises_not_found_for_a_gzip_encoded_empty_404(mocked, storage):
    mocked.get(
        f"{PACKAGE_URL}download/",
        status=404,
        body=gzip.compress(b""),
        content_type="text/html; charset=utf-8",
        headers={"Content-Encoding": "gzip"},
    )

    with pytest.raises(StorageNotFound), storage.download_package(PACKAGE):
        pass


def test_it_raises_not_found_for_an_html_page_on_an_unknown_route(mocked, storage):
    mocked.get(
        PACKAGE_URL,
        status=404,
        body="<!DOCTYPE html><html>Page Not found</html>",
        content_type="text/html",
    )

    with pytest.raises(StorageNotFound) as caught:
        storage.get_package(PACKAGE)

    assert caught.value.upstream_message is None


def test_it_always_sends_the_trailing_slash(mocked, storage):
    mocked.get(PACKAGE_URL, json=package())

    storage.get_package(PACKAGE)

    assert mocked.calls[0].request.url == PACKAGE_URL


def test_a_301_is_reported_not_followed(mocked, storage):
    mocked.get(
        PACKAGE_URL,
        status=301,
        headers={"Location": f"http://127.0.0.1:62081/api/v2/file/{PACKAGE}/"},
    )

    with pytest.raises(StorageResponseError, match="not followed") as caught:
        storage.get_package(PACKAGE)

    assert caught.value.status == 301
    assert len(mocked.calls) == 1


def test_a_validation_error_carries_the_error_string(mocked, storage):
    message = "Could not find the provided location object via its UUID."
    mocked.post(f"{PACKAGE_URL}move/", status=400, json={"error": message})

    with pytest.raises(StorageResponseError) as caught:
        storage.move_package(PACKAGE, location_uuid=LOCATION)

    assert caught.value.upstream_message == message


def test_django_form_errors_are_flattened_into_the_message(mocked, storage):
    body = {"space": {"__all__": ["Path is required"], "staging_path": ["This field is required."]}}
    mocked.post(f"{PACKAGE_URL}move/", status=400, json=body)

    with pytest.raises(StorageResponseError) as caught:
        storage.move_package(PACKAGE, location_uuid=LOCATION)

    assert (
        caught.value.upstream_message
        == "space: Path is required; space: staging_path: This field is required."
    )


def test_a_canned_500_carries_its_error_message(mocked, storage):
    body = {"error_message": "Sorry, this request could not be processed. Please try again later."}
    mocked.get(PACKAGE_URL, status=500, json=body)

    with pytest.raises(StorageResponseError) as caught:
        storage.get_package(PACKAGE)

    assert caught.value.upstream_message == body["error_message"]


def test_a_refused_connection_is_unavailable(mocked, storage):
    mocked.get(PACKAGE_URL, body=requests.ConnectionError("Failed to resolve 'storage.test'"))

    with pytest.raises(StorageUnavailable):
        storage.get_package(PACKAGE)

    assert len(mocked.calls) == 3


# --- parsing quirks


def test_numbers_may_be_strings_and_relations_are_uris(mocked, storage):
    mocked.get(PACKAGE_URL, json=package(size="186549173", misc_attributes=None))

    parsed = storage.get_package(PACKAGE)

    assert parsed.size == 186549173
    assert parsed.current_location_uuid == LOCATION
    assert parsed.origin_pipeline_uuid == PIPELINE
    assert parsed.related_package_uuids == (DIP,)
    assert parsed.misc_attributes == {}
    assert parsed.stored_date == datetime(2026, 11, 21, 20, 31, 57, 250200)
    assert parsed.package_type is PackageType.AIP
    assert parsed.status is PackageStatus.UPLOADED


def test_a_package_from_an_old_service_parses_with_most_fields_missing(mocked, storage):
    old = {"uuid": PACKAGE, "package_type": "transfer", "status": "FINALIZE", "resource_uri": "x"}
    mocked.get(PACKAGE_URL, json=old)

    parsed = storage.get_package(PACKAGE)

    assert parsed.package_type is PackageType.TRANSFER
    assert parsed.status is PackageStatus.FINALIZE
    assert (
        parsed.size is None and parsed.stored_date is None and parsed.current_location_uuid is None
    )
    assert parsed.replica_uuids == () and parsed.encrypted is False


def test_unknown_package_types_and_statuses_are_unknown(mocked, storage):
    mocked.get(PACKAGE_URL, json=package(package_type="hologram", status="FINALIZED"))

    parsed = storage.get_package(PACKAGE)

    assert parsed.package_type is PackageType.UNKNOWN
    assert parsed.status is PackageStatus.UNKNOWN


def test_a_package_without_a_usable_uuid_is_a_response_error(mocked, storage):
    mocked.get(PACKAGE_URL, json=package(uuid="nope", resource_uri="/api/v2/file/nope/"))

    with pytest.raises(StorageResponseError, match="no UUID"):
        storage.get_package(PACKAGE)


def test_location_fields_absorb_strings_nulls_and_unknown_purposes(mocked, storage):
    location = {
        "uuid": LOCATION,
        "description": None,
        "enabled": True,
        "path": "/var/aipstore",
        "relative_path": "var/aipstore/",
        "purpose": "ZZ",
        "quota": "500000000",
        "used": "0",
        "space": f"/api/v2/space/{SPACE}/",
        "pipeline": [f"/api/v2/pipeline/{PIPELINE}/"],
        "resource_uri": f"/api/v2/location/{LOCATION}/",
    }
    mocked.get(f"{STORAGE_URL}/api/v2/location/", json=page([location]))

    (parsed,) = storage.list_locations()

    assert parsed.purpose is LocationPurpose.UNKNOWN
    assert parsed.description == ""
    assert parsed.quota == 500000000 and parsed.used == 0
    assert parsed.space_uuid == SPACE
    assert parsed.pipeline_uuids == (PIPELINE,)


def test_a_space_of_size_zero_is_unlimited(mocked, storage):
    space = {
        "uuid": SPACE,
        "access_protocol": "FS",
        "path": "/",
        "size": 0,
        "used": "186549173",
        "last_verified": None,
        "verified": False,
        "id": 1,
        "space": SPACE,
    }
    mocked.get(f"{STORAGE_URL}/api/v2/space/", json=page([space]))

    (parsed,) = storage.list_spaces()

    assert parsed.size is None
    assert parsed.used == 186549173


# --- pagination


def test_it_follows_relative_next_links_without_sending_the_key_back(mocked, storage, caplog):
    caplog.set_level(logging.DEBUG)
    echoed = f"/api/v2/file/?package_type=AIP&username=demo&api_key={KEY}&limit=1&offset=1"
    mocked.get(
        FILES_URL,
        json=page([package()], next_link=echoed, limit=1, total=2),
        match=[matchers.query_param_matcher({"package_type": "AIP"})],
    )
    mocked.get(
        FILES_URL,
        json=page([package(DIP)], limit=1, offset=1, total=2),
        match=[matchers.query_param_matcher({"package_type": "AIP", "limit": "1", "offset": "1"})],
    )

    found = [p.uuid for p in storage.list_packages(package_type="AIP")]

    assert found == [PACKAGE, DIP]
    second = mocked.calls[1].request
    assert "api_key" not in second.url and "username" not in second.url
    assert second.headers["Authorization"] == f"ApiKey demo:{KEY}"
    assert KEY not in caplog.text


def test_duplicated_credentials_in_links_are_all_dropped(mocked, storage):
    credentials = f"username=demo&username=demo&api_key={KEY}&api_key={KEY}"
    next_link = f"/api/v2/location/?{credentials}&offset=20"
    previous = f"/api/v2/location/?{credentials}&offset=0"
    mocked.get(
        f"{STORAGE_URL}/api/v2/location/",
        json=page([{"uuid": LOCATION, "purpose": "AS"}], next_link=next_link),
        match=[matchers.query_param_matcher({})],
    )
    mocked.get(
        f"{STORAGE_URL}/api/v2/location/",
        json=page([{"uuid": OTHER_LOCATION, "purpose": "DS"}], previous=previous, offset=20),
        match=[matchers.query_param_matcher({"offset": "20"})],
    )

    found = [location.uuid for location in storage.list_locations()]

    assert found == [LOCATION, OTHER_LOCATION]
    assert query_of(mocked.calls[1]) == {"offset": ["20"]}


def test_an_object_seen_on_two_pages_is_yielded_once(mocked, storage):
    mocked.get(
        FILES_URL,
        json=page([package(), package(DIP)], next_link="/api/v2/file/?offset=2"),
        match=[matchers.query_param_matcher({})],
    )
    mocked.get(
        FILES_URL,
        json=page([package(DIP)], offset=2),
        match=[matchers.query_param_matcher({"offset": "2"})],
    )

    assert [p.uuid for p in storage.list_packages()] == [PACKAGE, DIP]


def test_listing_is_lazy_until_iterated(mocked, storage):
    mocked.get(FILES_URL, json=page([package()]))

    packages = storage.list_packages()

    assert len(mocked.calls) == 0
    assert next(packages).uuid == PACKAGE
    assert len(mocked.calls) == 1


def test_a_next_link_to_another_host_is_refused(mocked, storage):
    mocked.get(
        FILES_URL, json=page([package()], next_link="http://evil.test/api/v2/file/?offset=20")
    )

    with pytest.raises(StorageResponseError, match="another host"):
        list(storage.list_packages())

    assert len(mocked.calls) == 1


def test_a_malformed_list_item_is_skipped_and_logged(mocked, storage, caplog):
    mocked.get(FILES_URL, json=page([package(), {"uuid": "broken"}, package(DIP, size="lots")]))

    with caplog.at_level(logging.WARNING):
        found = [p.uuid for p in storage.list_packages()]

    assert found == [PACKAGE]
    skipped = [r for r in caplog.records if "skipped malformed item" in r.getMessage()]
    assert len(skipped) == 2
    assert "/api/v2/file/" in skipped[0].getMessage()


@pytest.mark.parametrize("body", [[], {"objects": []}, {"meta": {}, "objects": "none"}])
def test_a_malformed_list_body_is_a_response_error(mocked, storage, body):
    mocked.get(FILES_URL, json=body)

    with pytest.raises(StorageResponseError):
        list(storage.list_packages())


def test_filters_become_query_parameters(mocked, storage):
    mocked.get(FILES_URL, json=page([]))

    list(
        storage.list_packages(
            status__in=["UPLOADED", "VERIFIED"], encrypted=False, current_location__purpose="AS"
        )
    )

    assert query_of(mocked.calls[0]) == {
        "status__in": ["UPLOADED,VERIFIED"],
        "encrypted": ["false"],
        "current_location__purpose": ["AS"],
    }


def test_credentials_are_refused_as_filters(storage):
    with pytest.raises(ValueError):
        list(storage.list_pipelines(api_key="x"))


def test_one_page_reports_counts_and_whether_more_follow(mocked, storage):
    mocked.get(
        FILES_URL,
        json=page(
            [package()], next_link="/api/v2/file/?limit=1&offset=3", offset=2, limit=1, total="5"
        ),
        match=[matchers.query_param_matcher({"package_type": "DIP", "offset": "2", "limit": "1"})],
    )

    result = storage.list_packages_page(offset=2, limit=1, package_type="DIP")

    assert [p.uuid for p in result.items] == [PACKAGE]
    assert (result.total_count, result.offset, result.limit, result.has_next) == (5, 2, 1, True)


# --- browse


def test_location_browse_base64_encodes_the_path_and_decodes_every_name(mocked, storage):
    bad_bytes = b"caf\xe9.txt"
    body = {
        "entries": [b64("dir with space"), b64("big"), b64("é-file.txt"), b64(bad_bytes)],
        "directories": [b64("dir with space"), b64("big")],
        "properties": {
            b64("dir with space"): {"object count": 1},
            b64("big"): {"object count": "5000+"},
            b64("é-file.txt"): {"size": "11"},
        },
    }
    mocked.get(
        f"{STORAGE_URL}/api/v2/location/{LOCATION}/browse/",
        json=body,
        match=[matchers.query_param_matcher({"path": b64("transfer1/objects")})],
    )

    result = storage.browse_location(LOCATION, "transfer1/objects")

    spaced, big, accented, invalid = result.entries
    assert spaced.name == "dir with space" and spaced.is_directory and spaced.object_count == 1
    assert big.object_count == 5000 and big.object_count_display == "5000+"
    assert accented.name == "é-file.txt" and accented.size == 11 and not accented.is_directory
    assert invalid.name_is_valid_utf8 is False
    assert invalid.raw_name == bad_bytes
    assert "\ufffd" in invalid.name
    assert [entry.name for entry in result.directories] == ["dir with space", "big"]


def test_location_browse_without_properties_still_lists_entries(mocked, storage):
    body = {"entries": [b64("transfer1")], "directories": [b64("transfer1")]}
    mocked.get(f"{STORAGE_URL}/api/v2/location/{LOCATION}/browse/", json=body)

    (entry,) = storage.browse_location(LOCATION).entries

    assert entry.name == "transfer1" and entry.is_directory
    assert entry.object_count is None and entry.object_count_display is None and entry.size is None
    assert query_of(mocked.calls[0]) == {}


def test_a_raw_name_can_be_browsed_again(mocked, storage):
    mocked.get(
        f"{STORAGE_URL}/api/v2/location/{LOCATION}/browse/",
        json={"entries": [], "directories": [], "properties": {}},
    )

    storage.browse_location(LOCATION, b"caf\xe9")

    assert query_of(mocked.calls[0]) == {"path": [b64(b"caf\xe9")]}


def test_browse_names_that_are_not_base64_are_a_response_error(mocked, storage):
    mocked.get(
        f"{STORAGE_URL}/api/v2/location/{LOCATION}/browse/", json={"entries": ["not base64!"]}
    )

    with pytest.raises(StorageResponseError, match="base64"):
        storage.browse_location(LOCATION)


def test_space_browse_sends_a_plain_path_and_reads_plain_property_keys(mocked, storage):
    body = {
        "entries": [b64("dir with space"), b64("transfer1")],
        "directories": [b64("dir with space"), b64("transfer1")],
        "properties": {"dir with space": {"object count": 1}, "transfer1": {"object count": 2}},
    }
    mocked.get(
        f"{STORAGE_URL}/api/v2/space/{SPACE}/browse/",
        json=body,
        match=[matchers.query_param_matcher({"path": "home"})],
    )

    result = storage.browse_space(SPACE, "home")

    assert [(e.name, e.object_count) for e in result.entries] == [
        ("dir with space", 1),
        ("transfer1", 2),
    ]


# --- downloads


def test_a_202_download_raises_package_not_local_with_the_message(mocked, storage):
    body = {
        "error": False,
        "message": "File is not locally available.  Contact your storage administrator.",
    }
    mocked.get(f"{PACKAGE_URL}download/", status=202, json=body)

    with pytest.raises(PackageNotLocal) as caught, storage.download_package(PACKAGE):
        pass

    assert caught.value.status == 202
    assert caught.value.upstream_message == body["message"]


def test_a_download_streams_in_chunks_with_its_attachment_name(mocked, storage):
    content = bytes(range(256)) * 40
    mocked.get(
        f"{PACKAGE_URL}download/",
        body=content,
        content_type="application/x-7z-compressed",
        headers={
            "Content-Disposition": 'attachment; filename="photos-aaaa.7z"',
            "Content-Length": str(len(content)),
        },
    )

    with storage.download_package(PACKAGE, chunk_size=1000) as download:
        chunks = list(download.iter_chunks())

    assert mocked.calls[0].request.req_kwargs["stream"] is True
    assert download.filename == "photos-aaaa.7z"
    assert download.content_type == "application/x-7z-compressed"
    assert download.size == len(content)
    assert len(chunks) == 11 and b"".join(chunks) == content


def test_a_download_without_content_disposition_gets_a_name_from_its_type(mocked, storage):
    mocked.get(f"{PACKAGE_URL}download/", body=b"tar", content_type="application/x-tar")

    with storage.download_package(PACKAGE) as download:
        assert download.filename == f"{PACKAGE}.tar"


def test_an_attachment_name_cannot_climb_directories(mocked, storage):
    mocked.get(
        f"{PACKAGE_URL}download/",
        body=b"x",
        content_type="application/x-tar",
        headers={"Content-Disposition": 'attachment; filename="../../etc/passwd"'},
    )

    with storage.download_package(PACKAGE) as download:
        assert download.filename == "passwd"


class BreaksAfterFirstRead(io.BufferedReader):
    """A body whose connection is reset after the first read."""

    def __init__(self, data: bytes) -> None:
        super().__init__(io.BytesIO(data))
        self.reads = 0

    def read(self, size: int | None = -1) -> bytes:
        self.reads += 1
        if self.reads > 1:
            raise ConnectionResetError("connection reset by peer")
        return super().read(size)


def test_a_download_that_breaks_off_is_unavailable(mocked, storage):
    body = BreaksAfterFirstRead(b"x" * 4096)
    mocked.get(f"{PACKAGE_URL}download/", body=body, content_type="application/x-tar")

    with storage.download_package(PACKAGE, chunk_size=1024) as download:
        chunks = download.iter_chunks()
        assert next(chunks) == b"x" * 1024
        with pytest.raises(StorageUnavailable, match="broke off"):
            list(chunks)


def test_extract_file_asks_for_the_relative_path(mocked, storage):
    mocked.get(
        f"{PACKAGE_URL}extract_file/",
        body=b"<mets/>",
        content_type="application/xml",
        match=[
            matchers.query_param_matcher(
                {"relative_path_to_file": f"photos-{PACKAGE}/data/METS.{PACKAGE}.xml"}
            )
        ],
    )

    with storage.extract_file(PACKAGE, f"photos-{PACKAGE}/data/METS.{PACKAGE}.xml") as extracted:
        assert b"".join(extracted.iter_chunks()) == b"<mets/>"

    assert extracted.filename == f"METS.{PACKAGE}.xml"


def test_the_pointer_file_is_returned_as_text(mocked, storage):
    mocked.get(f"{PACKAGE_URL}pointer_file/", body="<premis/>", content_type="application/xml")

    assert storage.get_pointer_file(PACKAGE) == "<premis/>"


# --- fixity, requests, reingest


@pytest.mark.parametrize(
    ("missing", "untracked", "lines"),
    [
        # A message without the path: the path goes in front.
        (
            "exists in manifest but was not found",
            "is not in the manifest",
            (
                "missing: bag-info.txt: exists in manifest but was not found",
                "untracked: data/objects/extra.txt: is not in the manifest",
            ),
        ),
        # The real service's messages start with the path: it is named once.
        (
            "bag-info.txt exists in manifest but was not found on filesystem",
            "data/objects/extra.txt exists on filesystem but is not in the manifest",
            (
                "missing: bag-info.txt exists in manifest but was not found on filesystem",
                "untracked: data/objects/extra.txt exists on filesystem but is not in the manifest",
            ),
        ),
    ],
)
def test_a_fixity_failure_is_flattened_into_readable_lines(
    mocked, storage, missing, untracked, lines
):
    body = {
        "success": False,
        "message": "Bag validation failed",
        "failures": {
            "files": {
                "missing": [{"path": "bag-info.txt", "message": missing}],
                "changed": [],
                "untracked": [{"path": "data/objects/extra.txt", "message": untracked}],
            }
        },
        "timestamp": None,
    }
    mocked.get(f"{PACKAGE_URL}check_fixity/", json=body)

    result = storage.check_fixity(PACKAGE)

    assert result.success is False
    assert result.failures == lines
    assert result.checked_at is None


def test_fixity_accepts_a_list_of_failures_and_force_local(mocked, storage):
    body = {
        "success": True,
        "message": "",
        "failures": ["checksum mismatch"],
        "timestamp": "2026-11-21T20:31:57",
    }
    mocked.get(
        f"{PACKAGE_URL}check_fixity/",
        json=body,
        match=[matchers.query_param_matcher({"force_local": "true"})],
    )

    result = storage.check_fixity(PACKAGE, force_local=True)

    assert result.failures == ("checksum mismatch",)
    assert result.checked_at == datetime(2026, 11, 21, 20, 31, 57)


def test_fixity_that_could_not_start_has_no_success_value(mocked, storage):
    body = {
        "success": None,
        "message": "Unable to scan; package is not a bag (AIP or AIC)",
        "failures": [],
        "timestamp": None,
    }
    mocked.get(f"{PACKAGE_URL}check_fixity/", json=body)

    assert storage.check_fixity(PACKAGE).success is None


def test_deletion_and_recovery_both_send_the_bare_pipeline_uuid(mocked, storage):
    mocked.post(
        f"{PACKAGE_URL}delete_aip/",
        status=202,
        json={"message": "Delete request created successfully.", "id": 3},
    )
    mocked.post(
        f"{PACKAGE_URL}recover_aip/",
        status=202,
        json={"message": "Recover request created successfully.", "id": 4},
    )

    deletion = storage.request_deletion(
        PACKAGE, pipeline_uuid=PIPELINE, reason="dup", user_id=1, user_email="a@b.test"
    )
    recovery = storage.request_recovery(
        PACKAGE, pipeline_uuid=PIPELINE, reason="x", user_id=1, user_email="a@b.test"
    )

    delete_body = json.loads(mocked.calls[0].request.body)
    recover_body = json.loads(mocked.calls[1].request.body)
    assert delete_body == {
        "event_reason": "dup",
        "pipeline": PIPELINE,
        "user_id": 1,
        "user_email": "a@b.test",
    }
    # The service looks the pipeline up by UUID: a URI would be refused with 400.
    assert recover_body == delete_body | {"event_reason": "x"}
    assert deletion.request_id == 3 and not deletion.already_requested
    assert recovery.request_id == 4


@pytest.mark.parametrize(
    ("endpoint", "kind", "key"),
    [("delete_aip", "deletion", "message"), ("recover_aip", "recovery", "error_message")],
)
def test_a_repeated_request_is_reported_as_already_requested_in_the_services_words(
    mocked, storage, endpoint, kind, key
):
    # Release 0.23.0 says so in `message` for deletion and in `error_message` for recovery.
    words = f"A {kind} request already exists for this AIP."
    mocked.post(f"{PACKAGE_URL}{endpoint}/", status=200, json={key: words})
    send = storage.request_deletion if kind == "deletion" else storage.request_recovery

    receipt = send(PACKAGE, pipeline_uuid=PIPELINE, reason="x", user_id=1, user_email="a@b.test")

    assert receipt.already_requested is True
    assert receipt.message == words


@pytest.mark.parametrize("user_id", [0, -1, True])
def test_a_user_id_must_be_a_positive_integer(storage, user_id):
    with pytest.raises(ValueError):
        storage.request_deletion(
            PACKAGE, pipeline_uuid=PIPELINE, reason="r", user_id=user_id, user_email="a@b.test"
        )


def test_reingest_returns_the_receipt(mocked, storage):
    receipt = {
        "error": False,
        "message": f"Package {PACKAGE} sent to pipeline",
        "reingest_uuid": REINGEST,
        "status_code": 202,
    }
    mocked.post(f"{PACKAGE_URL}reingest/", status=202, json=receipt)

    result = storage.reingest(
        PACKAGE,
        pipeline_uuid=PIPELINE,
        reingest_type=ReingestType.FULL,
        processing_config="default",
    )

    assert result.reingest_uuid == REINGEST
    assert json.loads(mocked.calls[0].request.body) == {
        "pipeline": PIPELINE,
        "reingest_type": "full",
        "processing_config": "default",
    }


@pytest.mark.parametrize(
    ("given", "sent"),
    [
        (ReingestType.METADATA_ONLY, "metadata"),
        ("METADATA_ONLY", "metadata"),
        ("metadata", "metadata"),
        (ReingestType.OBJECTS, "objects"),
        ("Full", "full"),
    ],
)
def test_reingest_sends_the_words_the_service_compares_with(mocked, storage, given, sent):
    # The service lower-cases the type and compares it with metadata, objects and full;
    # `metadata_only` would be accepted silently and reingest the METS only.
    mocked.post(
        f"{PACKAGE_URL}reingest/",
        status=202,
        json={"error": False, "message": "sent", "reingest_uuid": REINGEST, "status_code": 202},
    )

    storage.reingest(PACKAGE, pipeline_uuid=PIPELINE, reingest_type=given)

    assert json.loads(mocked.calls[0].request.body)["reingest_type"] == sent


def test_an_unknown_reingest_type_is_refused_before_any_request(mocked, storage):
    with pytest.raises(ValueError):
        storage.reingest(PACKAGE, pipeline_uuid=PIPELINE, reingest_type="partial")

    assert len(mocked.calls) == 0


def test_a_refused_reingest_carries_the_status_and_message_of_its_body(mocked, storage):
    receipt = {"error": True, "message": "This AIP is already being reingested", "status_code": 409}
    mocked.post(f"{PACKAGE_URL}reingest/", status=200, json=receipt)

    with pytest.raises(StorageResponseError) as caught:
        storage.reingest(PACKAGE, pipeline_uuid=PIPELINE, reingest_type="METADATA_ONLY")

    assert caught.value.status == 409
    assert caught.value.upstream_message == "This AIP is already being reingested"


def test_reingesting_an_unknown_package_is_not_found(mocked, storage):
    mocked.post(
        f"{PACKAGE_URL}reingest/",
        status=404,
        body=f"Resource with UUID {PACKAGE} does not exist",
        content_type="text/html",
    )

    with pytest.raises(StorageNotFound):
        storage.reingest(PACKAGE, pipeline_uuid=PIPELINE, reingest_type="FULL")


def test_move_package_posts_the_target_location_as_a_form(mocked, storage):
    mocked.post(f"{PACKAGE_URL}move/", status=202, json={"success": True})

    storage.move_package(PACKAGE, location_uuid=OTHER_LOCATION)

    assert parse_qsl(mocked.calls[0].request.body) == [("location_uuid", OTHER_LOCATION)]


def test_package_contents_keep_empty_checksums(mocked, storage):
    body = {
        "success": True,
        "package": PACKAGE,
        "files": [
            {
                "source_id": "1",
                "name": "a.tif",
                "source_package": "",
                "checksum": "",
                "accessionid": "",
                "origin": PIPELINE,
            },
        ],
    }
    mocked.get(f"{PACKAGE_URL}contents/", json=body)

    contents = storage.get_package_contents(PACKAGE)

    assert contents.package_uuid == PACKAGE
    assert contents.files[0].name == "a.tif" and contents.files[0].checksum == ""


# --- liveness and factory


def test_the_factory_builds_the_client_from_settings(settings):
    settings.LOOKOUT_STORAGE = {"url": "http://ss.test:8002/", "user": "ss", "key": "ss-key"}
    settings.LOOKOUT_HTTP_TIMEOUT = (1.0, 5.0)

    client = get_storage_client()

    assert isinstance(client, StorageClient)
    assert client.base_url == "http://ss.test:8002"
    assert client.timeout == (1.0, 5.0)


def test_the_factory_raises_config_error_for_a_missing_url(settings):
    settings.LOOKOUT_STORAGE = {"url": "", "user": "ss", "key": "ss-key"}

    with pytest.raises(StorageConfigError, match="no url"):
        get_storage_client()


def test_a_fixity_failure_given_as_one_entry_instead_of_a_list_is_read(mocked, storage):
    # Found by fuzzing: {"files": {"missing": "x"}} once raised TypeError.
    mocked.get(
        f"{PACKAGE_URL}check_fixity/",
        json={"success": False, "message": "", "failures": {"files": {"missing": "data/x"}}},
    )

    result = storage.check_fixity(PACKAGE)

    assert result.failures == ("missing: data/x",)
