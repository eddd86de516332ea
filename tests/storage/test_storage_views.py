from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from dashboard.clients.storage import Location, LocationPurpose
from dashboard.services import storage as storage_services
from tests.storage.fakes import (
    AIP_STORE,
    DIP_STORE,
    SPACE,
    TRANSFER_SOURCE,
    make_package,
    package_uuid,
)

pytestmark = pytest.mark.django_db

PAGES = [
    reverse("dashboard:storage-overview"),
    reverse("dashboard:storage-package-list"),
    reverse("dashboard:storage-package-detail", args=[package_uuid(1)]),
    reverse("dashboard:storage-location", args=[AIP_STORE]),
]


@pytest.mark.parametrize("url", PAGES)
def test_anonymous_visitors_are_sent_to_the_login_page(client, polled, url):
    response = client.get(url)

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("url", PAGES)
def test_a_user_without_a_role_gets_403(client, polled, no_role, url):
    client.force_login(no_role)

    assert client.get(url).status_code == 403


def test_the_overview_shows_pipelines_spaces_and_locations_by_purpose(client, polled, viewer):
    client.force_login(viewer)

    page = client.get(reverse("dashboard:storage-overview")).content.decode()

    assert "Main pipeline" in page and "Peer pipeline" in page
    assert "AIP storage" in page and "DIP storage" in page and "Transfer backlog" in page
    assert "Main AIP store" in page and "Second AIP store" in page
    # 6,000 of a 10,000-byte quota.
    assert "60.0 %" in page
    assert "<html" in page


def test_a_size_or_quota_of_null_or_zero_shows_as_unlimited(client, polled, viewer):
    client.force_login(viewer)

    page = client.get(reverse("dashboard:storage-overview")).content.decode()

    # The space (size None), the second AIP store (quota None) and the DIP store (quota 0).
    assert page.count("(no limit set)") >= 3


def test_an_htmx_request_gets_only_the_live_part_of_the_overview(client, polled, viewer):
    client.force_login(viewer)

    response = client.get(reverse("dashboard:storage-overview"), HTTP_HX_REQUEST="true")

    body = response.content.decode()
    assert response.status_code == 200
    assert 'id="storage-live"' in body
    assert "<html" not in body
    assert "Main AIP store" in body


def test_the_overview_says_so_before_the_first_poll(client, viewer):
    client.force_login(viewer)

    page = client.get(reverse("dashboard:storage-overview")).content.decode()

    assert "has not heard from the storage service yet" in page


def test_when_the_storage_service_is_down_the_last_state_is_shown_as_stale(client, fake, viewer):
    fake.add(make_package(1, name="still-shown"))
    storage_services.storage_poll(now=timezone.now() - timedelta(minutes=30))
    fake.down = True
    storage_services.storage_poll()
    client.force_login(viewer)

    overview = client.get(reverse("dashboard:storage-overview")).content.decode()
    packages = client.get(reverse("dashboard:storage-package-list")).content.decode()

    assert "Stale data" in overview and "could not connect" in overview
    assert "Main AIP store" in overview
    assert "Stale data" in packages and "still-shown" in packages


def test_the_package_list_shows_the_mirrored_packages(client, polled, viewer):
    client.force_login(viewer)

    page = client.get(reverse("dashboard:storage-package-list")).content.decode()

    for name in ("board-minutes-001", "field-notes-002", "oral-history-003", "maps-004"):
        assert name in page
    assert "Deletion requested" in page
    assert "5 packages" in page


@pytest.mark.parametrize(
    ("query", "shown", "hidden"),
    [
        ("package_type=DIP", {2}, {1, 3, 4, 5}),
        ("status=DEL_REQ", {5}, {1, 2, 3, 4}),
        (f"location={DIP_STORE}", {2}, {1, 3, 4, 5}),
        ("q=field-notes", {3}, {1, 2, 4, 5}),
        (f"q={package_uuid(4)}", {4}, {1, 2, 3, 5}),
        ("q=aaaaaaaa-0000-4000-8000-0000000000", {1, 2, 3, 4, 5}, set()),
    ],
)
def test_the_package_list_filters(client, polled, viewer, query, shown, hidden):
    client.force_login(viewer)

    page = client.get(reverse("dashboard:storage-package-list") + "?" + query).content.decode()

    assert all(package_uuid(n) in page for n in shown)
    assert not any(package_uuid(n) in page for n in hidden)


