"""The dashboard's status lists (`/transfer/status/`, `/ingest/status/`), rendered as the
real service does: every unit that is not hidden, its jobs newest first, and the quirks.

The answer is streamed unit by unit: at 10,000 units of ~45 jobs it is ~120 MB, which
the simulator never holds whole.
"""

from __future__ import annotations

import calendar
import json
from collections.abc import Iterator
from typing import Any

from simulator.decisions import decision_choices
from simulator.unit_jobs import job_uuid
from simulator.units import Unit
from simulator.workflow import WorkflowState

# The dashboard's job states (`currentstep`).
CURRENT_STEP = {"USER_INPUT": 1, "COMPLETE": 2, "PROCESSING": 3, "FAILED": 4}
AWAITING_DECISION = 1
UNITS_PER_CHUNK = 50


def _epoch(state: WorkflowState, seconds: float) -> tuple[int, int]:
    """(whole seconds since the epoch, microseconds) of a simulated time."""
    moment = state.moment(seconds)
    return calendar.timegm(moment.utctimetuple()), moment.microsecond


def job_timestamp(state: WorkflowState, seconds: float) -> str:
    """A job's creation time as the list sends it: a string with ten decimals."""
    whole, micro = _epoch(state, seconds)
    return f"{whole}.{micro:06d}0000"


def unit_timestamp(state: WorkflowState, seconds: float) -> float:
    """The unit's time stamp: its newest job's creation time with the fraction of a
    second counted twice, as the real service does (so up to a second late)."""
    whole, micro = _epoch(state, seconds)
    return whole + 2 * micro / 1_000_000


def unit_record(state: WorkflowState, unit: Unit, t: float) -> dict[str, Any] | None:
    """One unit's entry at time t; None before its first job exists."""
    indexes = unit.started_steps(t)
    if not indexes:
        return None
    jobs = []
    for index in reversed(indexes):
        step = unit.route.steps[index]
        start = unit.step_start(index)
        assert start is not None
        current = CURRENT_STEP[unit.step_status(index, t)]
        job: dict[str, Any] = {
            "uuid": job_uuid(state, unit, index),
            "link_id": step.link_uuid,
            "currentstep": current,
            "timestamp": job_timestamp(state, start),
            "microservicegroup": step.group,
            "type": step.job,
        }
        if current == AWAITING_DECISION:
            job["choices"] = decision_choices(step)
        jobs.append(job)
    newest = unit.step_start(indexes[-1])
    assert newest is not None
    finishes = unit.finishes_at()
    record: dict[str, Any] = {
        "id": unit.uuid,
        "uuid": unit.uuid,
        "timestamp": unit_timestamp(state, newest),
        "active": finishes is None or t < finishes,
        "directory": unit.name,
    }
    if not unit.is_transfer:
        record["access_system_id"] = ""
    record["jobs"] = jobs
    return record


def listed_units(state: WorkflowState, kind: str) -> list[Unit]:
    return [unit for unit in state.visible_units() if unit.kind == kind and not unit.hidden]


def stream_status_list(sim: Any, kind: str, t: float) -> Iterator[bytes]:
    """`{"objects": [...], "mcp": true}` in chunks; the simulation lock is taken per chunk,
    so other requests are served while a large list goes out."""
    with sim.lock:
        units = listed_units(sim.workflow, kind)
    yield b'{"objects": ['
    first = True
    for offset in range(0, len(units), UNITS_PER_CHUNK):
        with sim.lock:
            batch = units[offset : offset + UNITS_PER_CHUNK]
            records = [unit_record(sim.workflow, unit, t) for unit in batch]
        parts = [json.dumps(record) for record in records if record is not None]
        if not parts:
            continue
        chunk = ", ".join(parts)
        yield (chunk if first else ", " + chunk).encode("utf-8")
        first = False
    yield b'], "mcp": true}'
