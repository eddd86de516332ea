"""The ingest scheduler: one cycle per poll interval (`tasks.run_ingest_cycle`).

Each cycle
1. follows every item in flight from the units Lookout knows (transfer -> SIP -> AIP);
2. matches items whose start answer was lost to their transfer, by name;
3. hides stored items upstream when the run asks for it;
4. lists each active run's folder (once, or every cycle when watched) and queues new
   children, skipping the names the service would refuse and those that exist already;
5. routes queued items to the run's pipelines with a free slot, fewest units in flight
   first, and starts them;
6. ends runs with nothing left.

Exactly once: an item is claimed (queued -> starting, attempts + 1) in its own committed
transaction before the upstream start, and the transfer's UUID is written right after.
A worker killed between the two leaves the item `starting` without a UUID: no cycle
starts it again; it is matched to its transfer by name, or after
`LOOKOUT_INGEST_LOST_START_SECONDS` marked failed for the operator to check. The claim
locks the run's row (`select_for_update`; SQLite's immediate transactions serialise it)
and counts the run's items in flight on each pipeline, so no two workers pass the cap.
Each item is claimed right before its own start, so a kill strands at most one.
See docs/ingest-runs.md.
"""

from __future__ import annotations

import base64
import logging
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Q, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _

from dashboard.clients.base import UpstreamError, UpstreamUnavailable
from dashboard.clients.storage import StorageError, StorageNotFound, get_storage_client
from dashboard.clients.workflow import WorkflowClient, WorkflowError, get_workflow_client
from dashboard.lib import ingest_names, page_cache, vocabulary
from dashboard.lib.pipelines import PipelineConfig, pipeline_get
from dashboard.models import (
    IN_FLIGHT_STATES,
    IngestItem,
    IngestRun,
    StoragePackage,
    Unit,
    UnitStatusCount,
)
from dashboard.selectors import freshness
from dashboard.selectors import ingest as ingest_selectors
from dashboard.services.transfers import (
    TransferRequest,
    answer_transfer_uuid,
    transfer_start_upstream,
)

log = logging.getLogger(__name__)

State = IngestItem.State
RunStatus = IngestRun.Status
# A unit first seen this long before an item's claim cannot be the item's transfer
# (the clocks are the same: both times are Lookout's).
MATCH_SLACK = timedelta(seconds=2)
# Backoff of a start that did not reach the service: 30 s, 1, 2, 4 min... at most 15 min.
BACKOFF_FIRST = 30
BACKOFF_MOST = 15 * 60
# A stored item whose units the service will not hide yet is tried for this long.
HIDE_TRIES_FOR = timedelta(hours=1)
# Upstream look-ups of AIPs per cycle, so a cycle stays short.
AIP_LOOKUPS_PER_CYCLE = 50
LIVE_STATUSES = ("PROCESSING", "USER_INPUT")
ITEM_BATCH = 500
# What following an item in flight reads of it (`_follow`, `_recover`).
FOLLOWED_FIELDS = (
    "run_id",
    "state",
    "pipeline",
    "name",
    "transfer_uuid",
    "sip_uuid",
    "started_at",
    "reason",
)


@dataclass
class CycleSummary:
    counts: Counter[str] = field(default_factory=Counter)

    def add(self, what: str, n: int = 1) -> None:
        # "" is what a step returns when nothing happened to its item.
        if what and n:
            self.counts[what] += n

    def line(self) -> str:
        if not self.counts:
            return "ingest: nothing to do"
        return "ingest: " + ", ".join(f"{n} {what}" for what, n in sorted(self.counts.items()))


class WorkflowClients:
    """One workflow client per pipeline for a cycle: its starts and hides reuse the
    client's kept-alive connection instead of a new session and handshake each."""

    def __init__(self) -> None:
        self._by_slug: dict[str, WorkflowClient] = {}

    def get(self, pipeline: PipelineConfig) -> WorkflowClient:
        client = self._by_slug.get(pipeline.slug)
        if client is None:
            client = self._by_slug[pipeline.slug] = get_workflow_client(pipeline.client_config())
        return client

    def close(self) -> None:
        for client in self._by_slug.values():
            client.session.close()
        self._by_slug.clear()


