"""Upstream text longer than Lookout's columns is cut to fit, never refused.

SQLite stores a string of any length in a varchar column; PostgreSQL refuses one longer
than the column, and a refused row would fail the poll that wrote it, every cycle. The
PostgreSQL pass of `make test` runs these against the real limits.
"""

from __future__ import annotations

import pytest
from django.utils import timezone

from dashboard.clients.workflow import UnitStatusValue
from dashboard.lib.pipelines import pipeline_list
from dashboard.models import StatusChange, Unit
from dashboard.services import units as unit_services
from tests.fakes import FakeUnit, FakeWorkflowClient, uuid_for

pytestmark = pytest.mark.django_db

LONG_NAME = "a-transfer-named-at-length-" * 10  # 270 characters


def limit(field: str) -> int:
    return Unit._meta.get_field(field).max_length


def test_a_long_name_and_directory_are_stored_cut_to_the_column():
    pipeline = pipeline_list()[0]
    client = FakeWorkflowClient()
    client.add(
        FakeUnit(
            uuid_for(1), name=LONG_NAME, status=UnitStatusValue.USER_INPUT, microservice="M" * 300
        )
    )

    summary = unit_services.workflow_poll(pipeline=pipeline, client=client, now=timezone.now())

    assert summary.ok, summary.line()
    unit = Unit.objects.get(uuid=uuid_for(1))
    assert unit.name == LONG_NAME[: limit("name")]
    assert unit.directory == f"{LONG_NAME}-{uuid_for(1)}"[: limit("directory")]
    assert unit.microservice == "M" * limit("microservice")
    assert StatusChange.objects.get(unit_uuid=uuid_for(1)).unit_name == unit.name


def test_long_waiting_decisions_are_stored_cut_to_the_column():
    pipeline = pipeline_list()[0]
    client = FakeWorkflowClient()
    client.add(
        FakeUnit(
            uuid_for(1),
            name=LONG_NAME,
            status=UnitStatusValue.USER_INPUT,
            microservice="Approve standard transfer " * 12,
            awaiting_approval=True,
        )
    )

    summary = unit_services.workflow_poll(pipeline=pipeline, client=client, now=timezone.now())

    assert summary.ok, summary.line()
    unit = Unit.objects.get(uuid=uuid_for(1))
    assert unit.awaiting_decision
    assert len(unit.decision) <= limit("decision")
    assert len(unit.name) <= limit("name")
