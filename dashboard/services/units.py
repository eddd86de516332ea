"""Writes: the workflow pollers that keep the `Unit` table in step with each pipeline.

Only this module calls the workflow clients on a schedule and only it writes units,
their jobs (`UnitJobs`) and the history (`StatusChange`). Every function is synchronous
and safe to run twice: a repeated poll changes nothing. Writes are batched: a cycle
loads what it needs in a few queries, and stores its status answers a hundred at a time
as they come in, each batch in a few statements.
"""

from __future__ import annotations

import enum
import functools
import logging
import operator
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, fields, is_dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.models import CharField, Field, Max, Q
from django.utils import timezone

from dashboard.clients.base import UpstreamAuthError, UpstreamError, UpstreamUnavailable
from dashboard.clients.workflow import (
    Job,
    UnitStatus,
    WorkflowClient,
    WorkflowNotFound,
    WorkflowUnitPending,
    get_workflow_client,
)
from dashboard.clients.workflow_dashboard import WorkflowDashboardClient
from dashboard.lib import page_cache, vocabulary
from dashboard.lib.fan_out import FanOut
from dashboard.lib.pipelines import PipelineConfig
from dashboard.lib.secret_redaction import redact_secrets
from dashboard.lib.sql_batches import in_batches
from dashboard.models import (
    FINAL_STATUSES,
    PENDING,
    UNKNOWN,
    FailureGroupCount,
    StatusChange,
    TimesFrom,
    Unit,
    UnitJobs,
    UnitStatusCount,
)
from dashboard.selectors import ingest as ingest_selectors
from dashboard.services import analytics
from dashboard.services.dashboard_discovery import (
    DashboardListing,
    completed_lists_due,
    dashboard_lists_read,
    hidden_upstream_mark,
    public_waiting_lists_due,
)
from dashboard.services.decisions import decisions_settle
from dashboard.services.freshness import PollSummary, service_poll_record
from dashboard.services.poll_schedule import is_due, next_poll_after_failed_read, next_poll_at
from dashboard.services.unit_times import upstream_times

log = logging.getLogger(__name__)

# A unit the workflow service no longer knows (deleted upstream) is dropped after this
# many polls in a row answer "not found".
MISSING_LIMIT = 3

T = TypeVar("T")
R = TypeVar("R")


# --- helpers ------------------------------------------------------------------


def _outcome(func: Callable[[T], R], item: T) -> R | Exception:
    """`func(item)`, or the upstream error it raised."""
    try:
        return func(item)
    except UpstreamError as exc:
        return exc


def _parallel(func: Callable[[T], R], items: list[T]) -> list[tuple[T, R | Exception]]:
    """Run `func` over items with bounded concurrency; upstream errors are returned."""
    if not items:
        return []
    workers = min(settings.LOOKOUT_POLL_CONCURRENCY, len(items))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="lookout-poll") as pool:
        return FanOut(pool, functools.partial(_outcome, func), items, workers).results()


def plain(value: Any) -> Any:
    """Turn client dataclasses and enums into plain data for the cache."""
    if isinstance(value, enum.Enum):
        return value.value
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


# --- unit registration (units started through Lookout) -------------------------


def unit_register(*, pipeline: str, uuid: str, kind: str = "", name: str = "") -> None:
    """Track a unit the discovery lists cannot show (a running one), from the next poll."""
    now = timezone.now()
    # One upsert, not a look-up, a savepoint and an insert: every start of an ingest run
    # comes here. A unit known already is only polled again from the next cycle.
    Unit.objects.bulk_create(
        [
            Unit(
                pipeline=pipeline,
                uuid=uuid,
                kind=kind,
                name=name,
                first_seen_at=now,
                updated_at=now,
                next_poll_at=now,
            )
        ],
        update_conflicts=True,
        unique_fields=["pipeline", "uuid"],
        update_fields=["next_poll_at"],
    )
    page_cache.bump()  # a bulk write sends no post_save


def unit_reopen(*, pipeline: str, uuid: str) -> None:
    """A finished unit the service runs again (a reingest keeps the AIP's UUID): poll it
    from the next cycle, as the discovery lists will not say it is running."""
    Unit.objects.filter(pipeline=pipeline, uuid=uuid).update(
        status=UNKNOWN, awaiting_sip_uuid=False, next_poll_at=timezone.now()
    )


# --- workflow poll ------------------------------------------------------------


@dataclass
class _Discovery:
    unapproved: dict[str, Any]
    waiting: dict[str, list[Any]]
    completed_transfers: set[str]
    completed_ingests: set[str]
    requests: int = 0
    # False when the public waiting lists were not asked for (the dashboard lists cover
    # them between their reads): the stored waits stand.
    public_waits: bool = True
    # The dashboard lists (with a service account): every unit, or the kept waits.
    dashboard: DashboardListing = field(default_factory=DashboardListing)


def _ask_for_lists(
    client: WorkflowClient,
    pool: ThreadPoolExecutor,
    *,
    completed: bool = True,
    waiting: bool = True,
) -> Callable[[], _Discovery]:
    """Send the four requests for the lists that tell which units exist, all at once.

    One after another they cost four round trips (about a tenth of a 1,000-unit cycle),
    and the cycle loads its working set meanwhile. The returned function waits for the
    answers; an outage or auth failure raises from it. Without `completed` (the dashboard
    lists discover the finished units) the two completed lists are not asked for; without
    `waiting` (the dashboard lists give every wait) neither are the two waiting lists.
    """

    def ask(read: Callable[[], tuple[Any, ...]], wanted: bool) -> Future[tuple[Any, ...]]:
        return pool.submit(read if wanted else tuple)

    unapproved = ask(client.list_unapproved_transfers, waiting)
    waits = ask(client.list_waiting, waiting)
    completed_transfers = ask(client.list_completed_transfers, completed)
    completed_ingests = ask(client.list_completed_ingests, completed)

    def answers() -> _Discovery:
        # Read in this order, so the error raised is the one raised when they ran in turn.
        discovery = _Discovery({}, {}, set(), set())
        for transfer in unapproved.result():
            discovery.unapproved[transfer.uuid] = transfer
        for entry in waits.result():
            discovery.waiting.setdefault(entry.uuid, []).append(entry)
        discovery.completed_transfers = set(completed_transfers.result())
        discovery.completed_ingests = set(completed_ingests.result())
        discovery.requests = 2 * completed + 2 * waiting
        discovery.public_waits = waiting
        return discovery

    return answers