def lost_start_seconds() -> int:
    return int(getattr(settings, "LOOKOUT_INGEST_LOST_START_SECONDS", 3600))


def start_attempts() -> int:
    return int(getattr(settings, "LOOKOUT_INGEST_START_ATTEMPTS", 5))


# --- following items in flight --------------------------------------------------------


def _finish(item: IngestItem, now: datetime, **values: object) -> bool:
    """Move an item to a final state (from the state it was read in) and note the run's
    progress; False when another worker moved it first."""
    changed = IngestItem.objects.filter(pk=item.pk, state=item.state).update(
        finished_at=now, **values
    )
    if changed:
        IngestRun.objects.filter(pk=item.run_id).update(last_progress_at=now)
    return bool(changed)


def _fail(item: IngestItem, now: datetime, reason: str, what: str = "failed") -> str:
    """Mark an item failed by Lookout (not by its unit) for this reason; `what` for the
    summary, "" when another worker moved it first."""
    return what if _finish(item, now, state=State.FAILED, failed_at=now, reason=reason) else ""


def _failed_values(unit: Unit, what: str, now: datetime) -> dict[str, object]:
    job = unit.failed_job or unit.microservice
    # Whole sentences per kind: a translation cannot agree with an English noun.
    if what == "transfer":
        rejected, failed_at, failed = (
            _("The transfer was rejected."),
            _("The transfer failed at %(job)s."),
            _("The transfer failed."),
        )
    else:
        rejected, failed_at, failed = (
            _("The ingest was rejected."),
            _("The ingest failed at %(job)s."),
            _("The ingest failed."),
        )
    if unit.status == "REJECTED":
        reason = rejected
    elif job:
        reason = failed_at % {"job": job}
    else:
        reason = failed
    return {
        "state": State.FAILED,
        "failed_job": job[:255],
        "failed_at": unit.failed_at or unit.updated_at or now,
        "reason": reason,
    }


def _mirrored_aips(items: list[IngestItem], units: dict[str, Unit]) -> dict[str, StoragePackage]:
    """The package mirror's AIPs of these items' completed SIPs, by UUID: one query for
    a batch instead of one per SIP (the SIP is found as `_follow` finds it)."""
    sips = set()
    for item in items:
        transfer = units.get(item.transfer_uuid or "")
        if transfer is None:
            continue
        sip = units.get(transfer.sip_uuid or item.sip_uuid or "")
        if sip is not None and sip.status == "COMPLETE":
            sips.add(sip.uuid)
    if not sips:
        return {}
    packages = (
        StoragePackage.objects.filter(uuid__in=sips, package_type="AIP")
        .only("uuid", "status", "current_location_uuid")
        .order_by()
    )
    return {package.uuid: package for package in packages}


def _aip(
    sip_uuid: str, mirrored: dict[str, StoragePackage], lookups: list[int]
) -> tuple[str, str] | None:
    """(AIP UUID, location UUID) once the AIP of a SIP is stored: from the package
    mirror (`mirrored`, read for the batch), or asked of the storage service while the
    mirror has not caught up."""
    package = mirrored.get(sip_uuid)
    if package is not None and package.status in ("UPLOADED", "VERIFIED"):
        return package.uuid, package.current_location_uuid
    if lookups[0] <= 0:
        return None
    lookups[0] -= 1
    try:
        found = get_storage_client().get_package(sip_uuid)
    except StorageNotFound:
        return None
    except StorageError as exc:
        log.info("AIP %s not looked up: %s", sip_uuid, exc)
        return None
    if str(found.package_type) == "AIP" and str(found.status) in ("UPLOADED", "VERIFIED"):
        return found.uuid, found.current_location_uuid or ""
    return None


