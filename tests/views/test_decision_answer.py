"""Answering a decision in Lookout (with a dashboard service account): the question and
its choices in words, the confirmed form, and a decision taken elsewhere meanwhile."""

from __future__ import annotations

import json
import re
import uuid

import pytest
from django.test import Client

from dashboard.models import AuditEntry
from dashboard.services import decisions
from tests.views.seed import mark_polled, seed, uuid_for, waiting_unit

pytestmark = pytest.mark.django_db

JOB = str(uuid.UUID(int=77))
APPROVE = "6953950b-c101-4f4c-a0c3-0cd0684afe5e"
CHOICES = {APPROVE: "Yes, normalize", "1b04": "No, skip normalization"}


def answerable(number: int = 1, **fields):
    return waiting_unit(
        number,
        approval=False,
        decision_job_uuid=JOB,
        decision_choices=json.dumps(CHOICES),
        name="scripted-approval",
        **fields,
    )


def confirm_token(page: str) -> str:
    found = re.search(r'name="idempotency_key" value="([^"]+)"', page)
    assert found is not None, page
    return found.group(1)


def test_the_unit_page_shows_the_question_its_choices_and_an_answer_button(operator):
    seed(answerable())
    mark_polled()

    page = operator.get(f"/units/{uuid_for(1)}/").content.decode()

    assert "Select normalization path" in page
    assert "<li>Yes, normalize</li>" in page and "<li>No, skip normalization</li>" in page
    assert f"/units/{uuid_for(1)}/decision/confirm/" in page


def test_a_viewer_sees_the_choices_but_no_answer_button(viewer):
    seed(answerable())
    mark_polled()

    page = viewer.get("/waiting/").content.decode()

    assert "<li>No, skip normalization</li>" in page
    assert "/decision/confirm/" not in page
    assert viewer.get(f"/units/{uuid_for(1)}/decision/confirm/").status_code == 403


def test_the_confirmation_offers_the_choices_by_label(operator):
    seed(answerable())

    page = operator.get(f"/units/{uuid_for(1)}/decision/confirm/").content.decode()

    assert f'name="job" value="{JOB}"' in page
    assert f'value="{APPROVE}"' in page
    assert "Yes, normalize" in page and "No, skip normalization" in page
    assert 'type="radio"' in page


def test_a_decision_taken_elsewhere_meanwhile_is_said_and_nothing_is_sent(operator: Client):
    (unit,) = seed(answerable())
    token = confirm_token(operator.get(f"/units/{uuid_for(1)}/decision/confirm/").content.decode())
    # A poll saw the service move on to its next decision meanwhile.
    type(unit).objects.filter(pk=unit.pk).update(decision_job_uuid=str(uuid.UUID(int=78)))

    response = operator.post(
        f"/units/{uuid_for(1)}/decision/",
        {"idempotency_key": token, "job": JOB, "choice": APPROVE},
        follow=True,
    )

    entry = AuditEntry.objects.get(action="decision_answer")
    assert entry.outcome == AuditEntry.Outcome.REFUSED
    assert entry.upstream_message == decisions.TAKEN_ELSEWHERE
    assert "taken elsewhere" in response.content.decode()


def test_the_api_answers_403_400_and_409_as_it_should(viewer, operator):
    seed(answerable())
    url = f"/api/v1/units/{uuid_for(1)}/decision/"
    body = {"job": str(uuid.UUID(int=78)), "choice": APPROVE}

    assert viewer.post(url, body, HTTP_IDEMPOTENCY_KEY="k" * 20).status_code == 403
    assert operator.post(url, body).status_code == 400
    refused = operator.post(url, body, HTTP_IDEMPOTENCY_KEY="k" * 20)

    assert refused.status_code == 409
    assert refused.json()["outcome"] == "refused"
    assert "taken elsewhere" in refused.json()["message"]


def test_an_answer_sent_and_not_settled_yet_replaces_the_button(operator):
    (unit,) = seed(answerable())
    AuditEntry.objects.create(
        idempotency_key="s" * 20,
        actor_name="olga",
        action="decision_answer",
        pipeline=unit.pipeline,
        target=unit.uuid,
        parameters={"job": JOB, "choice": APPROVE, "label": "Yes, normalize"},
        outcome=AuditEntry.Outcome.SENT,
        requested_at=unit.updated_at,
    )
    mark_polled()

    page = operator.get(f"/units/{uuid_for(1)}/").content.decode()

    assert "“Yes, normalize” was sent by olga" in page
    assert "/decision/confirm/" not in page
