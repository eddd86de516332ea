"""The scenario engine's plans: which jobs a unit runs, and when.

A route is the ordered list of jobs for one kind of journey (a transfer
that ends in a SIP, a SIP that fails at job 12, ...); routes are shared
between units. A plan gives one unit's route its seeded timings: each
job's start offset and duration, and which decisions keep the unit waiting
for an archivist. Offsets count from the unit's anchor: the approval of a
transfer, or the first job of a SIP.
"""

from __future__ import annotations

import enum
import random
import uuid
from array import array
from dataclasses import dataclass, field
from functools import cache

from simulator import workflow_data as data


class StepKind(enum.Enum):
    TASK = "task"  # one task
    FILES = "files"  # one task per file
    DECISION = "decision"  # no tasks


class Track(enum.Enum):
    MAIN = "main"
    DIP = "dip"  # the DIP chain: same unit UUID, ignored by the unit status


class Outcome(enum.Enum):
    SIP = "sip"
    BACKLOG = "backlog"
    REJECTED = "rejected"
    FAILED = "failed"
    STORED = "stored"  # a SIP that stores its AIP


class Effect(enum.Enum):
    CREATE_SIP = "create_sip"
    STORE_BACKLOG = "store_backlog"
    STORE_AIP = "store_aip"
    STORE_DIP = "store_dip"


EFFECT_JOBS = {
    data.CREATE_SIP_JOB: Effect.CREATE_SIP,
    data.MOVE_TO_BACKLOG_JOB: Effect.STORE_BACKLOG,
    data.STORE_AIP_JOB: Effect.STORE_AIP,
    data.STORE_DIP_JOB: Effect.STORE_DIP,
}
FAILURE_EXIT_CODE = 1
_LINK_NAMESPACE = uuid.UUID("2f1c4b9e-5a7d-4e36-9b0a-6c3d8e7f1a24")


@dataclass(frozen=True, slots=True)
class StepTemplate:
    group: str
    job: str
    kind: StepKind
    track: Track
    link_uuid: str
    user_decision: bool  # a decision that the built-in default config leaves to a person
    exit_code: int  # exit code of its tasks once done
    failed: bool = False