def _follow(
    item: IngestItem,
    units: dict[str, Unit],
    mirrored: dict[str, StoragePackage],
    lookups: list[int],
    now: datetime,
) -> str:
    """Move one item along its units; what happened, for the summary ("" for nothing)."""
    transfer = units.get(item.transfer_uuid or "")
    if transfer is None:
        return ""
    if transfer.status in ("FAILED", "REJECTED"):
        return "failed" if _finish(item, now, **_failed_values(transfer, "transfer", now)) else ""
    if transfer.sent_to_backlog:
        done = _finish(
            item,
            now,
            state=State.FAILED,
            failed_at=transfer.updated_at or now,
            reason=_("The transfer went to the backlog, so no AIP was made from it."),
        )
        return "failed" if done else ""
    sip_uuid = transfer.sip_uuid or item.sip_uuid
    current = transfer
    if sip_uuid:
        sip = units.get(sip_uuid)
        if sip is not None:
            current = sip
            if sip.status in ("FAILED", "REJECTED"):
                values = _failed_values(sip, "ingest", now)
                return "failed" if _finish(item, now, sip_uuid=sip_uuid, **values) else ""
            if sip.status == "COMPLETE":
                aip = _aip(sip_uuid, mirrored, lookups)
                if aip is not None:
                    done = _finish(
                        item,
                        now,
                        state=State.STORED,
                        sip_uuid=sip_uuid,
                        aip_uuid=aip[0],
                        aip_location=aip[1],
                        reason="",
                    )
                    return "stored" if done else ""
    waiting = current.awaiting_decision or current.awaiting_approval
    state = State.WAITING if waiting else State.PROCESSING
    if state != item.state or sip_uuid != item.sip_uuid:
        IngestItem.objects.filter(pk=item.pk, state=item.state).update(
            state=state, sip_uuid=sip_uuid, reason=""
        )
    return ""


def _units_of(items: list[IngestItem]) -> dict[str, Unit]:
    """The transfers of these items and the SIPs they became, by UUID."""
    transfers = {item.transfer_uuid for item in items if item.transfer_uuid}
    found = {unit.uuid: unit for unit in Unit.objects.filter(uuid__in=transfers)}
    sips = {unit.sip_uuid for unit in found.values() if unit.sip_uuid}
    sips |= {item.sip_uuid for item in items if item.sip_uuid}
    found.update({unit.uuid: unit for unit in Unit.objects.filter(uuid__in=sips)})
    return found


def _known_transfer(item: IngestItem) -> Unit | None:
    """A transfer Lookout knows that this item's start made: on its pipeline, with its
    name (or the `_1` the service adds to a name in use), first seen after the claim,
    and no other item's."""
    if item.started_at is None:
        return None
    candidates = (
        Unit.objects.filter(
            pipeline=item.pipeline,
            kind__in=("transfer", ""),
            # A SIP bears its transfer's name, and names its transfer: never taken.
            transfer_uuid__isnull=True,
            first_seen_at__gte=item.started_at - MATCH_SLACK,
        )
        .filter(Q(name=item.name) | Q(directory=item.name) | Q(name__startswith=f"{item.name}_1"))
        .order_by("first_seen_at", "id")
    )
    for unit in candidates:
        if not IngestItem.objects.filter(transfer_uuid=unit.uuid).exclude(pk=item.pk).exists():
            return unit
    return None


def _adopt(item: IngestItem, unit: Unit, *, from_state: str) -> bool:
    return bool(
        IngestItem.objects.filter(pk=item.pk, state=from_state, transfer_uuid__isnull=True).update(
            state=State.PROCESSING, transfer_uuid=unit.uuid, reason=""
        )
    )


def _recover(item: IngestItem, now: datetime) -> str:
    """An item `starting` with no UUID: its start's answer was lost (a worker killed
    between the start and the write, or a timeout). Match it, or give up in time."""
    unit = _known_transfer(item)
    if unit is not None:
        return "matched by name" if _adopt(item, unit, from_state=State.STARTING) else ""
    claimed = item.started_at or now
    if now - claimed < timedelta(seconds=lost_start_seconds()):
        if not item.reason:
            IngestItem.objects.filter(pk=item.pk, state=State.STARTING, reason="").update(
                reason=_(
                    "The start's answer was not recorded; waiting for a transfer named "
                    "%(name)s to appear on %(pipeline)s. It is never started twice."
                )
                % {"name": item.name, "pipeline": item.pipeline}
            )
        return ""
    reason = _(
        "Started on %(pipeline)s, but its answer was lost and no transfer named %(name)s "
        "appeared within %(duration)s. Check the workflow service: if the "
        'transfer is there, it runs there; otherwise use "retry failed items".'
    ) % {
        "pipeline": item.pipeline,
        "name": item.name,
        "duration": vocabulary.duration(lost_start_seconds()),
    }
    return _fail(item, now, reason, "lost")


