"""The workflow service's state: units moving through their plans over simulated time.

Nothing is stepped forward job by job (see `units.py`). Only the moments
with consequences elsewhere (a SIP is created, an AIP, DIP or backlog
transfer is stored) sit in a heap of events that `advance_to` replays in
time order. Times are float seconds after the clock's start.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from simulator import workflow_data as data
from simulator.decisions import answer
from simulator.ids import TaskIds, derived_uuid, random_uuid
from simulator.naming import file_count, transfer_name
from simulator.scenario import (
    DEFAULT_PACE,
    HISTORY_PACE,
    Effect,
    Outcome,
    Plan,
    Route,
    failure_candidates,
    history_failure,
    make_plan,
    sip_route,
    transfer_route,
)
from simulator.units import SIP, TRANSFER, NoJobsYet, Unit

if TYPE_CHECKING:
    from simulator.storage import SourceEntry


class UnknownUnit(LookupError):
    """No unit of that kind has this UUID."""


@dataclass(frozen=True)
class Odds:
    """How seeded and new units turn out."""

    backlog: float = 0.08
    rejected: float = 0.05
    failed_transfer: float = 0.04
    failed_sip: float = 0.06
    with_dip: float = 0.5
    plural_key: float = 0.2


ODDS = Odds()

# Pseudo step indexes of scheduled events that are not a step's consequence.
_APPROVE = -1  # a transfer still awaiting approval is approved (by the pipeline's operator)
_AGE_OUT = -2  # a finished unit is dropped

HOUR = 3600.0
DAY = 24 * HOUR


@dataclass(frozen=True)
class ArrivalMix:
    """How arriving transfers behave, beyond the outcome odds."""

    awaits_approval: float = 0.2  # wait for someone to approve them
    approval_wait: tuple[float, float] = (10 * 60.0, 45 * 60.0)  # until the operator does
    auto_approval_delay: tuple[float, float] = (2.0, 30.0)
    parked: float = 0.02  # parked at a decision for hours
    other_type: float = 0.1  # not a standard transfer
    burst_gap: float = HOUR  # mean time between bursts
    burst_spread: float = 5 * 60.0  # a burst's transfers arrive within this


ARRIVAL_MIX = ArrivalMix()


class Arrivals:
    """The times new transfers arrive: a Poisson stream plus bursts, fixed by the seed."""

    def __init__(self, seed: int, per_hour: float, burst: int, after: float) -> None:
        self._rng = random.Random(f"{seed}:arrivals")
        self._burst_rng = random.Random(f"{seed}:arrival-bursts")
        self._mean_gap = HOUR / per_hour if per_hour > 0 else None
        self._burst = burst
        self._steady = self._next_steady(after)
        self._next_burst = self._draw_burst(after) if burst > 0 else math.inf
        self._queued: list[float] = []  # arrival times of a burst under way
        self.count = 0  # arrivals so far

    def _next_steady(self, after: float) -> float:
        if self._mean_gap is None:
            return math.inf
        return after + self._rng.expovariate(1 / self._mean_gap)

    def _draw_burst(self, after: float) -> float:
        return after + self._burst_rng.expovariate(1 / ARRIVAL_MIX.burst_gap)

    def peek(self) -> float:
        if self._next_burst <= min(self._steady, self._queued[0] if self._queued else math.inf):
            start = self._next_burst
            spread = ARRIVAL_MIX.burst_spread
            for _ in range(self._burst):
                heapq.heappush(self._queued, start + self._burst_rng.uniform(0, spread))
            self._next_burst = self._draw_burst(start)
        return min(self._steady, self._queued[0] if self._queued else math.inf)

    def pop(self) -> float:
        when = self.peek()
        if self._queued and self._queued[0] == when:
            heapq.heappop(self._queued)
        else:
            self._steady = self._next_steady(when)
        self.count += 1
        return when


class WorkflowState:
    def __init__(self, sim: Any) -> None:
        self.sim = sim
        self.seed_value: int = sim.config.seed
        self.epoch: datetime = sim.clock.start
        # Keyed by unit number (part of task UUIDs); numbers are never reused.
        self.units: dict[int, Unit] = {}
        self._next_number = 0
        self.by_uuid: dict[str, Unit] = {}
        self.task_ids = TaskIds(self.seed_value)
        self._events: list[tuple[float, int, int, int, int]] = []
        self._event_counter = 0
        self._api_counter = 0
        self.reingests: set[str] = set()  # AIP UUIDs being reingested
        self.awaiting_approval: set[int] = set()  # unit numbers of unapproved transfers
        self.levels = [
            (derived_uuid(self.seed_value, "level", name), name)
            for name in data.LEVELS_OF_DESCRIPTION
        ]
        self.path_levels: dict[str, str] = {}
        # Metadata files added to each SIP, as `<location uuid>:<path>`.
        self.metadata_files: dict[str, list[str]] = {}
        config = sim.config
        # Arrivals keep the demo going; finished units that arrived after the start
        # (and those started through the API) then age out so memory stays flat.
        self.arrivals: Arrivals | None = None
        self.age_out_after = config.age_out_minutes * 60.0
        self._aging = config.arrivals_per_hour > 0 or config.arrival_burst > 0
        self._seeding = False
        self.aged_out = 0
        if self._aging:
            # From the clock's start (time 0), so the arrival times depend on the seed only.
            self.arrivals = Arrivals(
                self.seed_value, config.arrivals_per_hour, config.arrival_burst, 0.0
            )

    @property
    def pipeline_uuid(self) -> str:
        return str(self.sim.pipeline.uuid)

    def _plan(self, route: Route, rng: random.Random, files: int, **options: Any) -> Plan:
        """A seeded plan, stretched by the pipeline's own pace (1: as pipeline 1)."""
        plan = make_plan(route, rng, files, **options)
        speed = getattr(self.sim, "speed", 1.0)
        if speed != 1.0:
            for index in range(len(plan.starts)):
                plan.starts[index] /= speed
                plan.durations[index] /= speed
        return plan

    # -- time -------------------------------------------------------------

    def seconds(self, moment: datetime) -> float:
        return (moment - self.epoch).total_seconds()

    def moment(self, seconds: float) -> datetime:
        return self.epoch + timedelta(seconds=seconds)

    # -- creating units ---------------------------------------------------

    def seed(self, *, units: int, history_days: float = 0.0, history_per_day: float = 0.0) -> None:
        """Historical transfers (and the SIPs they lead to) in a realistic mix, then the
        back-dated history of `history_days` days."""
        now = self.seconds(self.sim.clock.now())
        self._seeding = True
        for number in range(units):
            rng = random.Random(f"{self.seed_value}:seed-unit:{number}")
            self._seed_one(rng, number, now)
        self._seed_history(now, history_days, history_per_day)
        self._seeding = False
        self.advance_to(self.moment(now))

    def _seed_history(self, now: float, days: float, per_day: float) -> None:
        """Weeks of finished work: transfers arriving through working days (fewer at
        weekends), approved after a while, run at the realistic pace. Their SIPs, AIPs
        and DIPs follow from the event replay, stored on the days they finished."""
        count = round(days * per_day)
        span = days * DAY
        for index in range(count):
            rng = random.Random(f"{self.seed_value}:history:{index}")
            arrival = now - span + (index + rng.random()) * span / count
            weekend = self.moment(arrival).weekday() >= 5
            if weekend and rng.random() < 0.7:
                continue
            transfer_type = "standard"
            if rng.random() < ARRIVAL_MIX.other_type:
                transfer_type = rng.choice(data.TRANSFER_TYPES[1:])
            unit = self._new_transfer(
                rng,
                name=self._free_name(transfer_name(rng, index)),
                transfer_type=transfer_type,
                outcome=self._draw_outcome(rng),
                first_job_at=arrival,
                files=file_count(rng),
                history=True,
            )
            self._set_anchor(unit, arrival + rng.uniform(20, 3 * HOUR))

    def _seed_one(self, rng: random.Random, number: int, now: float) -> None:
        transfer_type = "standard"
        if number % 9 == 4:
            transfer_type = rng.choice(data.TRANSFER_TYPES[1:])
        outcome = self._draw_outcome(rng)
        # Fixed positions guarantee every outcome even in a small seed.
        if number % 10 == 4:
            outcome = Outcome.FAILED
        elif number % 20 == 9:
            outcome = Outcome.REJECTED
        elif number % 12 == 6:
            outcome = Outcome.BACKLOG
        unit = self._new_transfer(
            rng,
            name=self._free_name(transfer_name(rng, number)),
            transfer_type=transfer_type,
            outcome=outcome,
            first_job_at=now,  # placed below
            files=file_count(rng),
            park=number % 13 == 7,
        )
        unit.sip_must_fail = number % 16 == 8
        approval_wait = rng.uniform(20, 900)
        if number % 25 == 1:
            # Still waiting for someone to approve it.
            unit.first_job_at = now - rng.uniform(60, 3 * 3600)
        elif unit.plan.parked is not None:
            # Parked at a decision right now, for hours.
            anchor = now - unit.plan.starts[unit.plan.parked] - rng.uniform(60, 900)
            self._place(unit, anchor - approval_wait, anchor)
        elif number % 6 == 0:
            anchor = now - rng.uniform(0, 40 * 60)
            self._place(unit, anchor - approval_wait, anchor)
        else:
            anchor = now - rng.uniform(3 * 3600, 30 * 86400)
            self._place(unit, anchor - approval_wait, anchor)

    def _place(self, unit: Unit, first_job_at: float, anchor: float) -> None:
        unit.first_job_at = first_job_at
        self._set_anchor(unit, anchor)

    def _draw_outcome(self, rng: random.Random) -> Outcome:
        roll = rng.random()
        if roll < ODDS.backlog:
            return Outcome.BACKLOG
        if roll < ODDS.backlog + ODDS.rejected:
            return Outcome.REJECTED
        if roll < ODDS.backlog + ODDS.rejected + ODDS.failed_transfer:
            return Outcome.FAILED
        return Outcome.SIP

    def _free_name(self, name: str) -> str:
        """The real service renames a colliding transfer directory by appending `_1`."""
        taken = {self.units[number].name for number in self.awaiting_approval}
        while name in taken:
            name += "_1"
        return name

    def _take_number(self) -> int:
        number = self._next_number
        self._next_number += 1
        return number

    def _register(self, unit: Unit) -> Unit:
        if unit.is_transfer:
            unit.ages_out = self._aging and not self._seeding
        old = self.by_uuid.get(unit.uuid)
        if old is not None:
            old.replaced = True
        self.units[unit.number] = unit
        self.by_uuid[unit.uuid] = unit
        return unit

    def _new_transfer(
        self,
        rng: random.Random,
        *,
        name: str,
        transfer_type: str,
        outcome: Outcome,
        first_job_at: float,
        files: int,
        park: bool = False,
        unit_uuid: str | None = None,
        sip_uuid: str | None = None,
        history: bool = False,
    ) -> Unit:
        """A transfer awaiting approval."""
        fail_index = None
        if outcome is Outcome.FAILED:
            fail_index = (
                history_failure(TRANSFER, rng)
                if history
                else rng.choice(failure_candidates(TRANSFER))
            )
        route = transfer_route(transfer_type, outcome, fail_index)
        pace = HISTORY_PACE if history else DEFAULT_PACE
        plan = self._plan(route, rng, files, pace=pace, first_is_approval=True, park=park)
        unit_uuid = unit_uuid or random_uuid(rng)
        if outcome is Outcome.SIP:
            sip_uuid = sip_uuid or random_uuid(rng)
        number = self._take_number()
        self.awaiting_approval.add(number)
        return self._register(
            Unit(
                number=number,
                uuid=unit_uuid,
                kind=TRANSFER,
                name=name,
                transfer_type=transfer_type,
                plan=plan,
                first_job_at=first_job_at,
                anchor=None,
                files_key=unit_uuid,
                file_count=files,
                size=self._size(files, rng),
                plural_microservice_key=rng.random() < ODDS.plural_key,
                rng_key=f"{self.seed_value}:sip-of:{unit_uuid}",
                sip_uuid=sip_uuid,
                sip_delay=rng.uniform(5, 30),
                history=history,
            )
        )

    def _new_sip(
        self,
        rng: random.Random,
        *,
        sip_uuid: str,
        name: str,
        files_key: str,
        files: int,
        size: int,
        start: float,
        must_succeed: bool,
        must_fail: bool = False,
        ages_out: bool | None = None,
        history: bool = False,
    ) -> Unit:
        fails = must_fail or (not must_succeed and rng.random() < ODDS.failed_sip)
        if fails:
            at = history_failure(SIP, rng) if history else rng.choice(failure_candidates(SIP))
            route = sip_route(Outcome.FAILED, False, at)
        else:
            route = sip_route(Outcome.STORED, rng.random() < ODDS.with_dip)
        plan = self._plan(route, rng, files, pace=HISTORY_PACE if history else DEFAULT_PACE)
        unit = self._register(
            Unit(
                number=self._take_number(),
                uuid=sip_uuid,
                kind=SIP,
                name=name,
                transfer_type="standard",
                plan=plan,
                first_job_at=start + plan.starts[0],
                anchor=None,
                files_key=files_key,
                file_count=files,
                size=size,
                plural_microservice_key=rng.random() < ODDS.plural_key,
                rng_key=f"{self.seed_value}:sip:{sip_uuid}",
                # A SIP leaves with its transfer; a reingest's as new units do.
                ages_out=self._aging and not self._seeding if ages_out is None else ages_out,
                history=history,
            )
        )
        self._set_anchor(unit, start)
        return unit

    @staticmethod
    def _size(files: int, rng: random.Random) -> int:
        return sum(int(rng.lognormvariate(14.5, 1.2)) for _ in range(files))

    def api_rng(self) -> random.Random:
        self._api_counter += 1
        return random.Random(f"{self.seed_value}:api-unit:{self._api_counter}")

    # -- events -----------------------------------------------------------

    def _set_anchor(self, unit: Unit, anchor: float) -> None:
        """Fix when the unit's plan runs, and (re)schedule its consequences."""
        unit.anchor = anchor
        self.awaiting_approval.discard(unit.number)
        unit.anchor_version += 1
        unit.settled = None
        for index, _ in unit.route.effects:
            if index in unit.effects_done:
                continue
            end = unit.step_end(index)
            assert end is not None
            self._event_counter += 1
            heapq.heappush(
                self._events, (end, self._event_counter, unit.number, index, unit.anchor_version)
            )
        if unit.ages_out:
            finished = unit.finishes_at()
            assert finished is not None
            self._schedule(finished + self.age_out_after, unit, _AGE_OUT)

    def _schedule(self, when: float, unit: Unit, index: int) -> None:
        self._event_counter += 1
        heapq.heappush(
            self._events, (when, self._event_counter, unit.number, index, unit.anchor_version)
        )

    def advance_to(self, now: datetime) -> None:
        """Carry out every consequence due by `now`, in time order."""
        t = self.seconds(now)
        arrivals = self.arrivals
        while True:
            next_event = self._events[0][0] if self._events else math.inf
            if arrivals is not None and arrivals.peek() <= min(t, next_event):
                self._arrive(arrivals.pop(), arrivals.count)
                continue
            if next_event > t:
                break
            when, _, number, index, version = heapq.heappop(self._events)
            unit = self.units.get(number)
            if unit is None:
                continue  # aged out
            if index == _APPROVE:
                if unit.anchor is None:
                    self._set_anchor(unit, when)
                continue
            if version != unit.anchor_version or index in unit.effects_done:
                continue  # rescheduled since
            if index == _AGE_OUT:
                self._forget(unit)
                continue
            unit.effects_done.add(index)
            self._apply(unit, dict(unit.route.effects)[index], when)

    def _apply(self, unit: Unit, effect: Effect, when: float) -> None:
        storage = self.sim.storage
        pipeline = self.sim.pipeline
        stored_at = self.moment(when)
        if effect is Effect.CREATE_SIP:
            assert unit.sip_uuid is not None
            rng = random.Random(unit.rng_key)
            self._new_sip(
                rng,
                sip_uuid=unit.sip_uuid,
                name=unit.name,
                files_key=unit.files_key,
                files=unit.file_count,
                size=unit.size,
                start=when + rng.uniform(0.5, min(3.0, unit.sip_delay)),
                must_succeed=unit.sip_must_succeed,
                must_fail=unit.sip_must_fail,
                ages_out=unit.ages_out,
                history=unit.history,
            )
        elif effect is Effect.STORE_BACKLOG:
            storage.store_backlog_transfer(
                uuid=unit.uuid,
                name=unit.name,
                size=unit.size,
                stored_at=stored_at,
                pipeline=pipeline,
            )
        elif effect is Effect.STORE_AIP:
            self.reingests.discard(unit.uuid)
            storage.store_aip(
                uuid=unit.uuid,
                name=unit.name,
                size=int(unit.size * 1.05),
                stored_at=stored_at,
                pipeline=pipeline,
            )
        elif effect is Effect.STORE_DIP:
            storage.store_dip(
                uuid=derived_uuid(self.seed_value, "dip", unit.uuid, unit.number),
                aip_uuid=unit.uuid,
                name=unit.name,
                size=max(1, unit.size // 5),
                stored_at=stored_at,
                pipeline=pipeline,
            )

    # -- arrivals and aging out ---------------------------------------------

    def _arrive(self, when: float, count: int) -> None:
        """A new transfer shows up in the pipeline, as a watched directory would start it."""
        rng = random.Random(f"{self.seed_value}:arrival:{count}")
        mix = ARRIVAL_MIX
        transfer_type = "standard"
        if rng.random() < mix.other_type:
            transfer_type = rng.choice(data.TRANSFER_TYPES[1:])
        unit = self._new_transfer(
            rng,
            name=self._free_name(transfer_name(rng, count)),
            transfer_type=transfer_type,
            outcome=self._draw_outcome(rng),
            first_job_at=when,
            files=file_count(rng),
            park=rng.random() < mix.parked,
        )
        if rng.random() < mix.awaits_approval:
            # Waits for someone to approve it (Lookout can); the operator does eventually.
            self._schedule(when + rng.uniform(*mix.approval_wait), unit, _APPROVE)
        else:
            # Started with automatic approval: it begins after the approval link.
            unit.first_job_at = when + rng.uniform(*mix.auto_approval_delay)
            self._start_approved(unit)

    def _forget(self, unit: Unit) -> None:
        """Drop a unit that finished a while ago, as if its records were purged."""
        del self.units[unit.number]
        if self.by_uuid.get(unit.uuid) is unit:
            del self.by_uuid[unit.uuid]
        self.awaiting_approval.discard(unit.number)
        self.aged_out += 1

    # -- starting and approving transfers ----------------------------------

    def start_transfer(
        self, *, name: str, transfer_type: str, sources: list[SourceEntry], now: datetime
    ) -> Unit:
        """A copied transfer that waits in its active directory for approval."""
        rng = self.api_rng()
        return self._new_transfer(
            rng,
            name=self._free_name(name),
            transfer_type=transfer_type,
            outcome=self._draw_outcome(rng),
            first_job_at=self.seconds(now),
            files=self._files_of(sources, rng),
        )

    def create_package(
        self,
        *,
        name: str,
        transfer_type: str,
        sources: list[SourceEntry],
        auto_approve: bool,
        now: datetime,
    ) -> Unit:
        """A transfer queued by the package endpoint: no jobs for a short while."""
        rng = self.api_rng()
        unit = self._new_transfer(
            rng,
            name=self._free_name(name),
            transfer_type=transfer_type,
            outcome=self._draw_outcome(rng),
            first_job_at=self.seconds(now) + rng.uniform(3, 20),
            files=self._files_of(sources, rng),
        )
        if auto_approve:
            self._start_approved(unit)
        return unit

    def _start_approved(self, unit: Unit) -> None:
        """Started with automatic approval: no approval job, never in the unapproved list."""
        unit.auto_approved = True
        self._set_anchor(unit, unit.first_job_at)

    @staticmethod
    def _files_of(sources: list[SourceEntry], rng: random.Random) -> int:
        counted = sum(source.file_count for source in sources)
        return min(counted, 50) if counted > 0 else file_count(rng)

    def approve(self, *, directory: str, transfer_type: str, now: datetime) -> Unit | None:
        """Approve the transfer waiting at `<type dir>/<directory>`; None if there is none."""
        t = self.seconds(now)
        for unit in self.units.values():
            if (
                unit.is_transfer
                and not unit.replaced
                and unit.name == directory
                and unit.transfer_type == transfer_type
                and unit.first_job_at <= t
                and unit.step_status(0, t) == "USER_INPUT"
            ):
                self._set_anchor(unit, t)
                self.sim.record_action("transfer_approve", unit.uuid)
                return unit
        return None

    def start_reingest(
        self, *, aip_uuid: str, name: str, reingest_type: str, processing_config: str | None
    ) -> str:
        """A unit that reprocesses a stored AIP and stores it again; returns its UUID."""
        if aip_uuid in self.reingests:
            raise ValueError(f"AIP {aip_uuid} is already being reingested")
        now = self.seconds(self.sim.clock.now())
        rng = self.api_rng()
        self.reingests.add(aip_uuid)
        if reingest_type.upper() == "FULL":
            unit = self._new_transfer(
                rng,
                name=self._free_name(name),
                transfer_type="standard",
                outcome=Outcome.SIP,
                first_job_at=now,
                files=file_count(rng),
                sip_uuid=aip_uuid,
            )
            unit.sip_must_succeed = True
            self._set_anchor(unit, now + rng.uniform(1, 5))
            return unit.uuid
        files = file_count(rng)
        self._new_sip(
            rng,
            sip_uuid=aip_uuid,
            name=name,
            files_key=aip_uuid,
            files=files,
            size=self._size(files, rng),
            start=now + rng.uniform(0.5, 3),
            must_succeed=True,
        )
        return aip_uuid

    def start_partial_reingest(self, *, name: str, aip_uuid: str, now: datetime) -> Unit:
        """The ingest/reingest endpoint: a SIP of the AIP that waits at "Approve AIP reingest"."""
        if aip_uuid in self.reingests:
            raise ValueError(f"AIP {aip_uuid} is already being reingested")
        rng = self.api_rng()
        self.reingests.add(aip_uuid)
        files = file_count(rng)
        route = sip_route(Outcome.STORED, False, reingest=True)
        # The AIP's tmp directory is `<name>-<uuid>`; the SIP is named without the UUID.
        name = name.removesuffix(f"-{aip_uuid}") or name
        unit = self._register(
            Unit(
                number=self._take_number(),
                uuid=aip_uuid,
                kind=SIP,
                name=name,
                transfer_type="standard",
                plan=self._plan(route, rng, files, first_is_approval=True),
                first_job_at=self.seconds(now) + rng.uniform(0.2, 1.0),
                anchor=None,
                files_key=aip_uuid,
                file_count=files,
                size=self._size(files, rng),
                plural_microservice_key=False,
                rng_key=f"{self.seed_value}:reingest:{aip_uuid}:{self._api_counter}",
                approval_first=True,
            )
        )
        return unit

    def approve_partial_reingest(self, *, sip_uuid: str, now: datetime) -> bool:
        """Answer a partial reingest's approval; False when none waits for it."""
        t = self.seconds(now)
        unit = self.by_uuid.get(sip_uuid.lower())
        if (
            unit is None
            or not unit.approval_first
            or unit.anchor is not None
            or unit.first_job_at > t
            or unit.step_status(0, t) != "USER_INPUT"
        ):
            return False
        self._set_anchor(unit, t)
        return True

    def reingest_transfer(self, *, name: str, aip_uuid: str, now: datetime) -> Unit:
        """The transfer/reingest endpoint: a full reingest that awaits approval."""
        if name in {self.units[number].name for number in self.awaiting_approval}:
            raise ValueError("There is already a transfer in standardTransfer with the same name.")
        rng = self.api_rng()
        self.reingests.add(aip_uuid)
        unit = self._new_transfer(
            rng,
            name=name,
            transfer_type="standard",
            outcome=Outcome.SIP,
            first_job_at=self.seconds(now),
            files=file_count(rng),
            sip_uuid=aip_uuid,
        )
        unit.sip_must_succeed = True
        return unit

    # -- decisions ----------------------------------------------------------

    def waiting_decisions(self, t: float) -> list[tuple[Unit, int]]:
        """Every (unit, step index) awaiting a decision at time t, hidden units included."""
        return [
            (unit, index)
            for unit in self.visible_units()
            if unit.first_job_at <= t
            for index in unit.waiting_jobs(t)
        ]

    def answer_decision(self, *, job_uuid: str, choice: str, now: datetime) -> bool:
        """Answer the waiting job `job_uuid` with `choice`; False when not taken (an unknown
        or decided job, a choice it does not offer), as the job server would."""
        from simulator.unit_jobs import job_uuid as uuid_of_job

        t = self.seconds(now)
        for unit, index in self.waiting_decisions(t):
            if uuid_of_job(self, unit, index) != job_uuid:
                continue
            label = answer(unit, index, choice, t)
            if label is None:
                return False
            if unit.route.outcome is Outcome.SIP and unit.is_transfer and unit.sip_uuid is None:
                unit.sip_uuid = random_uuid(random.Random(unit.rng_key))
            self._set_anchor(unit, t if unit.anchor is None else unit.anchor)
            self.sim.record_action("decision", f"{unit.uuid}:{label}")
            return True
        return False

    # -- reading ----------------------------------------------------------

    def get(self, unit_uuid: str, kind: str | None = None) -> Unit:
        unit = self.by_uuid.get(unit_uuid.lower())
        if unit is None or (kind is not None and unit.kind != kind):
            raise UnknownUnit(unit_uuid)
        return unit

    def visible_units(self) -> list[Unit]:
        return [unit for unit in self.units.values() if not unit.replaced]

    def counts(self, now: datetime) -> dict[str, Any]:
        t = self.seconds(now)
        by_status: Counter[str] = Counter()
        for unit in self.visible_units():
            try:
                by_status[f"{unit.kind}:{unit.status(t)['status']}"] += 1
            except NoJobsYet:
                by_status[f"{unit.kind}:QUEUED"] += 1
        return dict(sorted(by_status.items()))
