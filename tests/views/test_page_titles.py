"""Every main page's title says what the page is, with a count where one helps, and every
page links the favicon."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from dashboard.services import storage as storage_services
from tests.storage.fakes import FakeStorageClient, make_package, package_uuid
from tests.support.users import make_user
from tests.views import seed

pytestmark = pytest.mark.django_db
FAVICON = r'<link rel="icon" href="[^"]*/favicon[^"]*\.svg" type="image/svg\+xml">'


@pytest.fixture
def admin() -> Client:
    client = Client()
    client.force_login(make_user("ada", "admin"))
    return client


def title_of(page: str) -> str:
    """The document's title: the one in <head>, or the one a live fragment carries."""
    head = page.split("</head>")[0] if "</head>" in page else page
    titles = re.findall(r"<title>(.*?)</title>", head, re.S)
    assert len(titles) == 1, titles
    return html.unescape(titles[0].strip())


@pytest.fixture
def stored(monkeypatch) -> None:
    seed.seed(
        seed.unit(1, name="Board minutes 1962"),
        *(seed.waiting_unit(n, name=f"waiting {n}") for n in range(2, 14)),
    )
    seed.mark_polled()
    client = FakeStorageClient.seeded()
    client.add(make_package(1, name="AIP of the minutes"))
    monkeypatch.setattr(storage_services, "get_storage_client", lambda: client)
    storage_services.storage_poll(client=client)


@pytest.mark.parametrize(
    ("path", "title"),
    [
        ("/", "Overview · Lookout"),
        ("/units/", "Units · Lookout"),
        (f"/units/{seed.uuid_for(1)}/", "Board minutes 1962 · Lookout"),
        ("/waiting/", "Waiting (12) · Lookout"),
        ("/storage/", "Storage · Lookout"),
        ("/storage/packages/", "Packages · Lookout"),
        (f"/storage/packages/{package_uuid(1)}/", "AIP of the minutes · Lookout"),
        ("/audit/", "Audit log · Lookout"),
        ("/analytics/", "Analytics · Lookout"),
        ("/alerts/", "Alerts · Lookout"),
        ("/transfers/start/", "Start transfer · Lookout"),
        ("/wall/", "Lookout wall"),
    ],
)
def test_it_titles_each_page_by_what_it_shows(admin, stored, path, title):
    response = admin.get(path)

    assert response.status_code == 200
    page = response.content.decode()
    assert title_of(page) == title
    assert re.search(FAVICON, page)


def test_the_login_page_is_titled_and_has_the_favicon():
    page = Client().get(reverse("login")).content.decode()

    assert title_of(page) == "Log in · Lookout"
    assert re.search(FAVICON, page)
    icon = finders.find("dashboard/favicon.svg")
    assert icon and "<svg" in Path(icon).read_text()


def test_a_live_refresh_of_the_waiting_list_brings_the_new_count_to_the_title(admin, stored):
    first = admin.get("/waiting/", HTTP_HX_REQUEST="true").content.decode()
    seed.seed(seed.waiting_unit(20, name="one more"))
    second = admin.get("/waiting/", HTTP_HX_REQUEST="true").content.decode()

    assert title_of(first) == "Waiting (12) · Lookout"
    assert title_of(second) == "Waiting (13) · Lookout"