def follow_in_flight(*, now: datetime, summary: CycleSummary) -> None:
    in_flight = list(
        IngestItem.objects.filter(state__in=IN_FLIGHT_STATES).only(*FOLLOWED_FIELDS).order_by("id")
    )
    lookups = [AIP_LOOKUPS_PER_CYCLE]
    for start in range(0, len(in_flight), ITEM_BATCH):
        batch = in_flight[start : start + ITEM_BATCH]
        units = _units_of(batch)
        mirrored = _mirrored_aips(batch, units)
        for item in batch:
            if item.transfer_uuid:
                summary.add(_follow(item, units, mirrored, lookups, now))
            elif item.state == State.STARTING:
                summary.add(_recover(item, now))


def hide_stored(
    *, now: datetime, summary: CycleSummary, clients: WorkflowClients | None = None
) -> None:
    """Hide the transfer and SIP of stored items whose run asks for it; the service
    answers 409 while a unit is not finished there: tried again next cycle."""
    clients = clients or WorkflowClients()
    items = IngestItem.objects.filter(
        state=State.STORED,
        hidden_upstream=False,
        run__hide_when_stored=True,
        finished_at__gte=now - HIDE_TRIES_FOR,
    ).order_by("id")[:50]
    for item in items:
        pipeline = pipeline_get(item.pipeline)
        if pipeline is None:
            continue
        client = clients.get(pipeline)
        try:
            hid_transfer = item.transfer_uuid is None or client.hide_transfer(item.transfer_uuid)
            hid_sip = item.sip_uuid is None or client.hide_ingest(item.sip_uuid)
        except WorkflowError as exc:
            log.info("hiding the units of ingest item %s: %s", item.pk, exc)
            continue
        if hid_transfer and hid_sip:
            IngestItem.objects.filter(pk=item.pk).update(hidden_upstream=True)
            uuids = [uuid for uuid in (item.transfer_uuid, item.sip_uuid) if uuid]
            Unit.objects.filter(pipeline=item.pipeline, uuid__in=uuids).update(
                hidden=True, hidden_by="ingest run", hidden_at=now
            )
            page_cache.bump()
            summary.add("hidden")


# --- listing the folder and queueing items -----------------------------------------------


@dataclass(frozen=True)
class Child:
    path: bytes  # relative to the run's folder
    raw_name: bytes
    signature: str


def _join(*parts: bytes) -> bytes:
    return b"/".join(part.strip(b"/") for part in parts if part.strip(b"/"))


def _children(run: IngestRun) -> list[Child]:
    """The run's items as the storage service lists them now (depth 1 or 2)."""
    client = get_storage_client()
    base = bytes(run.path)
    found: list[Child] = []
    parents: list[bytes] = [b""]
    for level in range(1, run.depth + 1):
        next_parents: list[bytes] = []
        for parent in parents:
            listing = client.browse_location(run.source_location, _join(base, parent))
            for entry in listing.entries:
                relative = _join(parent, entry.raw_name)
                if level < run.depth:
                    if entry.is_directory:
                        next_parents.append(relative)
                elif ingest_names.is_item(entry.raw_name, is_directory=entry.is_directory):
                    signature = f"{entry.size}:{entry.object_count}"
                    found.append(Child(relative, entry.raw_name, signature))
        parents = next_parents
    return found


