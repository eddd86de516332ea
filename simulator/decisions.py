"""Decisions as the workflow service's own dashboard shows and answers them.

A job awaiting a decision carries its choices (`{value: label}`, the values the
dashboard posts to `/mcp/execute/`); an answer ends the wait and moves the unit on
along the chosen chain (`scenario.answered_plan`).
"""

from __future__ import annotations

import random

from simulator import workflow_data as data
from simulator.scenario import (
    DEFAULT_PACE,
    HISTORY_PACE,
    Outcome,
    StepTemplate,
    Track,
    answered_plan,
)
from simulator.units import Unit

_APPROVAL_JOBS = {approval.job for approval in data.APPROVALS.values()}


def decision_choices(step: StepTemplate) -> dict[str, str]:
    """`{value: label}` of a decision job, in the service's order; empty for other jobs."""
    point = data.DECISIONS_BY_STEP.get((step.group, step.job))
    return {} if point is None else {value: label for label, value in point.choices}


def _diversion(step: StepTemplate, label: str) -> tuple[tuple[data.GroupJobs, ...], Outcome] | None:
    """Where an answer leaves the planned route: (jobs that follow, outcome); None: it goes on."""
    if label == data.CREATE_SINGLE_SIP_LABEL:
        return (data.SIP_CREATION_JOBS,), Outcome.SIP
    if label == data.SEND_TO_BACKLOG_LABEL:
        return (data.BACKLOG_JOBS,), Outcome.BACKLOG
    if label not in data.REJECT_LABELS:
        return None
    if step.track is Track.DIP:
        return (), Outcome.STORED  # the DIP chain stops; the AIP is unaffected
    if step.group == "Store AIP":
        return (data.REJECT_AIP,), Outcome.REJECTED
    if step.job in _APPROVAL_JOBS or step.group == "Create SIP from Transfer":
        return (data.REJECT_TRANSFER,), Outcome.REJECTED
    return (data.REJECT_SIP,), Outcome.REJECTED


def answer(unit: Unit, index: int, value: str, t: float) -> str | None:
    """Answer the decision at `index` at time t; the chosen label, or None when the
    answer is not taken (no longer waiting, or not one of its choices).

    The caller re-anchors the unit (`WorkflowState.answered`) to reschedule its effects.
    """
    step = unit.route.steps[index]
    label = decision_choices(step).get(value)
    if label is None or unit.step_status(index, t) != "USER_INPUT":
        return None
    first_approval = index == 0 and unit.awaits_first_approval and unit.anchor is None
    answered_at = 0.0 if first_approval else t - (unit.anchor or 0.0)
    diversion = _diversion(step, label)
    rng = random.Random(f"{unit.rng_key}:answer:{index}:{t}")
    pace = HISTORY_PACE if unit.history else DEFAULT_PACE
    if diversion is None:
        unit.plan = answered_plan(unit.plan, index, answered_at, rng, pace=pace)
    else:
        tail, outcome = diversion
        if outcome is Outcome.STORED and unit.route.outcome is not Outcome.STORED:
            outcome = unit.route.outcome
        unit.plan = answered_plan(
            unit.plan, index, answered_at, rng, pace=pace, tail=tail, outcome=outcome
        )
    return label
