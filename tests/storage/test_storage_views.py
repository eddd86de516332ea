from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from dashboard import tasks
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
    assert page.count("(no limit)") >= 3


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

LISTING_TASK = "dashboard.tasks.fetch_location_listing"


def _browse(client, path: bytes = b"", **headers):
    from dashboard.forms.storage import encode_browse_path

    url = reverse("dashboard:storage-location", args=[TRANSFER_SOURCE])
    if path:
        url += "?path=" + encode_browse_path(path)
    return client.get(url, **headers)


def _listed(path: bytes = b"") -> None:
    """What the worker does with the queued fetch."""
    storage_services.location_listing_fetch(location_uuid=TRANSFER_SOURCE, path=path)


def _stored_at(path: bytes, moment) -> None:
    """Make the stored listing of `path` look fetched at `moment`."""
    key = storage_services.listing_key(TRANSFER_SOURCE, path)
    stored = cache.get(key)
    cache.set(key, {**stored, "listed_at": moment, "fetched_at": moment})


def test_a_folder_not_listed_yet_queues_a_fetch_and_shows_loading(
    client, browsable, viewer, queued
):
    client.force_login(viewer)

    response = _browse(client, b"transfer-1")

    body = response.content.decode()
    assert response.status_code == 200
    assert "Loading…" in body
    assert 'aria-busy="true"' in body
    # The listing part polls itself until the listing is stored.
    assert 'hx-trigger="every 1s' in body
    assert queued == [(LISTING_TASK, (TRANSFER_SOURCE, "dHJhbnNmZXItMQ=="))]
    # The page itself never asks the storage service.
    assert browsable.count("browse_location") == 0


def test_an_htmx_poll_before_the_listing_arrives_gets_the_loading_part_again(
    client, browsable, viewer, queued
):
    client.force_login(viewer)
    _browse(client)

    body = _browse(client, HTTP_HX_REQUEST="true").content.decode()

    assert 'id="browse-listing"' in body and "<html" not in body
    assert "Loading…" in body and 'hx-trigger="every 1s' in body
    # One fetch queued, however often the part polls.
    assert [name for name, _ in queued] == [LISTING_TASK]


def test_the_htmx_poll_after_the_fetch_shows_the_listing_and_stops_polling(
    client, browsable, viewer
):
    client.force_login(viewer)
    _browse(client)
    _listed()

    body = _browse(client, HTTP_HX_REQUEST="true").content.decode()

    assert 'id="browse-listing"' in body and "<html" not in body
    assert "transfer-1" in body and "Loading…" not in body
    assert "hx-trigger" not in body
    assert 'aria-busy="false"' in body


def test_browsing_shows_decoded_names_counts_and_sizes(client, browsable, viewer, queued):
    _listed()
    client.force_login(viewer)

    body = _browse(client).content.decode()

    assert "transfer-1" in body and "dir with space" in body and "readme.txt" in body
    assert "5000+ objects" in body
    assert "3 objects" in body
    assert "2.0\xa0KB" in body
    # Fresh enough: nothing queued, nothing polled.
    assert queued == [] and "hx-trigger" not in body


def test_a_stored_listing_says_how_old_it_is_and_offers_a_refresh(client, browsable, viewer):
    _listed()
    _stored_at(b"", timezone.now() - timedelta(minutes=2))
    client.force_login(viewer)

    body = _browse(client).content.decode()

    assert "Listed 2 min ago" in body
    assert ">Refresh</button>" in body
    assert f'hx-post="{reverse("dashboard:storage-location", args=[TRANSFER_SOURCE])}"' in body


def test_an_old_listing_is_shown_while_a_fresh_one_is_fetched(client, browsable, viewer, queued):
    _listed()
    _stored_at(b"", timezone.now() - timedelta(minutes=10))
    client.force_login(viewer)

    body = _browse(client).content.decode()

    assert "Listed 10 min ago" in body and "transfer-1" in body
    assert "refreshing…" in body and 'hx-trigger="every 1s' in body
    assert [name for name, _ in queued] == [LISTING_TASK]


def test_refresh_queues_a_fresh_fetch_and_polls_until_it_is_stored(
    client, browsable, viewer, queued
):
    _listed(b"transfer-1")
    client.force_login(viewer)
    from dashboard.forms.storage import encode_browse_path

    url = reverse("dashboard:storage-location", args=[TRANSFER_SOURCE])
    url += "?path=" + encode_browse_path(b"transfer-1")
    response = client.post(url, HTTP_HX_REQUEST="true")

    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body and "objects" in body
    assert "refreshing…" in body and 'hx-trigger="every 1s' in body
    assert queued == [(LISTING_TASK, (TRANSFER_SOURCE, "dHJhbnNmZXItMQ=="))]

    _listed(b"transfer-1")
    polled = _browse(client, b"transfer-1", HTTP_HX_REQUEST="true").content.decode()

    assert "refreshing…" not in polled and "hx-trigger" not in polled


