"""Writes: reading a pipeline's dashboard status lists (with its service account) for the
workflow poll, on their own adaptive schedule, and what a refusal or an outage records.

The lists cost the service CPU per unit x job (4 CPU-seconds at a thousand transfers), so
they are read at most every `LOOKOUT_DASHBOARD_LIST_MIN_INTERVAL` seconds, never sooner
than 10 x their last answer time, and never so often that they cost more than 40 % of
one open tab of the service's own dashboard (`lib.dashboard_source.list_interval_seconds`).
A refused sign-in backs off exponentially (the state is in the cache, per pipeline) and
is recorded on the source's freshness row, `dashboard:<slug>`, where /healthz, the
overview and the alerts read it; the API polling goes on regardless. `mcp: false` is an
outage of this source only: nothing is concluded from the empty lists.

Between two reads the units the lists showed waiting are kept in the cache, so the
cycles in between keep their waits (the public lists know only some of them).
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache

from dashboard.clients.workflow_dashboard import (
    DashboardError,
    DashboardUnit,
    JobServerDown,
    JobStep,
    SignInRefused,
    UnitListKind,
    WorkflowDashboardClient,
    get_workflow_dashboard_client,
)
from dashboard.lib.dashboard_source import (
    dashboard_service,
    list_interval_seconds,
    refused_error,
)
from dashboard.lib.pipelines import PipelineConfig
from dashboard.lib.secret_redaction import redact_secrets
from dashboard.lib.sql_batches import in_batches
from dashboard.models import PENDING, UNKNOWN, Unit
from dashboard.services.freshness import service_poll_record

log = logging.getLogger(__name__)

REFUSAL_BACKOFF_MAX = timedelta(hours=1)
_STATE_TTL = 24 * 3600
NEW_UNIT_GRACE = timedelta(minutes=5)
# A listed unit's jobs that discovery reads: its decisions and its failures; the ~40
# others of a unit are not even turned into objects.
DISCOVERY_STEPS = frozenset({JobStep.AWAITING, JobStep.FAILED})


@dataclass(frozen=True)
class ListedUnit:
    """What a cycle keeps of one listed unit: a few fields, not its jobs."""

    uuid: str
    kind: str  # "transfer" or "sip"
    directory: str
    active: bool
    # The decision(s) it waits at, and since when (the oldest decision job's creation).
    decision: str = ""
    waiting_since: datetime | None = None
    # The first decision job and its choices (JSON text `{key: label}`, "" if none).
    decision_job_uuid: str = ""
    decision_choices: str = ""
    # Every job waiting for a decision: an answer is settled when its job left them.
    awaiting_job_uuids: tuple[str, ...] = ()
    # The job that failed (outside the clean-up groups) and when it was created.
    failed_job: str = ""
    failed_job_uuid: str = ""
    failed_group: str = ""
    failed_at: datetime | None = None
    # Changes whenever the unit moves (`DashboardUnit.progress`).
    progress: str = ""

    @property
    def waiting(self) -> bool:
        return self.waiting_since is not None

    @classmethod
    def from_unit(cls, unit: DashboardUnit) -> ListedUnit:
        awaiting = unit.awaiting_jobs
        failed = unit.failed_job if not awaiting else None
        first = awaiting[0] if awaiting else None
        return cls(
            uuid=unit.uuid,
            kind="sip" if unit.kind is UnitListKind.INGEST else "transfer",
            directory=unit.directory,
            active=unit.active,
            decision=" / ".join(dict.fromkeys(job.name for job in awaiting if job.name)),
            waiting_since=min((job.created_at for job in awaiting), default=None),
            decision_job_uuid=first.uuid if first else "",
            decision_choices=json.dumps(first.choices) if first and first.choices else "",
            awaiting_job_uuids=tuple(job.uuid for job in awaiting),
            failed_job=failed.name if failed else "",
            failed_job_uuid=failed.uuid if failed else "",
            failed_group=failed.group if failed else "",
            failed_at=failed.created_at if failed else None,
            progress=unit.progress,
        )


@dataclass
class DashboardListing:
    """This cycle's view from the dashboard lists.

    `complete` when both lists were read now, with the job server answering: only then
    do they say which units exist (and which were hidden). Otherwise `units` holds the
    waiting units the last read saw, or nothing.

    `covered_until`: while the lists answer, a unit whose listed progress has not changed
    since its status was read needs no per-unit read; the next read (due well before
    this time) tells which units moved. None while the lists are not answering.
    """

    units: dict[str, ListedUnit] = field(default_factory=dict)
    complete: bool = False
    read_started_at: datetime | None = None
    requests: int = 0
    covered_until: datetime | None = None

    def covers(self, unit: Unit, now: datetime) -> bool:
        """The lists stand in for this unit's status read: it was read since it last
        moved in them, and they are answering."""
        return (
            self.covered_until is not None
            and self.covered_until > now
            and unit.listed_progress is not None
            and unit.status not in (UNKNOWN, PENDING)
        )


def _state_key(slug: str) -> str:
    return f"dashboard:dashboard-lists:{slug}"


def _waiting_key(slug: str) -> str:
    return f"dashboard:dashboard-waiting:{slug}"


def _state(slug: str) -> dict[str, Any]:
    value = cache.get(_state_key(slug))
    return value if isinstance(value, dict) else {}


def dashboard_lists_due(*, pipeline: PipelineConfig, now: datetime) -> bool:
    next_at = _state(pipeline.slug).get("next_at")
    return not isinstance(next_at, datetime) or next_at <= now


def refusal_backoff(refusals: int) -> timedelta:
    """1, 2, 4, ... list intervals after the 1st, 2nd, 3rd refusal; an hour at most."""
    base = timedelta(seconds=int(settings.LOOKOUT_DASHBOARD_LIST_MIN_INTERVAL))
    wait: timedelta = base * (2 ** max(0, refusals - 1))
    return min(wait, REFUSAL_BACKOFF_MAX)


def _covered_until(state: dict[str, Any]) -> datetime | None:
    until = state.get("covered_until")
    return until if state.get("ok") and isinstance(until, datetime) else None


def public_waiting_lists_due(*, pipeline: PipelineConfig, now: datetime, force: bool) -> bool:
    """The public lists of waiting units: every cycle in API-only mode or while the
    dashboard lists are not answering; with them answering (they list every wait, with
    its upstream time), only in the cycles that read them."""
    if force or not pipeline.full_view:
        return True
    state = _state(pipeline.slug)
    return not state.get("ok") or dashboard_lists_due(pipeline=pipeline, now=now)


def _kept_waiting(slug: str) -> dict[str, ListedUnit]:
    value = cache.get(_waiting_key(slug))
    return value if isinstance(value, dict) else {}


def _read(client: WorkflowDashboardClient) -> dict[str, ListedUnit]:
    found: dict[str, ListedUnit] = {}
    for kind in (UnitListKind.TRANSFER, UnitListKind.INGEST):
        for unit in client.iter_status_list(kind, steps=DISCOVERY_STEPS):
            found[unit.uuid] = ListedUnit.from_unit(unit)
    return found


def dashboard_lists_read(
    *,
    pipeline: PipelineConfig,
    now: datetime,
    client: WorkflowDashboardClient | None = None,
    force: bool = False,
) -> DashboardListing:
    """Read both status lists when due (or `force`), recording how it went.

    Never raises an upstream error: a refusal, an outage or a bad answer is recorded on
    the source's freshness and the cycle goes on with what the API tells.
    """
    slug = pipeline.slug
    state = _state(slug)
    if not force and not dashboard_lists_due(pipeline=pipeline, now=now):
        return DashboardListing(units=_kept_waiting(slug), covered_until=_covered_until(state))
    started = time.monotonic()
    service = dashboard_service(slug)
    min_interval = timedelta(seconds=settings.LOOKOUT_DASHBOARD_LIST_MIN_INTERVAL)
    try:
        client = client or get_workflow_dashboard_client(pipeline)
        if client is None:
            return DashboardListing()
        found = _read(client)
    except DashboardError as exc:
        elapsed = time.monotonic() - started
        if isinstance(exc, SignInRefused):
            refusals = int(state.get("refusals") or 0) + 1
            wait = refusal_backoff(refusals)
            error = f"{refused_error(pipeline.name)}: {exc}"
            log.warning("%s; next sign-in in %d s", error, wait.total_seconds())
            state = {"refusals": refusals, "next_at": now + wait, "ok": False}
        else:
            what = "job server down" if isinstance(exc, JobServerDown) else "no answer"
            error = f"workflow dashboard of {pipeline.name}: {what}: {exc}"
            log.warning("%s", error)
            state = {**state, "next_at": now + min_interval, "ok": False}
        cache.set(_state_key(slug), state, _STATE_TTL)
        service_poll_record(
            service=service,
            started_at=now,
            ok=False,
            error=redact_secrets(error),
            duration_ms=int(elapsed * 1000),
            requests=2,
        )
        return DashboardListing(units=_kept_waiting(slug), requests=2)
    elapsed = time.monotonic() - started
    interval = timedelta(
        seconds=list_interval_seconds(answered_in=elapsed, minimum=min_interval.total_seconds())
    )
    # Two intervals: one read may come late (a slow answer) without units going unread.
    covered_until = now + 2 * interval
    state = {"refusals": 0, "next_at": now + interval, "ok": True, "covered_until": covered_until}
    cache.set(_state_key(slug), state, _STATE_TTL)
    waiting = {uuid: unit for uuid, unit in found.items() if unit.waiting}
    # Kept until a little after the next read is due; a lost value only costs waits
    # their upstream time until that read.
    cache.set(_waiting_key(slug), waiting, int(3 * interval.total_seconds()) + 60)
    service_poll_record(
        service=service,
        started_at=now,
        ok=True,
        error="",
        duration_ms=int(elapsed * 1000),
        requests=2,
    )
    return DashboardListing(
        units=found,
        complete=True,
        read_started_at=now,
        requests=2,
        covered_until=covered_until,
    )


def completed_lists_due(*, pipeline: PipelineConfig, now: datetime, force: bool) -> bool:
    """The public completed lists: every cycle in API-only mode, or while the dashboard
    lists are not answering (refused, job server down, never read); with the account
    working, which discovers every unit, only every `LOOKOUT_DASHBOARD_COMPLETED_INTERVAL`."""
    if force or not pipeline.full_view or not _state(pipeline.slug).get("ok"):
        return True
    key = f"dashboard:completed-lists:{pipeline.slug}"
    next_at = cache.get(key)
    if isinstance(next_at, datetime) and next_at > now:
        return False
    interval = settings.LOOKOUT_DASHBOARD_COMPLETED_INTERVAL
    cache.set(key, now + timedelta(seconds=interval), interval * 2)
    return True


def hidden_upstream_mark(*, pipeline: str, listing: DashboardListing) -> int:
    """Mark the units both lists left out (hidden in the service) and unmark any that
    came back; only from a complete read. Returns how many were marked.

    Only units not marked yet are read, so after the first read this costs about what
    the lists list; units Lookout first saw in the last few minutes, or whose status it
    has not read yet, are left alone (the service lists a unit once it has a job).
    """
    if not listing.complete or listing.read_started_at is None:
        return 0
    listed = listing.units
    for chunk in in_batches(list(listed)):
        Unit.objects.filter(
            pipeline=pipeline, hidden_upstream_at__isnull=False, uuid__in=chunk
        ).update(hidden_upstream_at=None)
    # A unit just started (registered by Lookout, no job yet) is not listed for a while.
    candidates = (
        Unit.objects.filter(
            pipeline=pipeline,
            hidden_upstream_at__isnull=True,
            first_seen_at__lt=listing.read_started_at - NEW_UNIT_GRACE,
        )
        .exclude(status__in=(UNKNOWN, PENDING))
        .values_list("pk", "uuid")
    )
    gone = [pk for pk, uuid in candidates.iterator(chunk_size=5000) if uuid not in listed]
    for pks in in_batches(gone):
        Unit.objects.filter(pk__in=pks).update(hidden_upstream_at=listing.read_started_at)
    if gone:
        log.info(
            "%d units of %s left the dashboard lists: marked hidden upstream", len(gone), pipeline
        )
    return len(gone)
