"""CSV validation: the page and the API, one audited call per form, the size limit."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from dashboard.models import AuditEntry
from dashboard.services import csv_validation
from tests.fakes import FakeWorkflowClient
from tests.support.users import make_user

pytestmark = pytest.mark.django_db
URL = "/csv/validate/"
API = "/api/v1/csv-validations/"
KEY = "c" * 32
VALID_RIGHTS = "file,basis,status\nobjects/a.tif,copyright,copyrighted\n"
INVALID_RIGHTS = "file,basis\nobjects/a.tif,hearsay\n"
NAME = "droits d’auteur “1962”.csv"


@pytest.fixture
def workflow(monkeypatch) -> FakeWorkflowClient:
    client = FakeWorkflowClient()
    monkeypatch.setattr(csv_validation, "get_workflow_client", lambda config: client)
    return client


def _post(client, text: str, *, name: str = NAME, validator: str = "rights", key: str = KEY):
    upload = SimpleUploadedFile(name, text.encode("utf-8"), content_type="text/csv")
    return client.post(
        URL,
        {"pipeline": "default", "validator": validator, "csv_file": upload, "idempotency_key": key},
    )


def test_anonymous_users_go_to_the_login_page(client):
    assert client.get(URL).status_code == 302


def test_a_viewer_may_not_validate(viewer, workflow):
    assert viewer.get(URL).status_code == 403
    assert _post(viewer, VALID_RIGHTS).status_code == 403
    assert workflow.calls == []


def test_the_form_offers_the_spec_validators_and_the_size_hint(operator, settings):
    settings.LOOKOUT_CSV_MAX_BYTES = 2048
    page = operator.get(URL).content.decode()
    assert 'value="rights"' in page and 'value="media_manifest"' in page
    assert 'accept=".csv,text/csv"' in page and 'data-max-bytes="2048"' in page
    assert "dashboard/js/csv-upload.js" in page
    assert "<script>" not in page  # no inline script: CSP


def test_a_valid_csv_is_said_valid_with_its_file_name_and_audited(operator, workflow):
    response = _post(operator, VALID_RIGHTS)

    page = response.content.decode()
    assert response.status_code == 200
    assert "Valid: droits d’auteur “1962”.csv" in page
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.outcome, entry.upstream_status) == ("csv_validate", "done", 200)
    assert entry.parameters == {"validator": "rights", "file_name": NAME, "size": len(VALID_RIGHTS)}
    assert workflow.calls == [("validate_csv", ("rights", VALID_RIGHTS))]


def test_an_invalid_csv_shows_the_service_reason_as_given(operator, workflow):
    page = _post(operator, INVALID_RIGHTS).content.decode()

    assert "Not valid: droits d’auteur “1962”.csv" in page
    assert "Row 2: basis must be one of copyright, statute, license, donor, policy, other." in page


def test_a_double_submit_sends_once(operator, workflow):
    _post(operator, VALID_RIGHTS)
    again = _post(operator, VALID_RIGHTS).content.decode()

    assert workflow.count("validate_csv") == 1
    assert "already submitted" in again and AuditEntry.objects.count() == 1


def test_a_file_over_the_limit_is_refused_by_the_form(operator, workflow, settings):
    settings.LOOKOUT_CSV_MAX_BYTES = 1024
    response = _post(operator, "file,basis\n" + "x,copyright\n" * 200)

    assert response.status_code == 400
    assert "larger than the 1.0 KiB Lookout accepts" in response.content.decode()
    assert workflow.calls == [] and not AuditEntry.objects.exists()


def test_a_request_over_the_limit_is_refused_before_its_body_is_read(operator, workflow, settings):
    settings.LOOKOUT_CSV_MAX_BYTES = 1024
    response = _post(operator, "x" * 40_000)

    assert response.status_code == 413
    assert "larger than the 1.0 KiB Lookout accepts" in response.content.decode()
    assert workflow.calls == []


def test_a_file_that_is_not_utf8_is_named_in_the_form(operator, workflow):
    upload = SimpleUploadedFile("latin.csv", "file,basis\né,copyright\n".encode("latin-1"))
    response = operator.post(
        URL,
        {"pipeline": "default", "validator": "rights", "csv_file": upload, "idempotency_key": KEY},
    )
    assert response.status_code == 400
    assert "CSV file: The file is not UTF-8 text" in response.content.decode()


def test_an_unreachable_service_is_said_and_no_verdict_given(operator, workflow):
    workflow.down = True
    response = _post(operator, VALID_RIGHTS)

    assert response.status_code == 502
    page = response.content.decode()
    assert "No verdict" in page and "could not be reached" in page
    assert AuditEntry.objects.get().outcome == "failed"


# --- API -------------------------------------------------------------------------


def _api(role: str) -> APIClient:
    api = APIClient()
    api.force_authenticate(make_user(f"api-{role}", role))
    return api


def _api_post(api: APIClient, text: str, key: str | None = KEY, validator: str = "rights"):
    upload = SimpleUploadedFile(NAME, text.encode("utf-8"), content_type="text/csv")
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    return api.post(API, {"validator": validator, "file": upload}, format="multipart", **headers)


def test_the_api_gives_the_verdict_once_per_key(workflow):
    api = _api("operator")

    first = _api_post(api, INVALID_RIGHTS)
    again = _api_post(api, INVALID_RIGHTS)

    assert first.status_code == 200, first.content
    body = first.json()
    assert body["valid"] is False and body["reason"].startswith("Row 2: basis must be")
    assert body["file_name"] == NAME
    assert again.json()["repeated"] is True and workflow.count("validate_csv") == 1


def test_the_api_needs_the_role_and_the_key(workflow):
    assert _api_post(_api("viewer"), VALID_RIGHTS).status_code == 403
    assert _api_post(_api("operator"), VALID_RIGHTS, key=None).status_code == 400
    assert workflow.calls == []


def test_the_api_refuses_a_file_over_the_limit(workflow, settings):
    settings.LOOKOUT_CSV_MAX_BYTES = 1024
    response = _api_post(_api("operator"), "file,basis\n" + "x,copyright\n" * 200)
    assert response.status_code == 400 and "larger than" in str(response.json())
    assert workflow.calls == []


def test_the_schema_documents_csv_validation(workflow):
    schema = _api("operator").get("/api/v1/schema/").content.decode()
    assert "/api/v1/csv-validations/" in schema