def _settled(run: IngestRun, new: list[Child], now: datetime) -> list[Child]:
    """Of a watched folder's new children, those unchanged (size and count as the
    storage service gives them) for the settle time; the rest wait in `watch_pending`."""
    pending = dict(run.watch_pending or {})
    ready: list[Child] = []
    still: dict[str, list[str]] = {}
    for child in new:
        key = base64.b64encode(child.path).decode("ascii")
        seen = pending.get(key)
        if seen is None or seen[0] != child.signature:
            still[key] = [child.signature, now.isoformat()]
            continue
        since = datetime.fromisoformat(seen[1])
        if (now - since).total_seconds() >= run.settle_seconds:
            ready.append(child)
        else:
            still[key] = seen
    IngestRun.objects.filter(pk=run.pk).update(watch_pending=still)
    return ready


def _skip_reason(
    run: IngestRun,
    child: Child,
    name: str,
    taken: set[str],
    existing: ingest_selectors.ExistingNames,
) -> str:
    refusal = ingest_names.name_refusal(child.raw_name, name)
    if refusal:
        return refusal
    if name in taken:
        return _("Another item of this run has the same name.")
    if not run.skip_existing:
        return ""
    if name in existing.stored_aips:
        return _("An AIP named %(name)s is already stored.") % {"name": name}
    if name in existing.transfers:
        return _("A transfer named %(name)s is already known to Lookout.") % {"name": name}
    return ""


def _queue(run: IngestRun, children: list[Child], now: datetime) -> tuple[int, int]:
    """Add items for these children (numbered in order); (queued, skipped)."""
    taken = set(IngestItem.objects.filter(run=run).values_list("name", flat=True))
    names = [ingest_names.transfer_name(child.raw_name)[:255] for child in children]
    # Read for every name at once, before the run's lock is taken.
    existing = (
        ingest_selectors.existing_names(set(names))
        if run.skip_existing
        else ingest_selectors.ExistingNames(stored_aips=set(), transfers=set())
    )
    with transaction.atomic():
        locked = IngestRun.objects.select_for_update().get(pk=run.pk)
        number = locked.next_number
        items = []
        for child, name in zip(children, names, strict=True):
            reason = _skip_reason(run, child, name, taken, existing)
            taken.add(name)
            items.append(
                IngestItem(
                    run=run,
                    path=child.path,
                    path_shown=child.path.decode("utf-8", "backslashreplace"),
                    name=name,
                    number=number,
                    accession=ingest_names.accession_format(run.accession, number=number, name=name)
                    if run.accession
                    else "",
                    state=State.SKIPPED if reason else State.QUEUED,
                    reason=reason,
                    finished_at=now if reason else None,
                )
            )
            number += 1
        IngestItem.objects.bulk_create(items, ignore_conflicts=True)
        IngestRun.objects.filter(pk=run.pk).update(next_number=number)
    skipped = sum(1 for item in items if item.state == State.SKIPPED)
    return len(items) - skipped, skipped


def ingest_scan(*, run: IngestRun, now: datetime, summary: CycleSummary) -> None:
    """List the run's folder and queue what is new (a watched folder: once settled)."""
    try:
        children = _children(run)
    except StorageError as exc:
        message = _("The storage service could not list the folder: %(error)s") % {
            "error": exc.upstream_message or exc.message
        }
        IngestRun.objects.filter(pk=run.pk).update(scan_error=message)
        log.warning("ingest run %s: %s", run.pk, exc)
        return
    known = {
        bytes(path) for path in IngestItem.objects.filter(run=run).values_list("path", flat=True)
    }
    new = [child for child in children if child.path not in known]
    if run.watch and run.scanned_at is not None:
        new = _settled(run, new, now)
    queued, skipped = _queue(run, new, now) if new else (0, 0)
    IngestRun.objects.filter(pk=run.pk).update(scanned_at=now, scan_error="")
    run.scanned_at = now
    summary.add("queued", queued)
    summary.add("skipped", skipped)


# --- routing and starting ---------------------------------------------------------------


