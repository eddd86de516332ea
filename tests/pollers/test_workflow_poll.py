from __future__ import annotations

import logging
import time
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from dashboard.clients.workflow import UnitKind, UnitStatusValue, WorkflowUnavailable
from dashboard.lib.pipelines import pipeline_list
from dashboard.models import StatusChange, Unit
from dashboard.selectors import freshness
from dashboard.selectors import units as unit_selectors
from dashboard.services import units as unit_services
from dashboard.services.poll_schedule import is_due
from tests.fakes import FakeUnit, FakeWorkflowClient, fake_units, uuid_for
from tests.support.records import save_units, units_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def pipeline():
    return pipeline_list()[0]


@pytest.fixture
def client() -> FakeWorkflowClient:
    return FakeWorkflowClient()


def poll(pipeline, client, now=None):
    return unit_services.workflow_poll(pipeline=pipeline, client=client, now=now or timezone.now())


def test_it_discovers_units_from_the_unapproved_waiting_and_completed_lists(pipeline, client):
    client.add(
        FakeUnit(
            uuid_for(1),
            name="awaiting-approval",
            status=UnitStatusValue.USER_INPUT,
            microservice="Approve standard transfer",
            awaiting_approval=True,
        )
    )
    client.add(
        FakeUnit(
            uuid_for(2),
            kind=UnitKind.SIP,
            name="normalising",
            status=UnitStatusValue.USER_INPUT,
            microservice="Normalize",
        )
    )
    client.add(
        FakeUnit(uuid_for(3), name="done", status=UnitStatusValue.COMPLETE, sent_to_backlog=True)
    )

    summary = poll(pipeline, client)

    assert summary.ok
    assert summary.discovered == 3
    units = units_of(pipeline.slug)
    assert units[uuid_for(1)].awaiting_approval
    assert units[uuid_for(1)].kind == "transfer"
    assert units[uuid_for(2)].kind == "sip"
    assert units[uuid_for(2)].decision == "Normalize"
    assert units[uuid_for(3)].status == "COMPLETE"


def test_it_writes_one_history_row_per_real_change_and_none_for_a_repeated_poll(pipeline, client):
    unit = client.add(
        FakeUnit(
            uuid_for(1),
            status=UnitStatusValue.USER_INPUT,
            microservice="Approve standard transfer",
            awaiting_approval=True,
        )
    )
    now = timezone.now()
    poll(pipeline, client, now)
    poll(pipeline, client, now + timedelta(minutes=2))
    assert StatusChange.objects.count() == 1

    unit.awaiting_approval = False
    unit.status = UnitStatusValue.PROCESSING
    unit.microservice = "Verify transfer compliance"
    poll(pipeline, client, now + timedelta(minutes=3))
    poll(pipeline, client, now + timedelta(minutes=4))

    rows = list(
        StatusChange.objects.order_by("at").values_list("from_status", "to_status", "microservice")
    )
    assert rows == [
        ("", "USER_INPUT", "Approve standard transfer"),
        ("USER_INPUT", "PROCESSING", "Verify transfer compliance"),
    ]


def test_a_finished_unit_is_never_polled_again(pipeline, client):
    unit = client.add(
        FakeUnit(
            uuid_for(1),
            kind=UnitKind.SIP,
            status=UnitStatusValue.USER_INPUT,
            microservice="Store AIP",
        )
    )
    now = timezone.now()
    poll(pipeline, client, now)
    unit.status = UnitStatusValue.FAILED
    unit.microservice = "Email fail report"
    poll(pipeline, client, now + timedelta(minutes=2))
    calls_before = client.count("get_ingest_status")

    for minute in range(3, 30, 5):
        poll(pipeline, client, now + timedelta(minutes=minute))

    assert client.count("get_ingest_status") == calls_before
    assert units_of(pipeline.slug)[uuid_for(1)].status == "FAILED"