def test_refresh_without_htmx_queues_a_fetch_and_goes_back_to_the_folder(
    client, browsable, viewer, queued
):
    _listed()
    client.force_login(viewer)
    url = reverse("dashboard:storage-location", args=[TRANSFER_SOURCE])

    response = client.post(url)

    assert response.status_code == 302 and response["Location"] == url
    assert [name for name, _ in queued] == [LISTING_TASK]


def test_browsing_links_directories_with_their_path(client, browsable, viewer):
    from dashboard.forms.storage import encode_browse_path

    _listed()
    client.force_login(viewer)

    body = _browse(client).content.decode()

    assert f"?path={encode_browse_path(b'transfer-1')}" in body


def test_browsing_a_subdirectory_shows_breadcrumbs_back_up(client, browsable, viewer, queued):
    from dashboard.forms.storage import encode_browse_path

    client.force_login(viewer)
    loading = _browse(client, b"transfer-1/objects").content.decode()
    tasks.fetch_location_listing.run(*queued[-1][1])

    body = _browse(client, b"transfer-1/objects").content.decode()

    # The breadcrumbs are there at once, before the listing.
    assert f"?path={encode_browse_path(b'transfer-1')}" in loading
    assert "\u00e9-file.txt" in body
    assert f"?path={encode_browse_path(b'transfer-1')}" in body
    assert 'aria-current="location">objects<' in body
    assert browsable.calls[-1] == ("browse_location", (TRANSFER_SOURCE, b"transfer-1/objects"), {})


def test_a_name_that_is_not_utf8_is_shown_readably(client, browsable, viewer):
    _listed(b"legacy")
    client.force_login(viewer)

    body = _browse(client, b"legacy").content.decode()

    assert "caf\ufffd-menu.txt" in body
    assert r"caf\xe9-menu.txt" in body
    assert "Not a UTF-8 name" in body


def test_browse_names_are_escaped(client, browsable, viewer):
    _listed()
    client.force_login(viewer)

    body = _browse(client).content.decode()

    assert "<script>alert(3)" not in body
    assert "&lt;script&gt;alert(3)&lt;/script&gt;" in body


def test_an_htmx_browse_returns_only_the_listing(client, browsable, viewer):
    _listed(b"transfer-1")
    client.force_login(viewer)

    body = _browse(client, b"transfer-1", HTTP_HX_REQUEST="true").content.decode()

    assert 'id="browse-listing"' in body and "<html" not in body
    assert "objects" in body


def test_an_empty_folder_says_so(client, browsable, viewer):
    _listed(b"nothing-here")
    client.force_login(viewer)

    body = _browse(client, b"nothing-here").content.decode()

    assert "This folder is empty" in body and "Loading…" not in body


def test_browsing_when_the_storage_service_does_not_answer_says_so(client, browsable, viewer):
    from dashboard.clients.storage import StorageUnavailable

    browsable.failures["browse_location"] = StorageUnavailable("timed out", service="storage")
    _listed()
    client.force_login(viewer)

    response = _browse(client)

    body = response.content.decode()
    assert response.status_code == 200
    assert "did not answer in time" in body
    assert "tried &lt; 1 s ago" in body or "tried < 1 s ago" in body
    assert "Loading…" not in body and "hx-trigger" not in body
    assert ">Refresh</button>" in body


def test_when_the_storage_service_is_down_the_last_listing_stays_with_the_error(
    client, browsable, viewer
):
    _listed()
    _stored_at(b"", timezone.now() - timedelta(minutes=5))
    browsable.down = True
    _listed()
    client.force_login(viewer)

    body = _browse(client).content.decode()

    assert "did not answer in time" in body and "the listing below is older" in body
    assert "Listed 5 min ago" in body and "transfer-1" in body


def test_the_storage_service_refusing_a_listing_is_shown_in_its_words(client, browsable, viewer):
    from dashboard.clients.storage import StorageResponseError

    browsable.failures["browse_location"] = StorageResponseError(
        "storage service answered 500",
        service="storage",
        status=500,
        upstream_message="Path is not within location",
    )
    _listed()
    client.force_login(viewer)

    response = _browse(client)

    assert response.status_code == 200
    assert (
        "The storage service could not list this directory: Path is not within location"
        in response.content.decode()
    )


def test_browsing_uses_a_short_timeout_and_no_retries(fake):
    client = storage_services._browse_client()

    assert client.timeout == storage_services.BROWSE_TIMEOUT
    assert client.retries == 1


def test_the_storage_views_never_import_the_clients():
    import ast
    from pathlib import Path

    import dashboard.views.storage as module

    tree = ast.parse(Path(module.__file__).read_text())
    imported = [
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    ]
    assert not [name for name in imported if name and name.startswith("dashboard.clients")]


def test_a_damaged_browse_path_is_a_400_with_a_message(client, browsable, viewer):
    client.force_login(viewer)
    url = reverse("dashboard:storage-location", args=[TRANSFER_SOURCE])

    response = client.get(url + "?path=Li4vLi4v")  # "../../"

    assert response.status_code == 400
    assert "may not go up" in response.content.decode()


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