def _blocked_pipelines(slugs: set[str], now: datetime) -> dict[str, str]:
    """Why each of these pipelines receives nothing now (absent: it may receive)."""
    blocked: dict[str, str] = {}
    health = {h.service: h for h in freshness.service_health_list(now=now)}
    pipelines = {slug: pipeline_get(slug) for slug in slugs}
    full_by_url = ingest_selectors.processing_locations_full(
        pipeline_urls=[pipeline.url for pipeline in pipelines.values() if pipeline is not None]
    )
    for slug, pipeline in pipelines.items():
        if pipeline is None:
            blocked[slug] = _("The pipeline is no longer configured.")
            continue
        service = health.get(f"workflow:{slug}")
        if service is not None and service.stale:
            blocked[slug] = _(
                "Its workflow service is stale (no successful poll for %(seconds)s s); "
                "nothing starts there until it answers again."
            ) % {"seconds": int(service.age_seconds) if service.age_seconds is not None else "—"}
            continue
        full = full_by_url.get(pipeline.url)
        if full:
            blocked[slug] = _(
                "Its currently-processing location %(location)s is over the capacity threshold."
            ) % {"location": full[0]}
    return blocked


def _live_loads(slugs: set[str]) -> Counter[str]:
    """Units in flight per pipeline by Lookout's kept counts (units it did not start
    count too), plus items just started whose unit has no status yet."""
    loads: Counter[str] = Counter()
    rows = (
        UnitStatusCount.objects.filter(pipeline__in=slugs, status__in=LIVE_STATUSES)
        .values_list("pipeline")
        .annotate(n=Sum("count"))
    )
    for slug, n in rows:
        loads[slug] += max(int(n or 0), 0)
    starting = (
        IngestItem.objects.filter(state=State.STARTING, pipeline__in=slugs)
        .values_list("pipeline")
        .annotate(n=Count("id"))
        .order_by()
    )
    for slug, n in starting:
        loads[slug] += int(n or 0)
    return loads


def _run_in_flight(run: IngestRun, slugs: list[str]) -> dict[str, int]:
    """The run's items in flight per pipeline, in one aggregate query."""
    return dict(
        IngestItem.objects.filter(run=run, pipeline__in=slugs, state__in=IN_FLIGHT_STATES)
        .values_list("pipeline")
        .annotate(n=Count("id"))
        .order_by()
    )


def _claim(
    run: IngestRun, open_slugs: list[str], loads: Counter[str], now: datetime, *, most: int = 1
) -> list[IngestItem]:
    """Take the next queued items due (at most `most`) for the free slots of these
    pipelines, within the cap, in one committed transaction; each goes to the pipeline
    with the fewest units in flight (`loads`, counted up here), ties by the run's
    pipeline order. The claimed items, in number order.

    The scheduler claims one item right before its start: a worker killed after a
    claim then strands at most that one item (matched by name, or failed in time),
    never the other free slots it would have claimed with it."""
    with transaction.atomic():
        locked = (
            IngestRun.objects.select_for_update()
            .filter(pk=run.pk, status=RunStatus.RUNNING)
            .only("max_in_flight")
            .first()
        )
        if locked is None:
            return []
        # Counted under the lock: no other worker claims for this run meanwhile.
        busy = _run_in_flight(run, open_slugs)
        free = {
            slug: locked.max_in_flight - busy.get(slug, 0)
            for slug in open_slugs
            if busy.get(slug, 0) < locked.max_in_flight
        }
        if not free:
            return []
        due = list(
            IngestItem.objects.filter(run=run, state=State.QUEUED)
            .filter(Q(retry_at__isnull=True) | Q(retry_at__lte=now))
            .order_by("number", "id")
            .values_list("pk", flat=True)[: min(most, sum(free.values()))]
        )
        if not due:
            return []
        chosen: dict[str, list[int]] = {}
        for pk in due:
            slug = min(free, key=lambda s: (loads[s], run.pipelines.index(s)))
            chosen.setdefault(slug, []).append(pk)
            loads[slug] += 1
            free[slug] -= 1
            if not free[slug]:
                del free[slug]
        for slug, pks in chosen.items():
            IngestItem.objects.filter(pk__in=pks, state=State.QUEUED).update(
                state=State.STARTING,
                pipeline=slug,
                attempts=F("attempts") + 1,
                started_at=Coalesce("started_at", now),
                retry_at=None,
            )
        # Only the rows this claim moved (the guard above skips one moved meanwhile).
        return list(
            IngestItem.objects.filter(pk__in=due, state=State.STARTING).order_by("number", "id")
        )