def test_a_unit_waiting_for_a_decision_is_polled_less_often_than_a_moving_one(pipeline, client):
    client.add(
        FakeUnit(
            uuid_for(1),
            kind=UnitKind.SIP,
            status=UnitStatusValue.USER_INPUT,
            microservice="Normalize",
        )
    )
    moving = FakeUnit(uuid_for(2), kind=UnitKind.SIP, microservice="Verify SIP compliance")
    client.add(moving)
    unit_services.unit_register(pipeline=pipeline.slug, uuid=moving.uuid, kind="sip")
    now = timezone.now()
    poll(pipeline, client, now)
    client.calls.clear()

    poll(pipeline, client, now + timedelta(seconds=10))

    polled = {args[0] for name, args in client.calls if name == "get_ingest_status"}
    assert polled == {uuid_for(2)}


def test_a_waiting_unit_whose_status_was_never_read_is_asked_again_next_cycle(pipeline, client):
    # Found in the soak: a first status read lost to a fault left a transfer awaiting
    # approval "unknown" for the waiting interval (60 s), far beyond two poll intervals.
    waiting = client.add(
        FakeUnit(uuid_for(1), status=UnitStatusValue.USER_INPUT, awaiting_approval=True)
    )
    waiting.malformed = True
    now = timezone.now()
    poll(pipeline, client, now)
    assert units_of(pipeline.slug)[uuid_for(1)].status == "UNKNOWN"
    waiting.malformed = False

    poll(pipeline, client, now + timedelta(seconds=10))

    assert units_of(pipeline.slug)[uuid_for(1)].status == "USER_INPUT"


def test_a_unit_that_left_a_long_wait_is_read_again_next_cycle_when_its_read_failed(
    pipeline, client
):
    # Found in the soak: a unit waiting for hours left its decision; the read that would
    # have shown it moving on was lost to a fault, and the next read came only after the
    # dormant interval (5 min), long past two poll intervals.
    unit = client.add(
        FakeUnit(
            uuid_for(1),
            kind=UnitKind.SIP,
            status=UnitStatusValue.USER_INPUT,
            microservice="Normalize",
        )
    )
    unit_services.unit_register(pipeline=pipeline.slug, uuid=unit.uuid, kind="sip")
    now = timezone.now()
    poll(pipeline, client, now - timedelta(hours=3))
    unit.status = UnitStatusValue.PROCESSING
    unit.malformed = True
    poll(pipeline, client, now)
    unit.malformed = False

    poll(pipeline, client, now + timedelta(seconds=10))

    assert units_of(pipeline.slug)[uuid_for(1)].status == "PROCESSING"


def test_a_moving_unit_whose_read_failed_is_read_again_next_cycle(pipeline, client):
    unit = client.add(FakeUnit(uuid_for(1), kind=UnitKind.SIP, microservice="Normalize"))
    unit_services.unit_register(pipeline=pipeline.slug, uuid=unit.uuid, kind="sip")
    now = timezone.now()
    poll(pipeline, client, now - timedelta(hours=3))
    unit.microservice = "Store AIP"
    unit.malformed = True
    poll(pipeline, client, now)
    unit.malformed = False

    poll(pipeline, client, now + timedelta(seconds=10))

    assert units_of(pipeline.slug)[uuid_for(1)].microservice == "Store AIP"


def test_one_malformed_unit_is_logged_and_skipped_and_the_rest_are_refreshed(
    pipeline, client, caplog
):
    for unit in fake_units(
        3, kind=UnitKind.SIP, status=UnitStatusValue.USER_INPUT, microservice="Normalize"
    ):
        client.add(unit)
    client.units[uuid_for(2)].malformed = True

    with caplog.at_level(logging.WARNING, logger="dashboard.services.units"):
        summary = poll(pipeline, client)

    assert summary.ok
    assert summary.failed_units == 1
    units = units_of(pipeline.slug)
    assert units[uuid_for(1)].status == "USER_INPUT"
    assert units[uuid_for(3)].status == "USER_INPUT"
    assert units[uuid_for(2)].poll_error
    assert any(uuid_for(2) in record.getMessage() for record in caplog.records)


