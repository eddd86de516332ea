from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from dashboard.services import storage as storage_services
from tests.storage.fakes import (
    AIP_STORE,
    DIP_STORE,
    PEER_PIPELINE,
    PIPELINE,
    SPACE,
    make_package,
    package_uuid,
)

pytestmark = pytest.mark.django_db

ENDPOINTS = ["/api/v1/pipelines/", "/api/v1/spaces/", "/api/v1/locations/", "/api/v1/packages/"]


@pytest.fixture
def api(viewer) -> APIClient:
    client = APIClient()
    client.force_authenticate(viewer)
    return client


@pytest.mark.parametrize("url", ENDPOINTS)
def test_the_storage_endpoints_need_authentication(polled, url):
    assert APIClient().get(url).status_code in (401, 403)


def test_pipelines_are_listed(api, polled):
    body = api.get("/api/v1/pipelines/").json()

    assert body["count"] == 2
    assert {p["uuid"] for p in body["results"]} == {PIPELINE, PEER_PIPELINE}


def test_spaces_carry_their_usage_with_null_meaning_unlimited(api, polled):
    space = api.get("/api/v1/spaces/").json()["results"][0]

    assert space["uuid"] == SPACE
    assert space["usage"] == {"used": 7000, "limit": None, "percent": None}


def test_locations_filter_by_purpose_and_show_quota_usage(api, polled):
    body = api.get("/api/v1/locations/?purpose=AS").json()

    assert {loc["uuid"] for loc in body["results"]} == {AIP_STORE, polled.locations[1].uuid}
    main = next(loc for loc in body["results"] if loc["uuid"] == AIP_STORE)
    assert main["usage"] == {"used": 6000, "limit": 10000, "percent": 60.0}
    assert main["purpose_label"] == "AIP storage"


def test_locations_filter_by_pipeline(api, polled):
    body = api.get(f"/api/v1/locations/?pipeline={PEER_PIPELINE}").json()

    assert [loc["uuid"] for loc in body["results"]] == [AIP_STORE]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("package_type=DIP", {2}),
        ("status=DEL_REQ", {5}),
        (f"location={DIP_STORE}", {2}),
        (f"pipeline={PIPELINE}", {1, 2, 3, 4, 5}),
        ("q=field-notes", {3}),
        (f"q={package_uuid(4)}", {4}),
    ],
)
def test_packages_filter_like_the_page(api, polled, query, expected):
    body = api.get(f"/api/v1/packages/?{query}").json()

    assert {p["uuid"] for p in body["results"]} == {package_uuid(n) for n in expected}


def test_packages_page_with_limit_and_offset(api, fake):
    fake.add(*(make_package(n) for n in range(1, 31)))
    storage_services.storage_poll()

    first = api.get("/api/v1/packages/?limit=10&sort=name").json()
    second = api.get("/api/v1/packages/?limit=10&offset=10&sort=name").json()

    assert first["count"] == 30
    assert [p["uuid"] for p in first["results"]] == [package_uuid(n) for n in range(1, 11)]
    assert [p["uuid"] for p in second["results"]] == [package_uuid(n) for n in range(11, 21)]
    assert "offset=10" in first["next"]


def test_a_bad_filter_is_a_400(api, polled):
    response = api.get("/api/v1/packages/?status=LOST")

    assert response.status_code == 400
    assert "status" in response.json()


def test_package_detail_includes_fixity_history(api, polled):
    check = storage_services.fixity_check_create(package_uuid=package_uuid(1), requested_by="otto")
    storage_services.fixity_check_run(check_id=check.pk, client=polled)

    body = api.get(f"/api/v1/packages/{package_uuid(1)}/").json()

    assert body["name"] == "board-minutes-001"
    assert body["related_uuids"] == [package_uuid(2)]
    assert body["fixity_checks"][0]["success"] is True


def test_an_unknown_package_is_a_404(api, polled):
    assert api.get(f"/api/v1/packages/{package_uuid(99)}/").status_code == 404


def test_the_api_never_calls_the_storage_service(api, polled):
    polled.calls.clear()

    for url in ENDPOINTS:
        assert api.get(url).status_code == 200

    assert polled.calls == []
