"""Partial reingest from the workflow side: started on a completed SIP, approved where it waits."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from dashboard.models import AuditEntry, Unit
from dashboard.services import actions
from tests.fakes import FakeUnit, FakeWorkflowClient, UnitKind
from tests.support.users import make_user
from tests.views.seed import XSS_ESCAPED, XSS_NAME, seed, unit, uuid_for, waiting_unit

pytestmark = pytest.mark.django_db
SIP = uuid_for(7)
START_CONFIRM = f"/units/{SIP}/reingest/confirm/"
START = f"/units/{SIP}/reingest/"
APPROVE_CONFIRM = f"/units/{SIP}/reingest/approve/confirm/"
APPROVE = f"/units/{SIP}/reingest/approve/"
TOKEN = "r" * 32
API_KEY = "reingest-" + "k" * 20


@pytest.fixture
def fake(monkeypatch) -> FakeWorkflowClient:
    client = FakeWorkflowClient()
    client.add(FakeUnit(SIP, kind=UnitKind.SIP, name="Minutes"))
    monkeypatch.setattr(actions, "get_workflow_client", lambda config: client)
    seed(unit(7, kind="sip", name="Minutes", status="COMPLETE"))
    return client


def _waiting_for_approval() -> None:
    seed(
        waiting_unit(7, approval=False, kind="sip", name="Minutes", decision="Approve AIP reingest")
    )


def test_a_completed_sip_offers_a_partial_reingest_with_the_aip_name_prefilled(operator, fake):
    page = operator.get(f"/units/{SIP}/").content.decode()
    confirm = operator.get(START_CONFIRM).content.decode()

    assert "Partial reingest…" in page
    assert f'value="Minutes-{SIP}"' in confirm
    assert "shared tmp area" in confirm


def test_an_operator_starts_a_partial_reingest_once(operator, fake):
    first = operator.post(START, {"idempotency_key": TOKEN, "name": f"Minutes-{SIP}"}, follow=True)
    operator.post(START, {"idempotency_key": TOKEN, "name": f"Minutes-{SIP}"})

    assert "Reingest started" in first.content.decode()
    assert fake.calls == [("reingest_ingest", (f"Minutes-{SIP}", SIP))]
    assert Unit.objects.get(uuid=SIP).status == "UNKNOWN"  # polled again from the next cycle
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.outcome) == ("partial_reingest_start", "done")


def test_a_refused_start_shows_the_services_words(operator, fake):
    fake.units.clear()

    response = operator.post(START, {"idempotency_key": TOKEN, "name": "gone"}, follow=True)

    assert "No such file or directory" in response.content.decode()
    assert AuditEntry.objects.get().outcome == "refused"


def test_a_name_with_a_slash_is_caught_in_the_form_and_kept(operator, fake):
    response = operator.post(START, {"idempotency_key": TOKEN, "name": "../etc"})

    text = response.content.decode()
    assert response.status_code == 400
    assert "AIP name: A directory name, without any slash." in text
    assert 'value="../etc"' in text
    assert fake.calls == []


def test_a_sip_waiting_at_the_reingest_approval_is_approved_from_its_page(operator, fake):
    _waiting_for_approval()
    fake.units[SIP].awaiting_reingest_approval = True

    page = operator.get(f"/units/{SIP}/").content.decode()
    waiting = operator.get("/waiting/").content.decode()
    response = operator.post(APPROVE, {"idempotency_key": TOKEN}, follow=True)

    assert "Approve reingest…" in page
    assert "Approve reingest…" in waiting
    assert "Answer it in the workflow service" not in waiting
    assert "Reingest approved: Minutes. Approval successful." in response.content.decode()
    assert fake.calls == [("approve_partial_reingest", (SIP,))]


def test_the_services_refusal_of_the_approval_is_shown_in_its_words(operator, fake):
    _waiting_for_approval()

    response = operator.post(APPROVE, {"idempotency_key": TOKEN}, follow=True)

    assert "Unable to approve the partial reingest." in response.content.decode()
    assert AuditEntry.objects.get().outcome == "refused"


def test_a_sip_not_waiting_there_is_not_offered_the_approval(operator, fake):
    assert "Approve reingest…" not in operator.get(f"/units/{SIP}/").content.decode()
    assert operator.get(APPROVE_CONFIRM).status_code == 302
    response = operator.post(APPROVE, {"idempotency_key": TOKEN}, follow=True)
    assert "not waiting for its partial reingest" in response.content.decode()
    assert fake.calls == []


def test_a_viewer_gets_403_and_no_buttons(viewer, fake):
    _waiting_for_approval()

    assert "Approve reingest…" not in viewer.get(f"/units/{SIP}/").content.decode()
    assert viewer.get(APPROVE_CONFIRM).status_code == 403
    assert viewer.post(APPROVE, {"idempotency_key": TOKEN}).status_code == 403
    assert viewer.post(START, {"idempotency_key": TOKEN, "name": "x"}).status_code == 403
    assert fake.calls == []


def test_a_post_without_csrf_token_is_refused(fake):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("olga", "operator"))

    assert client.post(START, {"idempotency_key": TOKEN, "name": "x"}).status_code == 403
    assert fake.calls == []


def test_the_confirmation_escapes_a_hostile_name(operator, fake):
    seed(unit(7, kind="sip", name=XSS_NAME, status="COMPLETE"))

    page = operator.get(START_CONFIRM).content.decode()

    assert XSS_NAME not in page
    assert XSS_ESCAPED in page


# --- the API -----------------------------------------------------------------------------


def _api(role: str, name: str) -> APIClient:
    client = APIClient()
    client.force_authenticate(make_user(name, role))
    return client


def test_the_api_starts_then_approves_a_partial_reingest_once_per_key(fake):
    client = _api("operator", "otto")

    started = client.post(f"/api/v1/units/{SIP}/reingest/", {}, HTTP_IDEMPOTENCY_KEY=API_KEY)
    repeated = client.post(f"/api/v1/units/{SIP}/reingest/", {}, HTTP_IDEMPOTENCY_KEY=API_KEY)
    _waiting_for_approval()
    approved = client.post(
        f"/api/v1/units/{SIP}/reingest/approve/", HTTP_IDEMPOTENCY_KEY="approve-" + "k" * 20
    )

    assert started.status_code == 201, started.content
    assert repeated.status_code == 200 and repeated.json()["repeated"]
    assert approved.status_code == 201, approved.content
    assert fake.count("reingest_ingest") == 1
    assert fake.calls[0] == ("reingest_ingest", (f"Minutes-{SIP}", SIP))


def test_the_api_says_the_services_refusal_with_409(fake):
    _waiting_for_approval()
    response = _api("operator", "otto").post(
        f"/api/v1/units/{SIP}/reingest/approve/", HTTP_IDEMPOTENCY_KEY=API_KEY
    )

    assert response.status_code == 409
    assert response.json()["message"] == "Unable to approve the partial reingest."


def test_the_api_refuses_a_viewer_an_unknown_unit_and_a_missing_key(fake):
    viewer = _api("viewer", "vera")
    operator = _api("operator", "otto")

    assert (
        viewer.post(f"/api/v1/units/{SIP}/reingest/", HTTP_IDEMPOTENCY_KEY=API_KEY).status_code
        == 403
    )
    assert operator.post(f"/api/v1/units/{SIP}/reingest/").status_code == 400
    assert (
        operator.post(
            f"/api/v1/units/{uuid_for(99)}/reingest/", HTTP_IDEMPOTENCY_KEY=API_KEY
        ).status_code
        == 404
    )
    assert fake.calls == []
