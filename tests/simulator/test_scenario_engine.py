"""The scenario engine, in process: units move through simulated time."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from simulator.config import SimulatorConfig
from simulator.scenario import Outcome
from simulator.server import Simulation
from simulator.unit_jobs import job_records
from simulator.units import SIP, TRANSFER, NoJobsYet, Unit

START = datetime(2024, 6, 3, 9, 0, 0)
DAY = 86400


def make_sim(**options: Any) -> Simulation:
    # speed 0 freezes the clock: only clock.advance() moves time.
    settings = {"units": 0, "packages": 5, "speed": 0.0, "start": START, **options}
    return Simulation(SimulatorConfig(**settings))


def advance(sim: Simulation, seconds: float) -> datetime:
    sim.clock.advance(seconds)
    return sim.sync()


def status(sim: Simulation, unit: Unit) -> dict[str, Any]:
    return unit.status(sim.workflow.seconds(sim.clock.now()))


def job_names(sim: Simulation, unit: Unit) -> list[str]:
    return [job["name"] for job in job_records(sim.workflow, unit, sim.clock.now())]


def start_transfer(sim: Simulation, name: str = "New accession") -> Unit:
    return sim.workflow.start_transfer(
        name=name, transfer_type="standard", sources=[], now=sim.clock.now()
    )


def seeded(sim: Simulation, outcome: Outcome, kind: str = TRANSFER) -> Unit:
    return next(
        unit
        for unit in sim.workflow.units.values()
        if unit.kind == kind and unit.route.outcome is outcome
    )


def record_storage_calls(sim: Simulation, monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    calls: list[tuple] = []
    for method in ("store_aip", "store_dip", "store_backlog_transfer"):
        original = getattr(sim.storage, method)

        def recorder(*, _name: str = method, _original: Any = original, **kwargs: Any) -> None:
            calls.append((_name, kwargs))
            _original(**kwargs)

        monkeypatch.setattr(sim.storage, method, recorder)
    return calls


def test_a_started_transfer_waits_for_approval_however_long_it_takes() -> None:
    sim = make_sim()
    unit = start_transfer(sim)

    advance(sim, 3 * DAY)

    assert status(sim, unit)["status"] == "USER_INPUT"
    assert status(sim, unit)["microservice"] == "Approve standard transfer"
    assert job_names(sim, unit) == ["Approve standard transfer"]


def test_approval_moves_a_transfer_on_job_by_job() -> None:
    sim = make_sim()
    unit = start_transfer(sim)
    approved = sim.workflow.approve(directory=unit.name, transfer_type="standard", now=sim.sync())

    advance(sim, 10)
    early = len(job_names(sim, unit))
    advance(sim, 60)
    later = len(job_names(sim, unit))

    assert approved is unit
    assert 1 < early < later
    assert job_names(sim, unit)[1] == "Move to processing directory"


def test_approving_needs_the_matching_directory_and_type() -> None:
    sim = make_sim()
    unit = start_transfer(sim)
    now = sim.sync()

    assert sim.workflow.approve(directory="other", transfer_type="standard", now=now) is None
    assert sim.workflow.approve(directory=unit.name, transfer_type="zipfile", now=now) is None
    assert status(sim, unit)["status"] == "USER_INPUT"


def test_a_colliding_transfer_name_gets_an_underscore_suffix() -> None:
    sim = make_sim()
    first = start_transfer(sim, "Papers")
    second = start_transfer(sim, "Papers")

    assert (first.name, second.name) == ("Papers", "Papers_1")


def test_a_decision_keeps_the_unit_waiting_until_the_archivist_answers() -> None:
    sim = make_sim(units=40)
    parked = next(
        unit
        for unit in sim.workflow.units.values()
        if unit.plan.parked is not None and status(sim, unit)["status"] == "USER_INPUT"
    )
    job = parked.route.steps[parked.plan.parked].job

    advance(sim, 3600)
    still = status(sim, parked)
    advance(sim, 2 * DAY)

    assert (still["status"], still["microservice"]) == ("USER_INPUT", job)
    assert status(sim, parked)["status"] != "USER_INPUT"


def test_a_transfer_that_becomes_a_sip_is_complete_without_sip_uuid_for_a_while() -> None:
    sim = make_sim()
    unit = start_transfer(sim)
    while unit.route.outcome is not Outcome.SIP:
        unit = start_transfer(sim, f"retry {unit.number}")
    sim.workflow.approve(directory=unit.name, transfer_type="standard", now=sim.sync())
    created = unit.step_end(unit.route.index_of("Create SIP from transfer objects"))

    advance(sim, created - sim.workflow.seconds(sim.clock.now()) + 0.5)
    first = status(sim, unit)
    advance(sim, 31)
    later = status(sim, unit)

    assert first["status"] == "COMPLETE" and "sip_uuid" not in first
    assert later["status"] == "COMPLETE" and later["sip_uuid"] == unit.sip_uuid
    assert sim.workflow.get(unit.sip_uuid, SIP).name == unit.name


def test_a_package_has_no_status_until_its_first_job_exists() -> None:
    sim = make_sim()
    unit = sim.workflow.create_package(
        name="Queued", transfer_type="standard", sources=[], auto_approve=True, now=sim.sync()
    )

    with pytest.raises(NoJobsYet):
        status(sim, unit)
    advance(sim, 60)

    assert status(sim, unit)["status"] in {"PROCESSING", "USER_INPUT"}
    # Started with automatic approval: it begins after the approval link.
    assert job_names(sim, unit)[0] == "Move to processing directory"


def test_statuses_follow_the_newest_job() -> None:
    sim = make_sim(units=40)

    failed = status(sim, seeded(sim, Outcome.FAILED))
    rejected = status(sim, seeded(sim, Outcome.REJECTED))
    backlog = status(sim, seeded(sim, Outcome.BACKLOG))
    stored = status(sim, seeded(sim, Outcome.STORED, SIP))

    assert (failed["status"], failed["microservice"]) == ("FAILED", "Move to the failed directory")
    assert (rejected["status"], rejected["microservice"]) == (
        "REJECTED",
        "Move to the rejected directory",
    )
    assert (backlog["status"], backlog["sip_uuid"]) == ("COMPLETE", "BACKLOG")
    assert (stored["status"], stored["microservice"]) == (
        "COMPLETE",
        "Remove the processing directory",
    )


def test_a_failing_unit_has_a_failed_job_with_a_non_zero_exit_code() -> None:
    sim = make_sim(units=40)
    unit = seeded(sim, Outcome.FAILED)

    jobs = job_records(sim.workflow, unit, sim.clock.now())
    failed = [job for job in jobs if job["status"] == "FAILED"]

    assert len(failed) == 1
    assert failed[0]["tasks"][-1]["exit_code"] != 0
    assert jobs[-1]["microservice"] == "Failed transfer"


def test_paths_move_from_the_active_directory_to_processing_with_the_uuid() -> None:
    sim = make_sim()
    unit = start_transfer(sim, "Moving")
    before = status(sim, unit)
    sim.workflow.approve(directory="Moving", transfer_type="standard", now=sim.sync())
    advance(sim, 120)
    after = status(sim, unit)

    assert before["directory"] == "Moving"
    assert before["path"].endswith("/activeTransfers/standardTransfer/Moving/")
    assert after["directory"] == f"Moving-{unit.uuid}"
    assert after["path"].endswith(f"/Moving-{unit.uuid}/")


def test_completed_sips_store_their_aip_and_some_a_dip(monkeypatch: pytest.MonkeyPatch) -> None:
    sim = make_sim()
    calls = record_storage_calls(sim, monkeypatch)
    for number in range(12):
        unit = start_transfer(sim, f"Batch {number}")
        sim.workflow.approve(directory=unit.name, transfer_type="standard", now=sim.sync())

    advance(sim, 5 * DAY)

    stored_aips = {kwargs["uuid"] for name, kwargs in calls if name == "store_aip"}
    dip_positions = [
        (i, kwargs["aip_uuid"]) for i, (name, kwargs) in enumerate(calls) if name == "store_dip"
    ]
    assert stored_aips and dip_positions
    for position, parent in dip_positions:
        # Storage relates a DIP to its AIP, so the AIP must already be there.
        assert ("store_aip", parent) in [
            (name, kwargs.get("uuid")) for name, kwargs in calls[:position]
        ]
    for aip_uuid in stored_aips:
        assert status(sim, sim.workflow.get(aip_uuid, SIP))["status"] == "COMPLETE"


def test_a_backlogged_transfer_is_stored_in_the_backlog(monkeypatch: pytest.MonkeyPatch) -> None:
    sim = make_sim(start=START)
    calls = record_storage_calls(sim, monkeypatch)
    unit = start_transfer(sim)
    while unit.route.outcome is not Outcome.BACKLOG:
        unit = start_transfer(sim, f"try {unit.number}")
    sim.workflow.approve(directory=unit.name, transfer_type="standard", now=sim.sync())

    advance(sim, DAY)

    assert (
        "store_backlog_transfer",
        {
            "uuid": unit.uuid,
            "name": unit.name,
            "size": unit.size,
            "stored_at": sim.workflow.moment(
                unit.step_end(unit.route.index_of("Move transfer to backlog"))
            ),
            "pipeline": sim.pipeline,
        },
    ) in calls


def test_a_reingest_stores_the_same_aip_again_and_cannot_overlap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sim = make_sim()
    calls = record_storage_calls(sim, monkeypatch)
    aip_uuid = "0c2f5b8e-3a41-4d7e-9a6b-1e2f3a4b5c6d"
    reingest_uuid = sim.workflow.start_reingest(
        aip_uuid=aip_uuid, name="Old AIP", reingest_type="objects", processing_config=None
    )

    with pytest.raises(ValueError):
        sim.workflow.start_reingest(
            aip_uuid=aip_uuid, name="Old AIP", reingest_type="FULL", processing_config=None
        )
    advance(sim, 2 * DAY)

    assert reingest_uuid == aip_uuid
    assert [kwargs["uuid"] for name, kwargs in calls if name == "store_aip"] == [aip_uuid]
    assert (
        sim.workflow.start_reingest(
            aip_uuid=aip_uuid, name="Old AIP", reingest_type="FULL", processing_config=None
        )
        != aip_uuid
    )


def test_a_full_reingest_runs_a_transfer_whose_sip_is_the_aip() -> None:
    sim = make_sim()
    aip_uuid = "5a7e1c9d-2b3f-4e6a-8c1d-9f0e2d3c4b5a"
    transfer_uuid = sim.workflow.start_reingest(
        aip_uuid=aip_uuid, name="Old AIP", reingest_type="FULL", processing_config="default"
    )

    advance(sim, 3 * DAY)

    transfer = sim.workflow.get(transfer_uuid, TRANSFER)
    assert status(sim, transfer)["sip_uuid"] == aip_uuid
    assert status(sim, sim.workflow.get(aip_uuid, SIP))["status"] == "COMPLETE"


def test_the_same_seed_gives_the_same_units_and_another_seed_other_ones() -> None:
    def snapshot(seed: int) -> list[tuple]:
        sim = make_sim(units=25, seed=seed)
        return [
            (unit.uuid, unit.name, status(sim, unit).get("status"), len(job_names(sim, unit)))
            for unit in sim.workflow.units.values()
        ]

    assert snapshot(7) == snapshot(7)
    assert snapshot(7) != snapshot(8)


def test_the_seeded_mix_has_every_kind_of_unit_and_tricky_names() -> None:
    sim = make_sim(units=40)
    t = sim.workflow.seconds(sim.clock.now())
    statuses = {
        (unit.kind, unit.status(t)["status"])
        for unit in sim.workflow.units.values()
        if unit.first_job_at <= t
    }
    names = [unit.name for unit in sim.workflow.units.values()]
    waiting_jobs = {
        unit.route.steps[index].job
        for unit in sim.workflow.units.values()
        for index in unit.waiting_jobs(t)
    }

    assert {
        ("transfer", "COMPLETE"),
        ("transfer", "FAILED"),
        ("transfer", "REJECTED"),
        ("transfer", "USER_INPUT"),
        ("SIP", "COMPLETE"),
    } <= statuses
    assert "Approve standard transfer" in waiting_jobs
    assert waiting_jobs - {"Approve standard transfer"}
    assert any("<" in name and ">" in name for name in names)
    assert any(not name.isascii() for name in names)
