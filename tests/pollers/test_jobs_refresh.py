from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from dashboard.clients.workflow import UnitKind, UnitStatusValue
from dashboard.lib.pipelines import pipeline_list
from dashboard.selectors import units as unit_selectors
from dashboard.services import units as unit_services
from tests.fakes import FakeUnit, FakeWorkflowClient, uuid_for

pytestmark = pytest.mark.django_db


def test_it_fetches_jobs_once_per_change_of_a_unit():
    pipeline = pipeline_list()[0]
    client = FakeWorkflowClient()
    unit = client.add(
        FakeUnit(
            uuid_for(1),
            kind=UnitKind.SIP,
            status=UnitStatusValue.USER_INPUT,
            microservice="Normalize",
        )
    )
    now = timezone.now()
    unit_services.workflow_poll(pipeline=pipeline, client=client, now=now)

    unit_services.jobs_refresh(pipeline=pipeline, client=client, now=now)
    unit_services.jobs_refresh(pipeline=pipeline, client=client, now=now + timedelta(seconds=15))
    assert client.count("list_jobs") == 1

    unit.status = UnitStatusValue.PROCESSING
    unit.microservice = "Normalize for preservation"
    unit_services.workflow_poll(pipeline=pipeline, client=client, now=now + timedelta(minutes=2))
    unit_services.jobs_refresh(pipeline=pipeline, client=client, now=now + timedelta(minutes=2))

    assert client.count("list_jobs") == 2
    cached = unit_selectors.unit_jobs(unit=unit_selectors.unit_get(uuid=uuid_for(1)))
    assert cached["jobs"][0]["status"] == "PROCESSING"
    assert cached["jobs"][0]["tasks"][0]["exit_code"] == 0


def test_it_fetches_at_most_the_per_cycle_limit():
    pipeline = pipeline_list()[0]
    client = FakeWorkflowClient()
    for n in range(1, 6):
        client.add(
            FakeUnit(
                uuid_for(n),
                kind=UnitKind.SIP,
                status=UnitStatusValue.USER_INPUT,
                microservice="Normalize",
            )
        )
    unit_services.workflow_poll(pipeline=pipeline, client=client)

    summary = unit_services.jobs_refresh(pipeline=pipeline, client=client, limit=2)

    assert summary.refreshed == 2
    assert client.count("list_jobs") == 2


def test_history_first_seen_finished_gets_its_jobs_once_after_the_live_units():
    pipeline = pipeline_list()[0]
    client = FakeWorkflowClient()
    for n in (1, 2, 3):
        client.add(
            FakeUnit(
                uuid_for(n),
                kind=UnitKind.SIP,
                status=UnitStatusValue.COMPLETE,
                microservice="Remove the processing directory",
            )
        )
    client.add(
        FakeUnit(
            uuid_for(9),
            kind=UnitKind.SIP,
            status=UnitStatusValue.USER_INPUT,
            microservice="Normalize",
        )
    )
    unit_services.workflow_poll(pipeline=pipeline, client=client)
    unit_services.workflow_poll(pipeline=pipeline, client=client)

    # The live unit first; the history only fills the room left.
    unit_services.jobs_refresh(pipeline=pipeline, client=client, limit=2)
    fetched = [args[0] for name, args in client.calls if name == "list_jobs"]
    assert fetched[0] == uuid_for(9)
    assert len(fetched) == 2

    unit_services.jobs_refresh(pipeline=pipeline, client=client, limit=2)
    unit_services.jobs_refresh(pipeline=pipeline, client=client, limit=2)
    fetched = [args[0] for name, args in client.calls if name == "list_jobs"]
    assert sorted(fetched) == sorted([uuid_for(n) for n in (1, 2, 3, 9)])


def test_a_unit_seen_finishing_gets_its_final_jobs_once():
    pipeline = pipeline_list()[0]
    client = FakeWorkflowClient()
    unit = client.add(
        FakeUnit(
            uuid_for(1),
            kind=UnitKind.SIP,
            status=UnitStatusValue.USER_INPUT,
            microservice="Store AIP",
        )
    )
    now = timezone.now()
    unit_services.workflow_poll(pipeline=pipeline, client=client, now=now)
    unit_services.jobs_refresh(pipeline=pipeline, client=client, now=now)
    unit.status = UnitStatusValue.COMPLETE
    unit.microservice = "Remove the processing directory"
    unit_services.workflow_poll(pipeline=pipeline, client=client, now=now + timedelta(minutes=2))

    unit_services.jobs_refresh(pipeline=pipeline, client=client, now=now + timedelta(minutes=2))
    unit_services.jobs_refresh(pipeline=pipeline, client=client, now=now + timedelta(minutes=3))

    assert client.count("list_jobs") == 2
