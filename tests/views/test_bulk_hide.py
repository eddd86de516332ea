"""Hiding finished units in bulk from the units page, the undo window, and the upstream half."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from dashboard.models import AuditEntry, Unit
from dashboard.services import bulk_hide
from tests.fakes import FakeUnit, FakeWorkflowClient, UnitKind
from tests.support.users import make_user
from tests.views.seed import PIPELINE, XSS_ESCAPED, XSS_NAME, seed, unit, uuid_for

pytestmark = pytest.mark.django_db
CONFIRM = "/units/hide/confirm/"
HIDE = "/units/hide/"
TOKEN = "b" * 32
UNDO_TOKEN = "u" * 32


@pytest.fixture
def fake(monkeypatch) -> FakeWorkflowClient:
    client = FakeWorkflowClient()
    for number in (1, 2, 3):
        client.add(FakeUnit(uuid_for(number)))
    client.add(FakeUnit(uuid_for(4), kind=UnitKind.SIP))
    monkeypatch.setattr(bulk_hide, "get_workflow_client", lambda config: client)
    seed(
        unit(1, name="done one", status="COMPLETE"),
        unit(2, name="failed two", status="FAILED", failed_at=timezone.now() - timedelta(days=40)),
        unit(3, name="still running", status="PROCESSING"),
        unit(4, name="sip four", status="FAILED", kind="sip", failed_at=timezone.now()),
    )
    return client


def _hide(client: Client, *numbers: int, token: str = TOKEN):
    return client.post(
        HIDE, {"idempotency_key": token, "units": [uuid_for(n) for n in numbers]}, follow=True
    )


def _pass_the_window() -> None:
    Unit.objects.filter(hide_upstream_after__isnull=False).update(
        hide_upstream_after=timezone.now() - timedelta(seconds=1)
    )


def test_the_confirmation_lists_the_ticked_units_and_says_the_upstream_hide_is_final(
    operator, fake
):
    page = operator.get(CONFIRM, {"units": [uuid_for(1), uuid_for(2), uuid_for(3)]})

    text = page.content.decode()
    assert page.status_code == 200
    assert "done one" in text and "failed two" in text
    assert "still running" not in text  # not finished: not offered
    assert "cannot be undone" in text
    assert "Hide 2 units" in text


def test_failed_units_older_than_some_days_are_chosen_for_confirmation(operator, fake):
    text = operator.get(CONFIRM, {"failed_older_than": 30}).content.decode()

    assert "failed two" in text
    assert "sip four" not in text  # failed today
    assert "failed more than 30 days ago" in text


def test_an_operator_hides_units_in_lookout_at_once_but_not_upstream_yet(operator, fake):
    response = _hide(operator, 1, 2, 3)

    text = response.content.decode()
    assert response.redirect_chain[-1][0] == "/units/"
    assert "Hidden in Lookout&#x27;s lists: 2 units" in text
    assert "Undo" in text
    assert f'value="{uuid_for(1)}" form="bulk-hide"' not in text  # gone from the list
    assert set(Unit.objects.filter(hidden=True).values_list("uuid", flat=True)) == {
        uuid_for(1),
        uuid_for(2),
    }
    assert fake.calls == []  # the undo window is still open
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.outcome) == ("units_hide", "queued")


def test_a_double_submit_hides_once(operator, fake):
    _hide(operator, 1, 2)
    second = _hide(operator, 1, 2)

    assert "already submitted" in second.content.decode()
    assert AuditEntry.objects.count() == 1


def test_undo_within_the_window_shows_the_units_again_and_nothing_goes_upstream(operator, fake):
    _hide(operator, 1, 2)
    entry = AuditEntry.objects.get()

    response = operator.post(
        f"/units/hide/{entry.pk}/undo/", {"idempotency_key": UNDO_TOKEN}, follow=True
    )
    bulk_hide.hide_upstream_due(pipeline=PIPELINE, now=timezone.now() + timedelta(hours=1))

    assert "Shown again" in response.content.decode()
    assert not Unit.objects.filter(hidden=True).exists()
    assert fake.calls == []
    entry.refresh_from_db()
    assert entry.outcome == "done" and "not asked to hide them" in entry.upstream_message
    assert AuditEntry.objects.filter(action="units_unhide", outcome="done").count() == 1


def test_after_the_window_the_poll_sends_the_hides_and_records_the_answers(operator, fake):
    _hide(operator, 1, 2)
    _pass_the_window()

    summary = bulk_hide.hide_upstream_due(pipeline=PIPELINE)
    again = bulk_hide.hide_upstream_due(pipeline=PIPELINE)

    assert summary.sent == 2 and again.sent == 0
    assert sorted(fake.calls) == [
        ("hide_transfer", (uuid_for(1),)),
        ("hide_transfer", (uuid_for(2),)),
    ]
    entry = AuditEntry.objects.get()
    assert entry.outcome == "done"
    assert "The workflow service hid 2 units." in entry.upstream_message


def test_a_sip_is_hidden_through_the_ingest_endpoint(operator, fake):
    _hide(operator, 4)
    _pass_the_window()

    bulk_hide.hide_upstream_due(pipeline=PIPELINE)

    assert fake.calls == [("hide_ingest", (uuid_for(4),))]


def test_undo_after_the_window_is_refused_in_words(operator, fake):
    _hide(operator, 1)
    _pass_the_window()
    bulk_hide.hide_upstream_due(pipeline=PIPELINE)
    entry = AuditEntry.objects.get(action="units_hide")

    response = operator.post(
        f"/units/hide/{entry.pk}/undo/", {"idempotency_key": UNDO_TOKEN}, follow=True
    )

    assert "Too late to undo" in response.content.decode()
    assert Unit.objects.get(uuid=uuid_for(1)).hidden
    assert AuditEntry.objects.get(action="units_unhide").outcome == "refused"


def test_an_unreachable_service_is_tried_again_later(operator, fake):
    _hide(operator, 1)
    _pass_the_window()
    fake.down = True

    summary = bulk_hide.hide_upstream_due(pipeline=PIPELINE)

    assert summary.retried == 1
    assert Unit.objects.get(uuid=uuid_for(1)).hide_upstream_after is not None
    assert AuditEntry.objects.get().outcome == "queued"


def test_when_the_service_declines_every_unit_the_request_is_refused(operator, fake):
    _hide(operator, 1)
    _pass_the_window()
    fake.units.clear()

    bulk_hide.hide_upstream_due(pipeline=PIPELINE)

    entry = AuditEntry.objects.get()
    assert entry.outcome == "refused"
    assert "did not hide 1" in entry.upstream_message


def test_nothing_hideable_is_said_before_confirmation(operator, fake):
    response = operator.get(CONFIRM, {"units": [uuid_for(3)]}, follow=True)

    assert "Nothing to hide" in response.content.decode()


def test_a_viewer_gets_403_and_sees_no_boxes(viewer, fake):
    assert viewer.get(CONFIRM, {"units": [uuid_for(1)]}).status_code == 403
    assert viewer.post(HIDE, {"idempotency_key": TOKEN, "units": [uuid_for(1)]}).status_code == 403
    assert 'form="bulk-hide"' not in viewer.get("/units/").content.decode()
    assert not Unit.objects.filter(hidden=True).exists()


def test_the_units_page_offers_boxes_for_finished_units_only(operator, fake):
    text = operator.get("/units/").content.decode()

    assert f'value="{uuid_for(1)}" form="bulk-hide"' in text
    assert f'value="{uuid_for(3)}" form="bulk-hide"' not in text


def test_a_post_without_csrf_token_is_refused(fake):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("olga", "operator"))

    assert client.post(HIDE, {"idempotency_key": TOKEN, "units": [uuid_for(1)]}).status_code == 403
    assert not Unit.objects.filter(hidden=True).exists()


def test_the_confirmation_and_notice_escape_a_hostile_name(operator, fake):
    seed(unit(1, name=XSS_NAME, status="COMPLETE"))

    page = operator.get(CONFIRM, {"units": [uuid_for(1)]}).content.decode()
    notice = _hide(operator, 1).content.decode()

    assert XSS_NAME not in page and XSS_ESCAPED in page
    assert XSS_NAME not in notice
