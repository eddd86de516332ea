"""The storage service's state: pipelines, spaces, locations, packages and a transfer source.

Everything is seeded from `config.seed` through independent random streams, so two
runs with the same seed hold the same data. Packages live in one dict plus small
indexes (by type, status and location) so that a filtered list over 100,000 packages
only walks the packages that can match. Space and location `used` are running totals,
updated whenever a package is stored, moved or changes status.

All methods expect the caller to hold `sim.lock`.
"""

from __future__ import annotations

import hashlib
import random
import uuid
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import accumulate
from typing import Any
from zoneinfo import ZoneInfo

# Purpose codes of locations.
# With demo arrivals on: how many packages stored after the start are kept.
KEPT_NEW_PACKAGES = 1000

AIP_STORAGE = "AS"
DIP_STORAGE = "DS"
BACKLOG = "BL"
TRANSFER_SOURCE = "TS"
CURRENTLY_PROCESSING = "CP"
AIP_RECOVERY = "AR"
STORAGE_SERVICE_INTERNAL = "SS"
REPLICATOR = "RP"
SWORD_DEPOSIT = "SD"
PURPOSES = (
    AIP_RECOVERY,
    AIP_STORAGE,
    CURRENTLY_PROCESSING,
    DIP_STORAGE,
    SWORD_DEPOSIT,
    STORAGE_SERVICE_INTERNAL,
    BACKLOG,
    TRANSFER_SOURCE,
    REPLICATOR,
)

# Access protocol codes. The spec shows only FS and S3; the external archival
# store's code is the simulator's own neutral choice.
LOCAL_FILESYSTEM = "FS"
S3 = "S3"
EXTERNAL_ARCHIVAL_STORE = "EAS"
PROTOCOL_FIELDS = {
    LOCAL_FILESYSTEM: (),
    S3: ("endpoint_url", "access_key_id", "secret_access_key", "region", "bucket"),
    EXTERNAL_ARCHIVAL_STORE: ("host", "remote_user", "remote_name"),
}
# Protocol fields never shown in responses.
SECRET_PROTOCOL_FIELDS = frozenset({"secret_access_key"})

# Package types and statuses, spelled as the service spells them.
AIP = "AIP"
AIC = "AIC"
DIP = "DIP"
TRANSFER = "transfer"
SIP = "SIP"
FILE = "file"
DEPOSIT = "deposit"
PACKAGE_TYPES = (AIP, AIC, DIP, TRANSFER, SIP, FILE, DEPOSIT)
# Release 0.23.0 accepts deletion requests for these (a DIP gets 405) and recovery
# requests for AIPs and AICs only.
DELETABLE_TYPES = frozenset({AIP, AIC, TRANSFER})
RECOVERABLE_TYPES = frozenset({AIP, AIC})
BAG_TYPES = frozenset({AIP, AIC})

PENDING = "PENDING"
STAGING = "STAGING"
UPLOADED = "UPLOADED"
VERIFIED = "VERIFIED"
FAIL = "FAIL"
DEL_REQ = "DEL_REQ"
DELETED = "DELETED"
RECOVER_REQ = "RECOVER_REQ"
MOVING = "MOVING"
FINALIZE = "FINALIZE"
STATUSES = (
    PENDING,
    STAGING,
    UPLOADED,
    VERIFIED,
    FAIL,
    DEL_REQ,
    DELETED,
    RECOVER_REQ,
    MOVING,
    FINALIZE,
)
# Packages in these states take no room in their location.
STATUSES_WITHOUT_SPACE = frozenset({PENDING, FAIL, DELETED})

DELETE_REQUEST = "DELETE"
RECOVER_REQUEST = "RECOVER"

# Directories with more files than this show "5000+" as their object count.
OBJECT_COUNT_CAP = 5000

# How long (simulated seconds) an async package registration takes.
ASYNC_DELAY_SECONDS = 5.0
# How long (simulated seconds) a package stays MOVING before it lands in its new location.
MOVE_DELAY_SECONDS = 1.0

# What a reingest sends to the pipeline: `reingest_type` is lower-cased and compared
# with these three; any other value is accepted and sends only the METS.
REINGEST_TYPES = frozenset({"metadata", "objects", "full"})
METS_ONLY = "mets"


class StorageError(Exception):
    """A request the storage service refuses; `status` and `payload` say how."""

    def __init__(self, status: int, payload: Any) -> None:
        super().__init__(payload)
        self.status = status
        self.payload = payload


def reingest_sends(reingest_type: str) -> str:
    """What a reingest of this type sends: "metadata", "objects", "full" or "mets"."""
    lowered = reingest_type.lower()
    return lowered if lowered in REINGEST_TYPES else METS_ONLY


def new_uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def uuid_split_path(package_uuid: str) -> str:
    """`aaaabbbb-...` as eight 4-character directories, the way AIP stores lay packages out."""
    hex_digits = package_uuid.replace("-", "")
    return "/".join(hex_digits[index : index + 4] for index in range(0, 32, 4))


def join_path(base: str, relative: str) -> str:
    """`os.path.normpath(os.path.join(base, relative))` for POSIX paths, without the os module."""
    if relative.startswith("/"):
        combined = relative
    else:
        combined = base.rstrip("/") + "/" + relative if base else relative
    parts: list[str] = []
    for part in combined.split("/"):
        if part in {"", "."}:
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    prefix = "/" if combined.startswith("/") else ""
    return prefix + "/".join(parts) if parts or prefix else "."


@dataclass(eq=False)
class Pipeline:
    uuid: str
    description: str
    remote_name: str
    api_username: str = ""
    api_key: str = ""
    enabled: bool = True


@dataclass(eq=False)
class Space:
    uuid: str
    id: int
    access_protocol: str
    path: str
    staging_path: str
    size: int | None
    protocol_fields: dict[str, Any] = field(default_factory=dict)
    last_verified: datetime | None = None
    verified: bool = False
    used: int = 0

    @property
    def locally_available(self) -> bool:
        return self.access_protocol != EXTERNAL_ARCHIVAL_STORE


@dataclass(eq=False)
class Location:
    uuid: str
    space: Space
    purpose: str
    relative_path: str
    description: str | None
    pipelines: list[Pipeline]
    quota: int | None = None
    enabled: bool = True
    used: int = 0

    @property
    def path(self) -> str:
        return join_path(self.space.path, self.relative_path)


