from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from dashboard.models import AuditEntry
from tests.views.seed import XSS_ESCAPED, XSS_NAME, mark_polled

pytestmark = pytest.mark.django_db


def _entry(number: int, **fields) -> AuditEntry:
    values = {
        "idempotency_key": f"key-{number:028d}",
        "actor_name": "otto",
        "action": "transfer_approve",
        "target_kind": "transfer",
        "target": f"00000000-0000-4000-8000-{number:012d}",
        "target_label": f"transfer-{number}",
        "requested_at": timezone.now() - timedelta(minutes=number),
        "outcome": "done",
        "upstream_status": 200,
        "upstream_message": "Approval successful.",
    }
    values.update(fields)
    return AuditEntry.objects.create(**values)


def test_it_sends_anonymous_users_to_the_login_page():
    assert Client().get("/audit/").status_code == 302


def test_it_answers_a_user_without_a_role_with_403(no_role):
    assert no_role.get("/audit/").status_code == 403


def test_a_viewer_may_not_read_the_audit_log(viewer):
    response = viewer.get("/audit/")

    assert response.status_code == 403
    assert b"operator or admin" in response.content


def test_it_lists_who_did_what_to_what_when_and_the_upstream_answer(operator):
    _entry(1)
    _entry(
        2, outcome="refused", upstream_status=500, upstream_message="Unable to start the transfer."
    )

    response = operator.get("/audit/")

    page = response.content.decode()
    assert response.status_code == 200
    assert [e.target_label for e in response.context["page"].object_list] == [
        "transfer-1",
        "transfer-2",
    ]
    assert "otto" in page and "Transfer approved" in page
    assert "500: Unable to start the transfer." in page
    assert "Refused" in page and "Done" in page


def test_it_is_paginated(operator):
    for number in range(1, 53):
        _entry(number)

    first = operator.get("/audit/")
    second = operator.get("/audit/?page=2")

    assert len(first.context["page"].object_list) == 50
    assert [e.target_label for e in second.context["page"].object_list] == [
        "transfer-51",
        "transfer-52",
    ]


def test_an_admin_sees_the_audit_and_admin_links(admin_client_):
    page = admin_client_.get("/audit/").content.decode()

    assert 'href="/audit/"' in page
    assert 'href="/admin/auth/user/"' in page


def test_it_renders_from_the_database_even_when_the_upstream_services_are_down(operator):
    _entry(
        1,
        outcome="failed",
        upstream_status=None,
        upstream_message="The workflow service could not be reached: connection refused",
    )
    mark_polled(ok=False, seconds_ago=600)

    page = operator.get("/audit/").content.decode()

    assert "could not be reached" in page
    assert "Failed" in page


def test_it_escapes_hostile_labels_and_messages(operator):
    _entry(1, target_label=XSS_NAME, upstream_message=XSS_NAME)

    page = operator.get("/audit/").content.decode()

    assert XSS_NAME not in page
    assert XSS_ESCAPED in page


def test_an_htmx_poll_gets_only_the_table(operator):
    _entry(1)

    page = operator.get("/audit/", HTTP_HX_REQUEST="true").content.decode()

    assert page.lstrip().startswith('<div id="audit-live"')
    assert "transfer-1" in page and "<html" not in page


def _labels(response) -> list[str]:
    return [e.target_label for e in response.context["page"].object_list]


def test_it_filters_by_outcome_user_and_target_and_keeps_them_in_the_url(operator):
    _entry(1, outcome="done")
    _entry(2, outcome="refused", actor_name="ada")
    _entry(3, outcome="timed_out")
    _entry(4, outcome="pending", requested_at=timezone.now() - timedelta(hours=1))
    for _ in range(60):
        _entry(100 + _, outcome="failed", actor_name="bulk", target_label=f"bulk-{_}")

    assert _labels(operator.get("/audit/?outcome=REFUSED")) == ["transfer-2"]
    assert _labels(operator.get("/audit/?outcome=timed_out")) == ["transfer-3"]
    assert _labels(operator.get("/audit/?outcome=unknown")) == ["transfer-4"]
    assert _labels(operator.get("/audit/?user=ADA")) == ["transfer-2"]
    assert _labels(operator.get("/audit/?target=TRANSFER-1")) == ["transfer-1"]
    assert _labels(operator.get("/audit/?target=00000000-0000-4000-8000-000000000003")) == [
        "transfer-3"
    ]
    page = operator.get("/audit/?user=bulk").content.decode()
    assert "?user=bulk&amp;page=2" in page


def test_a_filter_it_does_not_understand_is_reported_not_a_500(operator):
    _entry(1)
    response = operator.get("/audit/?outcome=maybe")
    assert response.status_code == 200
    assert "Some filters were not understood" in response.content.decode()
    assert _labels(response) == ["transfer-1"]