def _new_unit(pipeline: str, uuid: str, kind: str, now: datetime) -> Unit:
    return Unit(pipeline=pipeline, uuid=uuid, kind=kind, first_seen_at=now, updated_at=now)


def _apply_discovery(
    pipeline: str, units: dict[str, Unit], known: _KnownUuids, found: _Discovery, now: datetime
) -> int:
    discovered = 0

    def ensure(uuid: str, kind: str) -> Unit:
        nonlocal discovered
        unit = units.get(uuid)
        if unit is None:
            unit = units[uuid] = _new_unit(pipeline, uuid, kind, now)
            discovered += 1
        elif not unit.kind and kind:
            unit.kind = kind
        return unit

    for uuid, transfer in found.unapproved.items():
        unit = ensure(uuid, "transfer")
        unit.transfer_type = str(transfer.transfer_type)
        unit.directory = unit.directory or transfer.directory
        unit.name = unit.name or transfer.directory
    for uuid, entries in found.waiting.items():
        unit = ensure(uuid, "")
        unit.name = unit.name or entries[0].name
        unit.directory = unit.directory or entries[0].directory
    for uuid, kind, completed in [
        *((u, "transfer", True) for u in found.completed_transfers),
        *((u, "sip", True) for u in found.completed_ingests),
    ]:
        loaded = units.get(uuid)
        if loaded is None and uuid in known:
            continue  # finished and recorded already
        if loaded is None:
            # Already finished before we first saw it: record as complete and fetch its
            # details later within the backfill budget (no history row: not a change we saw).
            unit = ensure(uuid, kind)
            unit.status = "COMPLETE"
            unit.needs_details = True
        elif not loaded.finished and completed:
            loaded.next_poll_at = now

    listing = found.dashboard
    for uuid, listed in listing.units.items():
        unit_or_none = units.get(uuid)
        if unit_or_none is None:
            if not listing.complete or uuid in known:
                continue  # only the kept waits, or finished and recorded already
            unit_or_none = ensure(uuid, listed.kind)
            unit_or_none.name = unit_or_none.name or listed.directory
            if not listed.active and not listed.waiting:
                # Finished before Lookout saw it: details later, within the backfill
                # budget (no history row: not a change Lookout saw).
                unit_or_none.status = "FAILED" if listed.failed_job else "COMPLETE"
                unit_or_none.needs_details = True
        unit = unit_or_none
        unit.directory = unit.directory or listed.directory
        if listed.failed_job and unit.failed_at_from != TimesFrom.UPSTREAM:
            unit.failed_job, unit.failed_job_uuid = listed.failed_job, listed.failed_job_uuid
            unit.failed_group = listed.failed_group
            unit.failed_at, unit.failed_at_from = listed.failed_at, TimesFrom.UPSTREAM

    if not found.public_waits:
        return discovered  # between two reads of the dashboard lists: no news of waits
    for unit in units.values():
        approval = unit.uuid in found.unapproved
        waiting = found.waiting.get(unit.uuid)
        listed_wait = listing.units.get(unit.uuid)
        if listed_wait is not None and not listed_wait.waiting:
            listed_wait = None
        now_waiting = approval or bool(waiting) or listed_wait is not None
        if listed_wait is not None and (
            unit.waiting_since != listed_wait.waiting_since
            or unit.waiting_since_from != TimesFrom.UPSTREAM
        ):
            # The decision job's creation: when the wait really began (approvals too).
            unit.waiting_since = listed_wait.waiting_since
            unit.waiting_since_from = TimesFrom.UPSTREAM
        elif now_waiting and not unit.awaiting_decision:
            # Seen now; the jobs refresh replaces it with the service's own time.
            unit.waiting_since = now
            unit.waiting_since_from = TimesFrom.OBSERVED
        if not now_waiting and (unit.awaiting_decision or unit.awaiting_approval):
            # It moved on since the last look: refresh it in this cycle.
            unit.next_poll_at = now
            unit.waiting_since = None
        unit.awaiting_approval = approval
        unit.awaiting_decision = now_waiting
        if waiting:
            unit.decision = " / ".join(
                dict.fromkeys(e.microservice for e in waiting if e.microservice)
            )
        elif listed_wait is not None:
            unit.decision = listed_wait.decision or unit.decision
        elif approval:
            unit.decision = unit.decision or vocabulary.APPROVE_TRANSFER
        else:
            unit.decision = ""
        # The job and choices to answer it with: only the dashboard lists give them.
        if listed_wait is not None:
            unit.decision_job_uuid = listed_wait.decision_job_uuid or None
            unit.decision_choices = listed_wait.decision_choices or None
        elif not now_waiting:
            unit.decision_job_uuid = unit.decision_choices = None
    return discovered


def _fetch_status(client: WorkflowClient, unit: Unit) -> UnitStatus:
    if unit.kind == "sip":
        return client.get_ingest_status(unit.uuid)
    if unit.kind == "transfer":
        return client.get_transfer_status(unit.uuid)
    # The waiting list mixes transfers and SIPs without saying which.
    try:
        return client.get_transfer_status(unit.uuid)
    except WorkflowNotFound:
        return client.get_ingest_status(unit.uuid)