@dataclass(eq=False)
class FixityCheck:
    checked_at: datetime
    success: bool | None
    message: str


@dataclass(eq=False)
class PackageRequest:
    """A delete or recover request, waiting for an administrator."""

    id: int
    package_uuid: str
    kind: str
    pipeline_uuid: str
    event_reason: str
    user_id: int
    user_email: str
    created_at: datetime
    previous_status: str
    pending: bool = True


# Slots: a simulator can hold 100,000 of these.
@dataclass(eq=False, slots=True)
class Package:
    uuid: str
    name: str
    package_type: str
    status: str
    location: Location
    current_path: str
    origin_pipeline: Pipeline | None
    size: int
    stored_date: datetime | None  # naive UTC; shown in the server's time zone
    compressed: bool = False
    size_as_string: bool = False
    encrypted: bool = False
    misc_attributes: dict[str, Any] = field(default_factory=dict)
    related: list[Package] = field(default_factory=list)
    replicas: list[Package] = field(default_factory=list)
    replicated_package: Package | None = None
    fixity_broken: bool = False
    fixity_checks: list[FixityCheck] = field(default_factory=list)
    # File records of the package (None until generated or written).
    files: list[dict[str, str]] | None = None
    origin_location: Location | None = None
    origin_path: str = ""

    @property
    def current_full_path(self) -> str:
        return join_path(self.location.path, self.current_path)

    @property
    def basename(self) -> str:
        return self.current_path.rstrip("/").rsplit("/", 1)[-1]

    @property
    def locally_available(self) -> bool:
        return self.location.space.locally_available

    @property
    def takes_space(self) -> bool:
        return self.status not in STATUSES_WITHOUT_SPACE


@dataclass(eq=False)
class PendingMove:
    package: Package
    destination: Location
    due_at: datetime


@dataclass(frozen=True)
class ReingestRecord:
    """One accepted reingest: the type as sent, and what the service did with it."""

    package_uuid: str
    pipeline_uuid: str
    reingest_type: str
    # "metadata", "objects", "full", or "mets" when the type was none of those.
    sent: str


@dataclass(eq=False)
class AsyncTask:
    id: int
    created_at: datetime
    due_at: datetime
    payload: dict[str, Any]
    updated_at: datetime
    completed: bool = False
    completed_at: datetime | None = None
    was_error: bool = False
    result: dict[str, Any] | None = None
    error: Any = None


@dataclass(frozen=True)
class SourceEntry:
    """What `resolve_transfer_source` found: a file or a directory in a transfer source."""

    location_uuid: str
    relative_path: str
    file_count: int
    size: int
    is_dir: bool


# --- The browsable tree of the transfer source -------------------------------------


@dataclass(eq=False)
class SourceFile:
    size: int


@dataclass(eq=False)
class SourceDir:
    # Names are bytes: real directories can hold names that are not valid UTF-8.
    children: dict[bytes, SourceDir | SourceFile] = field(default_factory=dict)

    def add_file(self, path: bytes, size: int) -> None:
        *dirs, name = path.split(b"/")
        self.make_dirs(b"/".join(dirs)).children[name] = SourceFile(size)

    def make_dirs(self, path: bytes) -> SourceDir:
        node = self
        for part in path.split(b"/"):
            if not part:
                continue
            child = node.children.get(part)
            if not isinstance(child, SourceDir):
                child = SourceDir()
                node.children[part] = child
            node = child
        return node

    def find(self, parts: list[bytes]) -> SourceDir | SourceFile | None:
        node: SourceDir | SourceFile = self
        for part in parts:
            if not isinstance(node, SourceDir) or part not in node.children:
                return None
            node = node.children[part]
        return node


def count_files(node: SourceDir | SourceFile) -> int:
    if isinstance(node, SourceFile):
        return 1
    return sum(count_files(child) for child in node.children.values())


def total_size(node: SourceDir | SourceFile) -> int:
    if isinstance(node, SourceFile):
        return node.size
    return sum(total_size(child) for child in node.children.values())


def capped_count(count: int) -> int | str:
    return f"{OBJECT_COUNT_CAP}+" if count > OBJECT_COUNT_CAP else count


@dataclass(frozen=True)
class BrowseEntry:
    name: bytes
    is_dir: bool
    size: int = 0
    object_count: int | str = 0


# --- Seed vocabulary -----------------------------------------------------------------

_SUBJECTS = (
    "board-minutes",
    "field-notes",
    "oral-history",
    "photographs",
    "maps",
    "letters",
    "survey-data",
    "theses",
    "press-releases",
    "sound-recordings",
    "annual-reports",
    "architectural-drawings",
    "email-archive",
    "web-crawl",
    "lab-notebooks",
    "posters",
    "newsletters",
    "committee-papers",
    "video-interviews",
    "land-records",
)
_QUALIFIERS = ("", "", "batch", "series", "accession", "collection", "box", "volume")

# Transfer source: top-level directories that need a special shape.
_SPECIAL_TRANSFERS = (
    "dir with space",
    "\u00dcn\u00efc\u00f6d\u00e9-transfer",
    "caf\u00e9-menus",
    "empty-transfer",
    "legacy-encodings",
    "large-image-series",
)
_FILE_KINDS = (
    ("document", "pdf", 20_000, 8_000_000),
    ("image", "tif", 500_000, 60_000_000),
    ("scan", "jpg", 50_000, 5_000_000),
    ("recording", "wav", 2_000_000, 400_000_000),
    ("data", "csv", 200, 2_000_000),
    ("notes", "txt", 50, 40_000),
)
LARGE_DIRECTORY_FILES = OBJECT_COUNT_CAP + 200