def test_it_keeps_the_last_state_and_marks_the_service_stale_when_upstream_is_down(
    pipeline, client
):
    client.add(
        FakeUnit(
            uuid_for(1),
            status=UnitStatusValue.USER_INPUT,
            microservice="Approve standard transfer",
            awaiting_approval=True,
        )
    )
    now = timezone.now()
    poll(pipeline, client, now)
    client.down = True

    summary = poll(pipeline, client, now + timedelta(minutes=5))

    assert not summary.ok
    assert units_of(pipeline.slug)[uuid_for(1)].status == "USER_INPUT"
    health = {h.service: h for h in freshness.service_health_list(now=now + timedelta(minutes=5))}
    workflow = health[f"workflow:{pipeline.slug}"]
    assert workflow.stale
    assert "connection refused" in workflow.last_error
    assert workflow.last_success_at == now


def test_it_recovers_once_the_service_answers_again(pipeline, client):
    client.add(FakeUnit(uuid_for(1)))
    unit_services.unit_register(pipeline=pipeline.slug, uuid=uuid_for(1), kind="transfer")
    now = timezone.now()
    client.down = True
    poll(pipeline, client, now)
    client.down = False

    summary = poll(pipeline, client, now + timedelta(seconds=10))

    assert summary.ok
    health = {h.service: h for h in freshness.service_health_list(now=now + timedelta(seconds=11))}
    assert not health[f"workflow:{pipeline.slug}"].stale
    assert units_of(pipeline.slug)[uuid_for(1)].status == "PROCESSING"


def test_a_completed_transfer_leads_the_poller_to_its_sip(pipeline, client):
    transfer = client.add(
        FakeUnit(uuid_for(1), status=UnitStatusValue.USER_INPUT, microservice="Create SIP(s)")
    )
    client.add(FakeUnit(uuid_for(2), kind=UnitKind.SIP, microservice="Verify SIP compliance"))
    now = timezone.now()
    poll(pipeline, client, now)
    transfer.status = UnitStatusValue.COMPLETE
    transfer.sip_uuid = uuid_for(2)

    summary = poll(pipeline, client, now + timedelta(seconds=10))

    # In the same cycle that saw the transfer complete, not one cycle later.
    sip = units_of(pipeline.slug)[uuid_for(2)]
    assert sip.kind == "sip"
    assert sip.transfer_uuid == uuid_for(1)
    assert sip.status == "PROCESSING"
    assert client.count("get_ingest_status") == 1
    assert summary.discovered == 1


def test_a_transfer_naming_a_sip_already_in_history_does_not_add_it_again(pipeline, client):
    # A full reingest: the transfer names the AIP's SIP, finished long ago and no longer
    # listed upstream, so only the database knows it.
    now = timezone.now()
    Unit.objects.create(
        pipeline=pipeline.slug,
        uuid=uuid_for(2),
        kind="sip",
        status="COMPLETE",
        first_seen_at=now - timedelta(days=30),
        updated_at=now - timedelta(days=30),
    )
    transfer = client.add(FakeUnit(uuid_for(1), microservice="Create SIP(s)"))
    unit_services.unit_register(pipeline=pipeline.slug, uuid=uuid_for(1), kind="transfer")
    poll(pipeline, client, now)
    transfer.status = UnitStatusValue.COMPLETE
    transfer.sip_uuid = uuid_for(2)

    summary = poll(pipeline, client, now + timedelta(seconds=10))

    assert summary.discovered == 0
    assert client.count("get_ingest_status") == 0
    assert Unit.objects.filter(uuid=uuid_for(2)).count() == 1
    assert units_of(pipeline.slug)[uuid_for(1)].finished


def test_a_finished_unit_a_waiting_list_names_again_is_shown_waiting(pipeline, client):
    # A partial reingest: the SIP keeps its UUID and waits at a decision again.
    now = timezone.now()
    Unit.objects.create(
        pipeline=pipeline.slug,
        uuid=uuid_for(1),
        kind="sip",
        status="COMPLETE",
        first_seen_at=now - timedelta(days=30),
        updated_at=now - timedelta(days=30),
    )
    client.add(
        FakeUnit(
            uuid_for(1),
            kind=UnitKind.SIP,
            status=UnitStatusValue.USER_INPUT,
            microservice="Approve normalization",
        )
    )

    poll(pipeline, client, now)

    unit = units_of(pipeline.slug)[uuid_for(1)]
    assert unit.awaiting_decision
    assert unit.decision == "Approve normalization"
    assert unit.waiting_since == now


