"""The decisions a waiting unit waits at, in words, and where they can be answered.

The public API answers only transfer approval (Lookout's Approve button) and partial
reingest approval. Every other decision is shown here as its question and its choices,
from the decision points Lookout carries, with a link to the unit in the workflow
service's own web UI, where it is answered.
"""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.lib import vocabulary
from dashboard.lib.decision_points import decision_points_for
from dashboard.lib.pipelines import pipeline_get
from dashboard.models import Unit

LOCATION_CHOICE = "storage_location_choice"
LOCATION_CHOICES = (
    "One of the storage service's locations for this purpose",
    "The default location",
)


@dataclass(frozen=True)
class PendingDecision:
    question: str
    group: str
    # In words; empty when Lookout does not know this decision.
    choices: tuple[str, ...]
    # Answered by a button in Lookout (transfer approval).
    answered_here: bool
    # The unit in the workflow service's own UI ("" when the pipeline is gone).
    service_url: str


def unit_service_url(unit: Unit) -> str:
    """The unit's page in the workflow service's own web UI."""
    pipeline = pipeline_get(unit.pipeline)
    if pipeline is None:
        return ""
    tab = "ingest" if unit.kind == "sip" else "transfer"
    return f"{pipeline.ui_url.rstrip('/')}/{tab}/{unit.uuid}/"


def pending_decisions(unit: Unit) -> list[PendingDecision]:
    """What `unit` waits for; one entry per waiting job the last poll saw."""
    if not unit.awaiting_decision and not unit.awaiting_approval:
        return []
    url = unit_service_url(unit)
    jobs = [job.strip() for job in (unit.decision or unit.microservice).split(" / ")]
    decisions = []
    for job in dict.fromkeys(job for job in jobs if job):
        points = decision_points_for(job)
        point = points[0] if points else None
        approval = unit.approvable and (
            point is None
            or point.group == "Approve transfer"
            or job == "Approve transfer"
            or vocabulary.unlisted_approval_type(job) is not None
        )
        # The API answers this one too (Lookout's Approve reingest button).
        approval = approval or job == vocabulary.APPROVE_AIP_REINGEST
        if point is None:
            choices: tuple[str, ...] = ()
        elif point.kind == LOCATION_CHOICE:
            choices = LOCATION_CHOICES
        else:
            choices = tuple(label for label, _ in point.choices)
        decisions.append(
            PendingDecision(
                question=job,
                group=point.group if point is not None else "",
                choices=choices,
                answered_here=approval,
                service_url=url,
            )
        )
    return decisions


def awaits_reingest_approval(unit: Unit) -> bool:
    """A SIP waiting at "Approve AIP reingest", which the API can answer."""
    if not unit.awaiting_decision:
        return False
    jobs = (job.strip() for job in (unit.decision or unit.microservice).split(" / "))
    return vocabulary.APPROVE_AIP_REINGEST in jobs
