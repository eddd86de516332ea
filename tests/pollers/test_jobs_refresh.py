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


def _busy_pipeline(client: FakeWorkflowClient, moving: int) -> list[FakeUnit]:
    return [
        client.add(FakeUnit(uuid_for(100 + n), kind=UnitKind.SIP, microservice="Normalize"))
        for n in range(moving)
    ]


def _move_on(units: list[FakeUnit], step: int) -> None:
    for unit in units:
        unit.microservice = f"Normalize, step {step}"


def test_a_unit_seen_finishing_gets_its_final_jobs_while_moving_units_fill_every_cycle():
    # Found by the analytics bench: with more moving units than the per-cycle limit, a
    # unit seen finishing waited behind them for ever, and was never counted.
    pipeline = pipeline_list()[0]
    client = FakeWorkflowClient()
    moving = _busy_pipeline(client, 6)
    finishing = client.add(FakeUnit(uuid_for(1), kind=UnitKind.SIP, microservice="Store AIP"))
    for unit in [*moving, finishing]:
        unit_services.unit_register(pipeline=pipeline.slug, uuid=unit.uuid, kind="sip")
    now = timezone.now()
    unit_services.workflow_poll(pipeline=pipeline, client=client, now=now)
    finishing.status = UnitStatusValue.COMPLETE
    finishing.microservice = "Remove the processing directory"

    for step in range(1, 4):
        moment = now + timedelta(minutes=step)
        _move_on(moving, step)
        unit_services.workflow_poll(pipeline=pipeline, client=client, now=moment)
        unit_services.jobs_refresh(pipeline=pipeline, client=client, now=moment, limit=3)

    fetched = [args[0] for name, args in client.calls if name == "list_jobs"]
    assert uuid_for(1) in fetched


def test_every_moving_unit_gets_its_jobs_in_turn_when_they_outnumber_the_limit():
    pipeline = pipeline_list()[0]
    client = FakeWorkflowClient()
    moving = _busy_pipeline(client, 6)
    for unit in moving:
        unit_services.unit_register(pipeline=pipeline.slug, uuid=unit.uuid, kind="sip")
    now = timezone.now()

    for step in range(1, 3):
        moment = now + timedelta(minutes=step)
        _move_on(moving, step)
        unit_services.workflow_poll(pipeline=pipeline, client=client, now=moment)
        unit_services.jobs_refresh(pipeline=pipeline, client=client, now=moment, limit=3)

    fetched = [args[0] for name, args in client.calls if name == "list_jobs"]
    assert sorted(fetched) == sorted(unit.uuid for unit in moving)


def test_history_is_learned_a_little_each_cycle_even_when_live_units_fill_the_limit():
    pipeline = pipeline_list()[0]
    client = FakeWorkflowClient()
    client.add(
        FakeUnit(
            uuid_for(1),
            kind=UnitKind.SIP,
            status=UnitStatusValue.COMPLETE,
            microservice="Remove the processing directory",
        )
    )
    moving = _busy_pipeline(client, 6)
    for unit in moving:
        unit_services.unit_register(pipeline=pipeline.slug, uuid=unit.uuid, kind="sip")
    now = timezone.now()
    unit_services.workflow_poll(pipeline=pipeline, client=client, now=now)
    _move_on(moving, 1)
    unit_services.workflow_poll(pipeline=pipeline, client=client, now=now + timedelta(minutes=1))

    unit_services.jobs_refresh(
        pipeline=pipeline, client=client, now=now + timedelta(minutes=1), limit=3
    )

    fetched = [args[0] for name, args in client.calls if name == "list_jobs"]
    assert uuid_for(1) in fetched
    assert len(fetched) == 3
