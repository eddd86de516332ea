"""POST /api/v1/units/hide/ and its undo: the units page's bulk hide through the API."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from dashboard.models import AuditEntry, Unit
from tests.support.users import make_user
from tests.views.seed import uuid_for
from tests.views.test_bulk_hide import fake  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db
URL = "/api/v1/units/hide/"
KEY = "bulk-hide-" + "k" * 20


def _client(role: str | None, name: str) -> APIClient:
    client = APIClient()
    client.force_authenticate(make_user(name, role))
    return client


def test_an_operator_hides_units_once_per_key_and_the_upstream_hide_waits(fake):  # noqa: F811
    client = _client("operator", "otto")
    body = {"units": [uuid_for(1), uuid_for(2), uuid_for(3)]}

    first = client.post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY=KEY)
    again = client.post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY=KEY)

    assert first.status_code == 202, first.content
    answer = first.json()
    assert answer["outcome"] == "queued"
    assert sorted(answer["units"]) == [uuid_for(1), uuid_for(2)]
    assert answer["hide_upstream_after"] is not None
    assert again.status_code == 200 and again.json()["repeated"] is True
    assert AuditEntry.objects.count() == 1
    assert fake.calls == []


def test_failed_units_older_than_some_days(fake):  # noqa: F811
    response = _client("operator", "otto").post(
        URL, {"failed_older_than_days": 30}, format="json", HTTP_IDEMPOTENCY_KEY=KEY
    )

    assert response.status_code == 202
    assert response.json()["units"] == [uuid_for(2)]


def test_undo_through_the_api(fake):  # noqa: F811
    client = _client("operator", "otto")
    audit_id = client.post(
        URL, {"units": [uuid_for(1)]}, format="json", HTTP_IDEMPOTENCY_KEY=KEY
    ).json()["audit_id"]

    undo = client.post(f"{URL}{audit_id}/undo/", HTTP_IDEMPOTENCY_KEY="undo-" + "u" * 20)

    assert undo.status_code == 201, undo.content
    assert not Unit.objects.filter(hidden=True).exists()


def test_undo_after_the_window_answers_409(fake):  # noqa: F811
    client = _client("operator", "otto")
    audit_id = client.post(
        URL, {"units": [uuid_for(1)]}, format="json", HTTP_IDEMPOTENCY_KEY=KEY
    ).json()["audit_id"]
    Unit.objects.update(hide_upstream_after=timezone.now() - timedelta(seconds=1))

    undo = client.post(f"{URL}{audit_id}/undo/", HTTP_IDEMPOTENCY_KEY="undo-" + "u" * 20)

    assert undo.status_code == 409
    assert "Too late to undo" in undo.json()["message"]


def test_a_viewer_is_refused(fake):  # noqa: F811
    response = _client("viewer", "vera").post(
        URL, {"units": [uuid_for(1)]}, format="json", HTTP_IDEMPOTENCY_KEY=KEY
    )
    assert response.status_code == 403
    assert not Unit.objects.filter(hidden=True).exists()


@pytest.mark.parametrize(
    "body",
    [{}, {"units": [uuid_for(1)], "failed_older_than_days": 3}, {"units": ["nope"]}],
)
def test_invalid_input_is_refused(fake, body):  # noqa: F811
    response = _client("operator", "otto").post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY=KEY)
    assert response.status_code == 400


def test_the_key_is_required(fake):  # noqa: F811
    response = _client("operator", "otto").post(URL, {"units": [uuid_for(1)]}, format="json")
    assert response.status_code == 400
