"""POST /api/v1/transfers/: the wizard's action through the API."""

from __future__ import annotations

import base64

import pytest
from rest_framework.test import APIClient

from dashboard.models import AuditEntry, Unit
from tests.fakes import uuid_for
from tests.storage.fakes import TRANSFER_SOURCE
from tests.support.users import make_user
from tests.views.test_transfer_start import NAME, storage, workflow  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db
URL = "/api/v1/transfers/"
KEY = "api-key-" + "x" * 20


def _body(**overrides) -> dict:
    body = {
        "location": TRANSFER_SOURCE,
        "paths": [base64.b64encode(b"board minutes 1962").decode()],
        "name": NAME,
        "accession": "A-1",
        "processing_config": "automated",
    }
    body.update(overrides)
    return body


def _client(role: str | None, name: str) -> APIClient:
    client = APIClient()
    client.force_authenticate(make_user(name, role))
    return client


def test_an_operator_starts_a_transfer_once_per_key(storage, workflow, _no_poll_enqueued):  # noqa: F811
    client = _client("operator", "otto")

    first = client.post(URL, _body(), format="json", HTTP_IDEMPOTENCY_KEY=KEY)
    again = client.post(URL, _body(), format="json", HTTP_IDEMPOTENCY_KEY=KEY)

    assert first.status_code == 201, first.content
    assert first.json()["transfer_uuid"] == uuid_for(901)
    assert first.json()["outcome"] == "done" and not first.json()["repeated"]
    assert again.status_code == 200 and again.json()["repeated"] is True
    assert workflow.count("create_package") == 1
    assert AuditEntry.objects.get().action == "transfer_start"
    assert Unit.objects.get(uuid=uuid_for(901)).name == NAME


def test_a_viewer_is_refused(storage, workflow):  # noqa: F811
    response = _client("viewer", "vera").post(URL, _body(), format="json", HTTP_IDEMPOTENCY_KEY=KEY)
    assert response.status_code == 403
    assert workflow.calls == []


def test_the_key_is_required(storage, workflow):  # noqa: F811
    response = _client("operator", "otto").post(URL, _body(), format="json")
    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()["detail"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "a/b"}, "name"),
        ({"paths": [base64.b64encode(b"../up").decode()]}, "paths"),
        ({"processing_config": "nope"}, "processing_config"),
        ({"location": "44444444-4444-4444-8444-000000000000"}, "location"),
    ],
)
def test_invalid_input_names_the_field(storage, workflow, body, field):  # noqa: F811
    response = _client("operator", "otto").post(
        URL, _body(**body), format="json", HTTP_IDEMPOTENCY_KEY=KEY
    )
    assert response.status_code == 400
    assert field in response.json()
    assert workflow.calls == []


def test_an_unreachable_service_answers_502_with_the_reason(storage, workflow):  # noqa: F811
    workflow.down = True
    response = _client("operator", "otto").post(
        URL, _body(), format="json", HTTP_IDEMPOTENCY_KEY=KEY
    )
    assert response.status_code == 502
    assert "could not be reached" in response.json()["message"]


def test_session_callers_need_the_csrf_token(storage, workflow):  # noqa: F811
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(make_user("otto", "operator"))
    response = client.post(URL, _body(), format="json", HTTP_IDEMPOTENCY_KEY=KEY)
    assert response.status_code == 403
    assert workflow.calls == []


def test_the_schema_documents_it(storage):  # noqa: F811
    client = _client("operator", "otto")
    schema = client.get("/api/v1/schema/").content.decode()
    assert "/api/v1/transfers/" in schema and "Idempotency-Key" in schema
