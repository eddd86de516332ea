"""Writes for the storage service: the poller, the package mirror, and the live calls.

The poller (`storage_poll`) runs every storage interval and does two things:

- the small things (pipelines, spaces, locations, package counts) go to the cache;
- packages go to the `StoragePackage` table, which the package pages and API read.

The storage service cannot list "what changed since": it has no ordering and no
modified-since filter. So each cycle is incremental and cheap:

1. packages whose `stored_date` is at or after the newest one seen (less a margin);
2. packages in a status that moves on by itself (deletion or recovery requested,
   moving, pending...), plus the mirrored ones that were in such a status and no
   longer are (fetched by `uuid__in`, to learn where they went);
3. the tail of the unfiltered list, when the service holds more packages than the
   mirror: new packages without a stored date (transfers) show up there.

A slower full resync pages through everything at `limit=1000` (deduplicated by
UUID, since no order is guaranteed), resumes across cycles when it runs out of time,
and at the end drops rows it did not see and the service confirms are gone.

Fetching a location's browse listing, downloading a package, reading its contents and
pointer file and running a fixity check also live here: they are the only other storage
calls.
"""

from __future__ import annotations

import logging
import math
import time
import uuid
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.core.cache import cache
from django.db import connections, models, router, transaction
from django.utils import timezone

from dashboard.clients.base import Page, UpstreamError
from dashboard.clients.storage import (
    Package,
    PackageDownload,
    StorageClient,
    StorageError,
    StorageNotFound,
    StorageUnavailable,
)
from dashboard.clients.storage import get_storage_client as get_storage_client  # re-exported
from dashboard.lib.cache_state import (
    LISTING_REQUEST_TTL,
    LISTING_TTL,
    listing_key,
    listing_request_key,
)
from dashboard.lib.package_sync import PackageSyncState
from dashboard.lib.secret_redaction import redact_secrets
from dashboard.lib.vocabulary import TRANSITIONAL_PACKAGE_STATUSES as TRANSITIONAL_STATUSES
from dashboard.models import (
    AuditEntry,
    FixityCheck,
    PackageDetails,
    PackageSync,
    StoragePackage,
    StorageSummary,
)
from dashboard.selectors.storage import package_sync_state_load
from dashboard.services import analytics
from dashboard.services.freshness import PollSummary, service_poll_record
from dashboard.services.units import plain

log = logging.getLogger(__name__)

SERVICE = "storage"
SUMMARY_PACKAGE_TYPES = ("AIP", "AIC", "DIP", "transfer")
# The service's own maximum page size.
PAGE_SIZE = 1000
# A package registered slowly can carry a stored date a little older than the newest
# one already seen; look back this far.
STORED_DATE_MARGIN = timedelta(hours=1)
# How far before the mirror's size the tail read starts, for packages that shifted.
TAIL_MARGIN = 50
# UUIDs per `uuid__in` query: keeps the URL short.
UUID_BATCH = 100
# A browse listing is fetched while someone looks at "Loading…": fail fast, they can
# press Refresh.
BROWSE_TIMEOUT = (2.0, 5.0)

# --------------------------------------------------------------------------- cache keys


# --------------------------------------------------------------------------- settings


def storage_time_zone() -> ZoneInfo:
    """The storage server's clock: its timestamps come without an offset."""
    return ZoneInfo(getattr(settings, "LOOKOUT_STORAGE_TIME_ZONE", "UTC") or "UTC")


def full_sync_interval() -> timedelta:
    return timedelta(seconds=getattr(settings, "LOOKOUT_STORAGE_FULL_SYNC_INTERVAL", 3600))


def sync_budget_seconds() -> float:
    """Time a cycle may spend on a full resync before it continues on the next cycle."""
    return float(getattr(settings, "LOOKOUT_STORAGE_SYNC_BUDGET", 30))


# --------------------------------------------------------------------------- sync state


# --------------------------------------------------------------------------- mirror rows

_ARCHIVE_EXTENSIONS = (".tar.gz", ".tar.bz2", ".7z", ".zip", ".tar", ".gz", ".bz2")