def test_the_package_list_filters_by_origin_pipeline(client, polled, viewer):
    from tests.storage.fakes import PEER_PIPELINE

    polled.add(make_package(9, name="from-the-peer", pipeline=PEER_PIPELINE))
    storage_services.storage_poll()
    client.force_login(viewer)

    page = client.get(reverse("dashboard:storage-package-list") + f"?pipeline={PEER_PIPELINE}")

    assert "from-the-peer" in page.content.decode()
    assert "board-minutes-001" not in page.content.decode()


def test_the_package_list_sorts_by_size(client, polled, viewer):
    client.force_login(viewer)

    page = client.get(reverse("dashboard:storage-package-list") + "?sort=-size").content.decode()

    assert page.index("field-notes-002") < page.index("board-minutes-001")


def test_an_unknown_filter_value_is_reported_and_ignored(client, polled, viewer):
    client.force_login(viewer)

    response = client.get(reverse("dashboard:storage-package-list") + "?status=LOST")

    body = response.content.decode()
    assert response.status_code == 200
    assert "not understood" in body
    assert "5 packages" in body


def test_the_package_list_pages(client, fake, viewer):
    fake.add(*(make_package(n) for n in range(1, 121)))
    storage_services.storage_poll()
    client.force_login(viewer)

    first = client.get(reverse("dashboard:storage-package-list")).content.decode()
    third = client.get(reverse("dashboard:storage-package-list") + "?page=3").content.decode()

    assert "Page 1 of 3 (120 in all)" in first
    assert "Page 3 of 3" in third
    # Newest stored first: the oldest twenty are on the last page.
    assert package_uuid(1) in third and package_uuid(120) not in third


def test_an_htmx_request_gets_only_the_package_table(client, polled, viewer):
    client.force_login(viewer)

    response = client.get(
        reverse("dashboard:storage-package-list") + "?package_type=AIP", HTTP_HX_REQUEST="true"
    )

    body = response.content.decode()
    assert 'id="packages-live"' in body and "<html" not in body
    assert "board-minutes-001" in body


def test_the_package_detail_shows_fields_and_related_packages(client, polled, viewer):
    client.force_login(viewer)

    page = client.get(reverse("dashboard:storage-package-detail", args=[package_uuid(1)]))

    body = page.content.decode()
    assert page.status_code == 200
    assert "board-minutes-001" in body
    assert "Main AIP store" in body
    assert "Main pipeline" in body
    assert reverse("dashboard:storage-package-detail", args=[package_uuid(2)]) in body


def test_the_package_detail_asks_for_contents_and_pointer_file_without_calling_upstream(
    client, polled, viewer, queued
):
    client.force_login(viewer)
    polled.calls.clear()

    page = client.get(reverse("dashboard:storage-package-detail", args=[package_uuid(1)]))

    assert "Fetching the contents" in page.content.decode()
    assert ("dashboard.tasks.fetch_package_details", (package_uuid(1),)) in queued
    assert polled.calls == []


def test_the_pointer_file_is_shown_readably_once_fetched(client, polled, viewer):
    storage_services.package_details_refresh(uuid=package_uuid(1), client=polled)
    client.force_login(viewer)

    body = client.get(
        reverse("dashboard:storage-package-detail", args=[package_uuid(1)])
    ).content.decode()

    assert "Checksum algorithm" in body and "sha256" in body and "abc123" in body
    assert "&lt;premis:messageDigest&gt;" in body
    assert "objects/report.pdf" in body


def test_an_unknown_package_is_a_404(client, polled, viewer):
    client.force_login(viewer)

    response = client.get(reverse("dashboard:storage-package-detail", args=[package_uuid(99)]))

    assert response.status_code == 404


def test_the_package_detail_offers_operations_only_to_those_allowed(
    client, polled, viewer, operator
):
    url = reverse("dashboard:storage-package-detail", args=[package_uuid(1)])
    client.force_login(viewer)
    assert "Check fixity" not in client.get(url).content.decode()

    client.force_login(operator)
    body = client.get(url).content.decode()
    assert reverse("dashboard:storage-package-fixity", args=[package_uuid(1)]) in body
    assert reverse("dashboard:storage-package-reingest", args=[package_uuid(1)]) in body