def _kind(status: UnitStatus) -> str:
    return "sip" if str(status.kind).lower() == "sip" else "transfer"


def _apply_status(
    unit: Unit, status: UnitStatus, now: datetime, changes: list[StatusChange]
) -> bool:
    new_status = str(status.status)
    new_microservice = status.microservice or ""
    first_sight_of_finished = unit.status in (UNKNOWN, "COMPLETE") and unit.needs_details
    changed = (unit.status, unit.microservice) != (new_status, new_microservice)
    if changed and not first_sight_of_finished:
        changes.append(
            StatusChange(
                pipeline=unit.pipeline,
                unit_uuid=unit.uuid,
                unit_kind=_kind(status),
                unit_name=(status.name or unit.name)[:255],
                from_status="" if unit.status == UNKNOWN else unit.status,
                to_status=new_status,
                microservice=new_microservice[:255],
                at=now,
            )
        )
    if changed:
        unit.updated_at = now
        unit.status_since, unit.status_since_from = now, TimesFrom.OBSERVED
        if new_status == "FAILED" and unit.failed_at is None:
            unit.failed_at, unit.failed_at_from = now, TimesFrom.OBSERVED
        if new_status in FINAL_STATUSES and not first_sight_of_finished:
            unit.seen_finishing = True
    if first_sight_of_finished and new_status in FINAL_STATUSES:
        unit.learn_jobs = True
    unit.needs_details = False
    unit.kind = _kind(status)
    unit.status = new_status
    unit.microservice = new_microservice
    unit.name = status.name or unit.name
    unit.path = status.path or unit.path
    unit.directory = status.directory or unit.directory
    unit.sip_uuid = status.sip_uuid
    unit.sent_to_backlog = status.sent_to_backlog
    unit.awaiting_sip_uuid = status.awaiting_sip_uuid
    if new_status == "USER_INPUT":
        if not unit.awaiting_decision and unit.waiting_since is None:
            unit.waiting_since, unit.waiting_since_from = now, TimesFrom.OBSERVED
        unit.awaiting_decision = True
        unit.decision = unit.decision or new_microservice
    unit.poll_error = ""
    unit.missing_count = 0
    return changed


def _drop_repeated_changes(changes: list[StatusChange]) -> list[StatusChange]:
    """Skip first sightings that repeat the last recorded row (the cache was emptied)."""
    first_sightings = [c for c in changes if not c.from_status]
    if not first_sightings:
        return changes
    pipeline = first_sightings[0].pipeline
    latest_ids = (
        StatusChange.objects.filter(
            pipeline=pipeline, unit_uuid__in=[c.unit_uuid for c in first_sightings]
        )
        .values("unit_uuid")
        .annotate(last_id=Max("id"))
        .values_list("last_id", flat=True)
    )
    last = {
        (str(row.unit_uuid)): (row.to_status, row.microservice)
        for row in StatusChange.objects.filter(id__in=list(latest_ids))
    }
    return [
        c
        for c in changes
        if c.from_status or last.get(str(c.unit_uuid)) != (c.to_status, c.microservice)
    ]


def _link_sip(
    units: dict[str, Unit], known: _KnownUuids, transfer: Unit, now: datetime
) -> Unit | None:
    """The SIP a completed transfer names, new to Lookout; None if already known."""
    if not transfer.sip_uuid or transfer.sip_uuid in units or transfer.sip_uuid in known:
        sip = units.get(transfer.sip_uuid or "")
        if sip is not None and not sip.transfer_uuid:
            sip.transfer_uuid = transfer.uuid
        return None
    sip = _new_unit(transfer.pipeline, transfer.sip_uuid, "sip", now)
    sip.transfer_uuid = transfer.uuid
    sip.name = transfer.name
    units[sip.uuid] = sip
    return sip


# Fields a poll may change on a unit it loaded; only units whose values differ are written.
_POLLED_FIELDS = (
    "kind", "name", "status", "microservice", "path", "directory", "transfer_type",
    "sip_uuid", "transfer_uuid", "sent_to_backlog", "awaiting_sip_uuid", "awaiting_approval",
    "awaiting_decision", "decision", "decision_job_uuid", "decision_choices",
    "waiting_since", "waiting_since_from", "status_since", "status_since_from",
    "failed_job", "failed_job_uuid", "failed_group", "failed_at", "failed_at_from",
    "updated_at", "last_polled_at", "next_poll_at", "poll_error", "missing_count",
    "needs_details", "seen_finishing", "learn_jobs", "listed_progress",
)  # fmt: skip


# Units per PostgreSQL array update (one array per column, each this long at most).
_ARRAY_BATCH = 5000


# One C call per unit instead of a generator of getattr calls: a cycle reads every due
# unit's polled fields twice (before and after), 20,000 times at 10,000 units.
_values: Callable[[Unit], tuple[Any, ...]] = operator.attrgetter(*_POLLED_FIELDS)


def _working_set(pipeline: str) -> dict[str, Unit]:
    """The units a cycle may change: unfinished, waiting, or still to be detailed.

    Finished units stay in the database untouched: a cycle costs the same with a
    hundred thousand of them in history as with none. (`_named_units` adds the finished
    ones a waiting list names.)
    """
    rows = Unit.objects.raw(
        f'SELECT * FROM "dashboard_unit" WHERE "pipeline" = %s AND ({_WORKING_SET_SQL})',
        [pipeline],
    )
    return {unit.uuid: unit for unit in rows}


def _schedule(pipeline: str) -> list[Unit]:
    """The working set with only what `_due` and `_fetch_status` read: a tenth of the
    time to load, so the status requests start before the whole units are loaded."""
    return list(
        Unit.objects.raw(
            f'SELECT {", ".join(_SCHEDULE_COLUMNS)} FROM "dashboard_unit" '
            f'WHERE "pipeline" = %s AND ({_WORKING_SET_SQL})',
            [pipeline],
        )
    )


