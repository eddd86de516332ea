"""A unit (transfer or SIP) and what it is doing at any simulated moment.

A unit's plan fixes every job's offset from its anchor, so "what is it doing
at time t" is a bisect, and its status follows from the newest job the way
the real service derives it. Times are float seconds after the clock's start.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from simulator import workflow_data as data
from simulator.scenario import Outcome, Plan, Route, StepTemplate, Track

SHARED_DIRECTORY = "/var/preservation/sharedDirectory/"
TRANSFER = "transfer"
SIP = "SIP"
FINISHED = frozenset({"COMPLETE", "FAILED", "REJECTED"})


class NoJobsYet(LookupError):
    """The unit exists but has not run any job yet."""


@dataclass(eq=False, slots=True)
class Unit:
    number: int  # key in WorkflowState.units, part of task UUIDs
    uuid: str
    kind: str  # TRANSFER or SIP
    name: str
    transfer_type: str
    plan: Plan
    first_job_at: float
    # Transfers: when approved (None while awaiting approval); SIPs: their start.
    anchor: float | None
    files_key: str  # a SIP shares its transfer's files
    file_count: int
    size: int
    plural_microservice_key: bool  # answers "microservices" instead of "microservice"
    rng_key: str  # names the unit's own random stream
    sip_uuid: str | None = None
    sip_delay: float = 0.0  # how long a new SIP's UUID stays unreported
    sip_must_succeed: bool = False
    sip_must_fail: bool = False
    hidden: bool = False
    replaced: bool = False  # a reingest took over this UUID
    ages_out: bool = False  # dropped a while after finishing (demo arrivals on)
    # A SIP whose first job is an approval (a partial reingest), as a transfer's always is.
    approval_first: bool = False
    # Started past the approval link (package API with auto_approve): no approval job.
    auto_approved: bool = False
    history: bool = False  # back-dated (`--history-days`): realistic pace and failures
    anchor_version: int = 0
    effects_done: set[int] = field(default_factory=set)
    settled: dict[str, Any] | None = None  # final status, once it can no longer change

    @property
    def route(self) -> Route:
        return self.plan.route

    @property
    def is_transfer(self) -> bool:
        return self.kind == TRANSFER

    @property
    def awaits_first_approval(self) -> bool:
        """Its first job is an approval that ends at the anchor."""
        return self.is_transfer or self.approval_first

    def step_start(self, index: int) -> float | None:
        if index == 0 and self.awaits_first_approval:
            return self.first_job_at
        if self.anchor is None:
            return None
        return self.anchor + self.plan.starts[index]

    def step_end(self, index: int) -> float | None:
        if index == 0 and self.awaits_first_approval:
            return self.anchor
        if self.anchor is None:
            return None
        return self.anchor + self.plan.starts[index] + self.plan.durations[index]

    def current_step(self, t: float, track: Track = Track.MAIN) -> int | None:
        """Index of the newest job of a track at time t, or None before its first job."""
        if t < self.first_job_at:
            return None
        if self.auto_approved and self.anchor is not None and t < self.anchor + self.plan.starts[1]:
            return None  # its first job is the one after the approval
        main_count = self.route.main_count
        if track is Track.DIP:
            if self.anchor is None or main_count == len(self.route.steps):
                return None
            index = bisect_right(self.plan.starts, t - self.anchor, main_count) - 1
            return index if index >= main_count else None
        if self.anchor is None or t < self.anchor:
            return 0
        low = 1 if self.awaits_first_approval else 0
        index = bisect_right(self.plan.starts, t - self.anchor, low, main_count) - 1
        return max(index, 0)

    def step_status(self, index: int, t: float) -> str:
        end = self.step_end(index)
        if end is None or t < end:
            return "USER_INPUT" if index in self.plan.waiting else "PROCESSING"
        return "FAILED" if self.route.steps[index].failed else "COMPLETE"

    def started_steps(self, t: float) -> list[int]:
        """Indexes of every job that exists at time t, in creation order."""
        indexes = []
        for index in range(1 if self.auto_approved else 0, len(self.route.steps)):
            start = self.step_start(index)
            if start is not None and start <= t:
                indexes.append(index)
        return sorted(indexes, key=lambda index: (self.step_start(index), index))

    def sip_reported_at(self) -> float | None:
        """When a transfer's status starts naming the SIP it became."""
        create = self.route.index_of(data.CREATE_SIP_JOB)
        end = None if create is None else self.step_end(create)
        return None if end is None else end + self.sip_delay

    def settles_at(self) -> float | None:
        """From when on the unit's status cannot change any more."""
        if self.anchor is None:
            return None
        end = self.anchor + self.plan.main_end
        reported = self.sip_reported_at()
        return end if reported is None else max(end, reported)

    def finishes_at(self) -> float | None:
        """From when on nothing about the unit changes any more (every track included)."""
        settles = self.settles_at()
        if settles is None:
            return None
        assert self.anchor is not None
        starts, durations = self.plan.starts, self.plan.durations
        ends = (start + length for start, length in zip(starts, durations, strict=True))
        return max(settles, self.anchor + max(ends, default=0.0))

    def status(self, t: float) -> dict[str, Any]:
        """Status record fields at time t: status, microservice, sip_uuid, directory, path.

        Derived from the newest job as the real service does; NoJobsYet before the first.
        """
        if self.settled is not None:
            return self.settled
        index = self.current_step(t)
        if index is None:
            raise NoJobsYet(self.uuid)
        step = self.route.steps[index]
        record: dict[str, Any] = {"status": self._derive_status(index, step, t)}
        if self.is_transfer and record["status"] == "COMPLETE":
            if self.route.outcome is Outcome.BACKLOG:
                record["sip_uuid"] = "BACKLOG"
            elif self.route.outcome is Outcome.SIP:
                reported = self.sip_reported_at()
                if reported is not None and t >= reported:
                    record["sip_uuid"] = self.sip_uuid
        record["microservice"] = step.job
        record["directory"], record["path"] = self._location(index, t)
        settles = self.settles_at()
        if settles is not None and t >= settles:
            self.settled = record
        return record

    def _derive_status(self, index: int, step: StepTemplate, t: float) -> str:
        if self.step_status(index, t) == "USER_INPUT":
            return "USER_INPUT"
        group = step.group.lower()
        if "failed" in group:
            return "FAILED"
        if "reject" in group:
            return "REJECTED"
        if step.job == data.REMOVE_PROCESSING_DIRECTORY_JOB:
            return "COMPLETE"
        if self.is_transfer:
            create = self.route.index_of(data.CREATE_SIP_JOB)
            if create is not None and index >= create:
                end = self.step_end(create)
                return "COMPLETE" if end is not None and t >= end else "PROCESSING"
            backlog = self.route.index_of(data.MOVE_TO_BACKLOG_JOB)
            if backlog is not None and index >= backlog:
                return "COMPLETE"
        return "PROCESSING"

    def _location(self, index: int, t: float) -> tuple[str, str]:
        """(directory, path) where the unit's files are at time t."""
        with_uuid = f"{self.name}-{self.uuid}"
        if not self.is_transfer:
            failed = "failed" in self.route.steps[index].group.lower()
            area = "failed/" if failed else "currentlyProcessing/"
            return with_uuid, f"{SHARED_DIRECTORY}{area}{with_uuid}/"
        if self.step_status(0, t) == "USER_INPUT":
            approval = data.APPROVALS[self.transfer_type]
            return self.name, (
                f"{SHARED_DIRECTORY}watchedDirectories/activeTransfers/"
                f"{approval.active_directory}/{self.name}/"
            )
        group = self.route.steps[index].group.lower()
        renamed = self.route.index_of(data.RENAME_WITH_UUID_JOB)
        directory = with_uuid if renamed is not None and index > renamed else self.name
        if "failed" in group:
            area = "failed/"
        elif "reject" in group:
            area = "rejected/"
        elif self._reached(data.MOVE_TO_BACKLOG_JOB, index):
            area = "www/AIPsStore/transferBacklog/originals/"
        elif self._reached(data.MOVE_TO_SIP_CREATION_JOB, index):
            area = "watchedDirectories/SIPCreation/completedTransfers/"
        else:
            area = "currentlyProcessing/"
        return directory, f"{SHARED_DIRECTORY}{area}{directory}/"

    def _reached(self, job: str, index: int) -> bool:
        position = self.route.index_of(job)
        return position is not None and index >= position

    def waiting_jobs(self, t: float) -> list[int]:
        """Indexes of the unit's jobs that await a decision at time t."""
        found = []
        for track in (Track.MAIN, Track.DIP):
            index = self.current_step(t, track)
            if index is not None and self.step_status(index, t) == "USER_INPUT":
                found.append(index)
        return found