def test_a_complete_transfer_without_its_sip_uuid_yet_is_polled_until_it_appears(pipeline, client):
    transfer = client.add(FakeUnit(uuid_for(1), status=UnitStatusValue.COMPLETE))
    unit_services.unit_register(pipeline=pipeline.slug, uuid=transfer.uuid, kind="transfer")
    now = timezone.now()
    poll(pipeline, client, now)
    assert units_of(pipeline.slug)[uuid_for(1)].awaiting_sip_uuid

    client.add(FakeUnit(uuid_for(2), kind=UnitKind.SIP))
    transfer.sip_uuid = uuid_for(2)
    poll(pipeline, client, now + timedelta(seconds=10))

    units = units_of(pipeline.slug)
    assert not units[uuid_for(1)].awaiting_sip_uuid
    assert units[uuid_for(1)].finished
    assert uuid_for(2) in units


def test_a_unit_whose_status_cannot_be_determined_yet_shows_as_pending(pipeline, client):
    client.add(FakeUnit(uuid_for(1), pending=True))
    unit_services.unit_register(pipeline=pipeline.slug, uuid=uuid_for(1), kind="transfer")

    poll(pipeline, client)

    assert units_of(pipeline.slug)[uuid_for(1)].status == "PENDING"


def test_units_already_finished_when_first_seen_get_details_within_the_backfill_budget(
    pipeline, client, settings
):
    settings.LOOKOUT_BACKFILL_PER_CYCLE = 2
    for unit in fake_units(
        5,
        kind=UnitKind.SIP,
        status=UnitStatusValue.COMPLETE,
        microservice="Remove the processing directory",
    ):
        client.add(unit)

    first = poll(pipeline, client)
    poll(pipeline, client)
    poll(pipeline, client)

    assert first.refreshed == 2
    assert client.count("get_ingest_status") == 5
    assert StatusChange.objects.count() == 0
    assert all(u.name.startswith("unit-") for u in units_of(pipeline.slug).values())


def test_a_unit_the_service_no_longer_knows_is_dropped_after_repeated_not_found(pipeline, client):
    unit_services.unit_register(pipeline=pipeline.slug, uuid=uuid_for(9), kind="transfer")
    now = timezone.now()
    poll(pipeline, client, now)
    poll(pipeline, client, now + timedelta(seconds=10))
    assert uuid_for(9) in units_of(pipeline.slug)

    poll(pipeline, client, now + timedelta(seconds=20))

    assert uuid_for(9) not in units_of(pipeline.slug)


def test_a_hidden_unit_is_neither_listed_nor_polled(pipeline, client):
    client.add(
        FakeUnit(
            uuid_for(1),
            kind=UnitKind.SIP,
            status=UnitStatusValue.USER_INPUT,
            microservice="Normalize",
        )
    )
    now = timezone.now()
    poll(pipeline, client, now)
    Unit.objects.filter(pipeline=pipeline.slug, uuid=uuid_for(1)).update(hidden=True)
    client.calls.clear()

    poll(pipeline, client, now + timedelta(minutes=5))

    assert client.count("get_ingest_status") == 0
    assert list(unit_selectors.unit_list()) == []


def test_an_emptied_cache_does_not_duplicate_history(pipeline, client):
    client.add(
        FakeUnit(
            uuid_for(1),
            status=UnitStatusValue.USER_INPUT,
            microservice="Approve standard transfer",
            awaiting_approval=True,
        )
    )
    poll(pipeline, client)
    save_units(pipeline.slug, {})

    poll(pipeline, client)

    assert StatusChange.objects.count() == 1


