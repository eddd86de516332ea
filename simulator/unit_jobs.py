"""Jobs and tasks of a unit, rendered on demand as the workflow service shows them.

Nothing here is stored: UUIDs, files and task times all follow from the
unit's plan and the seed, so a unit's jobs cost nothing until asked for.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from simulator.ids import derived_uuid
from simulator.naming import SimFile, unit_files
from simulator.scenario import FAILURE_EXIT_CODE, StepKind
from simulator.units import Unit
from simulator.workflow import WorkflowState

TIME_FORMAT = "%Y-%m-%dT%H:%M:%S"


@dataclass(frozen=True)
class TaskTiming:
    created: float
    started: float
    ended: float


def job_uuid(state: WorkflowState, unit: Unit, index: int) -> str:
    return derived_uuid(state.seed_value, "job", unit.uuid, unit.number, index)


def files_of(state: WorkflowState, unit: Unit) -> list[SimFile]:
    return unit_files(random.Random(f"{state.seed_value}:files:{unit.files_key}"), unit.file_count)


def file_uuid(state: WorkflowState, unit: Unit, position: int) -> str:
    return derived_uuid(state.seed_value, "file", unit.files_key, position)


def task_count(unit: Unit, index: int) -> int:
    kind = unit.route.steps[index].kind
    if kind is StepKind.DECISION:
        return 0
    return unit.file_count if kind is StepKind.FILES else 1


def task_timing(unit: Unit, index: int, position: int) -> TaskTiming:
    """Tasks of a job run one after the other inside the job's time span."""
    start = unit.step_start(index)
    end = unit.step_end(index)
    assert start is not None and end is not None
    slot = (end - start) / task_count(unit, index)
    return TaskTiming(start, start + position * slot, start + (position + 1) * slot)


def task_exit_code(unit: Unit, index: int, position: int) -> int:
    step = unit.route.steps[index]
    if step.failed:
        # The last task of a failing job is the one that failed.
        return FAILURE_EXIT_CODE if position == task_count(unit, index) - 1 else 0
    return step.exit_code


def format_time(state: WorkflowState, seconds: float | None, t: float) -> str | None:
    if seconds is None or seconds > t:
        return None
    return state.moment(seconds).strftime(TIME_FORMAT)


def duration(timing: TaskTiming, t: float) -> int | str:
    if timing.ended > t:
        return ""
    # Whole-second timestamps subtracted, as the real service does.
    seconds = math.floor(timing.ended) - math.floor(timing.started)
    return "< 1" if seconds == 0 else seconds


def task_record(
    state: WorkflowState,
    unit: Unit,
    index: int,
    position: int,
    t: float,
    files: list[SimFile] | None = None,
) -> dict[str, Any]:
    timing = task_timing(unit, index, position)
    ended = timing.ended <= t
    per_file = unit.route.steps[index].kind is StepKind.FILES
    if per_file and files is None:
        files = files_of(state, unit)
    return {
        "uuid": state.task_ids.encode(unit.number, index, position),
        "exit_code": task_exit_code(unit, index, position) if ended else None,
        "file_uuid": file_uuid(state, unit, position) if per_file else None,
        "file_name": files[position].name if per_file and files else "",
        "time_created": format_time(state, timing.created, t),
        "time_started": format_time(state, timing.started, t),
        "time_ended": format_time(state, timing.ended, t),
        "duration": duration(timing, t),
    }


def job_records(
    state: WorkflowState,
    unit: Unit,
    now: datetime,
    *,
    microservice: str | None = None,
    link_uuid: str | None = None,
    name: str | None = None,
    detailed: bool = False,
) -> list[dict[str, Any]]:
    t = state.seconds(now)
    files = files_of(state, unit) if detailed else None
    records = []
    for index in unit.started_steps(t):
        step = unit.route.steps[index]
        if microservice is not None and step.group != microservice:
            continue
        if link_uuid is not None and step.link_uuid != link_uuid:
            continue
        if name is not None and step.job != name:
            continue
        if detailed:
            tasks = [
                task_record(state, unit, index, position, t, files)
                for position in range(task_count(unit, index))
            ]
        else:
            tasks = [
                {
                    "uuid": state.task_ids.encode(unit.number, index, position),
                    "exit_code": (
                        task_exit_code(unit, index, position)
                        if task_timing(unit, index, position).ended <= t
                        else None
                    ),
                }
                for position in range(task_count(unit, index))
            ]
        records.append(
            {
                "uuid": job_uuid(state, unit, index),
                "name": step.job,
                "status": unit.step_status(index, t),
                "microservice": step.group,
                "link_uuid": step.link_uuid,
                "tasks": tasks,
            }
        )
    return records


def find_task(state: WorkflowState, task_uuid: str, now: datetime) -> dict[str, Any] | None:
    """The task record for a UUID from a jobs listing, or None."""
    located = state.task_ids.decode(task_uuid)
    if located is None:
        return None
    number, index, position = located
    unit = state.units.get(number)
    if unit is None:
        return None
    t = state.seconds(now)
    if index >= len(unit.route.steps) or position >= task_count(unit, index):
        return None
    start = unit.step_start(index)
    if start is None or start > t:
        return None
    return task_record(state, unit, index, position, t)
