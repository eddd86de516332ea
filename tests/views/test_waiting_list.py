from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from dashboard.models import AuditEntry
from tests.views.seed import (
    XSS_ESCAPED,
    XSS_NAME,
    mark_polled,
    seed,
    unit,
    uuid_for,
    waiting_unit,
)

pytestmark = pytest.mark.django_db


def test_it_sends_anonymous_users_to_the_login_page():
    assert Client().get("/waiting/").status_code == 302


def test_it_answers_a_user_without_a_role_with_403(no_role):
    assert no_role.get("/waiting/").status_code == 403


def test_it_lists_waiting_units_oldest_first_with_their_age(viewer):
    seed(
        waiting_unit(1, name="recent", minutes_waiting=3),
        waiting_unit(2, name="oldest", approval=False, minutes_waiting=200, kind="sip"),
        waiting_unit(3, name="middle", minutes_waiting=30),
        unit(4, name="not-waiting"),
    )

    response = viewer.get("/waiting/")

    page = response.content.decode()
    assert [e.unit.name for e in response.context["page"].object_list] == [
        "oldest",
        "middle",
        "recent",
    ]
    assert "not-waiting" not in page
    assert "3 h 20 min" in page


def test_an_operator_gets_an_approve_button_for_a_transfer_awaiting_approval(operator):
    seed(waiting_unit(1, name="approve-me"))

    page = operator.get("/waiting/").content.decode()

    confirm = f"/transfers/{uuid_for(1)}/approve/confirm/"
    assert f'href="{confirm}"' in page
    assert f'hx-get="{confirm}"' in page


def test_a_transfer_waiting_at_research_data_approval_gets_an_approve_button(operator):
    job = "Approve research data transfer"
    seed(
        waiting_unit(
            1,
            name="dataset",
            awaiting_approval=False,
            microservice=job,
            decision=job,
            transfer_type="",
        )
    )

    page = operator.get("/waiting/").content.decode()
    confirm = operator.get(f"/transfers/{uuid_for(1)}/approve/confirm/")

    assert f'href="/transfers/{uuid_for(1)}/approve/confirm/"' in page
    assert "Answer it in the workflow service" not in page
    assert confirm.status_code == 200
    assert "Approve this transfer?" in confirm.content.decode()


def test_other_decisions_say_what_is_pending_and_where_it_is_answered(operator):
    seed(waiting_unit(1, name="normalise-me", approval=False, kind="sip"))

    page = operator.get("/waiting/").content.decode()

    assert "Select normalization path" in page
    assert "Answer it in the workflow service" in page
    assert "Approve…" not in page


def test_a_viewer_sees_no_approve_button(viewer):
    seed(waiting_unit(1))

    page = viewer.get("/waiting/").content.decode()

    assert "/approve/confirm/" not in page
    assert "an operator can approve it here" in page


def test_a_fresh_approval_is_shown_until_the_poller_catches_up(operator):
    seed(waiting_unit(1))
    AuditEntry.objects.create(
        idempotency_key="x" * 32,
        actor_name="otto",
        action="transfer_approve",
        target_kind="transfer",
        target=uuid_for(1),
        requested_at=timezone.now() - timedelta(seconds=30),
        outcome="done",
    )

    page = operator.get("/waiting/").content.decode()

    assert "Approved by otto" in page
    assert "/approve/confirm/" not in page


def test_an_htmx_poll_gets_only_the_queue(viewer):
    seed(waiting_unit(1, name="approve-me"))

    page = viewer.get("/waiting/", HTTP_HX_REQUEST="true").content.decode()

    # The queue, after the tab title that htmx takes from the fragment.
    title, _, queue = page.strip().partition("\n")
    assert title == "<title>Waiting (1) · Lookout</title>"
    assert queue.startswith('<div id="waiting-live"')
    assert "approve-me" in page and "<html" not in page


def test_it_keeps_showing_the_queue_as_stale_when_the_workflow_service_is_down(viewer):
    seed(waiting_unit(1, name="approve-me"))
    mark_polled(ok=False, seconds_ago=3600)

    page = viewer.get("/waiting/").content.decode()

    assert "approve-me" in page
    assert "stale since" in page
    assert "1 h ago" in page


def test_it_escapes_a_hostile_unit_name(operator):
    seed(waiting_unit(1, name=XSS_NAME, decision=XSS_NAME))

    page = operator.get("/waiting/").content.decode()

    assert XSS_NAME not in page
    assert XSS_ESCAPED in page
