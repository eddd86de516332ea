"""Quirks of the real storage service, seen through Lookout's storage layer.

The storage service is answered at the HTTP level here (with `responses`), in the
shapes the notes record, so the real client sits between it and the code under test.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
import responses
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone

from dashboard.models import AuditEntry, StoragePackage
from dashboard.selectors import freshness
from dashboard.services import storage as storage_services

pytestmark = pytest.mark.django_db

URL = "http://storage.test"
USER = "demo"
KEY = "k3y-from-the-storage-notes-91c2"
PIPELINE = "11111111-1111-4111-8111-111111111111"
SPACE = "33333333-3333-4333-8333-333333333333"
STORE = "44444444-4444-4444-8444-444444444401"
STORE_2 = "44444444-4444-4444-8444-444444444402"


def _package(number: int, **fields) -> dict:
    uuid = f"aaaaaaaa-0000-4000-8000-{number:012d}"
    return {
        "current_full_path": f"/var/aips/{uuid[:4]}/pkg-{number}-{uuid}.7z",
        "current_location": f"/api/v2/location/{STORE}/",
        "current_path": f"{uuid[:4]}/pkg-{number}-{uuid}.7z",
        "encrypted": False,
        "misc_attributes": {},
        "origin_pipeline": f"/api/v2/pipeline/{PIPELINE}/",
        "package_type": "AIP",
        "related_packages": [],
        "replicas": [],
        "replicated_package": None,
        "resource_uri": f"/api/v2/file/{uuid}/",
        # Old releases send big integers as strings.
        "size": str(1000 + number),
        "status": "UPLOADED",
        "stored_date": f"2026-11-21T20:{number % 60:02d}:57.250200",
        "uuid": uuid,
        **fields,
    }


class StorageService:
    """Answers list calls the way the storage service does, `next` links included."""

    def __init__(self) -> None:
        self.packages = [_package(n) for n in range(1, 6)]
        self.requests: list[str] = []

    def _page(self, request, objects: list[dict], page_size: int):
        query = parse_qs(urlsplit(request.url).query)
        offset = int(query.get("offset", ["0"])[0])
        limit = min(int(query.get("limit", ["20"])[0]), page_size)
        page = objects[offset : offset + limit]
        keep = "&".join(
            f"{k}={v}"
            for k, values in query.items()
            if k not in {"offset", "limit"}
            for v in values
        )
        # Relative, echoing the query and (as on the real service) the caller's key.
        follow = None
        if offset + limit < len(objects):
            follow = (
                f"/api/v2/file/?{keep}&limit={limit}&offset={offset + limit}"
                f"&username={USER}&api_key={KEY}"
            )
        body = {
            "meta": {
                "limit": limit,
                "next": follow,
                "offset": offset,
                "previous": None,
                "total_count": len(objects),
            },
            "objects": page,
        }
        return 200, {"Content-Type": "application/json"}, json.dumps(body)

    def files(self, request):
        self.requests.append(request.url)
        query = parse_qs(urlsplit(request.url).query)
        objects = self.packages
        if "status__in" in query:
            wanted = set(query["status__in"][0].split(","))
            objects = [p for p in objects if p["status"] in wanted]
        if "uuid__in" in query:
            wanted = set(query["uuid__in"][0].split(","))
            objects = [p for p in objects if p["uuid"] in wanted]
        if "package_type" in query:
            objects = [p for p in objects if p["package_type"] == query["package_type"][0]]
        if "status" in query:
            objects = [p for p in objects if p["status"] == query["status"][0]]
        if "stored_date__gte" in query:
            objects = [
                p for p in objects if (p["stored_date"] or "") >= query["stored_date__gte"][0]
            ]
        # Two per page, so every multi-object answer needs its `next` link.
        return self._page(request, objects, page_size=2)


def _listing(objects: list[dict]) -> dict:
    return {
        "meta": {
            "limit": 20,
            "next": None,
            "offset": 0,
            "previous": None,
            "total_count": len(objects),
        },
        "objects": objects,
    }


@pytest.fixture
def service(settings):
    settings.LOOKOUT_STORAGE = {"url": URL, "user": USER, "key": KEY}
    fake = StorageService()
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        mocked.add_callback(
            responses.GET, re.compile(rf"{URL}/api/v2/file/(\?.*)?$"), callback=fake.files
        )
        mocked.get(
            f"{URL}/api/v2/pipeline/",
            json=_listing(
                [
                    {
                        "description": "Main",
                        "remote_name": "10.0.0.1",
                        "resource_uri": f"/api/v2/pipeline/{PIPELINE}/",
                        "uuid": PIPELINE,
                    }
                ]
            ),
        )
        mocked.get(
            f"{URL}/api/v2/space/",
            json=_listing(
                [
                    {
                        "access_protocol": "FS",
                        "id": 1,
                        "last_verified": None,
                        "path": "/",
                        "resource_uri": f"/api/v2/space/{SPACE}/",
                        "size": None,
                        "space": SPACE,
                        "used": "186549173",
                        "uuid": SPACE,
                        "verified": False,
                    }
                ]
            ),
        )
        mocked.get(
            f"{URL}/api/v2/location/",
            json=_listing(
                [
                    {
                        "description": "AIP store",
                        "enabled": True,
                        "path": "/var/aips",
                        "pipeline": [f"/api/v2/pipeline/{PIPELINE}/"],
                        "purpose": "AS",
                        "quota": "1000000",
                        "relative_path": "var/aips/",
                        "resource_uri": f"/api/v2/location/{STORE}/",
                        "space": f"/api/v2/space/{SPACE}/",
                        "used": "250000",
                        "uuid": STORE,
                    },
                    {
                        "description": "Second AIP store",
                        "enabled": True,
                        "path": "/var/aips2",
                        "pipeline": [f"/api/v2/pipeline/{PIPELINE}/"],
                        "purpose": "AS",
                        "quota": None,
                        "relative_path": "var/aips2",
                        "resource_uri": f"/api/v2/location/{STORE_2}/",
                        "space": f"/api/v2/space/{SPACE}/",
                        "used": "0",
                        "uuid": STORE_2,
                    },
                ]
            ),
        )
        fake.mocked = mocked
        yield fake


def test_relative_next_links_are_followed_without_sending_the_key_back(service):
    storage_services.storage_poll()  # the first, full pass
    service.packages += [_package(n, status="DEL_REQ") for n in range(6, 11)]
    service.requests.clear()

    storage_services.storage_poll()

    assert StoragePackage.objects.filter(status="DEL_REQ").count() == 5
    followed = [url for url in service.requests if "status__in" in url and "offset=2" in url]
    assert followed, "the second page of the status query was fetched through its next link"
    assert all("api_key" not in url and "username" not in url for url in service.requests)
    for call in service.mocked.calls:
        assert call.request.headers["Authorization"] == f"ApiKey {USER}:{KEY}"


def test_numbers_sent_as_strings_are_numbers_in_the_mirror_and_on_the_pages(
    service, client, viewer
):
    storage_services.storage_poll()
    client.force_login(viewer)

    assert StoragePackage.objects.get(uuid=service.packages[0]["uuid"]).size == 1001
    page = client.get(reverse("dashboard:storage-overview")).content.decode()
    # Location used "250000" of quota "1000000"; space used "186549173", no size.
    assert "25.0 %" in page
    assert "177.9 MiB used" in page


def test_naive_stored_dates_are_read_in_the_storage_servers_zone(service, settings):
    settings.LOOKOUT_STORAGE_TIME_ZONE = "America/Los_Angeles"

    storage_services.storage_poll()

    row = StoragePackage.objects.get(uuid=service.packages[0]["uuid"])
    assert row.stored_date.isoformat() == "2026-11-22T04:01:57.250200+00:00"


def test_a_401_with_an_empty_body_fails_the_poll_and_says_why(settings):
    settings.LOOKOUT_STORAGE = {"url": URL, "user": USER, "key": KEY}
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        mocked.get(
            re.compile(rf"{URL}/.*"),
            status=401,
            body="",
            headers={"WWW-Authenticate": 'Basic Realm="django-tastypie"'},
            content_type="text/html; charset=utf-8",
        )

        summary = storage_services.storage_poll()

    assert not summary.ok
    health = next(h for h in freshness.service_health_list() if h.service == "storage")
    assert "401" in health.last_error
    assert KEY not in health.last_error


def _submit(client, name: str, uuid: str, **fields):
    page = client.get(reverse(f"dashboard:storage-package-{name}", args=[uuid])).content.decode()
    key = re.search(r'name="idempotency_key" value="([^"]+)"', page).group(1)
    return client.post(
        reverse(f"dashboard:storage-package-{name}", args=[uuid]),
        {**fields, "idempotency_key": key},
    )


def _messages(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_a_repeated_deletion_request_is_reported_as_already_waiting(service, client, operator):
    storage_services.storage_poll()
    uuid = service.packages[0]["uuid"]
    service.mocked.get(f"{URL}/api/v2/file/{uuid}/", json=service.packages[0])
    service.mocked.post(
        f"{URL}/api/v2/file/{uuid}/delete_aip/",
        status=200,
        json={"message": "A deletion request already exists for this AIP."},
    )
    client.force_login(operator)

    response = _submit(client, "delete", uuid, reason="Duplicate", pipeline=PIPELINE)

    assert any("already exists" in text for text in _messages(response))
    assert AuditEntry.objects.get().outcome == AuditEntry.Outcome.DONE


def test_a_refused_reingest_shows_the_reason_from_its_body(service, client, operator):
    storage_services.storage_poll()
    uuid = service.packages[0]["uuid"]
    service.mocked.post(
        f"{URL}/api/v2/file/{uuid}/reingest/",
        status=409,
        json={
            "error": True,
            "status_code": 409,
            "message": "This AIP is already being reingested on Main",
        },
    )
    client.force_login(operator)

    response = _submit(
        client,
        "reingest",
        uuid,
        pipeline=PIPELINE,
        reingest_type="full",
        processing_config="default",
    )

    assert any("already being reingested" in text for text in _messages(response))
    entry = AuditEntry.objects.get()
    assert entry.outcome == AuditEntry.Outcome.REFUSED and entry.upstream_status == 409


def test_a_move_answered_with_an_empty_202_is_a_success(service, client, operator):
    storage_services.storage_poll()
    uuid = service.packages[0]["uuid"]
    service.mocked.post(
        f"{URL}/api/v2/file/{uuid}/move/",
        status=202,
        body="",
        content_type="text/html; charset=utf-8",
    )
    moved = {**service.packages[0], "current_location": f"/api/v2/location/{STORE_2}/"}
    service.mocked.get(f"{URL}/api/v2/file/{uuid}/", json=moved)
    client.force_login(operator)

    response = _submit(client, "move", uuid, location=STORE_2)

    assert any("Moving to Second AIP store" in text for text in _messages(response))
    assert StoragePackage.objects.get(uuid=uuid).current_location_uuid == STORE_2


def test_a_move_refused_with_plain_text_shows_that_text(service, client, operator):
    storage_services.storage_poll()
    uuid = service.packages[0]["uuid"]
    service.mocked.post(
        f"{URL}/api/v2/file/{uuid}/move/",
        status=400,
        body="The package must be in an uploaded state to be moved.",
        content_type="text/html; charset=utf-8",
    )
    client.force_login(operator)

    response = _submit(client, "move", uuid, location=STORE_2)

    assert any("must be in an uploaded state" in text for text in _messages(response))


def test_transfers_without_a_stored_date_are_found_by_the_tail_read(service):
    storage_services.storage_poll(now=timezone.now() - timedelta(minutes=5))
    service.packages.append(_package(42, package_type="transfer", stored_date=None))

    storage_services.storage_poll()

    assert StoragePackage.objects.filter(package_type="transfer").count() == 1