def test_several_pipelines_are_kept_apart_in_cache_history_and_lists(settings):
    settings.LOOKOUT_PIPELINES = [
        {"slug": "east", "name": "East", "url": "http://east.invalid", "user": "u", "key": "k"},
        {"slug": "west", "name": "West", "url": "http://west.invalid", "user": "u", "key": "k"},
    ]
    east, west = pipeline_list()
    east_client, west_client = FakeWorkflowClient(), FakeWorkflowClient()
    east_client.add(
        FakeUnit(
            uuid_for(1),
            name="from-east",
            status=UnitStatusValue.USER_INPUT,
            microservice="Approve standard transfer",
            awaiting_approval=True,
        )
    )
    west_client.add(
        FakeUnit(
            uuid_for(2),
            name="from-west",
            status=UnitStatusValue.USER_INPUT,
            microservice="Approve standard transfer",
            awaiting_approval=True,
        )
    )

    poll(east, east_client)
    poll(west, west_client)

    assert set(units_of("east")) == {uuid_for(1)}
    assert set(units_of("west")) == {uuid_for(2)}
    assert {u.pipeline for u in unit_selectors.unit_list()} == {"east", "west"}
    assert [u.name for u in unit_selectors.unit_list(pipeline="west")] == ["from-west"]
    assert set(StatusChange.objects.values_list("pipeline", flat=True)) == {"east", "west"}
    health = {h.service for h in freshness.service_health_list()}
    assert {"workflow:east", "workflow:west", "storage"} == health


def test_a_transfer_sent_to_backlog_says_so_in_the_api(pipeline, client, admin_client):
    client.add(FakeUnit(uuid_for(1), status=UnitStatusValue.COMPLETE, sent_to_backlog=True))
    unit_services.unit_register(pipeline=pipeline.slug, uuid=uuid_for(1), kind="transfer")

    poll(pipeline, client)

    (item,) = admin_client.get("/api/v1/units/").json()["results"]
    assert item["sent_to_backlog"] is True


def test_registering_a_unit_twice_keeps_its_first_record_and_polls_it_next_cycle():
    unit_services.unit_register(pipeline="p1", uuid=uuid_for(1), kind="transfer", name="first")
    first = Unit.objects.get()
    assert (first.kind, first.name) == ("transfer", "first")
    assert is_due(first, now=timezone.now())
    Unit.objects.update(next_poll_at=first.first_seen_at + timedelta(hours=1))

    unit_services.unit_register(pipeline="p1", uuid=uuid_for(1), kind="sip", name="second")

    again = Unit.objects.get()
    assert (again.pk, again.kind, again.name) == (first.pk, "transfer", "first")
    assert again.first_seen_at == first.first_seen_at
    assert is_due(again, now=timezone.now())


def _forty_slow_units(pipeline, client, monkeypatch, *, seconds: float) -> None:
    """Forty registered transfers whose status takes `seconds` to come back."""
    for n in range(1, 41):
        client.add(FakeUnit(uuid_for(n)))
        unit_services.unit_register(pipeline=pipeline.slug, uuid=uuid_for(n), kind="transfer")
    status = client.get_transfer_status

    def slow_status(uuid):
        time.sleep(seconds)
        return status(uuid)

    monkeypatch.setattr(client, "get_transfer_status", slow_status)


def test_a_discovery_that_fails_costs_at_most_one_round_of_status_reads(
    pipeline, client, settings, monkeypatch
):
    settings.LOOKOUT_POLL_CONCURRENCY = 4
    # Still in flight when the lists' failure comes back.
    _forty_slow_units(pipeline, client, monkeypatch, seconds=0.5)

    def lists_down():
        raise WorkflowUnavailable("connection refused", service="workflow")

    monkeypatch.setattr(client, "list_unapproved_transfers", lists_down)

    summary = poll(pipeline, client)

    assert not summary.ok
    assert client.count("get_transfer_status") <= 4


