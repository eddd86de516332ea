"""Reads for the storage pages and API: the cached summary, the package mirror and the
browse listings.

Nothing here calls the storage service; what the poller and the tasks stored is what is
shown.
"""

from __future__ import annotations

import re
import uuid as uuid_module
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from django.core.cache import cache
from django.db.models import F, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from dashboard.lib import vocabulary
from dashboard.lib.cache_state import listing_key, listing_request_key
from dashboard.lib.package_sync import PackageSyncState
from dashboard.lib.safe_xml import UnsafeXml, indent_untrusted, parse_untrusted
from dashboard.lib.vocabulary import TRANSITIONAL_PACKAGE_STATUSES as TRANSITIONAL_STATUSES
from dashboard.models import (
    AuditEntry,
    FixityCheck,
    PackageDetails,
    PackageSync,
    StoragePackage,
    StorageSummary,
)
from dashboard.selectors import freshness

# Codes the filters accept; their words are in `dashboard.lib.vocabulary`.
PACKAGE_TYPES = tuple(vocabulary.PACKAGE_TYPES)
PACKAGE_STATUSES = tuple(vocabulary.PACKAGE_STATUSES)
# Sort keys offered to the page and the API; each ends on the UUID so pages are stable.
PACKAGE_SORTS: dict[str, tuple[Any, ...]] = {
    # The UUID tie-break runs the same way as the main key, so one index serves both.
    "-stored": (F("stored_date").desc(nulls_last=True), "-uuid"),
    "stored": (F("stored_date").asc(nulls_last=True), "uuid"),
    "-size": (F("size").desc(nulls_last=True), "-uuid"),
    "size": (F("size").asc(nulls_last=True), "uuid"),
    "name": ("name", "uuid"),
    "-name": ("-name", "-uuid"),
    "type": ("package_type", "name", "uuid"),
    "status": ("status", "name", "uuid"),
}
SORT_LABELS = {
    "-stored": gettext_lazy("Newest stored first"),
    "stored": gettext_lazy("Oldest stored first"),
    "-size": gettext_lazy("Largest first"),
    "size": gettext_lazy("Smallest first"),
    "name": gettext_lazy("Name A–Z"),
    "-name": gettext_lazy("Name Z–A"),
    "type": gettext_lazy("Type"),
    "status": gettext_lazy("Status"),
}
DEFAULT_SORT = "-stored"
_HEX_PREFIX = re.compile(r"^[0-9a-f][0-9a-f-]{3,35}$")


# --------------------------------------------------------------------------- usage


@dataclass(frozen=True)
class Usage:
    used: int
    # None: no limit (a size or quota of null or 0 means unlimited).
    limit: int | None
    # The meter's thresholds, the same as the wall's.
    warning_percent: ClassVar[int] = vocabulary.CAPACITY_WARNING_PERCENT
    critical_percent: ClassVar[int] = vocabulary.CAPACITY_CRITICAL_PERCENT

    @property
    def unlimited(self) -> bool:
        return not self.limit

    @property
    def percent(self) -> float | None:
        percent = vocabulary.percent_used(self.used, self.limit)
        return None if percent is None else min(100.0, percent)

    @property
    def level(self) -> str:
        """`unlimited`, `ok`, `warning` or `critical`, as on the wall."""
        return vocabulary.capacity_level(self.used, self.limit)

    @property
    def level_label(self) -> str:
        return vocabulary.capacity_label(self.level)

    @property
    def text(self) -> str:
        return vocabulary.usage_text(self.used, self.limit)


# --------------------------------------------------------------------------- overview


@dataclass(frozen=True)
class PipelineRow:
    uuid: str
    description: str
    remote_name: str

    @property
    def label(self) -> str:
        return self.description or self.uuid


@dataclass(frozen=True)
class SpaceRow:
    uuid: str
    access_protocol: str
    path: str
    usage: Usage
    location_count: int


@dataclass(frozen=True)
class LocationRow:
    uuid: str
    purpose: str
    purpose_label: str
    description: str
    enabled: bool
    path: str
    relative_path: str
    space_uuid: str
    pipeline_uuids: tuple[str, ...]
    pipeline_labels: tuple[str, ...]
    usage: Usage

    @property
    def label(self) -> str:
        return self.description or self.relative_path or self.path or self.uuid


@dataclass(frozen=True)
class PurposeGroup:
    code: str
    label: str
    locations: tuple[LocationRow, ...]