# `models.WORKING_SET` as the partial index `unit_working_set` has it. SQLite reads a
# partial index only for a query that repeats the index's condition word for word, with
# literals where the index has them: the ORM's bound parameters would make it read every
# finished unit of the pipeline instead (60 ms a cycle at 100,000).
_WORKING_SET_SQL = (
    'NOT ("status" IN ({})) OR "awaiting_sip_uuid" OR "needs_details" OR "awaiting_decision"'
).format(", ".join(f"'{status}'" for status in sorted(FINAL_STATUSES)))


_SCHEDULE_COLUMNS = tuple(
    f'"{name}"'
    for name in (
        "id",
        "uuid",
        "kind",
        "status",
        "awaiting_sip_uuid",
        "hidden",
        "next_poll_at",
        "listed_progress",
    )
)


def _named_units(pipeline: str, units: dict[str, Unit], found: _Discovery) -> dict[str, Unit]:
    """Units the unapproved and waiting lists (the dashboard's too) name that the working
    set does not hold."""
    listed_waiting = (uuid for uuid, unit in found.dashboard.units.items() if unit.waiting)
    named = [
        uuid for uuid in (*found.unapproved, *found.waiting, *listed_waiting) if uuid not in units
    ]
    rows: dict[str, Unit] = {}
    for chunk in in_batches(named):
        rows.update(
            (unit.uuid, unit) for unit in Unit.objects.filter(pipeline=pipeline, uuid__in=chunk)
        )
    return rows


class _KnownUuids:
    """Which of the pipeline's UUIDs the `Unit` table holds, asked about only those in question.

    Loading every UUID of the pipeline made each cycle scan the whole history; the UUIDs
    a cycle meets outside its working set are those of the completed lists and the SIPs
    that completed transfers name, so their lookups cost what those lists cost, and
    nothing for the finished units in history that upstream no longer lists.
    """

    def __init__(self, pipeline: str) -> None:
        self.pipeline = pipeline
        self._answers: dict[str, bool] = {}

    def check(self, uuids: Iterable[str]) -> None:
        """Look up the ones not asked about yet, a chunk of them per query."""
        todo = [uuid for uuid in dict.fromkeys(uuids) if uuid not in self._answers]
        for chunk in in_batches(todo):
            found = set(
                Unit.objects.filter(pipeline=self.pipeline, uuid__in=chunk).values_list(
                    "uuid", flat=True
                )
            )
            self._answers.update((uuid, uuid in found) for uuid in chunk)

    def __contains__(self, uuid: str) -> bool:
        if uuid not in self._answers:
            self.check([uuid])
        return self._answers[uuid]


# PostgreSQL refuses a string longer than its column (SQLite keeps it whole): upstream
# text is cut to fit instead of failing the poll that writes it, every cycle.
_CHAR_LIMITS = tuple(
    (field.attname, field.max_length)
    for field in Unit._meta.concrete_fields
    if isinstance(field, CharField) and field.max_length
)


def _fit_columns(unit: Unit) -> None:
    for name, length in _CHAR_LIMITS:
        value = getattr(unit, name)
        if value is not None and len(value) > length:
            setattr(unit, name, value[:length])


def _update_each(units: list[Unit], fields: tuple[str, ...]) -> None:
    """UPDATE the `fields` of each unit by id.

    `bulk_update` would build a CASE WHEN expression per unit and field (about 60 µs of
    CPU each: 10 s when 10,000 units changed) and hold them all in memory. SQLite runs
    one prepared statement per unit (`executemany`, in-process, cheap); PostgreSQL gets
    the values as one array per column and updates every unit in one statement, where a
    statement per unit costs the server a round of planning and executing each (about
    50 ms at 1,000 units). Values go through each field's own conversion, as in the ORM.
    """
    meta = Unit._meta
    by_name = {field.name: field for field in meta.concrete_fields}
    columns = [by_name[name] for name in fields]
    # Most values repeat across units (a cycle's own time, a status, a flag): each
    # distinct value of a field is converted once.
    converted: list[dict[Any, Any]] = [{} for _ in columns]

    def prepared(index: int, field: Field[Any, Any], value: Any) -> Any:
        seen = converted[index]
        try:
            return seen[value]
        except KeyError:
            seen[value] = field.get_db_prep_save(value, connection)
            return seen[value]
        except TypeError:  # unhashable: convert every time
            return field.get_db_prep_save(value, connection)

    rows = [
        [
            prepared(index, field, getattr(unit, field.attname))
            for index, field in enumerate(columns)
        ]
        + [unit.pk]
        for unit in units
    ]
    quote = connection.ops.quote_name
    table, pk = quote(meta.db_table), quote(meta.pk.column)
    with connection.cursor() as cursor:
        if connection.vendor != "postgresql":
            assignments = ", ".join(f"{quote(field.column)} = %s" for field in columns)
            cursor.executemany(f"UPDATE {table} SET {assignments} WHERE {pk} = %s", rows)
            return
        names = [f"v{index}" for index in range(len(columns))]
        assignments = ", ".join(
            f"{quote(field.column)} = given.{name}"
            for field, name in zip(columns, names, strict=True)
        )
        arrays = ", ".join(f"%s::{field.db_type(connection)}[]" for field in columns)
        sql = (
            f"UPDATE {table} SET {assignments} "
            f"FROM unnest({arrays}, %s::bigint[]) AS given({', '.join(names)}, id) "
            f"WHERE {table}.{pk} = given.id"
        )
        for start in range(0, len(rows), _ARRAY_BATCH):
            batch = rows[start : start + _ARRAY_BATCH]
            cursor.execute(sql, [list(column) for column in zip(*batch, strict=True)])


