"""Every status, walked through every place that shows it: one word each, everywhere.

For each unit status of the workflow service (and Lookout's own), the unit page, the
unit list and the API say the same words, the vocabulary's; the wall names its metrics
with the same words. For each package status of the storage service, the package list,
the package page and the API do.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from dashboard.lib import vocabulary
from dashboard.models import StoragePackage
from dashboard.services import storage as storage_services
from tests.storage.fakes import FakeStorageClient, make_package, package_uuid
from tests.support.users import make_user
from tests.views import seed
from tests.wall import seeding

pytestmark = pytest.mark.django_db

UNIT_CASES = [(code, False) for code in vocabulary.UNIT_STATUSES] + [("COMPLETE", True)]


@pytest.fixture
def viewer() -> Client:
    client = Client()
    client.force_login(make_user("vera", "viewer"))
    return client


def _badge(text: str) -> str:
    """The shared status label as the pages render it, words last."""
    return f'<span class="status-icon" aria-hidden="true">{{}}</span> {escape(text)}</span>'


def _has_badge(page: str, term: vocabulary.Term) -> bool:
    return _badge(term.text).format(escape(term.icon)) in page


@pytest.mark.parametrize(("status", "backlog"), UNIT_CASES)
def test_a_unit_status_has_the_same_words_on_the_pages_and_in_the_api(viewer, status, backlog):
    term = vocabulary.unit_status(status, sent_to_backlog=backlog)
    (unit,) = seed.seed(seed.unit(1, status=status, sent_to_backlog=backlog))
    seed.mark_polled()

    detail = viewer.get(reverse("dashboard:unit-detail", args=[unit.uuid])).content.decode()
    listing = viewer.get(reverse("dashboard:unit-list")).content.decode()
    api_list = viewer.get("/api/v1/units/").json()["results"]
    api_detail = viewer.get(f"/api/v1/units/{unit.uuid}/").json()

    assert _has_badge(detail, term)
    assert _has_badge(listing, term)
    assert [u["status_label"] for u in api_list] == [term.text]
    assert (api_detail["status"], api_detail["status_label"]) == (status, term.text)


def test_the_unit_filter_offers_the_same_words(viewer):
    page = viewer.get(reverse("dashboard:unit-list")).content.decode()

    for code, term in vocabulary.UNIT_STATUSES.items():
        assert f'<option value="{code}">{escape(term.text)}</option>' in page


def _metric(page: str, name: str) -> tuple[str, str]:
    """The value and the label of one wall metric, as text."""
    block = re.search(rf'data-metric="{name}">(.*?)</div>', page, re.S)
    assert block, name
    value = re.search(
        r'class="metric-value">(.*?)</span>\s*<span class="metric-label">', block[1], re.S
    )
    # The label may start with its status glyph (hidden from screen readers).
    label = re.search(
        r'class="metric-label">(?:<span class="glyph" aria-hidden="true">[^<]*</span>)?([^<]*)<',
        block[1],
        re.S,
    )
    digits = re.sub(r"<[^>]+>|[^0-9]", "", value[1])
    return digits, label[1].replace("&nbsp;", " ").strip()


# The unit statuses the wall counts: its metric, and the words after the status's own.
WALL_METRICS = {
    "PROCESSING": ("in-progress", ""),
    "USER_INPUT": ("awaiting", ""),
    "FAILED": ("failed", " in 24 h"),
    "COMPLETE": ("completed", " today"),
}


@pytest.mark.parametrize("status", list(WALL_METRICS))
def test_the_wall_names_the_units_it_counts_with_the_same_words(viewer, settings, status):
    seeding.use_pipelines(settings)
    now = timezone.now()
    if status in ("PROCESSING", "USER_INPUT"):
        waiting = timedelta(minutes=5) if status == "USER_INPUT" else None
        seeding.save_units([seeding.unit(now=now, name="one", status=status, waiting_for=waiting)])
    elif status == "FAILED":
        seeding.save_units([seeding.failed_unit(now=now, name="one", failed_ago=timedelta(0))])
    else:
        seeding.change(at=now, to_status=status)
    metric, window = WALL_METRICS[status]

    page = viewer.get(reverse("dashboard:wall")).content.decode()

    assert _metric(page, metric) == ("1", vocabulary.unit_status(status).text + window)


@pytest.fixture
def storage(monkeypatch) -> FakeStorageClient:
    client = FakeStorageClient.seeded()
    monkeypatch.setattr(storage_services, "get_storage_client", lambda: client)
    return client


@pytest.mark.parametrize("status", list(vocabulary.PACKAGE_STATUSES))
def test_a_package_status_has_the_same_words_on_the_pages_and_in_the_api(viewer, storage, status):
    term = vocabulary.package_status(status)
    storage.add(make_package(1, status=status, name="walked"))
    storage_services.storage_poll(client=storage)
    uuid = package_uuid(1)

    listing = viewer.get(reverse("dashboard:storage-package-list")).content.decode()
    detail = viewer.get(reverse("dashboard:storage-package-detail", args=[uuid])).content.decode()
    api_list = viewer.get("/api/v1/packages/").json()["results"]
    api_detail = viewer.get(f"/api/v1/packages/{uuid}/").json()

    assert _has_badge(listing, term)
    assert _has_badge(detail, term)
    assert [p["status_label"] for p in api_list] == [term.text]
    assert (api_detail["status"], api_detail["status_label"]) == (status, term.text)
    assert f'<option value="{status}">{escape(term.text)}</option>' in listing


def test_a_package_status_lookout_does_not_know_is_shown_as_sent_and_escaped(viewer, storage):
    storage_services.storage_poll(client=storage)
    now = timezone.now()
    StoragePackage.objects.create(
        uuid=package_uuid(9),
        name="odd",
        package_type="AIP",
        status="<b>NEW</b>",
        first_seen_at=now,
        seen_at=now,
    )

    listing = viewer.get(reverse("dashboard:storage-package-list")).content.decode()
    api = viewer.get(f"/api/v1/packages/{package_uuid(9)}/").json()

    assert "&lt;b&gt;NEW&lt;/b&gt;" in listing and "<b>NEW</b>" not in listing
    assert api["status_label"] == "<b>NEW</b>"


def test_the_api_schema_documents_status_label(viewer):
    schema = viewer.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    components = schema["components"]["schemas"]

    for name in ("UnitOutput", "UnitDetail", "WaitingUnit", "StoragePackage"):
        field = components[name]["properties"]["status_label"]
        assert field["type"] == "string" and "words the pages show" in field["description"]
        assert "status_label" in components[name]["required"]


# --------------------------------------------------------------------------- words


def test_the_overview_counts_the_units_awaiting_a_decision_in_one_card_only(viewer):
    seed.seed(seed.waiting_unit(1), seed.waiting_unit(2), seed.unit(3))
    seed.mark_polled()

    page = viewer.get(reverse("dashboard:home")).content.decode()
    cards = re.search(r'<ul class="counts".*?</ul>', page, re.S)[0]

    awaiting = vocabulary.unit_status("USER_INPUT")
    assert cards.count(escape(awaiting.text)) == 1
    assert re.search(r'<span class="count">2</span> <span class="status status-waiting">', cards)
    assert "waiting for a decision" not in cards.lower()


@pytest.mark.parametrize(
    ("units", "sentence"),
    [(1, "1 unit matches the filters"), (2, "2 units match the filters")],
)
def test_a_filtered_count_agrees_with_its_number(viewer, units, sentence):
    seed.seed(*(seed.unit(n, status="FAILED") for n in range(1, units + 1)))
    seed.mark_polled()

    page = viewer.get(reverse("dashboard:unit-list"), {"status": "FAILED"}).content.decode()

    assert sentence in page


def test_ages_read_as_words_and_a_fresh_poll_as_just_now(viewer):
    seed.seed(seed.waiting_unit(1, minutes_waiting=3 * 24 * 60))
    seed.mark_polled(seconds_ago=1)

    page = viewer.get(reverse("dashboard:waiting-list")).content.decode()

    assert "Workflow data updated just now." in page
    assert "3 days" in page
    assert not re.search(r"\b0 min|\bmin old\b", page)


def test_a_long_name_wraps_between_its_words_and_a_very_long_one_keeps_it_in_a_tooltip(viewer):
    very_long = "board <minutes> " + "x" * 120
    seed.seed(seed.unit(1, name="smith_family_papers_batch_05"), seed.unit(2, name=very_long))
    seed.mark_polled()

    page = viewer.get(reverse("dashboard:unit-list")).content.decode()

    assert "smith_<wbr>family_<wbr>papers_<wbr>batch_<wbr>05</a>" in page
    shortened = escape(very_long[:79]) + "…"
    assert f'<span title="{escape(very_long)}">{shortened}</span>' in page
    assert "<minutes>" not in page


@pytest.mark.parametrize("sheet", ["app.css", "storage.css", "analytics.css"])
def test_no_stylesheet_breaks_words_anywhere(sheet):
    css = (settings.BASE_DIR / "static" / "dashboard" / "css" / sheet).read_text()

    assert "overflow-wrap: anywhere" not in css
    assert "break-all" not in css
