"""Everything named is a link: transfer ↔ SIP ↔ AIP ↔ DIP, audit targets, and the search page."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from dashboard.models import AuditEntry, StoragePackage
from tests.views.seed import seed, unit, uuid_for

pytestmark = pytest.mark.django_db

TRANSFER = uuid_for(1)
SIP = uuid_for(2)
DIP = "d1000000-0000-4000-8000-000000000001"


def _package(uuid: str, name: str, package_type: str, **fields) -> StoragePackage:
    now = timezone.now()
    return StoragePackage.objects.create(
        uuid=uuid,
        name=name,
        package_type=package_type,
        status="UPLOADED",
        first_seen_at=now,
        seen_at=now,
        **fields,
    )


def _chain():
    seed(
        unit(1, name="letters", kind="transfer", status="COMPLETE", sip_uuid=SIP),
        unit(2, name="letters-sip", kind="sip", status="COMPLETE", transfer_uuid=TRANSFER),
    )
    _package(SIP, "letters", "AIP", related_uuids=[DIP])
    _package(DIP, "letters", "DIP", current_path=f"letters-{SIP}")


def test_a_transfer_links_its_sip_aip_and_dip_by_name(viewer):
    _chain()
    page = viewer.get(f"/units/{TRANSFER}/").content.decode()
    assert f'<a href="/units/{SIP}/">letters-sip</a>' in page
    assert f'href="/storage/packages/{SIP}/"' in page
    assert f'href="/storage/packages/{DIP}/"' in page


def test_a_sip_links_its_transfer_by_name(viewer):
    _chain()
    page = viewer.get(f"/units/{SIP}/").content.decode()
    assert f'<a href="/units/{TRANSFER}/">letters</a>' in page
    assert f'href="/storage/packages/{DIP}/"' in page


@pytest.mark.parametrize("package", [SIP, DIP])
def test_an_aip_or_dip_links_the_transfer_and_sip_it_was_made_from(viewer, package):
    _chain()
    page = viewer.get(f"/storage/packages/{package}/").content.decode()
    assert f'href="/units/{TRANSFER}/"' in page
    assert f'href="/units/{SIP}/"' in page


def test_an_audit_entry_links_to_its_unit_or_package(operator):
    _chain()
    now = timezone.now()
    for key, kind, target in [("k" * 20, "transfer", TRANSFER), ("p" * 20, "package", DIP)]:
        AuditEntry.objects.create(
            idempotency_key=key,
            actor_name="op",
            action="unit_hide" if kind == "transfer" else "package_fixity_check",
            target_kind=kind,
            target=target,
            target_label="letters",
            requested_at=now,
            outcome="done",
        )
    page = operator.get("/audit/").content.decode()
    assert f'<a href="/units/{TRANSFER}/">letters</a>' in page
    assert f'<a href="/storage/packages/{DIP}/">letters</a>' in page


def test_every_page_has_the_header_search_box(viewer):
    page = viewer.get("/waiting/").content.decode()
    assert 'action="/search/"' in page and 'role="search"' in page


def test_search_finds_units_and_packages_by_name_or_uuid(viewer):
    _chain()
    page = viewer.get("/search/?q=LETTERS").content.decode()
    assert f'href="/units/{TRANSFER}/"' in page
    assert f'href="/units/{SIP}/"' in page
    assert f'href="/storage/packages/{DIP}/"' in page
    by_uuid = viewer.get(f"/search/?q={DIP[:8]}").content.decode()
    assert f'href="/storage/packages/{DIP}/"' in by_uuid
    assert f'href="/units/{TRANSFER}/"' not in by_uuid


def test_search_says_when_nothing_matches_and_refuses_a_huge_query(viewer):
    assert "No unit’s name" in viewer.get("/search/?q=nothing").content.decode().replace("'", "’")
    assert viewer.get("/search/?q=" + "x" * 300).status_code == 400


def test_search_needs_a_login():
    assert Client().get("/search/?q=x").status_code == 302