def _store(
    pipeline: str, units: dict[str, Unit], before: dict[str, tuple[Any, ...]], gone: list[Unit]
) -> None:
    """One insert for new units, few updates for changed ones, one delete for gone ones."""
    for unit in units.values():
        _fit_columns(unit)
    new = [unit for unit in units.values() if unit.pk is None]
    # Write only the fields a cycle changed, so it never puts back a value the jobs
    # refresh wrote meanwhile (the service's own waiting time, say). Units that got the
    # same new values (in a quiet cycle most only get the same `last_polled_at` and
    # `next_poll_at`) share one plain UPDATE ... WHERE id IN (...); the others are
    # written by `_update_each`, one statement per set of changed fields.
    same_values: dict[tuple[tuple[str, Any], ...], list[Unit]] = {}
    for unit in units.values():
        if unit.pk is None:
            continue
        after = _values(unit)
        if after == before[unit.uuid]:
            continue
        changes = tuple(
            (name, value)
            for name, old, value in zip(_POLLED_FIELDS, before[unit.uuid], after, strict=True)
            if old != value
        )
        if changes:
            same_values.setdefault(changes, []).append(unit)
    by_fields: dict[tuple[str, ...], list[Unit]] = {}
    for changes, group in list(same_values.items()):
        if len(group) == 1:
            del same_values[changes]
            by_fields.setdefault(tuple(name for name, _ in changes), []).extend(group)
    with transaction.atomic():
        # A unit registered by an action meanwhile wins; the next cycle refreshes it.
        Unit.objects.bulk_create(new, batch_size=500, ignore_conflicts=True)
        for changes, group in same_values.items():
            pks = [unit.pk for unit in group]
            for chunk in in_batches(pks):
                Unit.objects.filter(pk__in=chunk).update(**dict(changes))
        for fields, changed in by_fields.items():
            _update_each(changed, fields)
        if gone:
            Unit.objects.filter(pk__in=[unit.pk for unit in gone]).delete()
        page_cache.bump()


def _refresh(
    client: WorkflowClient,
    due: list[Unit],
    *,
    units: dict[str, Unit],
    known: _KnownUuids,
    now: datetime,
    changes: list[StatusChange],
    listing: DashboardListing,
    fetched: dict[str, UnitStatus | Exception] | None = None,
) -> tuple[int, int, int, list[Unit]]:
    """Fetch the status of `due` units (but those already `fetched`, by UUID) and apply
    them; returns changed, failed, outage and new SIPs. A unit read while the dashboard
    lists were just read keeps its listed progress: the lists cover it from now on."""
    changed = failed = outage = 0
    new_sips: list[Unit] = []
    base = timedelta(seconds=settings.LOOKOUT_WORKFLOW_POLL_INTERVAL)
    fetched = fetched or {}
    fresh = _parallel(
        lambda unit: _fetch_status(client, unit), [u for u in due if u.uuid not in fetched]
    )
    answers = iter(fresh)
    results = [
        (unit, fetched[unit.uuid]) if unit.uuid in fetched else next(answers) for unit in due
    ]
    # The SIPs that transfers name, looked up together rather than one query each.
    known.check(
        result.sip_uuid
        for _, result in results
        if isinstance(result, UnitStatus) and result.sip_uuid and result.sip_uuid not in units
    )
    for unit, result in results:
        unit.last_polled_at = now
        if isinstance(result, UnitStatus):
            if result.uuid and result.uuid != unit.uuid:
                log.warning(
                    "workflow status for %s answered for %s; skipped", unit.uuid, result.uuid
                )
                failed += 1
            elif _apply_status(unit, result, now, changes):
                changed += 1
            if listing.complete and (listed := listing.units.get(unit.uuid)) is not None:
                unit.listed_progress = listed.progress or None
            if unit.kind == "transfer" and (sip := _link_sip(units, known, unit, now)):
                new_sips.append(sip)
        elif isinstance(result, WorkflowUnitPending):
            if unit.status in (UNKNOWN, PENDING):
                unit.status = PENDING
        elif isinstance(result, WorkflowNotFound):
            unit.missing_count += 1
            unit.poll_error = str(result)
        elif isinstance(result, (UpstreamUnavailable, UpstreamAuthError)):
            outage += 1
            unit.poll_error = str(result)
        else:
            failed += 1
            unit.poll_error = str(result)
            log.warning("workflow status of %s skipped: %s", unit.uuid, result)
        if isinstance(result, UnitStatus | WorkflowUnitPending):
            unit.next_poll_at = next_poll_at(unit, now=now, base=base)
        else:
            unit.next_poll_at = next_poll_after_failed_read(now=now, base=base)
    return changed, failed, outage, new_sips


# Answers applied and stored together while the others are in flight: enough that a
# write's fixed cost is shared, few enough that the last write is short.
_STORE_BATCH = 100


class _Applied:
    """What a cycle's status reads came to, batch after batch."""

    def __init__(self) -> None:
        self.uuids: set[str] = set()
        self.count = self.changed = self.failed = self.outage = 0
        self.new_sips: list[Unit] = []

    def add(self, units: list[Unit], outcome: tuple[int, int, int, list[Unit]]) -> None:
        changed, failed, outage, new_sips = outcome
        self.uuids.update(unit.uuid for unit in units)
        self.count += len(units)
        self.changed += changed
        self.failed += failed
        self.outage += outage
        self.new_sips += new_sips

    def __contains__(self, uuid: str) -> bool:
        return uuid in self.uuids


def _due(unit: Unit, listing: DashboardListing, now: datetime, followed: set[str]) -> bool:
    """Due on its schedule, unless the dashboard lists cover it. The units of ingest items
    in flight (`followed`) are read on their schedule whatever the lists: their slots
    are filled as soon as they free."""
    if not is_due(unit, now=now):
        return False
    return unit.uuid in followed or not listing.covers(unit, now)