@dataclass(frozen=True)
class Route:
    steps: tuple[StepTemplate, ...]
    main_count: int  # steps[:main_count] are MAIN, the rest DIP
    outcome: Outcome
    effects: tuple[tuple[int, Effect], ...]
    # First index of each (job, track); status derivation asks often.
    _positions: dict[tuple[str, Track], int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        positions: dict[tuple[str, Track], int] = {}
        for index, step in enumerate(self.steps):
            positions.setdefault((step.job, step.track), index)
        object.__setattr__(self, "_positions", positions)

    def index_of(self, job: str, track: Track = Track.MAIN) -> int | None:
        return self._positions.get((job, track))


def _link_uuid(group: str, job: str, occurrence: int) -> str:
    point = data.DECISIONS_BY_STEP.get((group, job))
    if point is not None:
        return point.link_id
    return str(uuid.uuid5(_LINK_NAMESPACE, f"{group}/{job}/{occurrence}"))


def _expand(groups: tuple[data.GroupJobs, ...], track: Track) -> list[StepTemplate]:
    steps = []
    seen: dict[tuple[str, str], int] = {}
    for group, jobs in groups:
        for job in jobs:
            occurrence = seen.get((group, job), 0)
            seen[(group, job)] = occurrence + 1
            point = data.DECISIONS_BY_STEP.get((group, job))
            if point is not None or job.endswith("?"):
                kind = StepKind.DECISION
            elif (group, job) in data.FILE_LEVEL_JOBS:
                kind = StepKind.FILES
            else:
                kind = StepKind.TASK
            steps.append(
                StepTemplate(
                    group=group,
                    job=job,
                    kind=kind,
                    track=track,
                    link_uuid=_link_uuid(group, job, occurrence),
                    user_decision=point is not None and not point.answered_by_default_config,
                    exit_code=data.BRANCH_EXIT_CODES.get(job, 0),
                )
            )
    return steps


def _approval_step(transfer_type: str) -> StepTemplate:
    approval = data.APPROVALS[transfer_type]
    return StepTemplate(
        group=approval.group,
        job=approval.job,
        kind=StepKind.DECISION,
        track=Track.MAIN,
        link_uuid=_link_uuid(approval.group, approval.job, 0),
        user_decision=True,
        exit_code=0,
    )


def _fail_at(steps: list[StepTemplate], index: int, tail: data.GroupJobs) -> list[StepTemplate]:
    failing = steps[index]
    failed = StepTemplate(
        failing.group,
        failing.job,
        failing.kind,
        failing.track,
        failing.link_uuid,
        failing.user_decision,
        FAILURE_EXIT_CODE,
        failed=True,
    )
    return steps[:index] + [failed] + _expand((tail,), Track.MAIN)


def _effects(steps: list[StepTemplate]) -> tuple[tuple[int, Effect], ...]:
    return tuple(
        (index, EFFECT_JOBS[step.job])
        for index, step in enumerate(steps)
        if step.job in EFFECT_JOBS
    )


@cache
def failure_candidates(kind: str) -> tuple[int, ...]:
    """Step indexes where a unit may fail: jobs with tasks, before the point of no return."""
    steps = _unfailed_steps(kind)
    if kind == "transfer":
        stop = len(steps) - 3  # not in "Create SIP from Transfer"
    else:
        # Before "Prepare DIP", so no DIP chain has started.
        stop = next(i for i, step in enumerate(steps) if step.group == "Prepare DIP")
    return tuple(i for i in range(1, stop) if steps[i].kind is not StepKind.DECISION)


@cache
def _unfailed_steps(kind: str) -> tuple[StepTemplate, ...]:
    if kind == "transfer":
        return (_approval_step("standard"), *_expand(data.TRANSFER_SEQUENCE, Track.MAIN))
    return tuple(_expand(data.INGEST_SEQUENCE, Track.MAIN))


def history_failure(kind: str, rng: random.Random) -> int:
    """A step to fail at, weighted towards the jobs that fail in real pipelines."""
    candidates = failure_candidates(kind)
    steps = _unfailed_steps(kind)
    weights = [data.HISTORY_FAILURE_WEIGHTS.get(steps[index].job, 0.2) for index in candidates]
    return rng.choices(candidates, weights=weights)[0]


@cache
def transfer_route(transfer_type: str, outcome: Outcome, fail_index: int | None = None) -> Route:
    steps = [_approval_step(transfer_type), *_expand(data.TRANSFER_SEQUENCE, Track.MAIN)]
    if outcome is Outcome.FAILED:
        if fail_index is None:
            raise ValueError("a failing route needs the failing step")
        steps = _fail_at(steps, fail_index, data.FAILED_TRANSFER)
    elif outcome is Outcome.SIP:
        steps += _expand((data.SIP_CREATION_JOBS,), Track.MAIN)
    elif outcome is Outcome.BACKLOG:
        steps += _expand((data.BACKLOG_JOBS,), Track.MAIN)
    elif outcome is Outcome.REJECTED:
        steps += _expand((data.REJECT_TRANSFER,), Track.MAIN)
    else:
        raise ValueError(f"{outcome} is not a transfer outcome")
    return Route(tuple(steps), len(steps), outcome, _effects(steps))


@cache
def sip_route(
    outcome: Outcome, with_dip: bool, fail_index: int | None = None, *, reingest: bool = False
) -> Route:
    steps = _expand(data.INGEST_SEQUENCE, Track.MAIN)
    if reingest:
        # A partial reingest waits for its approval before the ingest jobs.
        steps = _expand((data.REINGEST_APPROVAL,), Track.MAIN) + steps
    if outcome is Outcome.FAILED:
        if fail_index is None:
            raise ValueError("a failing route needs the failing step")
        steps = _fail_at(steps, fail_index, data.FAILED_SIP)
        return Route(tuple(steps), len(steps), outcome, _effects(steps))
    if outcome is not Outcome.STORED:
        raise ValueError(f"{outcome} is not a SIP outcome")
    main_count = len(steps)
    if with_dip:
        steps += _expand(data.DIP_SEQUENCE, Track.DIP)
    return Route(tuple(steps), main_count, outcome, _effects(steps))


@dataclass(slots=True)
class Plan:
    """One unit's route with seeded timings (seconds after the anchor)."""

    route: Route
    starts: array
    durations: array
    waiting: frozenset[int]  # decisions that show USER_INPUT while they last
    parked: int | None = None  # a decision left unanswered for hours

    @property
    def main_end(self) -> float:
        last = self.route.main_count - 1
        return self.starts[last] + self.durations[last]


@dataclass(frozen=True)
class Pace:
    """How long things take, in simulated seconds."""

    wait_probability: float = 0.12  # each user decision keeps the unit waiting
    archivist_wait: tuple[float, float] = (60.0, 2400.0)
    parked_wait: tuple[float, float] = (6 * 3600.0, 24 * 3600.0)
    per_file: tuple[float, float] = (0.2, 4.0)
    slow_job: tuple[float, float] = (1.0, 20.0)
    slow_job_share: float = 0.3
    # (group, factor): the group's jobs take that many times longer.
    slowdown: tuple[tuple[str, float], ...] = ()


DEFAULT_PACE = Pace()
# The back-dated history: groups at their real relative speeds, and archivists who
# sometimes leave a decision for hours.
HISTORY_PACE = Pace(
    archivist_wait=(120.0, 4 * 3600.0),
    slowdown=tuple(data.HISTORY_GROUP_SLOWDOWN.items()),
)


def _duration(
    step: StepTemplate, rng: random.Random, files: int, pace: Pace, factor: float
) -> float:
    if step.kind is StepKind.DECISION:
        return rng.uniform(0.05, 0.8)
    if step.kind is StepKind.FILES:
        return factor * min(600.0, files * rng.uniform(*pace.per_file))
    if rng.random() < pace.slow_job_share:
        return factor * rng.uniform(*pace.slow_job)
    return factor * rng.uniform(0.1, 0.95)  # most directory-level jobs take under a second


def make_plan(
    route: Route,
    rng: random.Random,
    files: int,
    *,
    pace: Pace = DEFAULT_PACE,
    first_is_approval: bool = False,
    park: bool = False,
) -> Plan:
    count = len(route.steps)
    parked = None
    if park:
        decisions = [
            index
            for index, step in enumerate(route.steps[: route.main_count])
            if step.user_decision and index > 0
        ]
        parked = rng.choice(decisions) if decisions else None
    starts = array("d", [0.0] * count)
    durations = array("d", [0.0] * count)
    waiting = set()
    clock = 0.0
    dip_from: float | None = None
    slowdowns = dict(pace.slowdown)
    for index, step in enumerate(route.steps):
        if index == route.main_count:
            # The DIP chain starts when the DIP has been generated, in parallel with the rest.
            clock = dip_from if dip_from is not None else clock
        if index == 0 and first_is_approval:
            # The approval's own timing is the unit's business (it ends at the anchor).
            waiting.add(0)
            continue
        duration = _duration(step, rng, files, pace, slowdowns.get(step.group, 1.0))
        if index == parked:
            duration = rng.uniform(*pace.parked_wait)
            waiting.add(index)
        elif step.user_decision and rng.random() < pace.wait_probability:
            duration = rng.uniform(*pace.archivist_wait)
            waiting.add(index)
        clock += rng.uniform(0.0, 0.3)  # scheduling gap between jobs
        starts[index] = clock
        durations[index] = duration
        clock += duration
        if step.job == data.GENERATE_DIP_JOB:
            dip_from = clock
    _store_dip_after_aip(route, starts, durations)
    return Plan(route, starts, durations, frozenset(waiting), parked)


def _store_dip_after_aip(route: Route, starts: array, durations: array) -> None:
    """Storage relates a DIP to its AIP, so the DIP is stored after the AIP."""
    store_aip = route.index_of(data.STORE_AIP_JOB)
    store_dip = route.index_of(data.STORE_DIP_JOB, Track.DIP)
    if store_aip is None or store_dip is None:
        return
    aip_stored = starts[store_aip] + durations[store_aip]
    delay = aip_stored + 0.5 - starts[store_dip]
    if delay > 0:
        for index in range(store_dip, len(route.steps)):
            starts[index] += delay


def answered_plan(
    plan: Plan,
    index: int,
    answered_at: float,
    rng: random.Random,
    *,
    pace: Pace = DEFAULT_PACE,
    tail: tuple[data.GroupJobs, ...] | None = None,
    outcome: Outcome | None = None,
) -> Plan:
    """The plan after the decision at `index` was answered `answered_at` seconds after the
    anchor: the decision ends then. Without a `tail` the unit goes on along its route,
    sooner; with one (a rejection, backlog, SIP creation) the route after the decision is
    replaced by the tail's jobs."""
    route = plan.route
    step = route.steps[index]
    starts, durations = array("d", plan.starts), array("d", plan.durations)
    old_end = starts[index] + durations[index]
    durations[index] = max(0.0, answered_at - starts[index])
    if tail is None:
        delta = starts[index] + durations[index] - old_end
        dip_waits = step.track is Track.MAIN and _dip_starts_after(route, index)
        for later in range(index + 1, len(route.steps)):
            if route.steps[later].track is step.track or dip_waits:
                starts[later] += delta
        _store_dip_after_aip(route, starts, durations)
        return Plan(route, starts, durations, plan.waiting, plan.parked)
    kept = list(route.steps[: index + 1])
    if step.track is Track.MAIN:
        kept = kept[: min(len(kept), route.main_count)]
    steps = kept + _expand(tail, Track.MAIN)
    main_count = len(steps) if step.track is Track.MAIN else route.main_count
    new_route = Route(tuple(steps), main_count, outcome or route.outcome, _effects(steps))
    new_starts = array("d", starts[: index + 1]) + array("d", [0.0] * (len(steps) - index - 1))
    new_durations = array("d", durations[: index + 1]) + array(
        "d", [0.0] * (len(steps) - index - 1)
    )
    clock = new_starts[index] + new_durations[index]
    for later in range(index + 1, len(steps)):
        clock += rng.uniform(0.0, 0.3)
        new_starts[later] = clock
        new_durations[later] = _duration(steps[later], rng, 1, pace, 1.0)
        clock += new_durations[later]
    waiting = frozenset(i for i in plan.waiting if i <= index)
    return Plan(new_route, new_starts, new_durations, waiting, None)


def _dip_starts_after(route: Route, index: int) -> bool:
    """The DIP chain has not begun by the main track's step `index`."""
    generate = route.index_of(data.GENERATE_DIP_JOB)
    return generate is not None and generate >= index
