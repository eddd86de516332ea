"""Routes, plans and the jobs/tasks they render, without any HTTP."""

from __future__ import annotations

import random
import re
from datetime import datetime
from typing import Any

from simulator import workflow_data as data
from simulator.config import SimulatorConfig
from simulator.ids import TaskIds
from simulator.scenario import Outcome, StepKind, Track, make_plan, sip_route, transfer_route
from simulator.server import Simulation
from simulator.unit_jobs import find_task, job_records
from simulator.units import Unit

START = datetime(2024, 6, 3, 9, 0, 0)
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")


def make_sim(**options: Any) -> Simulation:
    settings = {"units": 0, "packages": 5, "speed": 0.0, "start": START, **options}
    return Simulation(SimulatorConfig(**settings))


def approved_transfer(sim: Simulation, outcome: Outcome | None = None) -> Unit:
    """A new approved transfer (with the given outcome, when one is asked for)."""
    while True:
        unit = sim.workflow.start_transfer(
            name="Plans", transfer_type="standard", sources=[], now=sim.sync()
        )
        if outcome is None or unit.route.outcome is outcome:
            break
    sim.workflow.approve(directory=unit.name, transfer_type="standard", now=sim.sync())
    return unit


def test_a_standard_transfer_into_a_sip_runs_the_real_job_sequence() -> None:
    route = transfer_route("standard", Outcome.SIP)
    jobs = [step.job for step in route.steps]

    assert len(jobs) == 51  # as counted from the real workflow
    assert jobs[0] == "Approve standard transfer"
    assert jobs[-1] == "Create SIP from transfer objects"
    assert "Create SIP(s)" in jobs


def test_an_ingest_with_a_dip_adds_the_dip_chain_after_the_aip_jobs() -> None:
    route = sip_route(Outcome.STORED, with_dip=True)
    main = route.steps[: route.main_count]
    dip = route.steps[route.main_count :]

    assert len(main) == 94
    assert main[-1].job == "Remove the processing directory"
    assert [step.job for step in dip][:2] == ["Upload DIP", "Store DIP?"]
    assert {step.track for step in dip} == {Track.DIP}


def test_a_failing_route_ends_in_the_failed_group_after_the_failing_job() -> None:
    route = transfer_route("standard", Outcome.FAILED, 5)

    assert route.steps[5].failed
    assert [step.group for step in route.steps[6:]] == ["Failed transfer", "Failed transfer"]
    assert not any(step.failed for step in route.steps[:5])


def test_decisions_have_no_tasks_and_file_level_jobs_are_marked() -> None:
    route = transfer_route("standard", Outcome.SIP)
    kinds = {step.job: step.kind for step in route.steps}

    assert kinds["Examine contents?"] is StepKind.DECISION
    assert kinds["Assign file UUIDs to objects"] is StepKind.FILES
    assert kinds["Rename with transfer UUID"] is StepKind.TASK


def test_the_dip_is_always_stored_after_the_aip() -> None:
    route = sip_route(Outcome.STORED, with_dip=True)
    aip = route.index_of(data.STORE_AIP_JOB)
    dip = route.index_of(data.STORE_DIP_JOB, Track.DIP)
    assert aip is not None and dip is not None

    for seed in range(30):
        plan = make_plan(route, random.Random(seed), files=3)
        assert plan.starts[dip] > plan.starts[aip] + plan.durations[aip]


def test_task_uuids_decode_back_to_their_task_and_reject_strangers() -> None:
    ids = TaskIds(seed=4)
    encoded = ids.encode(1234, 56, 789)

    assert ids.decode(encoded) == (1234, 56, 789)
    assert TaskIds(seed=5).decode(encoded) is None
    assert ids.decode("9b2e4f3c-1d5a-4c6b-8e7f-0a1b2c3d4e5f") is None
    assert ids.decode("zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz") is None


