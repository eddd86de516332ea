from __future__ import annotations

import re

import pytest
from django.test import Client

from dashboard.models import AuditEntry
from dashboard.services import actions
from tests.fakes import FakeUnit, FakeWorkflowClient
from tests.support.users import make_user
from tests.views.seed import PIPELINE, XSS_ESCAPED, XSS_NAME, seed, unit, uuid_for, waiting_unit

pytestmark = pytest.mark.django_db
CONFIRM = f"/transfers/{uuid_for(1)}/approve/confirm/"
APPROVE = f"/transfers/{uuid_for(1)}/approve/"
TOKEN = "t" * 32


@pytest.fixture
def fake(monkeypatch) -> FakeWorkflowClient:
    client = FakeWorkflowClient()
    client.add(FakeUnit(uuid_for(1), name="unit-1", awaiting_approval=True))
    monkeypatch.setattr(actions, "get_workflow_client", lambda config: client)
    seed(waiting_unit(1))
    return client


def _token(page: str) -> str:
    return re.search(r'name="idempotency_key" value="([^"]+)"', page).group(1)


def test_the_confirmation_page_carries_a_one_time_token(operator, fake):
    first = operator.get(CONFIRM).content.decode()
    second = operator.get(CONFIRM).content.decode()

    assert f'action="{APPROVE}"' in first
    assert "csrfmiddlewaretoken" in first
    assert _token(first) != _token(second)
    assert fake.calls == []


def test_the_confirmation_loads_as_a_dialog_for_htmx(operator, fake):
    page = operator.get(CONFIRM, HTTP_HX_REQUEST="true").content.decode()

    assert page.lstrip().startswith("<dialog")
    assert f'action="{APPROVE}"' in page


def test_an_operator_approves_and_sees_the_result_on_the_waiting_page(
    operator, fake, django_capture_on_commit_callbacks, _no_poll_enqueued
):
    token = _token(operator.get(CONFIRM).content.decode())

    with django_capture_on_commit_callbacks(execute=True):
        response = operator.post(APPROVE, {"idempotency_key": token}, follow=True)

    assert response.redirect_chain[-1][0] == "/waiting/"
    assert "Approved: unit-1. Approval successful" in response.content.decode()
    assert fake.count("approve_transfer") == 1
    entry = AuditEntry.objects.get()
    assert (entry.actor_name, entry.outcome, entry.target) == ("otto", "done", uuid_for(1))
    assert _no_poll_enqueued == [PIPELINE]


def test_a_double_submit_makes_one_upstream_call(operator, fake):
    operator.post(APPROVE, {"idempotency_key": TOKEN})
    response = operator.post(APPROVE, {"idempotency_key": TOKEN}, follow=True)

    assert fake.count("approve_transfer") == 1
    assert AuditEntry.objects.count() == 1
    assert "already submitted; nothing was sent again" in response.content.decode()


def test_the_user_sees_the_services_refusal(operator, fake):
    fake.units.clear()  # the service no longer has it: "Unable to start the transfer."

    response = operator.post(APPROVE, {"idempotency_key": TOKEN}, follow=True)

    assert "Unable to start the transfer." in response.content.decode()
    assert AuditEntry.objects.get().outcome == "refused"


def test_the_user_is_told_clearly_when_the_service_is_down(operator, fake):
    fake.down = True

    response = operator.post(APPROVE, {"idempotency_key": TOKEN}, follow=True)

    assert "could not be reached" in response.content.decode()
    assert AuditEntry.objects.get().outcome == "failed"


def test_a_viewer_gets_403_and_no_call_is_made(viewer, fake):
    assert viewer.get(CONFIRM).status_code == 403
    assert viewer.post(APPROVE, {"idempotency_key": TOKEN}).status_code == 403
    assert fake.calls == []
    assert not AuditEntry.objects.exists()


def test_a_user_without_a_role_gets_403(no_role, fake):
    assert no_role.post(APPROVE, {"idempotency_key": TOKEN}).status_code == 403


def test_anonymous_users_are_sent_to_log_in(fake):
    response = Client().post(APPROVE, {"idempotency_key": TOKEN})

    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]
    assert fake.calls == []


def test_get_is_not_allowed_on_the_action(operator, fake):
    assert operator.get(APPROVE).status_code == 405
    assert fake.calls == []


def test_a_post_without_csrf_token_is_refused(fake):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("olga", "operator"))

    response = client.post(APPROVE, {"idempotency_key": TOKEN})

    assert response.status_code == 403
    assert fake.calls == []


def test_a_post_with_the_csrf_token_from_the_confirmation_works(fake):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("olga", "operator"))
    page = client.get(CONFIRM).content.decode()
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)

    response = client.post(APPROVE, {"idempotency_key": _token(page), "csrfmiddlewaretoken": csrf})

    assert response.status_code == 302
    assert fake.count("approve_transfer") == 1


def test_a_missing_token_asks_again_without_calling(operator, fake):
    response = operator.post(APPROVE, {})

    assert response.status_code == 400
    assert "please confirm again" in response.content.decode()
    assert fake.calls == []


def test_next_may_not_point_off_site(operator, fake):
    response = operator.post(APPROVE, {"idempotency_key": TOKEN, "next": "https://evil.example/"})

    assert response["Location"] == "/waiting/"


def test_a_transfer_not_awaiting_approval_has_no_confirmation(operator, fake):
    seed(unit(1, status="PROCESSING"))

    response = operator.get(CONFIRM)

    assert response.status_code == 302
    assert response["Location"] == "/waiting/"


def test_the_confirmation_escapes_a_hostile_name(operator, fake):
    seed(waiting_unit(1, name=XSS_NAME, directory=XSS_NAME))

    page = operator.get(CONFIRM).content.decode()

    assert XSS_NAME not in page
    assert XSS_ESCAPED in page


def test_a_dialog_for_a_transfer_already_approved_sends_the_page_back_to_the_queue(operator, fake):
    seed(unit(1, status="PROCESSING"))

    response = operator.get(CONFIRM, HTTP_HX_REQUEST="true")

    assert response["HX-Redirect"] == "/waiting/"