@dataclass(frozen=True)
class MirrorStatus:
    """How complete and how fresh the package mirror is."""

    count: int
    upstream_total: int | None
    last_full_sync_at: datetime | None
    last_incremental_at: datetime | None
    full_sync_running: bool
    full_sync_offset: int

    @property
    def synced_once(self) -> bool:
        return self.last_full_sync_at is not None


@dataclass(frozen=True)
class StorageOverview:
    fetched_at: datetime | None
    pipelines: tuple[PipelineRow, ...]
    spaces: tuple[SpaceRow, ...]
    purpose_groups: tuple[PurposeGroup, ...]
    package_counts: dict[str, int]
    deletion_requests: int
    recovery_requests: int


def storage_health() -> freshness.ServiceHealth:
    return next(h for h in freshness.service_health_list() if h.service == "storage")


def package_sync_state_load() -> PackageSyncState:
    row = PackageSync.objects.filter(pk=1).first()
    if row is None:
        return PackageSyncState()
    values = {name: getattr(row, name) for name in PackageSyncState.__dataclass_fields__}
    if row.stored_date_cursor is not None:  # naive again, in the storage server's clock
        values["stored_date_cursor"] = row.stored_date_cursor.astimezone(UTC).replace(tzinfo=None)
    return PackageSyncState(**values)


def _summary(summary: dict[str, Any] | None = None) -> dict[str, Any]:
    """`summary` when the caller read it already (its row is one JSON blob: read it
    once for several lists), else the last storage poll's."""
    if summary is not None:
        return summary
    return storage_summary() or {}


def pipeline_list(*, summary: dict[str, Any] | None = None) -> list[PipelineRow]:
    return [
        PipelineRow(
            uuid=p["uuid"],
            description=p.get("description") or "",
            remote_name=p.get("remote_name") or "",
        )
        for p in _summary(summary).get("pipelines", [])
    ]


def _pipeline_labels(summary: dict[str, Any] | None = None) -> dict[str, str]:
    return {p.uuid: p.label for p in pipeline_list(summary=summary)}


def pipeline_label(uuid: str) -> str:
    return _pipeline_labels().get(uuid, uuid)


def space_list(*, access_protocol: str | None = None) -> list[SpaceRow]:
    summary = _summary()
    location_counts: dict[str, int] = {}
    for location in summary.get("locations", []):
        key = location.get("space_uuid") or ""
        location_counts[key] = location_counts.get(key, 0) + 1
    rows = [
        SpaceRow(
            uuid=s["uuid"],
            access_protocol=s.get("access_protocol") or "",
            path=s.get("path") or "",
            usage=Usage(used=s.get("used") or 0, limit=s.get("size") or None),
            location_count=location_counts.get(s["uuid"], 0),
        )
        for s in summary.get("spaces", [])
    ]
    if access_protocol:
        # Any case, as every API filter: `?access_protocol=fs` finds FS spaces.
        wanted = access_protocol.casefold()
        rows = [row for row in rows if row.access_protocol.casefold() == wanted]
    return rows


def _location_row(data: dict[str, Any], labels: dict[str, str]) -> LocationRow:
    purpose = data.get("purpose") or ""
    pipelines = tuple(data.get("pipeline_uuids") or ())
    return LocationRow(
        uuid=data["uuid"],
        purpose=purpose,
        purpose_label=vocabulary.purpose_label(purpose),
        description=data.get("description") or "",
        enabled=bool(data.get("enabled", True)),
        path=data.get("path") or "",
        relative_path=data.get("relative_path") or "",
        space_uuid=data.get("space_uuid") or "",
        pipeline_uuids=pipelines,
        pipeline_labels=tuple(labels.get(p, p) for p in pipelines),
        usage=Usage(used=data.get("used") or 0, limit=data.get("quota") or None),
    )


def location_list(
    *,
    purpose: str | None = None,
    pipeline: str | None = None,
    space: str | None = None,
) -> list[LocationRow]:
    return _location_list(_summary(), purpose=purpose, pipeline=pipeline, space=space)


def pipelines_and_locations(
    *, purpose: str | None = None
) -> tuple[list[PipelineRow], list[LocationRow]]:
    """The pipelines and the locations (of `purpose`) from one read of the summary."""
    summary = _summary()
    return pipeline_list(summary=summary), _location_list(summary, purpose=purpose)