def test_an_error_of_lookouts_own_mid_cycle_costs_at_most_one_round_of_status_reads(
    pipeline, client, settings, monkeypatch
):
    settings.LOOKOUT_POLL_CONCURRENCY = 4
    _forty_slow_units(pipeline, client, monkeypatch, seconds=0.2)

    def broken(*args):
        raise RuntimeError("database gone")

    monkeypatch.setattr(unit_services, "_apply_discovery", broken)

    with pytest.raises(RuntimeError, match="database gone"):
        poll(pipeline, client)
    assert client.count("get_transfer_status") <= 4


class _SlowerWorkflowClient(FakeWorkflowClient):
    """Answers come in one after the other, as over a network."""

    def _status(self, uuid, kind):
        time.sleep(0.002)
        return super()._status(uuid, kind)


def _scenario(pipeline, now) -> tuple[list[dict], list[tuple]]:
    """Three cycles in which units move, finish, fail, vanish and lead to a SIP; what
    they leave in the database."""
    from django.forms.models import model_to_dict

    client = _SlowerWorkflowClient()
    with time_machine.travel(now, tick=False):
        for unit in fake_units(40):
            client.add(unit)
            unit_services.unit_register(pipeline=pipeline.slug, uuid=unit.uuid, kind="transfer")
    client.add(
        FakeUnit(uuid_for(41), status=UnitStatusValue.USER_INPUT, microservice="Create SIP(s)")
    )
    client.add(FakeUnit(uuid_for(42), kind=UnitKind.SIP, microservice="Verify SIP compliance"))
    poll(pipeline, client, now)
    for number in range(3, 11):
        client.units[uuid_for(number)].status = UnitStatusValue.COMPLETE
    for number in range(11, 15):
        client.units[uuid_for(number)].status = UnitStatusValue.FAILED
    for number in range(15, 20):
        client.units[uuid_for(number)].microservice = "Normalize"
    client.units[uuid_for(20)].malformed = True
    del client.units[uuid_for(21)]
    client.units[uuid_for(41)].status = UnitStatusValue.COMPLETE
    client.units[uuid_for(41)].sip_uuid = uuid_for(42)
    for step in (1, 2):
        poll(pipeline, client, now + timedelta(minutes=10 * step))
    units = [
        model_to_dict(unit, exclude=["id"])
        for unit in Unit.objects.filter(pipeline=pipeline.slug).order_by("uuid")
    ]
    changes = list(
        StatusChange.objects.order_by("unit_uuid", "at", "to_status").values_list(
            "unit_uuid", "from_status", "to_status", "microservice", "at"
        )
    )
    return units, changes


def test_answers_stored_batch_by_batch_leave_what_one_write_would(pipeline, monkeypatch, settings):
    settings.LOOKOUT_POLL_CONCURRENCY = 2
    stores: list[int] = []
    store = unit_services._store
    monkeypatch.setattr(
        unit_services, "_store", lambda *args: stores.append(len(args[1])) or store(*args)
    )
    monkeypatch.setattr(unit_services, "_STORE_BATCH", 10_000)
    now = timezone.now()
    in_one = _scenario(pipeline, now)
    writes_in_one = len(stores)
    Unit.objects.all().delete()
    StatusChange.objects.all().delete()
    stores.clear()
    monkeypatch.setattr(unit_services, "_STORE_BATCH", 3)

    in_batches = _scenario(pipeline, now)

    assert in_batches == in_one
    # And what they left is what the scenario did.
    units = {unit["uuid"]: unit for unit in in_batches[0]}
    moves = {(str(uuid), to) for uuid, _, to, _, _ in in_batches[1]}
    assert {(uuid_for(n), "COMPLETE") for n in range(3, 11)} <= moves
    assert {(uuid_for(n), "FAILED") for n in range(11, 15)} <= moves
    assert all(units[uuid_for(n)]["microservice"] == "Normalize" for n in range(15, 20))
    assert units[uuid_for(20)]["poll_error"]
    assert units[uuid_for(21)]["missing_count"] == 2
    assert units[uuid_for(42)]["transfer_uuid"] == uuid_for(41)
    assert len(stores) > writes_in_one  # and was written in more batches