def _mark_moved(units: dict[str, Unit], listing: DashboardListing, now: datetime) -> None:
    """From a complete read of the dashboard lists: a listed unit that moved in them
    since its status was read (or was never read beside them) is read now; one they no
    longer list is no longer covered."""
    if not listing.complete:
        return
    for unit in units.values():
        listed = listing.units.get(unit.uuid)
        if listed is None:
            unit.listed_progress = None
        elif listed.progress != unit.listed_progress and not (unit.finished or unit.hidden):
            unit.listed_progress = None
            unit.next_poll_at = now


def workflow_poll(
    *,
    pipeline: PipelineConfig,
    client: WorkflowClient | None = None,
    now: datetime | None = None,
    dashboard_client: WorkflowDashboardClient | None = None,
    every_source: bool = False,
) -> PollSummary:
    """One full cycle for one pipeline: discovery, then a status refresh of due units.

    With a dashboard account its status lists join the discovery when due (see
    `services.dashboard_discovery`); `every_source` reads every list whatever the
    intervals (`manage.py poll --once`).
    """
    now = now or timezone.now()
    service = f"workflow:{pipeline.slug}"
    started = time.monotonic()

    def finish(summary: PollSummary) -> PollSummary:
        summary = replace(summary, duration_ms=int((time.monotonic() - started) * 1000))
        service_poll_record(
            service=service,
            started_at=now,
            ok=summary.ok,
            error=summary.error,
            duration_ms=summary.duration_ms,
            requests=summary.requests,
        )
        return summary

    lists_pool = ThreadPoolExecutor(4, thread_name_prefix="lookout-discover")
    status_pool = ThreadPoolExecutor(
        settings.LOOKOUT_POLL_CONCURRENCY, thread_name_prefix="lookout-poll"
    )
    reads: FanOut[Unit, UnitStatus | Exception] | None = None
    try:
        try:
            client = client or get_workflow_client(pipeline.client_config())
            discovery = _ask_for_lists(
                client,
                lists_pool,
                completed=completed_lists_due(pipeline=pipeline, now=now, force=every_source),
                waiting=public_waiting_lists_due(pipeline=pipeline, now=now, force=every_source),
            )
            # While the public lists are on their way (never raises: a refusal or an
            # outage of the dashboard is recorded as its own source's).
            listing = (
                dashboard_lists_read(
                    pipeline=pipeline, now=now, client=dashboard_client, force=every_source
                )
                if pipeline.full_view
                else DashboardListing()
            )
            followed = (
                ingest_selectors.ingest_in_flight_unit_uuids(pipeline=pipeline.slug)
                if listing.covered_until is not None
                else set()
            )
            # Units due whatever the lists say: their status requests go out now, beside
            # the lists', and keep going while the working set is loaded and the lists'
            # news applied, so none of these costs the cycle time of its own. (The lists
            # only ever make more units due; all answers are applied after the lists.)
            early = [u for u in _schedule(pipeline.slug) if _due(u, listing, now, followed)]
            reads = FanOut(
                status_pool,
                functools.partial(_outcome, functools.partial(_fetch_status, client)),
                early,
                settings.LOOKOUT_POLL_CONCURRENCY,
            )
            units = _working_set(pipeline.slug)
            found = discovery()
            found.dashboard = listing
        except UpstreamError as exc:
            if reads is not None:
                reads.cancel()  # one round of reads at most
            log.warning("workflow poll of %s failed during discovery: %s", pipeline.slug, exc)
            return finish(
                PollSummary(service=service, ok=False, requests=1, error=redact_secrets(str(exc)))
            )

        units.update(_named_units(pipeline.slug, units, found))
        known = _KnownUuids(pipeline.slug)
        known.check(
            uuid
            for uuid in (*found.completed_transfers, *found.completed_ingests, *listing.units)
            if uuid not in units
        )
        before = {uuid: _values(unit) for uuid, unit in units.items()}
        discovered = _apply_discovery(pipeline.slug, units, known, found, now)
        _mark_moved(units, listing, now)
        # The answers are applied and stored as they come in, so that once the last one
        # is in only the last few are left to write.
        written = dict(before)
        applied = _Applied()
        while not reads.all_handed_out:
            answered = {unit.uuid: answer for unit, answer in reads.completed(_STORE_BATCH)}
            batch = [
                unit
                for uuid in answered
                if (unit := units.get(uuid)) is not None and _due(unit, listing, now, followed)
            ]
            batch_changes: list[StatusChange] = []
            applied.add(
                batch,
                _refresh(
                    client,
                    batch,
                    units=units,
                    known=known,
                    now=now,
                    changes=batch_changes,
                    listing=listing,
                    fetched=answered,
                ),
            )
            StatusChange.objects.bulk_create(_drop_repeated_changes(batch_changes))
            _store(pipeline.slug, {unit.uuid: unit for unit in batch}, written, [])
            written.update((unit.uuid, _values(unit)) for unit in batch)
    finally:
        if reads is not None:
            reads.cancel()  # after an error, one round of reads at most
        lists_pool.shutdown(wait=True, cancel_futures=True)
        status_pool.shutdown(wait=True, cancel_futures=True)

    due = [u for u in units.values() if u.uuid not in applied and _due(u, listing, now, followed)]
    backfill = [
        u for u in units.values() if u.uuid not in applied and u.needs_details and not u.hidden
    ]
    due += backfill[: settings.LOOKOUT_BACKFILL_PER_CYCLE]

    changes: list[StatusChange] = []
    applied.add(
        due,
        _refresh(client, due, units=units, known=known, now=now, changes=changes, listing=listing),
    )
    # A transfer seen completing names its SIP: follow it in the same cycle.
    new_sips = list(applied.new_sips)
    applied.add(
        new_sips,
        _refresh(
            client, new_sips, units=units, known=known, now=now, changes=changes, listing=listing
        ),
    )

    gone = [u for u in units.values() if u.missing_count >= MISSING_LIMIT and u.pk is not None]
    for unit in gone:
        log.info("dropping unit %s: the workflow service no longer knows it", unit.uuid)
        del units[unit.uuid]

    StatusChange.objects.bulk_create(_drop_repeated_changes(changes))
    _store(pipeline.slug, units, written, gone)
    hidden_upstream_mark(pipeline=pipeline.slug, listing=listing)
    decisions_settle(pipeline=pipeline.slug, listing=listing)
    unit_status_counts_fold()
    analytics.workflow_cycle_record(
        pipeline=pipeline.slug, units=units, before=before, fields=_POLLED_FIELDS, now=now
    )
    ok = not (applied.count and applied.outage == applied.count)
    return finish(
        PollSummary(
            service=service,
            ok=ok,
            requests=found.requests + listing.requests + applied.count,
            discovered=discovered + len(new_sips),
            refreshed=applied.count,
            changed=applied.changed,
            failed_units=applied.failed + applied.outage,
            error="" if ok else "the workflow service stopped answering during the refresh",
        )
    )