def _not_started(item: IngestItem, exc: UpstreamError, now: datetime) -> str:
    words = exc.upstream_message or exc.message
    if item.attempts >= start_attempts():
        reason = _("The start failed %(n)d times; the last answer: %(words)s") % {
            "n": item.attempts,
            "words": words,
        }
        return _fail(item, now, reason)
    delay = min(BACKOFF_FIRST * 2 ** (item.attempts - 1), BACKOFF_MOST)
    IngestItem.objects.filter(pk=item.pk, state=State.STARTING).update(
        state=State.QUEUED,
        retry_at=now + timedelta(seconds=delay),
        reason=_("The start did not go through (%(words)s); tried again from %(at)s.")
        % {"words": words, "at": (now + timedelta(seconds=delay)).strftime("%H:%M:%S")},
    )
    return "start retried later"


def _start_error(item: IngestItem, exc: UpstreamError, now: datetime) -> str:
    timed_out = isinstance(exc, UpstreamUnavailable) and " timed out " in exc.message
    if timed_out or exc.accepted:
        # It may have started: never again; the name finds it (see `_recover`).
        IngestItem.objects.filter(pk=item.pk, state=State.STARTING).update(
            reason=_(
                "The start's answer was lost (%(words)s); waiting for a transfer named "
                "%(name)s to appear. It is never started twice."
            )
            % {"words": exc.message, "name": item.name}
        )
        return "answer lost"
    if isinstance(exc, UpstreamUnavailable) or (exc.status or 0) >= 500 or exc.status in (401, 403):
        return _not_started(item, exc, now)
    words = exc.upstream_message or exc.message
    reason = _("The workflow service refused the start: %(words)s") % {"words": words}
    return _fail(item, now, reason, "refused")


def _start(
    run: IngestRun,
    item: IngestItem,
    pipeline: PipelineConfig,
    now: datetime,
    clients: WorkflowClients,
) -> str:
    """Start one claimed item; its UUID is written as soon as the service gives it."""
    if item.attempts > 1:
        # A retry after a start that seemed not to go through: check it did not.
        unit = _known_transfer(item)
        if unit is not None:
            return "matched by name" if _adopt(item, unit, from_state=State.STARTING) else ""
    request = TransferRequest(
        pipeline=pipeline.slug,
        location_uuid=run.source_location,
        paths=(_join(bytes(run.path), bytes(item.path)),),
        name=item.name,
        transfer_type=run.transfer_type,
        accession=item.accession,
        processing_config=(run.processing_configs or {}).get(pipeline.slug, "default"),
        auto_approve=run.auto_approve,
    )
    try:
        answer = transfer_start_upstream(clients.get(pipeline), request)
    except UpstreamError as exc:
        log.warning("ingest item %s on %s: %s", item.pk, pipeline.slug, exc)
        return _start_error(item, exc, now)
    uuid = answer_transfer_uuid(answer)
    if uuid is None:
        IngestItem.objects.filter(pk=item.pk, state=State.STARTING).update(
            reason=_("Started; the service did not name the transfer, so it is matched by name.")
        )
        return "started"
    IngestItem.objects.filter(pk=item.pk, state=State.STARTING).update(
        state=State.PROCESSING, transfer_uuid=uuid, reason=""
    )
    return "started"


def _full_pipelines(
    run: IngestRun, slugs: list[str], now: datetime, busy: dict[str, int] | None = None
) -> dict[str, str]:
    """Of these pipelines, those whose slots are all taken while items wait to start
    (`busy`: the run's items in flight on them, when counted already)."""
    if not slugs:
        return {}
    if busy is None:
        busy = _run_in_flight(run, slugs)
    if all(busy.get(slug, 0) < run.max_in_flight for slug in slugs):
        return {}
    ready = IngestItem.objects.filter(run=run, state=State.QUEUED).filter(
        Q(retry_at__isnull=True) | Q(retry_at__lte=now)
    )
    if not ready.exists():
        return {}
    message = _("All %(cap)d slots are in use; the next item starts when one frees up.")
    return {
        slug: message % {"cap": run.max_in_flight}
        for slug in slugs
        if busy.get(slug, 0) >= run.max_in_flight
    }