def _location_list(
    summary: dict[str, Any],
    *,
    purpose: str | None = None,
    pipeline: str | None = None,
    space: str | None = None,
) -> list[LocationRow]:
    labels = _pipeline_labels(summary)
    rows = [_location_row(data, labels) for data in summary.get("locations", [])]
    if purpose:
        rows = [row for row in rows if row.purpose == purpose]
    if pipeline:
        rows = [row for row in rows if pipeline in row.pipeline_uuids]
    if space:
        rows = [row for row in rows if row.space_uuid == space]
    order = list(vocabulary.PURPOSES)
    rows.sort(key=lambda r: (order.index(r.purpose) if r.purpose in order else 99, r.label.lower()))
    return rows


def location_get(*, uuid: str) -> LocationRow | None:
    return next((row for row in location_list() if row.uuid == uuid), None)


def storage_overview() -> StorageOverview | None:
    """Pipelines, spaces and locations grouped by purpose; None before the first poll."""
    summary = storage_summary()
    if summary is None:
        return None
    groups: dict[str, list[LocationRow]] = {}
    for row in location_list():
        groups.setdefault(row.purpose, []).append(row)
    return StorageOverview(
        fetched_at=summary.get("fetched_at"),
        pipelines=tuple(pipeline_list()),
        spaces=tuple(space_list()),
        purpose_groups=tuple(
            PurposeGroup(
                code=code,
                label=vocabulary.purpose_label(code),
                locations=tuple(rows),
            )
            for code, rows in groups.items()
        ),
        package_counts=dict(summary.get("package_counts") or {}),
        deletion_requests=summary.get("deletion_requests") or 0,
        recovery_requests=summary.get("recovery_requests") or 0,
    )


def mirror_status() -> MirrorStatus:
    sync: PackageSyncState = package_sync_state_load()
    return MirrorStatus(
        count=StoragePackage.objects.count(),
        upstream_total=sync.upstream_total,
        last_full_sync_at=sync.last_full_sync_at,
        last_incremental_at=sync.last_incremental_at,
        full_sync_running=sync.full_sync_started_at is not None,
        full_sync_offset=sync.full_sync_offset,
    )


# --------------------------------------------------------------------------- packages


def _uuid_or_none(text: str) -> str | None:
    try:
        return str(uuid_module.UUID(text))
    except ValueError:
        return None


def package_list(
    *,
    package_type: str | None = None,
    status: str | None = None,
    location: str | None = None,
    pipeline: str | None = None,
    q: str | None = None,
    sort: str | None = None,
) -> QuerySet[StoragePackage]:
    """Mirrored packages, filtered and sorted; `q` is a name fragment or a UUID (prefix)."""
    packages = StoragePackage.objects.all()
    if package_type:
        packages = packages.filter(package_type=package_type)
    if status:
        packages = packages.filter(status=status)
    if location:
        packages = packages.filter(current_location_uuid=location)
    if pipeline:
        packages = packages.filter(origin_pipeline_uuid=pipeline)
    needle = (q or "").strip()
    if needle:
        exact = _uuid_or_none(needle)
        if exact is not None:
            packages = packages.filter(uuid=exact)
        elif _HEX_PREFIX.match(needle.lower()):
            packages = packages.filter(
                Q(uuid__startswith=needle.lower()) | Q(name__icontains=needle)
            )
        else:
            packages = packages.filter(name__icontains=needle)
    return packages.order_by(*PACKAGE_SORTS.get(sort or DEFAULT_SORT, PACKAGE_SORTS[DEFAULT_SORT]))


def package_get(*, uuid: str) -> StoragePackage | None:
    return StoragePackage.objects.filter(uuid=uuid).first()


@dataclass(frozen=True)
class PointerSummary:
    """The facts of a pointer file worth a line each, plus the file itself, indented."""

    facts: tuple[tuple[str, str], ...]
    pretty: str
    parse_error: str


@dataclass(frozen=True)
class PackageDetail:
    package: StoragePackage
    location: LocationRow | None
    pipeline_label: str
    related: tuple[StoragePackage | str, ...]
    replicas: tuple[StoragePackage | str, ...]
    replicated: StoragePackage | str | None
    fixity_checks: tuple[FixityCheck, ...]
    # From the cache, filled by a task; None until fetched.
    details: dict[str, Any] | None
    pointer: PointerSummary | None
    # "Moving to <location>" while a move made through Lookout runs, "Moved to
    # <location>" once the package is there; empty otherwise.
    move_note: str = ""

    @property
    def status_changes_by_itself(self) -> bool:
        return self.package.status in TRANSITIONAL_STATUSES

    @property
    def fixity_running(self) -> bool:
        return any(check.running for check in self.fixity_checks)