# --- jobs of units (drill-down) ------------------------------------------------


def unit_jobs_request(*, pipeline: str, uuid: str) -> None:
    """Ask the next jobs refresh for this unit's jobs (someone opened its page)."""
    Unit.objects.filter(pipeline=pipeline, uuid=uuid).update(jobs_requested_at=timezone.now())


# At least one in this many of a jobs refresh's fetches goes to the history to learn.
HISTORY_SHARE_DIVISOR = 10
NEVER_FETCHED = datetime.min.replace(tzinfo=UTC)


def _jobs_wanted(pipeline: str) -> list[Unit]:
    """Units whose jobs changed since they were last fetched.

    Finished units only when Lookout saw them finish (one last fetch) or someone asked:
    a big pipeline's history is not loaded here every cycle (`_history_to_learn` takes
    a few of it at a time).
    """
    candidates = (
        Unit.objects.filter(pipeline=pipeline, hidden=False)
        .exclude(status__in=(UNKNOWN, PENDING))
        .exclude(kind="")
        .filter(
            ~Q(status__in=FINAL_STATUSES)
            | Q(awaiting_sip_uuid=True)
            | Q(seen_finishing=True)
            | Q(jobs_requested_at__isnull=False)
            | Q(status="FAILED", failed_at_from=TimesFrom.OBSERVED)
        )
        .select_related("job_list")
    )
    wanted = []
    for unit in candidates:
        entry = getattr(unit, "job_list", None)
        if entry is None or entry.unit_updated_at != unit.updated_at:
            wanted.append(unit)
        elif unit.jobs_requested_at is not None:
            unit.jobs_requested_at = None  # already fresh: the request is answered
            Unit.objects.filter(pk=unit.pk).update(jobs_requested_at=None)
    # Pages someone is looking at first, then units waiting for a person without the
    # service's own time for it yet, then the rest in turn: the longest since its last
    # fetch first, so when more units change than a cycle fetches, none waits for ever.
    wanted.sort(
        key=lambda u: (
            u.jobs_requested_at is None,
            not (u.awaiting_decision and u.waiting_since_from != TimesFrom.UPSTREAM),
            _jobs_fetched_at(u),
        )
    )
    return wanted


def _jobs_fetched_at(unit: Unit) -> datetime:
    entry = getattr(unit, "job_list", None)
    return entry.fetched_at if entry is not None else NEVER_FETCHED