def test_upstream_names_are_escaped(client, fake, viewer):
    # No slash: package names come from the last part of a path.
    evil = "<svg onload=alert(1)>"
    fake.locations[0] = Location(
        uuid=AIP_STORE,
        purpose=LocationPurpose.AIP_STORAGE,
        description="<img src=x onerror=alert(2)>",
        enabled=True,
        path="/var/<b>store</b>",
        relative_path="x",
        quota=None,
        used=0,
        space_uuid=SPACE,
        pipeline_uuids=(),
    )
    fake.add(make_package(1, name=evil))
    storage_services.storage_poll()
    client.force_login(viewer)

    pages = [
        client.get(reverse("dashboard:storage-overview")).content.decode(),
        client.get(reverse("dashboard:storage-package-list")).content.decode(),
        client.get(
            reverse("dashboard:storage-package-detail", args=[package_uuid(1)])
        ).content.decode(),
    ]

    for body in pages:
        assert "<svg onload" not in body
        assert "<img src=x" not in body
        assert "<b>store</b>" not in body
    assert "&lt;svg onload=alert(1)&gt;" in pages[1]
    assert "&lt;img src=x onerror=alert(2)&gt;" in pages[0]


# --------------------------------------------------------------------------- browse


@pytest.fixture
def browsable(polled):
    from tests.storage.fakes import browse_listing

    polled.listings[TRANSFER_SOURCE] = {
        b"": browse_listing(
            {
                "transfer-1": {"object count": 3},
                "large-image-series": {"object count": "5000+"},
                "dir with space": {"object count": 1},
                "<script>alert(3)</script>": {"object count": 0},
                "readme.txt": {"size": 2048},
            }
        ),
        b"legacy": browse_listing(
            {b"caf\xe9-menu.txt": {"size": 512}, "ordinary.txt": {"size": 10}}
        ),
        b"transfer-1": browse_listing({"objects": {"object count": 2}}),
        b"transfer-1/objects": browse_listing({"\u00e9-file.txt": {"size": 11}}),
    }
    return polled


def _browse(client, path: bytes = b"", **headers):
    from dashboard.forms.storage import encode_browse_path

    url = reverse("dashboard:storage-location", args=[TRANSFER_SOURCE])
    if path:
        url += "?path=" + encode_browse_path(path)
    return client.get(url, **headers)


def test_browsing_shows_decoded_names_counts_and_sizes(client, browsable, viewer):
    client.force_login(viewer)

    body = _browse(client).content.decode()

    assert "transfer-1" in body and "dir with space" in body and "readme.txt" in body
    assert "5000+ objects" in body
    assert "3 objects" in body
    assert "2.0 KiB" in body


def test_browsing_links_directories_with_their_path(client, browsable, viewer):
    from dashboard.forms.storage import encode_browse_path

    client.force_login(viewer)

    body = _browse(client).content.decode()

    assert f"?path={encode_browse_path(b'transfer-1')}" in body


def test_browsing_a_subdirectory_shows_breadcrumbs_back_up(client, browsable, viewer):
    from dashboard.forms.storage import encode_browse_path

    client.force_login(viewer)

    body = _browse(client, b"transfer-1/objects").content.decode()

    assert "\u00e9-file.txt" in body
    assert f"?path={encode_browse_path(b'transfer-1')}" in body
    assert 'aria-current="location">objects<' in body
    assert browsable.calls[-1] == ("browse_location", (TRANSFER_SOURCE, b"transfer-1/objects"), {})


def test_a_name_that_is_not_utf8_is_shown_readably(client, browsable, viewer):
    client.force_login(viewer)

    body = _browse(client, b"legacy").content.decode()

    assert "caf\ufffd-menu.txt" in body
    assert r"caf\xe9-menu.txt" in body
    assert "Not a UTF-8 name" in body


def test_browse_names_are_escaped(client, browsable, viewer):
    client.force_login(viewer)

    body = _browse(client).content.decode()

    assert "<script>alert(3)" not in body
    assert "&lt;script&gt;alert(3)&lt;/script&gt;" in body