def test_file_level_jobs_have_one_task_per_file_with_its_name() -> None:
    sim = make_sim()
    unit = approved_transfer(sim)
    sim.clock.advance(3600)

    jobs = job_records(sim.workflow, unit, sim.sync(), detailed=True)
    by_name = {job["name"]: job for job in jobs}
    file_tasks = by_name["Assign file UUIDs to objects"]["tasks"]
    single = by_name["Rename with transfer UUID"]["tasks"]

    assert len(file_tasks) == unit.file_count
    assert all(task["file_uuid"] and task["file_name"] for task in file_tasks)
    assert len({task["file_uuid"] for task in file_tasks}) == unit.file_count
    assert single[0]["file_uuid"] is None and single[0]["file_name"] == ""
    assert by_name["Examine contents?"]["tasks"] == []


def test_branch_jobs_complete_with_their_signal_exit_codes() -> None:
    sim = make_sim()
    unit = approved_transfer(sim, Outcome.SIP)
    sim.clock.advance(3 * 86400)

    jobs = {job["name"]: job for job in job_records(sim.workflow, unit, sim.sync())}

    packages = jobs["Determine if transfer contains packages"]
    objects = jobs["Check transfer directory for objects"]
    assert (packages["status"], packages["tasks"][0]["exit_code"]) == ("COMPLETE", 1)
    assert (objects["status"], objects["tasks"][0]["exit_code"]) == ("COMPLETE", 179)


def test_finished_tasks_have_times_and_durations_running_ones_do_not() -> None:
    sim = make_sim()
    unit = approved_transfer(sim)
    sim.clock.advance(3600)
    now = sim.sync()
    tasks = [
        task for job in job_records(sim.workflow, unit, now, detailed=True) for task in job["tasks"]
    ]
    finished = [task for task in tasks if task["time_ended"] is not None]

    assert any(task["duration"] == "< 1" for task in finished)
    for task in finished:
        assert TIMESTAMP.fullmatch(task["time_started"]) and TIMESTAMP.fullmatch(task["time_ended"])
        assert task["duration"] == "< 1" or (
            isinstance(task["duration"], int) and task["duration"] >= 1
        )
        assert isinstance(task["exit_code"], int)

    # Find a task that is still running by looking just after some task started.
    running_unit = approved_transfer(sim)
    first_task_job = next(
        i for i, step in enumerate(running_unit.route.steps) if step.kind is StepKind.FILES
    )
    start = running_unit.step_start(first_task_job)
    sim.clock.advance(start - sim.workflow.seconds(sim.clock.now()) + 0.01)
    job = next(
        job
        for job in job_records(sim.workflow, running_unit, sim.sync(), detailed=True)
        if job["name"] == running_unit.route.steps[first_task_job].job
    )
    assert job["status"] == "PROCESSING"
    assert job["tasks"][-1]["time_ended"] is None and job["tasks"][-1]["duration"] == ""


def test_a_listed_task_can_be_fetched_by_its_uuid() -> None:
    sim = make_sim()
    unit = approved_transfer(sim)
    sim.clock.advance(600)
    now = sim.sync()
    listed = [
        task for job in job_records(sim.workflow, unit, now, detailed=True) for task in job["tasks"]
    ]

    assert listed
    for task in listed[:20]:
        assert find_task(sim.workflow, task["uuid"], now) == task


def test_job_filters_select_by_group_link_and_name() -> None:
    sim = make_sim()
    unit = approved_transfer(sim)
    sim.clock.advance(3600)
    now = sim.sync()
    everything = job_records(sim.workflow, unit, now)
    link = everything[3]["link_uuid"]

    by_group = job_records(sim.workflow, unit, now, microservice="Assign file UUIDs and checksums")
    by_link = job_records(sim.workflow, unit, now, link_uuid=link)
    by_name = job_records(sim.workflow, unit, now, name="Rename with transfer UUID")

    assert {job["microservice"] for job in by_group} == {"Assign file UUIDs and checksums"}
    assert len(by_group) == 4
    assert [job["link_uuid"] for job in by_link] == [link]
    assert [job["name"] for job in by_name] == ["Rename with transfer UUID"]
