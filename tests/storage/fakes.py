"""A fake storage service client for tests above the client layer.

It keeps a small world (pipelines, spaces, locations, packages, browse listings) and
answers with the real client's typed values. `test_fake_client.py` checks that its
public methods take the same arguments as `StorageClient`'s.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from dashboard.clients.base import Page
from dashboard.clients.storage import (
    BrowseResult,
    FixityResult,
    Location,
    LocationPurpose,
    Package,
    PackageContents,
    PackageDownload,
    PackageFile,
    PackageNotLocal,
    PackageStatus,
    PackageType,
    Pipeline,
    ReingestReceipt,
    ReingestType,
    RequestReceipt,
    Space,
    StorageNotFound,
    StorageResponseError,
    StorageUnavailable,
)

PIPELINE = "11111111-1111-4111-8111-111111111111"
PEER_PIPELINE = "22222222-2222-4222-8222-222222222222"
SPACE = "33333333-3333-4333-8333-333333333333"
AIP_STORE = "44444444-4444-4444-8444-444444444401"
AIP_STORE_2 = "44444444-4444-4444-8444-444444444402"
DIP_STORE = "44444444-4444-4444-8444-444444444403"
BACKLOG = "44444444-4444-4444-8444-444444444404"
TRANSFER_SOURCE = "44444444-4444-4444-8444-444444444405"
BASE_DATE = datetime(2026, 1, 1, 12, 0, 0)


def package_uuid(number: int) -> str:
    return f"aaaaaaaa-0000-4000-8000-{number:012d}"


def make_package(
    number: int,
    *,
    package_type: str = "AIP",
    status: str = "UPLOADED",
    location: str = AIP_STORE,
    name: str | None = None,
    size: int | None = 1000,
    pipeline: str | None = PIPELINE,
    stored_date: datetime | None = None,
    related: tuple[str, ...] = (),
    replicas: tuple[str, ...] = (),
    replicated: str | None = None,
) -> Package:
    uuid = package_uuid(number)
    name = name if name is not None else f"package-{number:05d}"
    if stored_date is None and package_type != "transfer":
        stored_date = BASE_DATE + timedelta(minutes=number)
    extension = ".7z" if package_type in {"AIP", "AIC"} else ""
    path = f"{uuid[:4]}/{uuid[4:8]}/{name}-{uuid}{extension}"
    return Package(
        uuid=uuid,
        package_type=PackageType(package_type),
        status=PackageStatus(status),
        size=size,
        current_location_uuid=location,
        current_path=path,
        current_full_path=f"/var/store/{path}",
        origin_pipeline_uuid=pipeline,
        related_package_uuids=related,
        replica_uuids=replicas,
        replicated_package_uuid=replicated,
        encrypted=False,
        misc_attributes={},
        stored_date=stored_date,
    )


def _location(
    uuid: str,
    purpose: str,
    description: str,
    *,
    quota: int | None = None,
    used: int = 0,
    enabled: bool = True,
    pipelines: tuple[str, ...] = (PIPELINE,),
) -> Location:
    return Location(
        uuid=uuid,
        purpose=LocationPurpose(purpose),
        description=description,
        enabled=enabled,
        path=f"/var/store/{description.lower().replace(' ', '-')}",
        relative_path=description.lower().replace(" ", "-"),
        quota=quota,
        used=used,
        space_uuid=SPACE,
        pipeline_uuids=pipelines,
    )


def b64(raw: bytes | str) -> str:
    data = raw.encode("utf-8") if isinstance(raw, str) else raw
    return base64.b64encode(data).decode("ascii")


def browse_listing(entries: dict[bytes | str, dict[str, Any]]) -> dict[str, Any]:
    """An API-shaped browse answer: `{name: {"object count": n} or {"size": n}}`."""
    encoded = {b64(name): props for name, props in sorted(entries.items(), key=lambda i: str(i[0]))}
    return {
        "entries": list(encoded),
        "directories": [name for name, props in encoded.items() if "object count" in props],
        "properties": encoded,
    }


@dataclass
class FakeStorageClient:
    pipelines: list[Pipeline] = field(default_factory=list)
    spaces: list[Space] = field(default_factory=list)
    locations: list[Location] = field(default_factory=list)
    packages: dict[str, Package] = field(default_factory=dict)
    # Location UUID -> raw path -> API-shaped browse answer.
    listings: dict[str, dict[bytes, dict[str, Any]]] = field(default_factory=dict)
    fixity: dict[str, FixityResult] = field(default_factory=dict)
    not_local: set[str] = field(default_factory=set)
    download_bytes: int = 3 * 1024
    down: bool = False
    calls: list[tuple[str, tuple, dict]] = field(default_factory=list)
    # Errors to raise from the named method, once each.
    failures: dict[str, Exception] = field(default_factory=dict)
    # Moves under way (package UUID -> destination), landed by `finish_moves()`.
    moves: dict[str, str] = field(default_factory=dict)
    timeout: tuple[float, float] = (3.05, 10.0)
    retries: int = 3

    @classmethod
    def seeded(cls) -> FakeStorageClient:
        client = cls(
            pipelines=[
                Pipeline(
                    uuid=PIPELINE,
                    description="Main pipeline",
                    remote_name="10.0.0.1",
                    resource_uri=f"/api/v2/pipeline/{PIPELINE}/",
                ),
                Pipeline(
                    uuid=PEER_PIPELINE,
                    description="Peer pipeline",
                    remote_name="10.0.0.2",
                    resource_uri=f"/api/v2/pipeline/{PEER_PIPELINE}/",
                ),
            ],
            spaces=[
                Space(
                    uuid=SPACE,
                    access_protocol="FS",
                    path="/var/store",
                    size=None,
                    used=7_000,
                    last_verified=None,
                    verified=False,
                ),
            ],
            locations=[
                _location(
                    AIP_STORE,
                    "AS",
                    "Main AIP store",
                    quota=10_000,
                    used=6_000,
                    pipelines=(PIPELINE, PEER_PIPELINE),
                ),
                _location(AIP_STORE_2, "AS", "Second AIP store", quota=None, used=1_000),
                _location(DIP_STORE, "DS", "DIP store", quota=0, used=0),
                _location(BACKLOG, "BL", "Transfer backlog"),
                _location(TRANSFER_SOURCE, "TS", "Transfer source"),
            ],
        )
        return client

    def add(self, *packages: Package) -> None:
        for package in packages:
            self.packages[package.uuid] = package

    def set_status(self, uuid: str, status: str) -> None:
        self.packages[uuid] = replace(self.packages[uuid], status=PackageStatus(status))

    def _call(self, name: str, *args: Any, **kwargs: Any) -> None:
        self.calls.append((name, args, kwargs))
        if self.down:
            raise StorageUnavailable("storage service could not connect", service="storage")
        failure = self.failures.pop(name, None)
        if failure is not None:
            raise failure

    def count(self, name: str) -> int:
        return sum(1 for called, _, _ in self.calls if called == name)

    # ----------------------------------------------------------------- lists

    def list_pipelines(self, **filters: Any) -> Iterator[Pipeline]:
        self._call("list_pipelines", **filters)
        return iter(list(self.pipelines))

    def list_spaces(self, **filters: Any) -> Iterator[Space]:
        self._call("list_spaces", **filters)
        return iter(list(self.spaces))

    def list_locations(self, **filters: Any) -> Iterator[Location]:
        self._call("list_locations", **filters)
        return iter([loc for loc in self.locations if loc.enabled])

    def _matching(self, filters: dict[str, Any]) -> list[Package]:
        found = list(self.packages.values())
        for name, value in filters.items():
            if name == "limit" or value is None:
                continue
            if name == "package_type":
                found = [p for p in found if str(p.package_type) == value]
            elif name == "status":
                found = [p for p in found if str(p.status) == value]
            elif name == "status__in":
                found = [p for p in found if str(p.status) in set(value)]
            elif name == "uuid__in":
                found = [p for p in found if p.uuid in set(value)]
            elif name == "stored_date__gte":
                since = datetime.fromisoformat(value)
                found = [p for p in found if p.stored_date is not None and p.stored_date >= since]
            else:
                raise AssertionError(f"the fake does not know the filter {name}")
        return found

    def list_packages(self, **filters: Any) -> Iterator[Package]:
        self._call("list_packages", **filters)
        return iter(self._matching(filters))

    def list_packages_page(self, *, offset: int, limit: int, **filters: Any) -> Page[Package]:
        self._call("list_packages_page", offset=offset, limit=limit, **filters)
        found = self._matching(filters)
        items = tuple(found[offset : offset + limit])
        return Page(
            items=items,
            total_count=len(found),
            offset=offset,
            limit=limit,
            has_next=offset + limit < len(found),
        )

    def get_package(self, uuid: str) -> Package:
        self._call("get_package", uuid)
        if uuid not in self.packages:
            raise StorageNotFound("storage service answered 404", service="storage", status=404)
        return self.packages[uuid]

    # ----------------------------------------------------------------- browse

    def browse_location(self, uuid: str, path: str | bytes = "") -> BrowseResult:
        raw = path if isinstance(path, bytes) else path.encode("utf-8")
        self._call("browse_location", uuid, raw)
        listing = self.listings.get(uuid, {}).get(
            raw, {"entries": [], "directories": [], "properties": {}}
        )
        return BrowseResult.from_api(listing, property_keys_encoded=True)

    # ----------------------------------------------------------------- package operations

    def check_fixity(self, uuid: str, *, force_local: bool = False) -> FixityResult:
        self._call("check_fixity", uuid, force_local=force_local)
        return self.fixity.get(
            uuid, FixityResult(success=True, message="", failures=(), checked_at=None)
        )

    @contextmanager
    def download_package(
        self, uuid: str, *, chunk_size: int = 1024 * 1024
    ) -> Iterator[PackageDownload]:
        self._call("download_package", uuid)
        if uuid not in self.packages:
            raise StorageNotFound(
                f"Resource with UUID {uuid} does not exist",
                service="storage",
                status=404,
                upstream_message=f"Resource with UUID {uuid} does not exist",
            )
        if uuid in self.not_local:
            raise PackageNotLocal(
                "not local",
                service="storage",
                status=202,
                upstream_message=(
                    "File is not locally available.  Contact your storage administrator "
                    "to fetch it."
                ),
            )
        total = self.download_bytes

        def chunks() -> Iterator[bytes]:
            sent = 0
            while sent < total:
                piece = min(chunk_size, total - sent)
                sent += piece
                yield b"x" * piece

        yield PackageDownload(
            filename=f"{uuid}.7z",
            content_type="application/x-7z-compressed",
            size=total,
            _chunks=chunks(),
        )

    def get_pointer_file(self, uuid: str) -> str:
        self._call("get_pointer_file", uuid)
        return (
            '<?xml version="1.0"?><mets:mets xmlns:mets="http://www.loc.gov/METS/" '
            'xmlns:premis="http://www.loc.gov/premis/v3"><premis:object>'
            f"<premis:objectIdentifierValue>{uuid}</premis:objectIdentifierValue>"
            "<premis:messageDigestAlgorithm>sha256</premis:messageDigestAlgorithm>"
            "<premis:messageDigest>abc123</premis:messageDigest>"
            "</premis:object></mets:mets>"
        )

    def get_package_contents(self, uuid: str) -> PackageContents:
        self._call("get_package_contents", uuid)
        return PackageContents(
            package_uuid=uuid,
            files=(
                PackageFile(
                    source_id="f1",
                    name="objects/report.pdf",
                    source_package="",
                    checksum="",
                    accession_id="",
                    origin="",
                ),
            ),
        )

    def request_deletion(
        self, uuid: str, *, pipeline_uuid: str, reason: str, user_id: int, user_email: str
    ) -> RequestReceipt:
        self._call(
            "request_deletion",
            uuid,
            pipeline_uuid=pipeline_uuid,
            reason=reason,
            user_id=user_id,
            user_email=user_email,
        )
        self.set_status(uuid, "DEL_REQ")
        return RequestReceipt(message="Delete request created successfully.", request_id=7)

    def request_recovery(
        self, uuid: str, *, pipeline_uuid: str, reason: str, user_id: int, user_email: str
    ) -> RequestReceipt:
        self._call(
            "request_recovery",
            uuid,
            pipeline_uuid=pipeline_uuid,
            reason=reason,
            user_id=user_id,
            user_email=user_email,
        )
        self.set_status(uuid, "RECOVER_REQ")
        return RequestReceipt(message="Recover request created successfully.", request_id=8)

    def reingest(
        self,
        uuid: str,
        *,
        pipeline_uuid: str,
        reingest_type: ReingestType | str,
        processing_config: str | None = None,
    ) -> ReingestReceipt:
        self._call(
            "reingest",
            uuid,
            pipeline_uuid=pipeline_uuid,
            reingest_type=str(reingest_type),
            processing_config=processing_config,
        )
        return ReingestReceipt(
            reingest_uuid="bbbbbbbb-0000-4000-8000-000000000001",
            message=f"Package {uuid} sent to pipeline for re-ingest",
        )

    def move_package(self, uuid: str, *, location_uuid: str) -> None:
        self._call("move_package", uuid, location_uuid=location_uuid)
        package = self.packages[uuid]
        target = next(loc for loc in self.locations if loc.uuid == location_uuid)
        current = next(loc for loc in self.locations if loc.uuid == package.current_location_uuid)
        if target.purpose != current.purpose:
            message = (
                "New location must have the same purpose as the current location - "
                f"{current.purpose}"
            )
            raise StorageResponseError(
                message, service="storage", status=400, upstream_message=message
            )
        # As the real service: MOVING where it was, in its new place only once done.
        self.set_status(uuid, "MOVING")
        self.moves[uuid] = location_uuid

    def finish_moves(self) -> None:
        for uuid, location_uuid in self.moves.items():
            self.packages[uuid] = replace(
                self.packages[uuid],
                current_location_uuid=location_uuid,
                status=PackageStatus.UPLOADED,
            )
        self.moves.clear()