def _packages_by_uuid(uuids: list[str]) -> tuple[StoragePackage | str, ...]:
    """Each related UUID as its mirrored row, or as the bare UUID when not mirrored."""
    found = StoragePackage.objects.in_bulk(uuids)
    return tuple(found.get(uuid, uuid) for uuid in uuids)


def package_detail(*, uuid: str, fixity_limit: int = 20) -> PackageDetail | None:
    package = package_get(uuid=uuid)
    if package is None:
        return None
    stored = PackageDetails.objects.filter(package_uuid=package.uuid).first()
    details = (
        None
        if stored is None
        else {
            "fetched_at": stored.fetched_at,
            "files": stored.files,
            "files_error": stored.files_error,
            "pointer": stored.pointer,
            "pointer_error": stored.pointer_error,
        }
    )
    pointer_text = stored.pointer if stored is not None else None
    replicated = (
        _packages_by_uuid([package.replicated_package_uuid])[0]
        if package.replicated_package_uuid
        else None
    )
    return PackageDetail(
        package=package,
        location=location_get(uuid=package.current_location_uuid),
        pipeline_label=pipeline_label(package.origin_pipeline_uuid)
        if package.origin_pipeline_uuid
        else "",
        related=_packages_by_uuid(list(package.related_uuids)),
        replicas=_packages_by_uuid(list(package.replica_uuids)),
        replicated=replicated,
        fixity_checks=tuple(fixity_history(package_uuid=package.uuid, limit=fixity_limit)),
        details=details,
        pointer=pointer_summary(pointer_text) if pointer_text else None,
        move_note=_move_note(package),
    )


def _move_note(package: StoragePackage) -> str:
    """Where the last move made through Lookout is taking (or took) the package.

    The storage service moves in the background: the package shows MOVING in its old
    location, then UPLOADED in the new one, so "moved" is only said once it is there.
    """
    move = (
        AuditEntry.objects.filter(
            action="package_move", target=package.uuid, outcome=AuditEntry.Outcome.DONE
        )
        .order_by("-requested_at", "-id")
        .first()
    )
    if move is None:
        return ""
    destination = str((move.parameters or {}).get("to") or "")
    location = location_get(uuid=destination)
    label = location.label if location else destination
    if package.status == "MOVING":
        return f"Moving to {label}"
    if package.current_location_uuid == destination:
        return f"Moved to {label}"
    return ""


def fixity_history(*, package_uuid: str, limit: int = 20) -> list[FixityCheck]:
    return list(FixityCheck.objects.filter(package_uuid=package_uuid)[:limit])


def move_destinations(*, package: StoragePackage) -> list[LocationRow]:
    """Enabled locations with the same purpose as the package's current one."""
    current = location_get(uuid=package.current_location_uuid)
    if current is None:
        return []
    return [
        row
        for row in location_list(purpose=current.purpose)
        if row.enabled and row.uuid != current.uuid
    ]


# --------------------------------------------------------------------------- pointer file

_POINTER_LIMIT = 1_000_000
# Local names (namespace dropped) worth showing as facts, with their labels.
_POINTER_FACTS = (
    ("objectIdentifierValue", "Identifier"),
    ("messageDigestAlgorithm", "Checksum algorithm"),
    ("messageDigest", "Checksum"),
    ("size", "Size (bytes)"),
    ("formatName", "Format"),
    ("formatVersion", "Format version"),
    ("compositionLevel", "Composition level"),
    ("eventType", "Event"),
    ("eventDateTime", "Event time"),
)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def pointer_summary(text: str) -> PointerSummary:
    """Key facts and an indented copy of a pointer file (METS with PREMIS inside)."""
    if len(text) > _POINTER_LIMIT:
        return PointerSummary(
            facts=(), pretty=text[:_POINTER_LIMIT], parse_error="too large to parse"
        )
    try:
        root = parse_untrusted(text, source="a pointer file")
    except (UnsafeXml, ElementTree.ParseError) as exc:
        return PointerSummary(facts=(), pretty=text, parse_error=str(exc))
    facts: list[tuple[str, str]] = []
    wanted = dict(_POINTER_FACTS)
    for element in root.iter():
        name = _local(element.tag) if isinstance(element.tag, str) else ""
        value = (element.text or "").strip()
        if name in wanted and value and (wanted[name], value) not in facts:
            facts.append((wanted[name], value))
        if name == "FLocat":
            href = next((v for k, v in element.attrib.items() if _local(k) == "href"), "")
            if href:
                facts.append(("Stored at", href))
    return PointerSummary(facts=tuple(facts), pretty=_indented(text), parse_error="")


