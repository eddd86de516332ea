"""The confirmation every action page shares: asked for again when damaged or reused."""

from __future__ import annotations

import re

import pytest

from dashboard.services import actions, bulk_hide
from tests.fakes import FakeUnit, FakeWorkflowClient, UnitKind
from tests.views.seed import seed, unit, uuid_for

pytestmark = pytest.mark.django_db
HIDE_FIRST = f"/units/{uuid_for(1)}/hide/"
HIDE_SECOND = f"/units/{uuid_for(2)}/hide/"
REINGEST = f"/units/{uuid_for(3)}/reingest/"
BULK_HIDE = "/units/hide/"
TOKEN = "c" * 32
DAMAGED = "The confirmation was missing or damaged; please confirm again."
REUSED = "That confirmation belongs to another action; please confirm again."


@pytest.fixture
def fake(monkeypatch) -> FakeWorkflowClient:
    client = FakeWorkflowClient()
    client.add(FakeUnit(uuid_for(1)))
    client.add(FakeUnit(uuid_for(2)))
    client.add(FakeUnit(uuid_for(3), kind=UnitKind.SIP, name="Minutes"))
    monkeypatch.setattr(actions, "get_workflow_client", lambda config: client)
    monkeypatch.setattr(bulk_hide, "get_workflow_client", lambda config: client)
    seed(
        unit(1, name="first", status="COMPLETE"),
        unit(2, name="second", status="COMPLETE"),
        unit(3, kind="sip", name="Minutes", status="COMPLETE"),
    )
    return client


def _key_on(page: str) -> str:
    return re.search(r'name="idempotency_key" value="([^"]+)"', page).group(1)


def test_a_damaged_confirmation_is_asked_for_again_keeping_what_was_typed(operator, fake):
    response = operator.post(REINGEST, {"idempotency_key": "short", "name": "typed-name"})

    text = response.content.decode()
    assert response.status_code == 400
    assert DAMAGED in text
    assert 'value="typed-name"' in text
    assert len(_key_on(text)) >= 16  # a fresh, well-formed key
    assert fake.calls == []


def test_a_typing_mistake_is_named_by_its_field_not_as_a_damaged_confirmation(operator, fake):
    response = operator.post(REINGEST, {"idempotency_key": TOKEN, "name": "../etc"})

    text = response.content.decode()
    assert response.status_code == 400
    assert "AIP name: A directory name, without any slash." in text
    assert DAMAGED not in text
    assert fake.calls == []


def test_a_confirmation_used_for_another_unit_is_asked_for_again_with_a_fresh_key(operator, fake):
    operator.post(HIDE_FIRST, {"idempotency_key": TOKEN})

    response = operator.post(HIDE_SECOND, {"idempotency_key": TOKEN, "next": "/units/"})

    text = response.content.decode()
    assert response.status_code == 400
    assert REUSED in text
    assert "Hide unit" in text and uuid_for(2) in text
    assert _key_on(text) != TOKEN
    assert 'name="next" value="/units/"' in text  # where to go after still holds
    assert fake.count("hide_transfer") == 1


def test_a_bulk_hide_confirmation_used_for_other_units_is_asked_for_again(operator, fake):
    operator.post(BULK_HIDE, {"idempotency_key": TOKEN, "units": [uuid_for(1)]})

    response = operator.post(BULK_HIDE, {"idempotency_key": TOKEN, "units": [uuid_for(2)]})

    text = response.content.decode()
    assert response.status_code == 400
    assert REUSED in text
    assert "second" in text
    assert _key_on(text) != TOKEN


def test_a_post_without_the_role_is_refused_in_the_actions_own_words(viewer, fake):
    response = viewer.post(HIDE_FIRST, {"idempotency_key": TOKEN})

    assert response.status_code == 403
    assert "Hiding units needs the operator or admin role." in response.content.decode()
    assert fake.calls == []