def _jobs_to_fetch(pipeline: str, limit: int) -> list[Unit]:
    """This cycle's units: the changed ones, with a share kept for the history to learn
    (when there is some), so a busy pipeline still learns its past a little each cycle."""
    wanted = _jobs_wanted(pipeline)
    reserve = max(1, limit // HISTORY_SHARE_DIVISOR) if limit > 0 else 0
    live = wanted[: max(0, limit - reserve)]
    history = _history_to_learn(pipeline, limit - len(live), live)
    learning = {unit.pk for unit in history}
    rest = [unit for unit in wanted[len(live) :] if unit.pk not in learning]
    return [*live, *rest[: limit - len(live) - len(history)], *history]


def _history_to_learn(pipeline: str, room: int, taken: list[Unit]) -> list[Unit]:
    """Up to `room` units found already finished whose jobs were never fetched (newest
    first): each is fetched once, for the analytics, in the room the changed units leave
    and the share `_jobs_to_fetch` keeps for it."""
    if room <= 0:
        return []
    rows = (
        Unit.objects.filter(pipeline=pipeline, learn_jobs=True, hidden=False)
        .exclude(kind="")
        .exclude(pk__in=[unit.pk for unit in taken])
        .order_by("-updated_at")
    )
    return list(rows[:room])


def _times_from_jobs(
    unit: Unit, jobs: list[Job], time_zone: str, *, full_view: bool = False
) -> dict[str, Any]:
    """The unit's times the service's tasks tell; the fields to write (observed stay).

    With the dashboard lists (`full_view`) a wait's start is the decision job's own
    creation, which the lists give: the tasks' guess does not replace it."""
    found = upstream_times(jobs=jobs, microservice=unit.microservice, time_zone=time_zone)
    upstream = TimesFrom.UPSTREAM
    values: dict[str, Any] = {}
    kept_wait = full_view and unit.waiting_since_from == upstream
    if unit.awaiting_decision and found.last_task_end and not kept_wait:
        values.update(waiting_since=found.last_task_end, waiting_since_from=upstream)
    if unit.status == "FAILED" and found.failed_job is not None:
        values.update(
            failed_job=found.failed_job.name[:255],
            failed_job_uuid=found.failed_job.uuid,
            failed_group=found.failed_job.microservice[:255],
        )
        if found.failed_at:
            values.update(failed_at=found.failed_at, failed_at_from=upstream)
    since = {
        "USER_INPUT": values.get("waiting_since"),
        "FAILED": values.get("failed_at"),
        "COMPLETE": found.last_task_end,
        "REJECTED": found.last_task_end,
        "PROCESSING": found.group_started,
    }.get(unit.status)
    if since is not None:
        values.update(status_since=since, status_since_from=upstream)
    return values


def jobs_refresh(
    *,
    pipeline: PipelineConfig,
    client: WorkflowClient | None = None,
    now: datetime | None = None,
    limit: int | None = None,
) -> PollSummary:
    """Fetch jobs and their tasks for units whose state changed since the last fetch."""
    now = now or timezone.now()
    service = f"jobs:{pipeline.slug}"
    started = time.monotonic()
    limit = settings.LOOKOUT_JOBS_PER_CYCLE if limit is None else limit
    wanted = _jobs_to_fetch(pipeline.slug, limit)
    try:
        client = client or get_workflow_client(pipeline.client_config())
    except UpstreamError as exc:
        return PollSummary(service=service, ok=False, error=redact_secrets(str(exc)))
    results = _parallel(lambda unit: client.list_jobs(unit.uuid, detailed=True), wanted)
    failed = 0
    stored: list[tuple[Unit, Any]] = []
    for unit, result in results:
        if isinstance(result, Exception):
            failed += 1
            log.warning("jobs of %s not refreshed: %s", unit.uuid, result)
            continue
        jobs = plain(list(result))
        UnitJobs.objects.update_or_create(
            unit=unit,
            defaults={"fetched_at": now, "unit_updated_at": unit.updated_at, "jobs": jobs},
        )
        Unit.objects.filter(pk=unit.pk).update(
            jobs_requested_at=None,
            seen_finishing=False,
            learn_jobs=False,
            **_times_from_jobs(
                unit, list(result), pipeline.time_zone, full_view=pipeline.full_view
            ),
        )
        stored.append((unit, jobs))
    if stored:
        page_cache.bump()
    analytics.units_jobs_record(entries=stored, time_zone=pipeline.time_zone)
    return PollSummary(
        service=service,
        ok=not wanted or failed < len(wanted),
        requests=len(wanted),
        refreshed=len(wanted) - failed,
        failed_units=failed,
        duration_ms=int((time.monotonic() - started) * 1000),
    )


# The kept counts (table, key columns, the units' expression for each key column): rows
# of +1 and -1 the unit triggers append, summed per key.
_FAILED_AT_JOB = "COALESCE(NULLIF(failed_job, ''), microservice)"
_KEPT_COUNTS = (
    (UnitStatusCount, ("pipeline", "status"), ("pipeline", "status"), "NOT hidden"),
    (
        FailureGroupCount,
        ("pipeline", "job"),
        ("pipeline", _FAILED_AT_JOB),
        "NOT hidden AND status = 'FAILED'",
    ),
)


def unit_status_counts_fold() -> None:
    """Fold the +1 and -1 rows the unit triggers wrote into one row per key, in every
    kept count (`UnitStatusCount`, `FailureGroupCount`), so the summary and the failure
    groups sum a few rows."""
    for model, keys, _, _ in _KEPT_COUNTS:
        _counts_fold(connection.ops.quote_name(model._meta.db_table), ", ".join(keys))


def _counts_fold(table: str, keys: str) -> None:
    folded = (
        f"INSERT INTO {table} ({keys}, count) SELECT {keys}, SUM(count) "
        f"FROM {{source}} GROUP BY {keys} HAVING SUM(count) <> 0"
    )
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # One statement: rows another transaction commits meanwhile are neither
            # summed nor deleted.
            cursor.execute(
                f"WITH gone AS (DELETE FROM {table} RETURNING {keys}, count) "
                + folded.format(source="gone")
            )
            return
        # SQLite writes one transaction at a time (and Lookout begins them IMMEDIATE).
        cursor.execute(f"SELECT MAX(id) FROM {table}")
        (last,) = cursor.fetchone()
        if last is None:
            return
        source = f"{table} WHERE id <= %s"
        cursor.execute(folded.format(source=source), [last])
        cursor.execute(f"DELETE FROM {table} WHERE id <= %s", [last])


def unit_status_counts_rebuild(*, using: str = DEFAULT_DB_ALIAS) -> None:
    """Count the units afresh into every kept count, after every migrate.

    The triggers keep the counts in step with every write, but anything that empties the
    counts apart from the units (a flush, which deletes the counts before the units whose
    deletes the triggers then record) would leave them wrong for good: this puts them
    right again. One statement on PostgreSQL, so no concurrent write is counted twice."""
    database = connections[using]
    tables = database.introspection.table_names()
    units = database.ops.quote_name(Unit._meta.db_table)
    for model, keys, expressions, counted_units in _KEPT_COUNTS:
        if model._meta.db_table not in tables:
            continue  # migrated back to before these counts existed
        table = database.ops.quote_name(model._meta.db_table)
        by = ", ".join(expressions)
        counted = (
            f"INSERT INTO {table} ({', '.join(keys)}, count) SELECT {by}, COUNT(*) "
            f"FROM {units} WHERE {counted_units} GROUP BY {by}"
        )
        with transaction.atomic(using=using), database.cursor() as cursor:
            if database.vendor == "postgresql":
                cursor.execute(f"WITH gone AS (DELETE FROM {table}) {counted}")
                continue
            cursor.execute(f"DELETE FROM {table}")
            cursor.execute(counted)