def _indented(text: str) -> str:
    # minidom keeps the file's own namespace prefixes (ElementTree renames them).
    pretty = indent_untrusted(text, source="a pointer file")
    return "\n".join(line for line in pretty.splitlines() if line.strip())


# --------------------------------------------------------------------------- rows for pages


@dataclass(frozen=True)
class PackageRow:
    package: StoragePackage
    location_label: str
    pipeline_label: str


def package_rows(packages: Iterable[StoragePackage]) -> list[PackageRow]:
    """Packages with the labels of their location and pipeline, for a table."""
    locations = {row.uuid: row for row in location_list()}
    pipelines = _pipeline_labels()
    rows = []
    for package in packages:
        location = locations.get(package.current_location_uuid)
        rows.append(
            PackageRow(
                package=package,
                location_label=location.label if location else package.current_location_uuid,
                pipeline_label=pipelines.get(
                    package.origin_pipeline_uuid, package.origin_pipeline_uuid
                ),
            )
        )
    return rows


# Which package types and statuses each operation is offered for: what the storage
# service (release 0.23.0) accepts. It answers 405 to deleting a DIP or recovering
# anything but an AIP or AIC, 409 to a second reingest, and 500 or 404 to a fixity
# check, download or pointer file of a deleted package.
DELETABLE_TYPES = frozenset({"AIP", "AIC", "transfer"})
RECOVERABLE_TYPES = frozenset({"AIP", "AIC"})
BAG_TYPES = frozenset({"AIP", "AIC"})
WITHOUT_FILE = frozenset({"DELETED", "PENDING", "FAIL"})


@dataclass(frozen=True)
class PackageOperation:
    name: str
    label: str
    permission: str
    available: bool
    # Why it is not offered, when it is not.
    reason: str = ""


def _no_file_reason(status: str) -> str:
    if status == "DELETED":
        return _("The package is deleted: the storage service has no file left to read.")
    return _("The package has no stored file.")


def package_operations(*, package: StoragePackage) -> list[PackageOperation]:
    """Every operation with whether it is offered for this package now, and why not.

    The one place that decides: the pages offer what it allows, and every POST is
    checked against it again before anything is sent.
    """
    ptype, status = package.package_type, package.status
    has_file = status not in WITHOUT_FILE
    no_file = _no_file_reason(status)
    # Set while a reingest runs; the service answers 409 to another one.
    reingest_pipeline = (package.misc_attributes or {}).get("reingest_pipeline")
    reingesting = (
        _("A reingest on %(pipeline)s is under way.")
        % {"pipeline": pipeline_label(str(reingest_pipeline))}
        if reingest_pipeline
        else ""
    )
    operate, request, reingest = (
        "dashboard.operate_packages",
        "dashboard.request_package_deletion",
        "dashboard.reingest_package",
    )

    def op(
        name: str, label: str, permission: str, checks: list[tuple[bool, str]]
    ) -> PackageOperation:
        failed = next((why for ok, why in checks if not ok), "")
        return PackageOperation(name, label, permission, not failed, failed)

    return [
        op(
            "fixity",
            _("Check fixity"),
            operate,
            [
                (ptype in BAG_TYPES, _("Only AIPs and AICs are bags that can be checked.")),
                (has_file, no_file),
            ],
        ),
        op("download", _("Download"), operate, [(has_file, no_file)]),
        op(
            "move",
            _("Move"),
            operate,
            [
                (status == "UPLOADED", _("Only an uploaded package can be moved.")),
                (
                    bool(move_destinations(package=package)),
                    _("There is no other enabled location with the same purpose."),
                ),
            ],
        ),
        op(
            "reingest",
            _("Reingest"),
            reingest,
            [
                (ptype in BAG_TYPES, _("Only AIPs and AICs can be reingested.")),
                (status == "UPLOADED", _("Only an uploaded package can be reingested.")),
                (not reingest_pipeline, reingesting),
            ],
        ),
        op(
            "delete",
            _("Request deletion"),
            request,
            [
                (
                    ptype in DELETABLE_TYPES,
                    _("The storage service deletes AIPs, AICs and transfers only."),
                ),
                (
                    status not in {"DELETED", "DEL_REQ"},
                    _("Deletion was already requested or done."),
                ),
            ],
        ),
        op(
            "recover",
            _("Request recovery"),
            request,
            [
                (ptype in RECOVERABLE_TYPES, _("Only AIPs and AICs can be recovered.")),
                (
                    status not in {"DELETED", "RECOVER_REQ"},
                    _("Recovery was already requested, or the AIP is deleted."),
                ),
            ],
        ),
    ]