def package_name(package: Package) -> str:
    """A readable name from `current_path`: the last part, less extension and UUID suffix."""
    base = package.current_path.rstrip("/").rsplit("/", 1)[-1]
    for extension in _ARCHIVE_EXTENSIONS:
        if base.lower().endswith(extension):
            base = base[: -len(extension)]
            break
    # AIPs end in their own UUID, DIPs in their AIP's: drop any trailing UUID.
    if len(base) > 37 and base[-37] == "-" and _is_uuid(base[-36:]):
        base = base[:-37]
    return base[:255]


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def _aware(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    if timezone.is_aware(moment):
        return moment
    return timezone.make_aware(moment, storage_time_zone())


def _values(package: Package, now: datetime) -> dict[str, Any]:
    """One mirror row as field values (no model instance: a resync writes 100,000)."""
    return {
        "uuid": package.uuid,
        "name": package_name(package),
        "package_type": str(package.package_type),
        "status": str(package.status),
        "size": package.size,
        "current_location_uuid": package.current_location_uuid or "",
        "origin_pipeline_uuid": package.origin_pipeline_uuid or "",
        "current_path": package.current_path,
        "current_full_path": package.current_full_path,
        "stored_date": _aware(package.stored_date),
        "encrypted": package.encrypted,
        "related_uuids": list(package.related_package_uuids),
        "replica_uuids": list(package.replica_uuids),
        "replicated_package_uuid": package.replicated_package_uuid or "",
        "misc_attributes": plain(dict(package.misc_attributes)),
        "first_seen_at": now,
        "seen_at": now,
    }


_UPDATED_FIELDS = [
    f.name for f in StoragePackage._meta.concrete_fields if f.name not in {"uuid", "first_seen_at"}
]


def packages_upsert(*, packages: Iterable[Package], now: datetime) -> int:
    """Insert or update mirror rows; `first_seen_at` keeps its first value."""
    rows = list({package.uuid: _values(package, now) for package in packages}.values())
    if not rows:
        return 0
    connection = connections[router.db_for_write(StoragePackage)]
    if connection.vendor in {"sqlite", "postgresql"}:
        _upsert_directly(rows, connection)
    else:
        StoragePackage.objects.bulk_create(
            [StoragePackage(**row) for row in rows],
            batch_size=500,
            update_conflicts=True,
            unique_fields=["uuid"],
            update_fields=_UPDATED_FIELDS,
        )
    return len(rows)


def _upsert_directly(rows: list[dict[str, Any]], connection: Any) -> None:
    """One INSERT ... ON CONFLICT statement run for many rows.

    A full resync writes 100,000 rows; `bulk_create` spends most of that time preparing
    each field of each row. Both databases Lookout runs on accept this statement, and
    the only values that need converting are dates and JSON.
    """
    fields = StoragePackage._meta.concrete_fields
    quote = connection.ops.quote_name
    columns = ", ".join(quote(f.column) for f in fields)
    updates = ", ".join(
        f"{quote(f.column)} = excluded.{quote(f.column)}"
        for f in fields
        if f.name in _UPDATED_FIELDS
    )
    sql = (
        f"INSERT INTO {quote(StoragePackage._meta.db_table)} ({columns}) "
        f"VALUES ({', '.join(['%s'] * len(fields))}) "
        f"ON CONFLICT ({quote('uuid')}) DO UPDATE SET {updates}"
    )
    converters = [_converter(f, connection) for f in fields]
    names = [f.name for f in fields]
    params = [
        [convert(row[name]) for name, convert in zip(names, converters, strict=True)]
        for row in rows
    ]
    with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
        cursor.executemany(sql, params)


def _converter(field: Any, connection: Any) -> Any:
    if isinstance(field, models.JSONField):
        return lambda value: connection.ops.adapt_json_value(value, field.encoder)
    if isinstance(field, models.DateTimeField):
        return connection.ops.adapt_datetimefield_value
    return lambda value: value


def _newest_stored_date(packages: Iterable[Package], current: datetime | None) -> datetime | None:
    newest = current
    for package in packages:
        stored = package.stored_date
        if stored is not None and stored.tzinfo is None and (newest is None or stored > newest):
            newest = stored
    return newest


# --------------------------------------------------------------------------- package sync


# What a mirror row is compared on to say a package changed.
_CHANGE_FIELDS = ("uuid", "status", "current_location_uuid", "size")
# UUIDs per lookup of the rows a page is about to overwrite.
_LOOKUP_BATCH = 500


@dataclass
class _Cycle:
    client: StorageClient
    now: datetime
    deadline: float
    requests: int = 0
    refreshed: int = 0
    discovered: int = 0
    changed: int = 0
    removed: int = 0
    notes: list[str] = field(default_factory=list)
    # When the AIPs written this cycle were stored: their days' rollups are counted again.
    aip_stored_dates: list[datetime | None] = field(default_factory=list)

    def out_of_time(self) -> bool:
        return time.monotonic() >= self.deadline

    def store(self, packages: Iterable[Package]) -> None:
        """Write packages to the mirror, counting the new ones and the ones that changed
        status, location or size."""
        batch = {package.uuid: package for package in packages}
        uuids = list(batch)
        before: dict[str, tuple[Any, ...]] = {}
        for start in range(0, len(uuids), _LOOKUP_BATCH):
            rows = StoragePackage.objects.filter(
                uuid__in=uuids[start : start + _LOOKUP_BATCH]
            ).values_list(*_CHANGE_FIELDS)
            before.update((row[0], row[1:]) for row in rows)
        for package_uuid, package in batch.items():
            seen = before.get(package_uuid)
            if seen is None:
                self.discovered += 1
            elif seen != (
                str(package.status),
                package.current_location_uuid or "",
                package.size,
            ):
                self.changed += 1
        self.refreshed += packages_upsert(packages=batch.values(), now=self.now)
        self.aip_stored_dates += [
            _aware(p.stored_date) for p in batch.values() if str(p.package_type) == analytics.AIP
        ]


def _fetch_all(cycle: _Cycle, **filters: Any) -> list[Package]:
    """Every package matching `filters`, following the service's `next` links."""
    found = list(cycle.client.list_packages(limit=PAGE_SIZE, **filters))
    cycle.requests += max(1, math.ceil(len(found) / PAGE_SIZE))
    return found


def _fetch_by_uuid(cycle: _Cycle, uuids: list[str]) -> list[Package]:
    found: list[Package] = []
    for start in range(0, len(uuids), UUID_BATCH):
        batch = uuids[start : start + UUID_BATCH]
        found += _fetch_all(cycle, uuid__in=batch)
    return found


def _reconcile(cycle: _Cycle, uuids: list[str]) -> None:
    """Refresh rows by UUID; the ones the service no longer knows leave the mirror."""
    if not uuids:
        return
    found = _fetch_by_uuid(cycle, uuids)
    cycle.store(found)
    gone = set(uuids) - {package.uuid for package in found}
    if gone:
        cycle.removed += StoragePackage.objects.filter(uuid__in=gone).delete()[0]


def _incremental(cycle: _Cycle, sync: PackageSyncState) -> None:
    # 1. Recently stored (or re-stored, after a reingest) packages.
    if sync.stored_date_cursor is not None:
        since = sync.stored_date_cursor - STORED_DATE_MARGIN
        recent = _fetch_all(cycle, stored_date__gte=since.isoformat())
        cycle.store(recent)
        sync.stored_date_cursor = _newest_stored_date(recent, sync.stored_date_cursor)

    # 2. Packages in a status that changes by itself, and those that just left one.
    moving = _fetch_all(cycle, status__in=list(TRANSITIONAL_STATUSES))
    cycle.store(moving)
    seen = {package.uuid for package in moving}
    left = [
        uuid
        for uuid in StoragePackage.objects.filter(status__in=TRANSITIONAL_STATUSES)
        .values_list("uuid", flat=True)
        .iterator()
        if uuid not in seen
    ]
    _reconcile(cycle, left)

    sync.last_incremental_at = cycle.now
    if sync.full_sync_started_at is not None:
        return  # a full pass is under way and reads the whole list anyway

    # 3. The tail of the full list, where new packages without a stored date appear.
    mirrored = StoragePackage.objects.count()
    offset = max(0, mirrored - TAIL_MARGIN)
    while True:
        page = cycle.client.list_packages_page(offset=offset, limit=PAGE_SIZE)
        cycle.requests += 1
        cycle.store(page.items)
        sync.upstream_total = page.total_count
        offset += len(page.items)
        if not page.has_next or not page.items or cycle.out_of_time():
            break
    if StoragePackage.objects.count() != sync.upstream_total:
        # Packages vanished or moved inside the list: only a full pass can tell which.
        sync.full_sync_requested = True
        cycle.notes.append(
            f"mirror holds {StoragePackage.objects.count()} packages, "
            f"the service {sync.upstream_total}: full resync requested"
        )


def _full_sync_due(sync: PackageSyncState, now: datetime) -> bool:
    if sync.full_sync_started_at is not None or sync.full_sync_requested:
        return True
    return sync.last_full_sync_at is None or now - sync.last_full_sync_at >= full_sync_interval()


def _full_sync_step(cycle: _Cycle, sync: PackageSyncState) -> bool:
    """Page through every package until done or out of time; True when finished."""
    if sync.full_sync_started_at is None:
        sync.full_sync_started_at = cycle.now
        sync.full_sync_offset = 0
        sync.full_sync_requested = False

    def fetch(offset: int) -> Page[Package]:
        return cycle.client.list_packages_page(offset=offset, limit=PAGE_SIZE)

    # The next page is fetched while this one is written: the two waits overlap.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="lookout-resync") as pool:
        upcoming: Future[Page[Package]] | None = pool.submit(fetch, sync.full_sync_offset)
        while upcoming is not None:
            page = upcoming.result()
            cycle.requests += 1
            more = page.has_next and bool(page.items)
            upcoming = pool.submit(fetch, sync.full_sync_offset + len(page.items)) if more else None
            cycle.store(page.items)
            sync.stored_date_cursor = _newest_stored_date(page.items, sync.stored_date_cursor)
            sync.upstream_total = page.total_count
            sync.full_sync_offset += len(page.items)
            if upcoming is not None and cycle.out_of_time():
                upcoming.cancel()
                cycle.notes.append(
                    f"full resync at {sync.full_sync_offset} of {page.total_count}; "
                    "continues next cycle"
                )
                return False
    # Rows this pass did not see: gone upstream, or skipped because the order shifted.
    unseen = list(
        StoragePackage.objects.filter(seen_at__lt=sync.full_sync_started_at).values_list(
            "uuid", flat=True
        )
    )
    _reconcile(cycle, unseen)
    sync.last_full_sync_at = cycle.now
    sync.full_sync_started_at = None
    sync.full_sync_offset = 0
    return True


@dataclass(frozen=True)
class PackageSyncOutcome:
    requests: int
    refreshed: int
    # Packages new to the mirror, and mirrored ones whose status, location or size changed.
    discovered: int
    changed: int
    removed: int
    full_sync_finished: bool
    notes: tuple[str, ...]


def packages_sync(
    *,
    client: StorageClient,
    now: datetime | None = None,
    budget_seconds: float | None = None,
    full: bool = False,
) -> PackageSyncOutcome:
    """One package cycle: incremental once a baseline exists, then a due full resync.

    `full=True` forces a full resync; `budget_seconds=None` lets it run to the end.
    Raises the client's `StorageError` when the service fails; what was stored so far
    stays, and a resync under way resumes where it stopped.
    """
    now = now or timezone.now()
    budget = math.inf if budget_seconds is None else budget_seconds
    cycle = _Cycle(client=client, now=now, deadline=time.monotonic() + budget)
    sync = package_sync_state_load()
    if full:
        sync.full_sync_requested = True
    finished = False
    try:
        if sync.has_baseline:
            _incremental(cycle, sync)
        if _full_sync_due(sync, now):
            finished = _full_sync_step(cycle, sync)
    finally:
        package_sync_state_save(sync)
        analytics.aips_stored_record(stored_dates=cycle.aip_stored_dates)
    return PackageSyncOutcome(
        requests=cycle.requests,
        refreshed=cycle.refreshed,
        discovered=cycle.discovered,
        changed=cycle.changed,
        removed=cycle.removed,
        full_sync_finished=finished,
        notes=tuple(cycle.notes),
    )


def package_refresh(*, uuid: str, client: StorageClient | None = None) -> StoragePackage | None:
    """Fetch one package again (after an action); None when the service no longer has it."""
    client = client or get_storage_client()
    now = timezone.now()
    try:
        package = client.get_package(uuid)
    except StorageNotFound:
        StoragePackage.objects.filter(uuid=uuid).delete()
        return None
    packages_upsert(packages=[package], now=now)
    return StoragePackage.objects.get(uuid=package.uuid)


# --------------------------------------------------------------------------- the poll


def _summary(client: StorageClient, now: datetime) -> tuple[dict[str, Any], int]:
    pipelines = list(client.list_pipelines())
    spaces = list(client.list_spaces())
    locations = list(client.list_locations())
    requests = 3
    package_counts = {}
    for package_type in SUMMARY_PACKAGE_TYPES:
        page = client.list_packages_page(offset=0, limit=1, package_type=package_type)
        package_counts[package_type] = page.total_count
        requests += 1
    deletion_requests = client.list_packages_page(offset=0, limit=1, status="DEL_REQ")
    recovery_requests = client.list_packages_page(offset=0, limit=1, status="RECOVER_REQ")
    requests += 2
    summary = {
        "fetched_at": now,
        "pipelines": plain(pipelines),
        "spaces": plain(spaces),
        "locations": plain(locations),
        "package_counts": package_counts,
        "deletion_requests": deletion_requests.total_count,
        "recovery_requests": recovery_requests.total_count,
    }
    return summary, requests


def storage_poll(
    *,
    client: StorageClient | None = None,
    now: datetime | None = None,
    budget_seconds: float | None = None,
) -> PollSummary:
    """One storage cycle: the small things into the cache, then the package mirror.

    `budget_seconds` caps the time a full resync may take in this cycle (default
    LOOKOUT_STORAGE_SYNC_BUDGET, so the task stays inside its time limit; the resync goes
    on next cycle); `float("inf")` lets it finish, as a first sync from the shell may.
    """
    now = now or timezone.now()
    started = time.monotonic()
    requests = 0
    outcome: PackageSyncOutcome | None = None
    error = ""
    try:
        client = client or get_storage_client()
        summary, requests = _summary(client, now)
        storage_summary_save(summary)
        outcome = packages_sync(
            client=client,
            now=now,
            budget_seconds=sync_budget_seconds() if budget_seconds is None else budget_seconds,
        )
        requests += outcome.requests
        for note in outcome.notes:
            log.info("storage poll: %s", note)
    except UpstreamError as exc:
        log.warning("storage poll failed: %s", exc)
        error = redact_secrets(str(exc))
        requests += 1
    ok = not error
    duration_ms = int((time.monotonic() - started) * 1000)
    service_poll_record(
        service=SERVICE,
        started_at=now,
        ok=ok,
        error=error,
        duration_ms=duration_ms,
        requests=requests,
    )
    return PollSummary(
        service=SERVICE,
        ok=ok,
        requests=requests,
        discovered=outcome.discovered if outcome else 0,
        refreshed=outcome.refreshed if outcome else 0,
        changed=outcome.changed if outcome else 0,
        duration_ms=duration_ms,
        error=error,
    )


# --------------------------------------------------------------------------- browse listings


def _browse_client() -> StorageClient:
    client = get_storage_client()
    # Shorter patience and no retries: a person is waiting for the listing.
    client.timeout = BROWSE_TIMEOUT
    client.retries = 1
    return client


def _browse_error(exc: StorageError) -> str:
    if isinstance(exc, StorageUnavailable):
        return (
            "The storage service did not answer in time or could not be reached, so this "
            "directory cannot be shown now. Try again in a moment."
        )
    if exc.status == 404:
        return "The storage service does not know this location (any more)."
    return f"The storage service could not list this directory: {_readable(exc)}"


def location_listing_request(*, location_uuid: str, path: bytes) -> bool:
    """Note that a fetch of this directory is about to be queued, so its page waits for
    the result. False when one is already queued or running: queue nothing then."""
    return cache.add(listing_request_key(location_uuid, path), timezone.now(), LISTING_REQUEST_TTL)


def location_listing_request_dropped(*, location_uuid: str, path: bytes) -> None:
    """The fetch could not be queued after all: the page should not wait for it."""
    cache.delete(listing_request_key(location_uuid, path))


def location_listing_fetch(
    *, location_uuid: str, path: bytes = b"", client: StorageClient | None = None
) -> dict[str, Any]:
    """Fetch one directory of a location from the storage service and store it in the cache.

    What is stored: the entries (names decoded, the raw bytes kept to browse further,
    counts as the service gave them, "5000+" included), when they were listed, when this
    fetch ended, and the error of this fetch in words for the page ("" when it worked).
    A failed fetch keeps the last listing that worked, so the page can still show it.
    """
    key = listing_key(location_uuid, path)
    earlier = cache.get(key) or {}
    listing: dict[str, Any] = {
        "location_uuid": location_uuid,
        "path": path,
        "entries": earlier.get("entries"),
        "listed_at": earlier.get("listed_at"),
        "error": "",
    }
    try:
        client = client or _browse_client()
        result = client.browse_location(location_uuid, path)
    except StorageError as exc:
        log.info("listing of %s in location %s failed: %s", path, location_uuid, exc)
        listing["error"] = _browse_error(exc)
    else:
        listing["entries"] = plain(list(result.entries))
        listing["listed_at"] = timezone.now()
    listing["fetched_at"] = timezone.now()
    cache.set(key, listing, LISTING_TTL)
    # Answered: the page stops waiting, and the next Refresh queues a new fetch.
    location_listing_request_dropped(location_uuid=location_uuid, path=path)
    return listing


# --------------------------------------------------------------------------- live reads


@dataclass
class OpenDownload:
    """A download whose upstream response is open; close it once streamed."""

    download: PackageDownload
    _stack: ExitStack

    def chunks(self) -> Iterator[bytes]:
        try:
            yield from self.download.iter_chunks()
        finally:
            self.close()

    def close(self) -> None:
        self._stack.close()


def package_download_open(*, uuid: str, client: StorageClient | None = None) -> OpenDownload:
    """Open the package's download. `PackageNotLocal` (202) and other errors raise here,
    before any byte is sent, so the caller can still show a message."""
    client = client or get_storage_client()
    stack = ExitStack()
    try:
        download = stack.enter_context(client.download_package(uuid))
    except BaseException:
        stack.close()
        raise
    return OpenDownload(download=download, _stack=stack)


def package_details_refresh(*, uuid: str, client: StorageClient | None = None) -> dict[str, Any]:
    """Fetch a package's contents and pointer file into the cache for its detail page."""
    client = client or get_storage_client()
    details: dict[str, Any] = {
        "fetched_at": timezone.now(),
        "files": None,
        "files_error": "",
        "pointer": None,
        "pointer_error": "",
    }
    try:
        details["files"] = plain(list(client.get_package_contents(uuid).files))
    except StorageError as exc:
        details["files_error"] = _readable(exc)
    status = StoragePackage.objects.filter(uuid=uuid).values_list("status", flat=True).first()
    try:
        if status == "DELETED":
            # The service has no file left: it answers 404 "File not found" or worse.
            details["pointer_error"] = "The package is deleted, so it has no pointer file."
        else:
            details["pointer"] = client.get_pointer_file(uuid)
    except StorageNotFound as exc:
        details["pointer_error"] = (
            _readable(exc) if exc.upstream_message else ("This package has no pointer file.")
        )
    except StorageError as exc:
        details["pointer_error"] = _readable(exc)
    PackageDetails.objects.update_or_create(package_uuid=uuid, defaults=details)
    try:
        package_refresh(uuid=uuid, client=client)
    except StorageError as exc:
        log.info("package %s not refreshed with its details: %s", uuid, exc)
    return details


def package_details_fetch(*, uuid: str) -> str:
    """Refresh a package's details for the task that queues it: "fetched", or "error: …"
    when no storage client could be had (logged; the page keeps what it showed)."""
    try:
        package_details_refresh(uuid=uuid)
    except StorageError as exc:
        log.warning("details of package %s not fetched: %s", uuid, exc)
        return f"error: {exc}"
    return "fetched"


def package_sync_state_save(sync: PackageSyncState) -> None:
    values = dict(sync.__dict__)
    # The cursor is naive, in the storage server's clock: stored as if it were UTC.
    if sync.stored_date_cursor is not None:
        values["stored_date_cursor"] = sync.stored_date_cursor.replace(tzinfo=UTC)
    PackageSync.objects.update_or_create(pk=1, defaults=values)


def storage_summary_save(summary: dict[str, Any]) -> None:
    """Keep the summary a storage poll read: `fetched_at` and what was listed."""
    data = {key: value for key, value in summary.items() if key != "fetched_at"}
    StorageSummary.objects.update_or_create(
        pk=1, defaults={"fetched_at": summary["fetched_at"], "data": data}
    )


def _readable(exc: UpstreamError) -> str:
    return redact_secrets(exc.upstream_message or exc.message)


# --------------------------------------------------------------------------- fixity


def fixity_check_create(
    *, package_uuid: str, requested_by: str, audit_entry: AuditEntry | None = None
) -> FixityCheck:
    return FixityCheck.objects.create(
        package_uuid=package_uuid,
        requested_by=requested_by,
        requested_at=timezone.now(),
        audit_entry=audit_entry,
    )


def _fixity_audit_outcome(check: FixityCheck, *, timed_out: bool = False) -> None:
    """Give the check's audit row (QUEUED since the request) the check's outcome."""
    if check.audit_entry_id is None:
        return
    Outcome = AuditEntry.Outcome
    if timed_out:
        outcome, message = Outcome.TIMED_OUT, f"Fixity check timed out: {check.error}"
    elif check.error:
        outcome, message = Outcome.FAILED, f"Fixity check without a result: {check.error}"
    elif check.success:
        outcome, message = Outcome.DONE, f"Fixity check passed. {check.message}".strip()
    elif check.success is False:
        problems = "; ".join(str(f) for f in check.failures[:5])
        outcome = Outcome.FAILED
        message = f"Fixity check failed: {check.message} {problems}".strip()
    else:
        outcome, message = Outcome.REFUSED, check.message or "The check could not run."
    AuditEntry.objects.filter(pk=check.audit_entry_id, outcome=Outcome.QUEUED).update(
        outcome=outcome,
        upstream_message=redact_secrets(message)[:2000],
        finished_at=timezone.now(),
    )


def fixity_check_run(*, check_id: int, client: StorageClient | None = None) -> FixityCheck:
    """Run a requested check against the storage service and store what it said.

    A failed check (success False) and a check that could not start (success None)
    are results; an unreachable service is recorded in `error`.
    """
    check = FixityCheck.objects.get(pk=check_id)
    if check.success is not None or check.error or check.checked_at is not None:
        return check  # a re-delivered task: the check already ran
    try:
        client = client or get_storage_client()
        result = client.check_fixity(str(check.package_uuid))
    except StorageError as exc:
        reason = _readable(exc)
        if exc.accepted:
            # The service ran it (so it is not to be asked again) but said nothing legible.
            reason = (
                f"the storage service ran the check (HTTP {exc.status}) but its answer "
                f"could not be read, so its result is not known: {reason}"
            )
        check.error = reason[:2000]
        check.checked_at = timezone.now()
    else:
        check.success = result.success
        check.message = result.message
        check.failures = list(result.failures)
        # The service gives a time only for checks an external store made itself.
        check.checked_at = _aware(result.checked_at) or timezone.now()
    with transaction.atomic():
        check.save(update_fields=["success", "message", "failures", "checked_at", "error"])
        _fixity_audit_outcome(check)
    return check


def fixity_check_fail(*, check_id: int, reason: str, timed_out: bool = False) -> None:
    """Record why a check never ran (e.g. the task gave up, `timed_out`)."""
    FixityCheck.objects.filter(pk=check_id, checked_at__isnull=True).update(
        error=redact_secrets(reason)[:2000], checked_at=timezone.now()
    )
    check = FixityCheck.objects.filter(pk=check_id).first()
    if check is not None:
        _fixity_audit_outcome(check, timed_out=timed_out)