def test_an_htmx_browse_returns_only_the_listing(client, browsable, viewer):
    client.force_login(viewer)

    body = _browse(client, b"transfer-1", HTTP_HX_REQUEST="true").content.decode()

    assert 'id="browse-listing"' in body and "<html" not in body
    assert "objects" in body


def test_browsing_when_the_storage_service_does_not_answer_says_so(client, browsable, viewer):
    from dashboard.clients.storage import StorageUnavailable

    browsable.failures["browse_location"] = StorageUnavailable("timed out", service="storage")
    client.force_login(viewer)

    response = _browse(client)

    assert response.status_code == 200
    assert "did not answer in time" in response.content.decode()


def test_browsing_uses_a_short_timeout_and_no_retries(fake):
    client = storage_services._browse_client()

    assert client.timeout == storage_services.BROWSE_TIMEOUT
    assert client.retries == 1


def test_a_damaged_browse_path_is_a_400_with_a_message(client, browsable, viewer):
    client.force_login(viewer)
    url = reverse("dashboard:storage-location", args=[TRANSFER_SOURCE])

    response = client.get(url + "?path=Li4vLi4v")  # "../../"

    assert response.status_code == 400
    assert "may not go up" in response.content.decode()


@pytest.mark.parametrize("damaged", ["!!!", "dHJhbnNmZXItMQ!", "A", "zz%20z", "AA"])
def test_a_browse_path_that_is_not_base64_says_so_instead_of_showing_the_top(
    client, browsable, viewer, damaged
):
    client.force_login(viewer)
    url = reverse("dashboard:storage-location", args=[TRANSFER_SOURCE])

    response = client.get(f"{url}?path={damaged}")

    body = response.content.decode()
    assert response.status_code == 400
    assert "The folder in the address (?path=…) is not valid" in body
    assert f'href="{url}"' in body and "Browse from the top of this location" in body
    assert "readme.txt" not in body  # not the top folder's listing
    assert browsable.count("browse_location") == 0


def test_an_htmx_browse_with_a_damaged_path_answers_with_the_message(client, browsable, viewer):
    client.force_login(viewer)
    url = reverse("dashboard:storage-location", args=[TRANSFER_SOURCE])

    response = client.get(f"{url}?path=%21%21", HTTP_HX_REQUEST="true")

    body = response.content.decode()
    assert response.status_code == 400
    assert 'id="browse-listing"' in body and "<html" not in body
    assert "is not valid" in body


def test_browsing_an_unknown_location_is_a_404(client, polled, viewer):
    client.force_login(viewer)

    response = client.get(reverse("dashboard:storage-location", args=[package_uuid(77)]))

    assert response.status_code == 404


def test_cache_is_not_required_for_the_package_pages(client, polled, viewer):
    cache.clear()
    client.force_login(viewer)

    response = client.get(reverse("dashboard:storage-package-list"))

    assert response.status_code == 200
    assert "board-minutes-001" in response.content.decode()


def test_an_htmx_request_gets_only_the_live_part_of_a_package(client, polled, viewer):
    client.force_login(viewer)

    response = client.get(
        reverse("dashboard:storage-package-detail", args=[package_uuid(5)]), HTTP_HX_REQUEST="true"
    )

    body = response.content.decode()
    assert 'id="package-live"' in body and "<html" not in body
    assert "Deletion requested" in body


def test_a_fixity_check_without_a_result_for_long_is_shown_as_lost_not_running(
    client, polled, viewer
):
    from dashboard.models import FixityCheck

    FixityCheck.objects.create(
        package_uuid=package_uuid(1),
        requested_by="otto",
        requested_at=timezone.now() - timedelta(hours=2),
    )
    FixityCheck.objects.create(
        package_uuid=package_uuid(2),
        requested_by="otto",
        requested_at=timezone.now() - timedelta(minutes=1),
    )
    client.force_login(viewer)

    lost = client.get(reverse("dashboard:storage-package-detail", args=[package_uuid(1)]))
    running = client.get(reverse("dashboard:storage-package-detail", args=[package_uuid(2)]))

    assert "task was lost" in lost.content.decode()
    assert "Running" not in lost.content.decode()
    assert "Running" in running.content.decode()
