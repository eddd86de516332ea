"""The database is the record: flushing the cache changes no unit page or API answer."""

from __future__ import annotations

import re

import pytest
import time_machine
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from dashboard.clients.workflow import UnitKind, UnitStatusValue
from dashboard.lib.pipelines import pipeline_list
from dashboard.services import actions
from dashboard.services import units as unit_services
from tests.fakes import FakeUnit, FakeWorkflowClient, uuid_for
from tests.support.users import make_user

pytestmark = pytest.mark.django_db

CSRF_TOKEN = re.compile(r'(name="csrfmiddlewaretoken" value=|"x-csrftoken": )"[^"]+"')
PAGES = [
    "/",
    "/units/",
    f"/units/{uuid_for(1)}/",
    f"/units/{uuid_for(2)}/",
    "/waiting/",
    "/api/v1/units/",
    f"/api/v1/units/{uuid_for(2)}/",
    "/api/v1/waiting/",
    "/api/v1/health/",
]


def _answers(client: Client) -> dict[str, str]:
    answers = {}
    for url in PAGES:
        response = client.get(url)
        assert response.status_code == 200, url
        # Tokens differ on every render by design; everything else must be the same.
        answers[url] = CSRF_TOKEN.sub("", response.text)
    return answers


def test_flushing_the_cache_changes_no_unit_page_or_api_answer(monkeypatch):
    fake = FakeWorkflowClient()
    fake.add(
        FakeUnit(
            uuid_for(1),
            name="awaiting",
            awaiting_approval=True,
            status=UnitStatusValue.USER_INPUT,
            microservice="Approve standard transfer",
        )
    )
    fake.add(
        FakeUnit(
            uuid_for(2),
            kind=UnitKind.SIP,
            name="failed sip",
            status=UnitStatusValue.FAILED,
            microservice="Failed SIP",
        )
    )
    fake.add(
        FakeUnit(uuid_for(3), kind=UnitKind.SIP, name="hidden one", status=UnitStatusValue.COMPLETE)
    )
    monkeypatch.setattr(actions, "get_workflow_client", lambda config: fake)
    pipeline = pipeline_list()[0]
    operator = make_user("otto", "operator")
    with time_machine.travel(timezone.now(), tick=False):
        # A failed SIP is listed nowhere: Lookout knows it because it was tracking it.
        unit_services.unit_register(pipeline=pipeline.slug, uuid=uuid_for(2), kind="sip")
        unit_services.workflow_poll(pipeline=pipeline, client=fake)
        unit_services.workflow_poll(pipeline=pipeline, client=fake)
        unit_services.jobs_refresh(pipeline=pipeline, client=fake)
        unit = unit_services.Unit.objects.get(uuid=uuid_for(3))
        hidden = actions.unit_hide(user=operator, unit=unit, idempotency_key="h" * 32)
        assert hidden.ok, hidden.message
        client = Client()
        client.force_login(operator)

        before = _answers(client)
        cache.clear()
        after = _answers(client)

    assert after == before
    assert "hidden one" not in before["/units/"]
    assert "awaiting" in before["/waiting/"]