def package_operation_get(*, package: StoragePackage, name: str) -> PackageOperation | None:
    """One operation of `package_operations`, by name."""
    return next((op for op in package_operations(package=package) if op.name == name), None)


# --------------------------------------------------------------------------- browse rows


@dataclass(frozen=True)
class BrowseRow:
    name: str
    # Set when the raw name is not UTF-8: the name with its odd bytes as \xNN escapes.
    escaped_name: str
    is_directory: bool
    raw_path: bytes
    size: int | None
    # As the service said it, e.g. "12" or "5000+" (a capped count).
    object_count: str | None
    object_count_number: int | None


@dataclass(frozen=True)
class Crumb:
    label: str
    raw_path: bytes


# A stored listing older than this is fetched again when its page is opened.
LISTING_MAX_AGE = timedelta(minutes=3)


@dataclass(frozen=True)
class StoredListing:
    """One directory of a location as a task last fetched it into the cache."""

    # Each entry as stored (see `location_listing_fetch`); None: never listed yet.
    entries: tuple[Mapping[str, Any], ...] | None
    listed_at: datetime | None
    # When the last fetch ended, and its error in words for the page ("" if it worked).
    fetched_at: datetime
    error: str
    # A fetch is queued or running and has not answered yet.
    refreshing: bool
    # Since the last fetch ended.
    age: timedelta

    @property
    def listed(self) -> bool:
        return self.entries is not None

    @property
    def stale(self) -> bool:
        return self.age > LISTING_MAX_AGE


def location_listing_get(
    *, location_uuid: str, path: bytes, now: datetime | None = None
) -> StoredListing | None:
    """The stored listing of one directory with its age, or None when none is stored."""
    key, request_key = listing_key(location_uuid, path), listing_request_key(location_uuid, path)
    found = cache.get_many([key, request_key])
    stored = found.get(key)
    if stored is None:
        return None
    entries = stored.get("entries")
    return StoredListing(
        entries=None if entries is None else tuple(entries),
        listed_at=stored.get("listed_at"),
        fetched_at=stored["fetched_at"],
        error=stored.get("error", ""),
        refreshing=request_key in found,
        age=(now or timezone.now()) - stored["fetched_at"],
    )


def browse_rows(*, entries: Iterable[Mapping[str, Any]], path: bytes) -> list[BrowseRow]:
    """Directories first, then files, each with the raw path to browse into it."""
    rows = []
    for entry in entries:
        raw = entry["raw_name"]
        rows.append(
            BrowseRow(
                name=entry["name"],
                escaped_name=""
                if entry["name_is_valid_utf8"]
                else raw.decode("utf-8", "backslashreplace"),
                is_directory=entry["is_directory"],
                raw_path=(path + b"/" + raw) if path else raw,
                size=entry["size"],
                object_count=entry["object_count_display"],
                object_count_number=entry["object_count"],
            )
        )
    rows.sort(key=lambda r: (not r.is_directory, r.name.lower()))
    return rows


def browse_breadcrumbs(*, location_label: str, path: bytes) -> list[Crumb]:
    crumbs = [Crumb(label=location_label, raw_path=b"")]
    parts = [part for part in path.split(b"/") if part]
    for index, part in enumerate(parts):
        crumbs.append(
            Crumb(
                label=part.decode("utf-8", "backslashreplace"),
                raw_path=b"/".join(parts[: index + 1]),
            )
        )
    return crumbs


def storage_summary() -> dict[str, Any] | None:
    """What the last storage poll listed, or None before the first one."""
    row = StorageSummary.objects.filter(pk=1).first()
    if row is None:
        return None
    return {**row.data, "fetched_at": row.fetched_at}
