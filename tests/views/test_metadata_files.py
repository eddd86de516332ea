"""Adding metadata files to a SIP: the same location browser, one copy per confirmation."""

from __future__ import annotations

import base64

import pytest
from django.test import Client
from rest_framework.test import APIClient

from dashboard.forms.storage import encode_browse_path
from dashboard.models import AuditEntry
from dashboard.services import actions
from dashboard.services import storage as storage_services
from tests.fakes import FakeUnit, FakeWorkflowClient, UnitKind
from tests.storage.fakes import TRANSFER_SOURCE, FakeStorageClient, browse_listing
from tests.support.users import make_user
from tests.views.seed import XSS_ESCAPED, XSS_NAME, seed, unit, uuid_for
from tests.views.test_transfer_start import queued  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db
SIP = uuid_for(8)
BROWSE = f"/units/{SIP}/metadata-files/"
CONFIRM = f"/units/{SIP}/metadata-files/confirm/"
ADD = f"/units/{SIP}/metadata-files/add/"
KEY = "m" * 32
PICK = encode_browse_path("métadonnées/rights.csv".encode())


@pytest.fixture
def storage(monkeypatch) -> FakeStorageClient:
    client = FakeStorageClient.seeded()
    client.listings[TRANSFER_SOURCE] = {
        b"": browse_listing({"métadonnées": {"object count": 2}, "dc.xml": {"size": 2048}}),
    }
    monkeypatch.setattr(storage_services, "get_storage_client", lambda: client)
    storage_services.storage_poll()
    return client


@pytest.fixture
def workflow(monkeypatch) -> FakeWorkflowClient:
    client = FakeWorkflowClient()
    client.add(FakeUnit(SIP, kind=UnitKind.SIP))
    monkeypatch.setattr(actions, "get_workflow_client", lambda config: client)
    seed(
        unit(8, kind="sip", name="Letters", status="USER_INPUT", microservice="Add final metadata")
    )
    return client


def test_a_sip_being_ingested_offers_metadata_files(operator, storage, workflow):
    assert "Add metadata files…" in operator.get(f"/units/{SIP}/").content.decode()
    seed(unit(8, kind="sip", status="COMPLETE"))
    assert "Add metadata files…" not in operator.get(f"/units/{SIP}/").content.decode()
    assert operator.get(BROWSE).status_code == 302


def test_the_browser_waits_for_the_listing_task_and_never_calls_storage(
    operator,
    storage,
    workflow,
    queued,  # noqa: F811
):
    calls_before = len(storage.calls)

    page = operator.get(BROWSE, {"location": TRANSFER_SOURCE}).content.decode()

    assert "Loading…" in page
    assert queued == [(TRANSFER_SOURCE, b"")]
    assert len(storage.calls) == calls_before


def test_the_browser_lists_files_and_folders_once_listed(operator, storage, workflow, queued):  # noqa: F811
    storage_services.location_listing_fetch(location_uuid=TRANSFER_SOURCE, client=storage)

    page = operator.get(BROWSE, {"location": TRANSFER_SOURCE}).content.decode()

    assert 'aria-label="Choose dc.xml"' in page
    assert "Open métadonnées" in page
    assert "2.0 KiB" in page


def test_an_operator_adds_metadata_files_once(operator, storage, workflow):
    confirm = operator.get(CONFIRM, {"location": TRANSFER_SOURCE, "picks": [PICK]})
    fields = {"location": TRANSFER_SOURCE, "picks": [PICK], "idempotency_key": KEY}
    first = operator.post(ADD, fields, follow=True)
    operator.post(ADD, fields)

    assert "métadonnées/rights.csv" in confirm.content.decode()
    assert "Metadata files added: Letters. Metadata files added successfully." in (
        first.content.decode()
    )
    assert workflow.calls == [
        (
            "copy_metadata_files",
            (SIP, ((TRANSFER_SOURCE, "métadonnées/rights.csv".encode()),)),
        )
    ]
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.outcome) == ("metadata_files_add", "done")
    assert entry.parameters["paths"] == ["métadonnées/rights.csv"]


def test_the_services_refusal_is_shown_in_its_words(operator, storage, workflow):
    workflow.foreign_locations.add(TRANSFER_SOURCE)

    response = operator.post(
        ADD, {"location": TRANSFER_SOURCE, "picks": [PICK], "idempotency_key": KEY}, follow=True
    )

    assert f"Location {TRANSFER_SOURCE} is not associated with this pipeline" in (
        response.content.decode()
    )
    assert AuditEntry.objects.get().outcome == "refused"


def test_a_path_that_goes_up_is_refused_before_anything_is_sent(operator, storage, workflow):
    response = operator.get(
        CONFIRM,
        {"location": TRANSFER_SOURCE, "picks": [encode_browse_path(b"../etc/passwd")]},
        follow=True,
    )

    assert response.redirect_chain
    assert workflow.calls == []


def test_a_viewer_gets_403(viewer, storage, workflow):
    assert viewer.get(BROWSE).status_code == 403
    fields = {"location": TRANSFER_SOURCE, "picks": [PICK], "idempotency_key": KEY}
    assert viewer.post(ADD, fields).status_code == 403
    assert workflow.calls == []


def test_a_post_without_csrf_token_is_refused(storage, workflow):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("olga", "operator"))

    fields = {"location": TRANSFER_SOURCE, "picks": [PICK], "idempotency_key": KEY}
    assert client.post(ADD, fields).status_code == 403
    assert workflow.calls == []


def test_the_pages_escape_a_hostile_name(operator, storage, workflow):
    seed(unit(8, kind="sip", name=XSS_NAME, status="PROCESSING"))

    page = operator.get(BROWSE).content.decode()

    assert XSS_NAME not in page and XSS_ESCAPED in page


def test_the_api_adds_metadata_files_once_per_key(storage, workflow):
    client = APIClient()
    client.force_authenticate(make_user("otto", "operator"))
    body = {
        "location": TRANSFER_SOURCE,
        "paths": [base64.b64encode("métadonnées/rights.csv".encode()).decode()],
    }

    first = client.post(f"/api/v1{BROWSE}", body, format="json", HTTP_IDEMPOTENCY_KEY=KEY)
    again = client.post(f"/api/v1{BROWSE}", body, format="json", HTTP_IDEMPOTENCY_KEY=KEY)
    bad = client.post(
        f"/api/v1{BROWSE}",
        {**body, "paths": [base64.b64encode(b"../x").decode()]},
        format="json",
        HTTP_IDEMPOTENCY_KEY="other-" + "k" * 20,
    )

    assert first.status_code == 201, first.content
    assert again.status_code == 200 and again.json()["repeated"]
    assert bad.status_code == 400 and "paths" in bad.json()
    assert workflow.count("copy_metadata_files") == 1


def test_the_api_refuses_a_viewer(storage, workflow):
    client = APIClient()
    client.force_authenticate(make_user("vera", "viewer"))
    body = {"location": TRANSFER_SOURCE, "paths": [base64.b64encode(b"a.csv").decode()]}

    assert (
        client.post(f"/api/v1{BROWSE}", body, format="json", HTTP_IDEMPOTENCY_KEY=KEY).status_code
        == 403
    )
