from __future__ import annotations

import pytest
from django.test import Client

from dashboard.models import AuditEntry
from dashboard.services import actions
from tests.fakes import FakeUnit, FakeWorkflowClient
from tests.support.records import hidden_of
from tests.support.users import make_user
from tests.views.seed import PIPELINE, XSS_ESCAPED, XSS_NAME, seed, unit, uuid_for

pytestmark = pytest.mark.django_db
CONFIRM = f"/units/{uuid_for(1)}/hide/confirm/"
HIDE = f"/units/{uuid_for(1)}/hide/"
TOKEN = "h" * 32


@pytest.fixture
def fake(monkeypatch) -> FakeWorkflowClient:
    client = FakeWorkflowClient()
    client.add(FakeUnit(uuid_for(1)))
    monkeypatch.setattr(actions, "get_workflow_client", lambda config: client)
    seed(unit(1, name="finished", status="COMPLETE"))
    return client


def test_an_operator_hides_a_finished_unit(operator, fake):
    assert "Hide unit" in operator.get(CONFIRM).content.decode()

    response = operator.post(HIDE, {"idempotency_key": TOKEN}, follow=True)

    assert response.redirect_chain[-1][0] == f"/units/{uuid_for(1)}/"
    assert "Hidden: finished." in response.content.decode()
    assert fake.calls == [("hide_transfer", (uuid_for(1),))]
    assert uuid_for(1) in hidden_of(PIPELINE)
    assert "finished" not in operator.get("/units/").content.decode()
    assert AuditEntry.objects.get().action == "unit_hide"


def test_a_double_submit_hides_once(operator, fake):
    operator.post(HIDE, {"idempotency_key": TOKEN})
    operator.post(HIDE, {"idempotency_key": TOKEN})

    assert fake.count("hide_transfer") == 1


def test_a_running_unit_has_no_hide_confirmation(operator, fake):
    seed(unit(1, status="PROCESSING"))

    response = operator.get(CONFIRM)

    assert response.status_code == 302
    assert fake.calls == []


def test_the_user_sees_when_the_service_declines(operator, fake):
    fake.units.clear()

    response = operator.post(HIDE, {"idempotency_key": TOKEN}, follow=True)

    assert "did not hide it" in response.content.decode()
    assert AuditEntry.objects.get().outcome == "refused"


def test_a_viewer_gets_403(viewer, fake):
    assert viewer.get(CONFIRM).status_code == 403
    assert viewer.post(HIDE, {"idempotency_key": TOKEN}).status_code == 403
    assert fake.calls == []


def test_anonymous_users_are_sent_to_log_in(fake):
    assert Client().post(HIDE, {"idempotency_key": TOKEN}).status_code == 302
    assert fake.calls == []


def test_get_is_not_allowed_on_the_action(operator, fake):
    assert operator.get(HIDE).status_code == 405


def test_a_post_without_csrf_token_is_refused(fake):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("olga", "operator"))

    assert client.post(HIDE, {"idempotency_key": TOKEN}).status_code == 403
    assert fake.calls == []


def test_the_confirmation_escapes_a_hostile_name(operator, fake):
    seed(unit(1, name=XSS_NAME, status="COMPLETE"))

    page = operator.get(CONFIRM).content.decode()

    assert XSS_NAME not in page
    assert XSS_ESCAPED in page