def _route(
    run: IngestRun,
    blocked: dict[str, str],
    loads: Counter[str],
    now: datetime,
    clients: WorkflowClients | None = None,
) -> int:
    """Fill the run's free slots; returns how many items were started."""
    clients = clients or WorkflowClients()
    waits: dict[str, str] = {}
    open_slugs: list[str] = []
    for slug in run.pipelines:
        pipeline = pipeline_get(slug)
        if slug in blocked:
            waits[slug] = blocked[slug]
        elif pipeline is not None and not ingest_names.window_open(
            run.window_start, run.window_end, now=now, time_zone=pipeline.time_zone
        ):
            waits[slug] = _("Outside the run's window (%(window)s, %(zone)s).") % {
                "window": ingest_names.window_text(run.window_start, run.window_end),
                "zone": pipeline.time_zone,
            }
        else:
            open_slugs.append(slug)
    # A pipeline with every slot taken needs no claim (and no locked transaction); the
    # claim counts again under the lock, so this only saves work.
    busy = _run_in_flight(run, open_slugs) if open_slugs else {}
    free_slugs = [slug for slug in open_slugs if busy.get(slug, 0) < run.max_in_flight]
    started = 0
    while free_slugs:
        claimed = _claim(run, free_slugs, loads, now)
        if not claimed:
            break
        for item in claimed:
            pipeline = pipeline_get(item.pipeline)
            assert pipeline is not None  # an unconfigured pipeline is blocked above
            _start(run, item, pipeline, now, clients)
            started += 1
    # Nothing claimed: the count above still holds, no need to count again.
    waits.update(_full_pipelines(run, open_slugs, now, None if started else busy))
    if waits != (run.waits or {}):
        IngestRun.objects.filter(pk=run.pk).update(waits=waits)
    return started


def _end_runs(now: datetime, summary: CycleSummary) -> None:
    """A run with nothing queued or in flight is finished (a watched one only when
    cancelled); a cancelled one gets its end time when its last item ends."""
    for run in IngestRun.objects.filter(
        Q(status=RunStatus.RUNNING, watch=False, scanned_at__isnull=False)
        | Q(status=RunStatus.CANCELLED, finished_at__isnull=True)
    ):
        busy = IngestItem.objects.filter(
            run=run, state__in=(State.QUEUED, *IN_FLIGHT_STATES)
        ).exists()
        if busy:
            continue
        status = RunStatus.CANCELLED if run.status == RunStatus.CANCELLED else RunStatus.FINISHED
        if IngestRun.objects.filter(pk=run.pk, status=run.status, finished_at__isnull=True).update(
            status=status, finished_at=now
        ):
            summary.add("runs ended")


def ingest_cycle(*, now: datetime | None = None) -> CycleSummary:
    """One scheduling cycle over every run (see the module docstring)."""
    now = now or timezone.now()
    summary = CycleSummary()
    clients = WorkflowClients()
    try:
        follow_in_flight(now=now, summary=summary)
        hide_stored(now=now, summary=summary, clients=clients)
        active = list(IngestRun.objects.filter(status__in=(RunStatus.QUEUED, RunStatus.RUNNING)))
        # A run created since the last cycle starts now (most cycles have none).
        queued = [run.pk for run in active if run.status == RunStatus.QUEUED]
        if queued:
            IngestRun.objects.filter(pk__in=queued, status=RunStatus.QUEUED).update(
                status=RunStatus.RUNNING, started_at=now
            )
        if active:
            slugs = {slug for run in active for slug in run.pipelines}
            blocked = _blocked_pipelines(slugs, now)
            loads = _live_loads(slugs)
            for run in active:
                run.status = RunStatus.RUNNING
                if run.scanned_at is None or run.watch:
                    ingest_scan(run=run, now=now, summary=summary)
                summary.add("started", _route(run, blocked, loads, now, clients))
        _end_runs(now, summary)
    finally:
        clients.close()
    return summary
