"""Reads for ingest runs: lists, counts by state, the ETA and the items, for the run
page, the API, the metrics and the alerts. Nothing here calls a service."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from django.db.models import Count, QuerySet, Sum
from django.utils import timezone

from dashboard.lib.sql_batches import in_batches
from dashboard.models import (
    FINAL_ITEM_STATES,
    IN_FLIGHT_STATES,
    DailyThroughput,
    IngestItem,
    IngestRun,
    StoragePackage,
    Unit,
)
from dashboard.selectors import storage as storage_selectors

# The throughput the ETA reads: AIPs stored per day over this many past days.
THROUGHPUT_DAYS = 7


@dataclass(frozen=True)
class RunSummary:
    run: IngestRun
    # Every state, zero included, in the lifecycle's order.
    counts: dict[str, int]
    items_total: int
    eta: datetime | None
    # Why pipelines receive nothing now, by slug.
    waits: dict[str, str]

    @property
    def done(self) -> int:
        return sum(self.counts[state] for state in FINAL_ITEM_STATES)

    @property
    def percent_done(self) -> int:
        return round(100 * self.done / self.items_total) if self.items_total else 0


@dataclass(frozen=True)
class ExistingNames:
    stored_aips: set[str]  # names of AIPs in the package mirror
    transfers: set[str]  # names of transfers Lookout knows


def existing_names(names: set[str]) -> ExistingNames:
    """Of these names, those that exist already as a stored AIP or a known transfer (a
    run's "skip existing"): two queries per `IN_BATCH` names, not two per name."""
    stored: set[str] = set()
    transfers: set[str] = set()
    for chunk in in_batches(sorted(names)):
        stored.update(
            StoragePackage.objects.filter(name__in=chunk, package_type="AIP")
            .order_by()
            .values_list("name", flat=True)
            .distinct()
        )
        transfers.update(
            Unit.objects.filter(name__in=chunk, kind="transfer")
            .order_by()
            .values_list("name", flat=True)
            .distinct()
        )
    return ExistingNames(stored_aips=stored, transfers=transfers)


def ingest_run_list() -> QuerySet[IngestRun]:
    return IngestRun.objects.order_by("-created_at", "-id")


def ingest_run_get(*, run_id: int) -> IngestRun | None:
    return IngestRun.objects.filter(pk=run_id).first()


def item_counts(run: IngestRun) -> dict[str, int]:
    found = dict(
        IngestItem.objects.filter(run=run)
        .values_list("state")
        .annotate(n=Count("id"))
        .order_by()
        .values_list("state", "n")
    )
    return {state: int(found.get(state, 0)) for state in IngestItem.State.values}


def _stored_per_second(pipelines: list[str], now: datetime) -> float:
    since = (now - timedelta(days=THROUGHPUT_DAYS)).date()
    stored = (
        DailyThroughput.objects.filter(pipeline__in=pipelines, day__gte=since).aggregate(
            n=Sum("aips_stored")
        )["n"]
        or 0
    )
    return stored / (THROUGHPUT_DAYS * 86400)


def _own_per_second(run: IngestRun, done: int, now: datetime) -> float:
    if not run.started_at or done == 0:
        return 0.0
    elapsed = (now - run.started_at).total_seconds()
    return done / elapsed if elapsed > 0 else 0.0


def run_eta(
    run: IngestRun, counts: dict[str, int], *, now: datetime | None = None
) -> datetime | None:
    """When the queued and in-flight items should be done: at the pipelines' measured
    rate (the analytics rollups), or at the run's own so far when that is faster (a run
    may be most of what the pipelines do). None when nothing is left or no rate is known."""
    if run.status in (IngestRun.Status.FINISHED, IngestRun.Status.CANCELLED):
        return None
    now = now or timezone.now()
    left = counts[IngestItem.State.QUEUED] + sum(counts[state] for state in IN_FLIGHT_STATES)
    if left == 0:
        return None
    done = counts[IngestItem.State.STORED] + counts[IngestItem.State.FAILED]
    rate = max(_stored_per_second(list(run.pipelines), now), _own_per_second(run, done, now))
    if rate <= 0:
        return None
    return now + timedelta(seconds=left / rate)


def ingest_run_summary(run: IngestRun, *, now: datetime | None = None) -> RunSummary:
    counts = item_counts(run)
    return RunSummary(
        run=run,
        counts=counts,
        items_total=sum(counts.values()),
        eta=run_eta(run, counts, now=now),
        waits=dict(run.waits or {}),
    )


def ingest_item_list(*, run: IngestRun, state: str | None = None) -> QuerySet[IngestItem]:
    items = IngestItem.objects.filter(run=run)
    if state:
        items = items.filter(state=state)
    return items.order_by("number", "id")


def ingest_items_by_state() -> dict[tuple[int, str], int]:
    """Items by (run id, state), every run: the `lookout_ingest_items` metric."""
    rows = IngestItem.objects.values_list("run_id", "state").annotate(n=Count("id")).order_by()
    return {(int(run), str(state)): int(n) for run, state, n in rows}


def ingest_in_flight_unit_uuids(*, pipeline: str) -> set[str]:
    """The transfers and SIPs of items in flight on `pipeline` (read through the partial
    index `ingestitem_in_flight`): the poller reads their status on its own schedule,
    so a slot frees as soon as one leaves."""
    rows = IngestItem.objects.filter(state__in=IN_FLIGHT_STATES, pipeline=pipeline).values_list(
        "transfer_uuid", "sip_uuid"
    )
    return {uuid for pair in rows for uuid in pair if uuid}


def ingest_in_flight_by_pipeline() -> dict[str, int]:
    """Items starting, processing or waiting per pipeline, across runs (read through the
    partial index `ingestitem_in_flight`)."""
    rows = (
        IngestItem.objects.filter(state__in=IN_FLIGHT_STATES)
        .values_list("pipeline")
        .annotate(n=Count("id"))
        .order_by()
    )
    return {str(pipeline): int(n) for pipeline, n in rows}


def _same_address(remote_name: str, pipeline_url: str) -> bool:
    """The storage service's `remote_name` (a host, `host:port` or a URL) names the
    pipeline at `pipeline_url`: the same host, and the same port when it gives one (several
    pipelines may share a host)."""
    remote = urlsplit(remote_name if "//" in remote_name else f"//{remote_name}")
    ours = urlsplit(pipeline_url)
    if (remote.hostname or "").lower() != (ours.hostname or "").lower():
        return False
    if remote.port is None:
        return True
    return remote.port == (ours.port or (443 if ours.scheme == "https" else 80))


def processing_locations_full(*, pipeline_urls: list[str]) -> dict[str, list[str]]:
    """By pipeline address, its currently-processing locations at or over the critical
    capacity threshold, as labels; the storage mirror is read once for all of them. The
    storage service names pipelines by UUID and address (`remote_name`), not by Lookout's
    slug: a pipeline whose address matches is taken; when none matches, every
    currently-processing location counts (with one pipeline, or pipelines sharing their
    processing location, that is the same)."""
    storage_pipelines, locations = storage_selectors.pipelines_and_locations(purpose="CP")
    full: dict[str, list[str]] = {}
    for pipeline_url in pipeline_urls:
        matching = {
            row.uuid
            for row in storage_pipelines
            if row.remote_name and _same_address(row.remote_name, pipeline_url)
        }
        mine = (
            [row for row in locations if matching & set(row.pipeline_uuids)]
            if matching
            else locations
        )
        full[pipeline_url] = [
            row.label for row in mine if row.enabled and row.usage.level == "critical"
        ]
    return full