class StorageState:
    """Everything the fake storage service knows. Construct, then `seed()`."""

    def __init__(self, sim: Any) -> None:
        self.sim = sim
        self.config = sim.config
        self.clock = sim.clock
        self.seed_value = getattr(self.config, "seed", 1)
        # Timestamps leave the service as naive server-local times. The simulator's
        # server runs on UTC unless the config names another zone.
        zone_name = getattr(self.config, "storage_time_zone", None) or "UTC"
        self.time_zone = ZoneInfo(zone_name)
        self.server_time_is_utc = zone_name == "UTC"
        self.pipelines: dict[str, Pipeline] = {}
        self.spaces: dict[str, Space] = {}
        self.locations: dict[str, Location] = {}
        self.default_locations: dict[str, Location] = {}
        self.packages: dict[str, Package] = {}
        self._by_type: dict[str, dict[str, Package]] = {}
        self._by_status: dict[str, dict[str, Package]] = {}
        self._by_location: dict[str, dict[str, Package]] = {}
        self.requests: list[PackageRequest] = []
        self.async_tasks: dict[int, AsyncTask] = {}
        self.moves: list[PendingMove] = []
        self.reingests: list[ReingestRecord] = []
        self.legacy_quirks = bool(getattr(self.config, "legacy_quirks", False))
        self.source_trees: dict[str, SourceDir] = {}
        self.pipeline_uuid = ""
        # Every pipeline a simulated workflow service serves, pipeline 1 first.
        self.simulated_pipelines: list[Pipeline] = []
        # Items in `batch/` so far, and when the next one appears (None: none will).
        self.source_items = 0
        self._source_item_width = 3
        self._source_item_gap = timedelta(hours=1)
        self._next_source_item_at: datetime | None = None
        self._next_space_id = 1
        # With demo arrivals on, packages stored after the start are capped: past
        # KEPT_NEW_PACKAGES the oldest stored one is dropped (as if deleted), so the
        # storage side's memory stays flat too.
        self._capped = (
            getattr(self.config, "arrivals_per_hour", 0) > 0
            or getattr(self.config, "arrival_burst", 0) > 0
        )
        self._new_packages: deque[str] = deque()
        self.dropped_packages = 0

    def rng(self, purpose: str) -> random.Random:
        return random.Random(f"{self.seed_value}:storage:{purpose}")

    # --- Time ----------------------------------------------------------------------

    def now(self) -> datetime:
        moment: datetime = self.clock.now()
        return moment

    def server_time(self, moment: datetime | None) -> datetime | None:
        """A naive UTC moment as the naive server-local time the service shows."""
        if moment is None or self.server_time_is_utc:
            return moment
        return moment.replace(tzinfo=UTC).astimezone(self.time_zone).replace(tzinfo=None)

    # --- Seeding ---------------------------------------------------------------------

    def seed(self, packages: int = 200) -> None:
        self._seed_pipelines()
        self._seed_spaces_and_locations()
        self._seed_transfer_sources()
        self._seed_packages(packages)
        self.add_source_items(getattr(self.config, "source_items", 0))

    def _seed_pipelines(self) -> None:
        rng = self.rng("pipelines")
        host = getattr(self.config, "host", "127.0.0.1") or "127.0.0.1"
        main = self.add_pipeline(
            Pipeline(new_uuid(rng), "Simulated pipeline", host, "demo", "pipeline-key")
        )
        self.pipeline_uuid = main.uuid
        self.add_pipeline(Pipeline(new_uuid(rng), "Peer pipeline", "10.0.4.12", "peer", "peer-key"))
        # Disabled pipelines stay registered but vanish from the API.
        self.add_pipeline(
            Pipeline(new_uuid(rng), "Retired pipeline", "10.0.4.9", "old", "old-key", enabled=False)
        )
        # Drawn after the others, so their UUIDs do not depend on the number of pipelines.
        self.simulated_pipelines = [main] + [
            self.add_pipeline(
                Pipeline(
                    new_uuid(rng), f"Simulated pipeline {number}", host, "demo", "pipeline-key"
                )
            )
            for number in range(2, getattr(self.config, "pipelines", 1) + 1)
        ]

    @property
    def pipeline(self) -> Pipeline:
        return self.pipelines[self.pipeline_uuid]

    @property
    def peer_pipeline(self) -> Pipeline:
        return next(p for p in self.pipelines.values() if p.description == "Peer pipeline")

    def _seed_spaces_and_locations(self) -> None:
        rng = self.rng("locations")
        main, peer = self.pipeline, self.peer_pipeline
        # Pipelines 2, 3, ... share pipeline 1's default locations (not its others).
        more = self.simulated_pipelines[1:]
        local = self.add_space(
            Space(new_uuid(rng), 0, LOCAL_FILESYSTEM, "/", "/var/lib/storage/staging", None)
        )
        cloud = self.add_space(
            Space(
                new_uuid(rng),
                0,
                S3,
                "/var/lib/storage/s3",
                "/var/lib/storage/s3-staging",
                50 * 10**12,
                {
                    "endpoint_url": "https://objects.example.org",
                    "access_key_id": "SIMULATEDKEYID",
                    "secret_access_key": "simulated-secret",
                    "region": "eu-west-1",
                    "bucket": "preservation-aips",
                },
            )
        )
        external = self.add_space(
            Space(
                new_uuid(rng),
                0,
                EXTERNAL_ARCHIVAL_STORE,
                "/mnt/external-archive",
                "/var/lib/storage/external-staging",
                200 * 10**12,
                {
                    "host": "archive-store.example.org:8443",
                    "remote_user": "preserve",
                    "remote_name": "archive-store",
                },
            )
        )

        def add(
            space: Space,
            purpose: str,
            relative: str,
            description: str | None,
            pipelines: list[Pipeline],
            quota: int | None = None,
            enabled: bool = True,
            default: bool = False,
        ) -> Location:
            location = self.add_location(
                Location(
                    new_uuid(rng),
                    space,
                    purpose,
                    relative,
                    description,
                    list(pipelines),
                    quota,
                    enabled,
                )
            )
            if default:
                self.default_locations[purpose] = location
            return location

        add(
            local,
            TRANSFER_SOURCE,
            "home/transfer-source",
            "Default transfer source",
            [main, *more],
            default=True,
        )
        add(
            local,
            AIP_STORAGE,
            "var/preservation/aip-store",
            "Store AIP in standard preservation storage",
            [main, peer, *more],
            default=True,
        )
        add(cloud, AIP_STORAGE, "aips", "Cloud AIP storage", [main], quota=20 * 10**12)
        add(external, AIP_STORAGE, "tape-aips", "External archival store (tape)", [main])
        add(
            local,
            AIP_STORAGE,
            "var/preservation/retired-aip-store",
            "Retired AIP store",
            [main],
            enabled=False,
        )
        add(
            local,
            DIP_STORAGE,
            "var/preservation/dip-store",
            "Store DIP in standard storage",
            [main, *more],
            quota=5 * 10**12,
            default=True,
        )
        add(
            local,
            BACKLOG,
            "var/preservation/transfer-backlog",
            "Default transfer backlog",
            [main, *more],
            default=True,
        )
        add(local, CURRENTLY_PROCESSING, "var/preservation/shared/", "", [main], default=True)
        add(local, CURRENTLY_PROCESSING, "var/peer/shared", "", [peer])
        add(
            local,
            AIP_RECOVERY,
            "var/preservation/aip-recovery",
            "Default AIP recovery",
            [main],
            default=True,
        )
        add(
            local,
            STORAGE_SERVICE_INTERNAL,
            "var/lib/storage/internal",
            "For storage service internal usage.",
            [],
            default=True,
        )
        add(
            local,
            REPLICATOR,
            "var/preservation/replicas",
            "AIP replicas",
            [main],
            quota=30 * 10**12,
            default=True,
        )
        add(local, SWORD_DEPOSIT, "var/preservation/deposits", None, [main], default=True)
        add(local, TRANSFER_SOURCE, "home/peer-transfers", "Peer transfer source", [peer])
        for number, pipeline in enumerate(more, start=2):
            shared = f"var/pipeline-{number}/shared"
            add(local, CURRENTLY_PROCESSING, shared, "", [pipeline])

    def _seed_transfer_sources(self) -> None:
        rng = self.rng("transfer-source")
        for location in self.locations.values():
            if location.purpose != TRANSFER_SOURCE:
                continue
            if location.pipelines and location.pipelines[0] is self.pipeline:
                self.source_trees[location.uuid] = _main_source_tree(rng)
            else:
                tree = SourceDir()
                tree.add_file(b"peer-transfer-1/objects/report.pdf", 123_456)
                tree.add_file(b"peer-transfer-1/objects/photo.jpg", 654_321)
                self.source_trees[location.uuid] = tree

    def _seed_packages(self, count: int) -> None:
        rng = self.rng("packages")
        end = self.now() - timedelta(hours=1)
        span = timedelta(days=3 * 365)
        start = end - span
        locations = {
            purpose: self.default_locations[purpose]
            for purpose in (DIP_STORAGE, BACKLOG, REPLICATOR)
        }
        aip_stores = [
            location
            for location in self.locations.values()
            if location.purpose == AIP_STORAGE and location.enabled
        ]
        aip_weights = [70, 22, 8][: len(aip_stores)]
        main, peer = self.pipeline, self.peer_pipeline
        # Recent AIPs still without a DIP or a replica.
        waiting_for_dip: list[Package] = []
        waiting_for_replica: list[Package] = []
        kinds = (AIP, DIP, TRANSFER, AIC, "replica")
        # Cumulative weights, computed once: random.choices is hot here.
        kind_weights = list(accumulate((72, 12, 12, 2, 2)))
        aip_weights = list(accumulate(aip_weights))
        for index in range(count):
            stored = start + span * ((index + rng.random()) / max(count, 1))
            kind = rng.choices(kinds, cum_weights=kind_weights)[0]
            if kind == DIP and not waiting_for_dip:
                kind = AIP
            if kind == "replica" and not waiting_for_replica:
                kind = AIP
            package_uuid = new_uuid(rng)
            origin = main if rng.random() < 0.9 else peer
            size = int(10 ** rng.uniform(1.3, 11.7))
            if kind in (AIP, AIC):
                name = _package_name(rng)
                compressed = kind == AIC or rng.random() < 0.85
                suffix = ".7z" if compressed else ""
                location = rng.choices(aip_stores, cum_weights=aip_weights)[0]
                package = Package(
                    package_uuid,
                    name,
                    kind,
                    _seed_status(rng),
                    location,
                    f"{uuid_split_path(package_uuid)}/{name}-{package_uuid}{suffix}",
                    origin,
                    size,
                    stored,
                    compressed=compressed,
                    fixity_broken=rng.random() < 0.015,
                )
                if kind == AIP:
                    waiting_for_dip.append(package)
                    waiting_for_replica.append(package)
                    del waiting_for_dip[:-50]
                    del waiting_for_replica[:-50]
            elif kind == DIP:
                aip = waiting_for_dip.pop(rng.randrange(len(waiting_for_dip)))
                package = Package(
                    package_uuid,
                    aip.name,
                    DIP,
                    UPLOADED,
                    locations[DIP_STORAGE],
                    f"{uuid_split_path(package_uuid)}/{aip.name}-{aip.uuid}",
                    aip.origin_pipeline,
                    max(size // 20, 1),
                    stored,
                )
                package.related.append(aip)
                aip.related.append(package)
            elif kind == "replica":
                aip = waiting_for_replica.pop(rng.randrange(len(waiting_for_replica)))
                package = Package(
                    package_uuid,
                    aip.name,
                    AIP,
                    UPLOADED,
                    locations[REPLICATOR],
                    f"{uuid_split_path(package_uuid)}/{aip.name}-{package_uuid}"
                    f"{'.7z' if aip.compressed else ''}",
                    aip.origin_pipeline,
                    aip.size,
                    stored,
                    compressed=aip.compressed,
                    replicated_package=aip,
                )
                aip.replicas.append(package)
            else:
                name = _package_name(rng)
                status = UPLOADED if rng.random() < 0.95 else rng.choice((DELETED, FAIL))
                # Transfers never get a stored date.
                package = Package(
                    package_uuid,
                    name,
                    TRANSFER,
                    status,
                    locations[BACKLOG],
                    f"originals/{name}-{package_uuid}",
                    origin,
                    size,
                    None,
                )
            # Drawn in every mode, so both modes seed the same packages.
            package.size_as_string = rng.random() < 0.1 and self.legacy_quirks
            if rng.random() < 0.05:
                package.misc_attributes = {"reingest_pipeline": None}
            self.add_package(package)
            if package.status in (DEL_REQ, RECOVER_REQ):
                kind_of_request = DELETE_REQUEST if package.status == DEL_REQ else RECOVER_REQUEST
                self._add_request(
                    package,
                    kind_of_request,
                    main.uuid,
                    "Seeded request",
                    1,
                    "archivist@example.org",
                    previous_status=UPLOADED,
                    at=stored,
                )

    # --- Registration helpers ----------------------------------------------------------

    def add_pipeline(self, pipeline: Pipeline) -> Pipeline:
        self.pipelines[pipeline.uuid] = pipeline
        return pipeline

    def add_space(self, space: Space) -> Space:
        space.id = self._next_space_id
        self._next_space_id += 1
        self.spaces[space.uuid] = space
        return space

    def add_location(self, location: Location) -> Location:
        self.locations[location.uuid] = location
        self._by_location.setdefault(location.uuid, {})
        return location

    def add_package(self, package: Package) -> None:
        self.packages[package.uuid] = package
        self._by_type.setdefault(package.package_type, {})[package.uuid] = package
        self._by_status.setdefault(package.status, {})[package.uuid] = package
        self._by_location.setdefault(package.location.uuid, {})[package.uuid] = package
        if package.takes_space:
            self._add_used(package.location, package.size)

    def _remember_new(self, package: Package, stored_at: datetime | None) -> None:
        """Count a package stored after the start against the cap; drop the oldest past it."""
        if not self._capped or (stored_at is not None and stored_at <= self.clock.start):
            return
        self._new_packages.append(package.uuid)
        busy: list[str] = []
        while len(self._new_packages) > KEPT_NEW_PACKAGES:
            oldest = self.packages.get(self._new_packages.popleft())
            if oldest is None:
                continue
            if self._busy(oldest):
                busy.append(oldest.uuid)  # moving, being deleted or reingested: kept
                continue
            self.drop_package(oldest)
        self._new_packages.extendleft(reversed(busy))

    def _busy(self, package: Package) -> bool:
        """Whether anything still refers to the package besides its related ones."""
        return (
            package.status != UPLOADED
            or self.is_reingesting(package)
            or bool(package.replicas)
            or package.replicated_package is not None
            or any(r.pending and r.package_uuid == package.uuid for r in self.requests)
        )

    def drop_package(self, package: Package) -> None:
        """Forget a package entirely (its related packages stop naming it)."""
        del self.packages[package.uuid]
        del self._by_type[package.package_type][package.uuid]
        del self._by_status[package.status][package.uuid]
        del self._by_location[package.location.uuid][package.uuid]
        if package.takes_space:
            self._add_used(package.location, -package.size)
        for other in package.related:
            other.related = [item for item in other.related if item is not package]
        package.related = []
        self.dropped_packages += 1

    def _add_used(self, location: Location, amount: int) -> None:
        location.used += amount
        location.space.used += amount

    def set_status(self, package: Package, status: str) -> None:
        if status == package.status:
            return
        before = package.takes_space
        del self._by_status[package.status][package.uuid]
        package.status = status
        self._by_status.setdefault(status, {})[package.uuid] = package
        if before and not package.takes_space:
            self._add_used(package.location, -package.size)
        elif package.takes_space and not before:
            self._add_used(package.location, package.size)

    def set_size(self, package: Package, size: int) -> None:
        if package.takes_space:
            self._add_used(package.location, size - package.size)
        package.size = size

    def relocate(self, package: Package, location: Location) -> None:
        if location is package.location:
            return
        del self._by_location[package.location.uuid][package.uuid]
        if package.takes_space:
            self._add_used(package.location, -package.size)
            self._add_used(location, package.size)
        package.location = location
        self._by_location.setdefault(location.uuid, {})[package.uuid] = package

    # --- Queries -----------------------------------------------------------------------

    def active_pipelines(self) -> list[Pipeline]:
        return [pipeline for pipeline in self.pipelines.values() if pipeline.enabled]

    def active_locations(self) -> list[Location]:
        return [location for location in self.locations.values() if location.enabled]

    def package_count(self) -> int:
        return len(self.packages)

    def summary(self) -> dict[str, Any]:
        """Counts for the test-control state endpoints."""
        return {
            "packages": len(self.packages),
            "packages_by_status": {
                status: len(items) for status, items in self._by_status.items() if items
            },
            "packages_by_type": {
                kind: len(items) for kind, items in self._by_type.items() if items
            },
            "pending_requests": sum(1 for request in self.requests if request.pending),
            "reingests": [
                {
                    "package": record.package_uuid,
                    "pipeline": record.pipeline_uuid,
                    "reingest_type": record.reingest_type,
                    "sent": record.sent,
                }
                for record in self.reingests
            ],
        }

    def package_candidates(
        self,
        *,
        package_types: Iterable[str] | None = None,
        statuses: Iterable[str] | None = None,
        location_uuids: Iterable[str] | None = None,
    ) -> tuple[Iterable[Package], int | None]:
        """The packages whose type, status and location are in the given sets.

        None means "any". The smallest index bucket is walked and the other sets
        are checked per package. Returns the packages and, when nothing was
        narrowed, the exact total.
        """
        groups: list[tuple[dict[str, dict[str, Package]], set[str], Callable[[Package], str]]] = []
        for index, wanted, key in (
            (self._by_type, package_types, _package_type_of),
            (self._by_status, statuses, _status_of),
            (self._by_location, location_uuids, _location_uuid_of),
        ):
            if wanted is not None:
                groups.append((index, set(wanted), key))
        if not groups:
            return self.packages.values(), len(self.packages)

        def bucket_size(group: tuple[dict[str, dict[str, Package]], set[str], Any]) -> int:
            index, values, _key = group
            return sum(len(index.get(value, ())) for value in values)

        groups.sort(key=bucket_size)
        index, values, _key = groups[0]
        buckets = [index[value] for value in sorted(values) if value in index]
        checks = [(key, wanted) for _index, wanted, key in groups[1:]]
        return _chain_values(buckets, checks), None

    def packages_in(self, location: Location) -> Iterable[Package]:
        return self._by_location.get(location.uuid, {}).values()

    # --- Calls from the workflow side ---------------------------------------------------

    def store_aip(
        self,
        *,
        uuid: str,
        name: str,
        size: int,
        stored_at: datetime,
        pipeline: Pipeline | None = None,
    ) -> None:
        existing = self.packages.get(uuid)
        if existing is not None:
            # A reingest ends by storing the same AIP again.
            self.set_size(existing, size)
            existing.stored_date = stored_at
            self.set_status(existing, UPLOADED)
            if "reingest_pipeline" in existing.misc_attributes:
                existing.misc_attributes["reingest_pipeline"] = None
            return
        location = self.default_locations[AIP_STORAGE]
        package = Package(
            uuid,
            name,
            AIP,
            UPLOADED,
            location,
            f"{uuid_split_path(uuid)}/{name}-{uuid}.7z",
            pipeline or self.pipeline,
            size,
            stored_at,
            compressed=True,
        )
        self.add_package(package)
        self._remember_new(package, stored_at)

    def store_dip(
        self,
        *,
        uuid: str,
        aip_uuid: str,
        name: str,
        size: int,
        stored_at: datetime,
        pipeline: Pipeline | None = None,
    ) -> None:
        aip = self.packages.get(aip_uuid)
        existing = self.packages.get(uuid)
        if existing is not None:
            self.set_size(existing, size)
            existing.stored_date = stored_at
            self.set_status(existing, UPLOADED)
            return
        package = Package(
            uuid,
            name,
            DIP,
            UPLOADED,
            self.default_locations[DIP_STORAGE],
            f"{uuid_split_path(uuid)}/{name}-{aip_uuid}",
            pipeline or self.pipeline,
            size,
            stored_at,
        )
        if aip is not None:
            package.related.append(aip)
            aip.related.append(package)
        self.add_package(package)
        self._remember_new(package, stored_at)

    def store_backlog_transfer(
        self,
        *,
        uuid: str,
        name: str,
        size: int,
        stored_at: datetime,
        pipeline: Pipeline | None = None,
    ) -> None:
        existing = self.packages.get(uuid)
        if existing is not None:
            self.set_size(existing, size)
            self.set_status(existing, UPLOADED)
            return
        package = Package(
            uuid,
            name,
            TRANSFER,
            UPLOADED,
            self.default_locations[BACKLOG],
            f"originals/{name}-{uuid}",
            pipeline or self.pipeline,
            size,
            None,
        )
        self.add_package(package)
        self._remember_new(package, stored_at)

    def add_source_items(self, count: int) -> None:
        """`count` items in the folder `batch/` of the default transfer source, for ingest
        runs: folders of a few files, and every tenth a zip file."""
        self._source_item_width = max(3, len(str(count)))
        per_hour = getattr(self.config, "source_items_per_hour", 0.0)
        if per_hour > 0:
            self._source_item_gap = timedelta(hours=1 / per_hour)
            self._next_source_item_at = self.clock.start + self._source_item_gap
        for _ in range(count):
            self._add_source_item()

    def add_due_source_items(self, now: datetime) -> None:
        """The items that appeared in `batch/` by `now` (with --source-items-per-hour)."""
        while self._next_source_item_at is not None and self._next_source_item_at <= now:
            self._add_source_item()
            self._next_source_item_at += self._source_item_gap

    def _add_source_item(self) -> None:
        self.source_items += 1
        name = source_item_name(self.source_items, self._source_item_width)
        location = self.default_locations[TRANSFER_SOURCE]
        tree = self.source_trees.setdefault(location.uuid, SourceDir())
        rng = self.rng(f"source-item-{self.source_items}")
        base = SOURCE_ITEMS_FOLDER + b"/" + name.encode("utf-8")
        if name.endswith(".zip"):
            tree.add_file(base, rng.randrange(50_000, 20_000_000))
            return
        for index in range(1, rng.randrange(2, 5)):
            file_name, size = _random_file(rng, index)
            tree.add_file(base + b"/objects/" + file_name.encode("utf-8"), size)

    def transfer_source_paths(self, pipeline: Pipeline | None = None) -> list[tuple[str, str]]:
        """(location uuid, top-level entry) of every transfer source of the pipeline."""
        pipeline = pipeline or self.pipeline
        paths = []
        for location in self.active_locations():
            if location.purpose != TRANSFER_SOURCE or pipeline not in location.pipelines:
                continue
            for name in self.source_trees.get(location.uuid, SourceDir()).children:
                paths.append((location.uuid, name.decode("utf-8", "surrogateescape")))
        return paths

    def resolve_transfer_source(
        self,
        *,
        location_uuid: str | None,
        relative_path: str | bytes,
        pipeline: Pipeline | None = None,
    ) -> SourceEntry:
        """Check a transfer source path the way starting a transfer on `pipeline` (pipeline
        1 when None) does.

        `location_uuid=None` means the default transfer source, with an absolute path
        under it (a relative one is accepted too).
        """
        pipeline = pipeline or self.pipeline
        raw = (
            relative_path
            if isinstance(relative_path, bytes)
            else relative_path.encode("utf-8", "surrogateescape")
        )
        if location_uuid is None:
            location = self.default_locations.get(TRANSFER_SOURCE)
            if location is None:
                raise LookupError("No default transfer source")
            base = location.path.encode("utf-8").rstrip(b"/") + b"/"
            if raw.startswith(b"/"):
                if not (raw + b"/").startswith(base):
                    raise FileNotFoundError(relative_path)
                raw = raw[len(base) :]
        else:
            location = self.locations.get(location_uuid)
            if (
                location is None
                or not location.enabled
                or location.purpose != TRANSFER_SOURCE
                or pipeline not in location.pipelines
            ):
                raise LookupError(
                    f"Location {location_uuid} is not a transfer source of this pipeline"
                )
        parts = [part for part in raw.split(b"/") if part and part != b"."]
        if b".." in parts:
            raise FileNotFoundError(relative_path)
        node = self.source_trees.get(location.uuid, SourceDir()).find(parts)
        if node is None:
            raise FileNotFoundError(relative_path)
        return SourceEntry(
            location_uuid=location.uuid,
            relative_path=b"/".join(parts).decode("utf-8", "surrogateescape"),
            file_count=count_files(node),
            size=total_size(node),
            is_dir=isinstance(node, SourceDir),
        )

    # --- Browsing -------------------------------------------------------------------------

    def browse_location(self, location: Location, parts: list[bytes]) -> list[BrowseEntry] | None:
        """The entries of a directory inside a location; None if it does not exist.

        Raises NotADirectoryError when the path names a file (the real service fails).
        """
        tree = self.source_trees.get(location.uuid)
        if tree is not None:
            node = tree.find(parts)
            if isinstance(node, SourceFile):
                raise NotADirectoryError(b"/".join(parts))
            if node is None:
                return None
            return [_tree_entry(name, child) for name, child in sorted(node.children.items())]
        return self._browse_packages(location, parts)

    def _browse_packages(self, location: Location, parts: list[bytes]) -> list[BrowseEntry] | None:
        # Locations holding packages show their packages' paths as the tree.
        prefix = b"/".join(parts)
        prefix_with_slash = prefix + b"/" if prefix else b""
        depth = len(parts)
        files: dict[bytes, int] = {}
        counts: Counter[bytes] = Counter()
        found = not parts
        for package in self.packages_in(location):
            path = package.current_path.encode("utf-8", "surrogateescape")
            if parts and path == prefix and package.compressed:
                raise NotADirectoryError(prefix)
            if not path.startswith(prefix_with_slash):
                continue
            segments = path.split(b"/")
            if len(segments) <= depth:
                continue
            found = True
            name = segments[depth]
            if len(segments) == depth + 1 and package.compressed:
                files[name] = package.size
            else:
                counts[name] += 1
        if not found:
            return None
        entries = [BrowseEntry(name, False, size=size) for name, size in files.items()]
        entries += [
            BrowseEntry(name, True, object_count=capped_count(n)) for name, n in counts.items()
        ]
        return sorted(entries, key=lambda entry: entry.name)

    def location_object_count(self, location: Location) -> int:
        tree = self.source_trees.get(location.uuid)
        if tree is not None:
            return count_files(tree)
        return len(self._by_location.get(location.uuid, {}))

    def browse_space(self, space: Space, path: str) -> list[BrowseEntry] | None:
        """The entries of a directory of a space: its locations' directories and their contents."""
        relative = path
        if path.startswith("/"):
            base = space.path.rstrip("/") + "/"
            if not (path.rstrip("/") + "/").startswith(base):
                return None
            relative = path[len(base) :]
        parts = [part for part in relative.encode("utf-8", "surrogateescape").split(b"/") if part]
        locations = [location for location in self.locations.values() if location.space is space]
        for location in locations:
            location_parts = [p for p in location.relative_path.encode("utf-8").split(b"/") if p]
            if parts[: len(location_parts)] == location_parts:
                return self.browse_location(location, parts[len(location_parts) :])
        children: dict[bytes, int] = {}
        for location in locations:
            location_parts = [p for p in location.relative_path.encode("utf-8").split(b"/") if p]
            if len(location_parts) > len(parts) and location_parts[: len(parts)] == parts:
                name = location_parts[len(parts)]
                children[name] = children.get(name, 0) + self.location_object_count(location)
        if not children:
            return [] if not parts else None
        return [
            BrowseEntry(name, True, object_count=capped_count(count))
            for name, count in sorted(children.items())
        ]

    # --- Requests, fixity, reingest, moves -----------------------------------------------

    def _add_request(
        self,
        package: Package,
        kind: str,
        pipeline_uuid: str,
        reason: str,
        user_id: int,
        user_email: str,
        *,
        previous_status: str,
        at: datetime,
    ) -> PackageRequest:
        request = PackageRequest(
            len(self.requests) + 1,
            package.uuid,
            kind,
            pipeline_uuid,
            reason,
            user_id,
            user_email,
            at,
            previous_status,
        )
        self.requests.append(request)
        return request

    def request_package_event(
        self,
        package: Package,
        kind: str,
        *,
        pipeline_uuid: str,
        reason: str,
        user_id: int,
        user_email: str,
    ) -> PackageRequest | None:
        """File a delete or recover request; None when one is already waiting."""
        for request in self.requests:
            if request.pending and request.package_uuid == package.uuid and request.kind == kind:
                return None
        request = self._add_request(
            package,
            kind,
            pipeline_uuid,
            reason,
            user_id,
            user_email,
            previous_status=package.status,
            at=self.now(),
        )
        self.set_status(package, DEL_REQ if kind == DELETE_REQUEST else RECOVER_REQ)
        self.sim.record_action(
            "package_deletion_request" if kind == DELETE_REQUEST else "package_recovery_request",
            package.uuid,
        )
        return request

    def check_fixity(self, package: Package, *, force_local: bool) -> dict[str, Any]:
        """Run (pretend to run) a fixity scan and keep its result on the package."""
        checked_at = self.now()
        if package.package_type not in BAG_TYPES:
            result: dict[str, Any] = {
                "success": None,
                "message": "Unable to scan; package is not a bag (AIP or AIC)",
                "failures": {"files": {"missing": [], "changed": [], "untracked": []}},
                "timestamp": None,
            }
        elif package.fixity_broken:
            result = {
                "success": False,
                "message": "Bag validation failed",
                "failures": {
                    "files": {
                        "missing": [
                            {
                                "path": "bag-info.txt",
                                "message": (
                                    "bag-info.txt exists in manifest "
                                    "but was not found on filesystem"
                                ),
                            }
                        ],
                        "changed": [],
                        "untracked": [
                            {
                                "path": "data/objects/extra.txt",
                                "message": (
                                    "data/objects/extra.txt exists on filesystem "
                                    "but is not in the manifest"
                                ),
                            }
                        ],
                    }
                },
                "timestamp": None,
            }
        else:
            result = {
                "success": True,
                "message": "",
                "failures": {"files": {"missing": [], "changed": [], "untracked": []}},
                "timestamp": None,
            }
        if not force_local and not package.locally_available and result["success"] is not None:
            # The external store reports the time of its own last check.
            store_checked = checked_at - timedelta(hours=6)
            result["timestamp"] = _iso(self.server_time(store_checked))
        package.fixity_checks.append(FixityCheck(checked_at, result["success"], result["message"]))
        self.sim.record_action("package_fixity_check", package.uuid)
        return result

    def start_reingest(self, package: Package, pipeline: Pipeline, reingest_type: str) -> None:
        package.misc_attributes["reingest_pipeline"] = pipeline.uuid
        record = ReingestRecord(
            package.uuid, pipeline.uuid, reingest_type, reingest_sends(reingest_type)
        )
        self.reingests.append(record)
        self.sim.record_action("package_reingest", package.uuid)

    def is_reingesting(self, package: Package) -> bool:
        return bool(package.misc_attributes.get("reingest_pipeline"))

    def start_move(self, package: Package, destination: Location) -> None:
        """The package shows MOVING, then lands in `destination` a moment later."""
        self.set_status(package, MOVING)
        due = self.now() + timedelta(seconds=MOVE_DELAY_SECONDS)
        self.moves.append(PendingMove(package, destination, due))
        self.sim.record_action("package_move", package.uuid)

    def finish_due_moves(self) -> None:
        now = self.now()
        waiting = []
        for move in self.moves:
            if move.due_at > now:
                waiting.append(move)
                continue
            self.relocate(move.package, move.destination)
            self.set_status(move.package, UPLOADED)
        self.moves = waiting

    # --- Package file records -------------------------------------------------------------

    def package_files(self, package: Package) -> list[dict[str, str]]:
        if package.files is None:
            package.files = _generated_files(package) if package.package_type in BAG_TYPES else []
        return package.files

    def find_files(self, criteria: dict[str, str]) -> list[tuple[Package, dict[str, str]]]:
        """File records (of packages whose records exist) matching every criterion."""
        found = []
        for package in self.packages.values():
            if not package.files:
                continue
            for record in package.files:
                if all(record.get(key) == value for key, value in criteria.items()):
                    found.append((package, record))
        return found

    # --- Async registrations ----------------------------------------------------------------

    def add_async_task(self, payload: dict[str, Any]) -> AsyncTask:
        now = self.now()
        task = AsyncTask(
            len(self.async_tasks) + 1,
            now,
            now + timedelta(seconds=ASYNC_DELAY_SECONDS),
            payload,
            now,
        )
        self.async_tasks[task.id] = task
        return task


def _chain_values(
    buckets: list[dict[str, Package]], checks: list[tuple[Callable[[Package], str], set[str]]]
) -> Iterator[Package]:
    if not checks:
        for bucket in buckets:
            yield from bucket.values()
        return
    if len(checks) == 1:
        ((key, wanted),) = checks

        def keep(package: Package) -> bool:
            return key(package) in wanted

    else:

        def keep(package: Package) -> bool:
            return all(key(package) in wanted for key, wanted in checks)

    for bucket in buckets:
        yield from filter(keep, bucket.values())


def _package_type_of(package: Package) -> str:
    return package.package_type


def _status_of(package: Package) -> str:
    return package.status


def _location_uuid_of(package: Package) -> str:
    return package.location.uuid


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _tree_entry(name: bytes, node: SourceDir | SourceFile) -> BrowseEntry:
    if isinstance(node, SourceFile):
        return BrowseEntry(name, False, size=node.size)
    return BrowseEntry(name, True, object_count=capped_count(count_files(node)))


def _package_name(rng: random.Random) -> str:
    subject = rng.choice(_SUBJECTS)
    qualifier = rng.choice(_QUALIFIERS)
    number = rng.randrange(1, 400)
    return f"{subject}-{qualifier}-{number:03d}" if qualifier else f"{subject}-{number:03d}"


_SEED_STATUSES = (UPLOADED, VERIFIED, DEL_REQ, DELETED, FAIL, RECOVER_REQ, PENDING)
_SEED_STATUS_WEIGHTS = list(accumulate((900, 20, 20, 35, 12, 5, 8)))


def _seed_status(rng: random.Random) -> str:
    return rng.choices(_SEED_STATUSES, cum_weights=_SEED_STATUS_WEIGHTS)[0]


def _random_file(rng: random.Random, index: int) -> tuple[str, int]:
    stem, extension, low, high = rng.choice(_FILE_KINDS)
    separator = " " if rng.random() < 0.15 else "-"
    return f"{stem}{separator}{index:03d}.{extension}", rng.randrange(low, high)


SOURCE_ITEMS_FOLDER = b"batch"
# Every tenth item of `batch/` is a zip file.
SOURCE_ITEMS_ZIP_EVERY = 10


def source_item_name(number: int, width: int = 3) -> str:
    zipped = number % SOURCE_ITEMS_ZIP_EVERY == 0
    return f"item-{number:0{width}d}" + (".zip" if zipped else "")


def source_item_names(count: int) -> list[str]:
    """The names of the first `count` items of `batch/`, in order."""
    width = max(3, len(str(count)))
    return [source_item_name(number, width) for number in range(1, count + 1)]


def _main_source_tree(rng: random.Random) -> SourceDir:
    tree = SourceDir()
    names = [f"{subject}-{rng.randrange(1990, 2025)}" for subject in _SUBJECTS]
    names += [f"accession-2025-{number:03d}" for number in range(1, 9)]
    for name in names:
        base = name.encode("utf-8")
        for index in range(1, rng.randrange(2, 13)):
            file_name, size = _random_file(rng, index)
            tree.add_file(base + b"/objects/" + file_name.encode("utf-8"), size)
        if rng.random() < 0.5:
            tree.add_file(base + b"/metadata/metadata.csv", rng.randrange(300, 9000))
        if rng.random() < 0.3:
            tree.add_file(
                base + b"/metadata/submissionDocumentation/transfer-form.pdf",
                rng.randrange(20_000, 400_000),
            )
        if rng.random() < 0.3:
            tree.add_file(
                base + b"/objects/subseries/part 1/" + b"item-001.pdf", rng.randrange(1000, 90_000)
            )
    for name in _SPECIAL_TRANSFERS:
        base = name.encode("utf-8")
        if name == "empty-transfer":
            tree.make_dirs(base)
        elif name == "legacy-encodings":
            # A name written by an old system in Latin-1: not valid UTF-8.
            tree.add_file(base + b"/objects/caf\xe9-menu-1962.txt", 2_048)
            tree.add_file(base + b"/objects/ordinary.txt", 512)
        elif name == "large-image-series":
            for index in range(1, LARGE_DIRECTORY_FILES + 1):
                tree.add_file(
                    base + f"/objects/frame-{index:05d}.tif".encode(), 1_000_000 + index * 37
                )
        else:
            tree.add_file(base + "/objects/\u00e9-file.txt".encode(), 11)
            tree.add_file(base + b"/objects/data with spaces.csv", 8)
    return tree


def _generated_files(package: Package) -> list[dict[str, str]]:
    """A deterministic handful of file records for a seeded AIP."""
    rng = random.Random(f"contents:{package.uuid}")
    origin = package.origin_pipeline.uuid if package.origin_pipeline else ""
    # Every file of an AIP came from the same SIP, whose UUID is the AIP's.
    source_package = package.uuid
    accession = f"2024-{rng.randrange(1, 300):03d}" if rng.random() < 0.3 else ""
    records = []
    for index in range(1, rng.randrange(3, 9)):
        file_name, _size = _random_file(rng, index)
        checksum = (
            hashlib.sha256(f"{package.uuid}:{index}".encode()).hexdigest()
            if rng.random() < 0.8
            else ""
        )
        records.append(
            {
                "source_id": new_uuid(rng),
                "name": f"{package.name}-{package.uuid}/data/objects/{file_name}",
                "source_package": source_package,
                "checksum": checksum,
                "accessionid": accession,
                "origin": origin,
            }
        )
    return records
