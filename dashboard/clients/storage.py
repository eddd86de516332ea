"""Client for the storage service (pipelines, spaces, locations, packages).

Contract: one public method per endpoint of the storage service API spec
(`storage-service-api.md`, section "Endpoints"), returning typed values built by a
`from_api()` parser and raising only `StorageError` subclasses (plus `ValueError` for
arguments that could never be valid, such as a malformed UUID).

Behaviour worth knowing, from what the real service does where the spec is silent:
- bad or missing credentials answer 401 with an empty body -> `StorageAuthError`;
- an unknown UUID answers 404 with an empty or plain-text body -> `StorageNotFound`;
- every path gets its trailing slash here: without it the service answers 301, possibly
  to another host, and a redirect is never followed;
- lists are `{meta, objects}` pages; `list_*()` follow `meta.next` lazily (a generator:
  errors surface while iterating), keep sending our header, drop any `username` /
  `api_key` the link echoes, and yield each UUID once (the lists have no stable order);
- numbers may come as numeric strings, related resources as URIs (`/api/v2/space/<uuid>/`)
  from which the UUIDs are taken;
- downloads are streamed and never read into memory; 202 means the package is not
  available locally -> `PackageNotLocal`.
Timestamps are naive, in the storage server's configured time zone.
"""

from __future__ import annotations

import base64
import binascii
import email.message
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Protocol, TypeVar

import requests

from dashboard.clients.base import (
    DEFAULT_TIMEOUT,
    ApiClient,
    ErrorFamily,
    MalformedPayload,
    Page,
    UpstreamAuthError,
    UpstreamConfigError,
    UpstreamError,
    UpstreamNotFound,
    UpstreamResponseError,
    UpstreamUnavailable,
    body_text,
    json_or_none,
    normalise_uuid,
    parse_timestamp,
    read_bool,
    read_int,
    read_str,
    require_list,
    require_mapping,
    response_text,
    to_int,
    upstream_message,
    uuid_from_uri,
)

# --- errors


class StorageError(UpstreamError):
    """Any failure talking to the storage service."""


class StorageUnavailable(StorageError, UpstreamUnavailable):
    pass


class StorageAuthError(StorageError, UpstreamAuthError):
    pass


class StorageNotFound(StorageError, UpstreamNotFound):
    pass


class StorageResponseError(StorageError, UpstreamResponseError):
    pass


class StorageConfigError(StorageError, UpstreamConfigError):
    pass


class PackageNotLocal(StorageError):
    """The package sits in an external store and is not available locally right now.

    The service has notified its administrator; `upstream_message` says more.
    """


# --- values


def _uuid_of(data: Mapping[str, Any]) -> str:
    found = normalise_uuid(data.get("uuid")) or uuid_from_uri(data.get("resource_uri"))
    if found is None:
        raise MalformedPayload(f"no UUID in {data.get('uuid')!r} / {data.get('resource_uri')!r}")
    return found


def _uuids_from_uris(value: Any, what: str) -> tuple[str, ...]:
    found = []
    for item in require_list(value or [], what):
        reference = (
            item.get("uuid") or item.get("resource_uri") if isinstance(item, Mapping) else item
        )
        uuid = normalise_uuid(reference) or uuid_from_uri(reference)
        if uuid is None:
            raise MalformedPayload(f"{what} holds {item!r}, not a resource URI")
        found.append(uuid)
    return tuple(found)


def _enum_value(enum: type[StrEnum], value: Any) -> Any:
    if isinstance(value, str):
        for member in enum:
            if member.value == value:
                return member
        for member in enum:
            if member.value.lower() == value.lower():
                return member
    return enum["UNKNOWN"]


@dataclass(frozen=True)
class Pipeline:
    uuid: str
    description: str
    # An IP, a host name or a URL.
    remote_name: str
    resource_uri: str

    @classmethod
    def from_api(cls, data: Any) -> Pipeline:
        data = require_mapping(data, "pipeline")
        return cls(
            uuid=_uuid_of(data),
            description=read_str(data, "description"),
            remote_name=read_str(data, "remote_name"),
            resource_uri=read_str(data, "resource_uri"),
        )


@dataclass(frozen=True)
class Space:
    uuid: str
    access_protocol: str
    path: str
    # Bytes; None means unlimited (the service uses 0 or null for that).
    size: int | None
    used: int
    last_verified: datetime | None
    verified: bool

    @classmethod
    def from_api(cls, data: Any) -> Space:
        data = require_mapping(data, "space")
        return cls(
            uuid=_uuid_of(data),
            access_protocol=read_str(data, "access_protocol"),
            path=read_str(data, "path"),
            size=read_int(data, "size") or None,
            used=read_int(data, "used") or 0,
            last_verified=parse_timestamp(data.get("last_verified"), "'last_verified'"),
            verified=read_bool(data, "verified"),
        )


class LocationPurpose(StrEnum):
    AIP_RECOVERY = "AR"
    AIP_STORAGE = "AS"
    CURRENTLY_PROCESSING = "CP"
    DIP_STORAGE = "DS"
    SWORD_DEPOSIT = "SD"
    STORAGE_SERVICE_INTERNAL = "SS"
    BACKLOG = "BL"
    TRANSFER_SOURCE = "TS"
    REPLICATOR = "RP"
    UNKNOWN = "UNKNOWN"


@dataclass(frozen=True)
class Location:
    uuid: str
    purpose: LocationPurpose
    description: str
    enabled: bool
    path: str
    relative_path: str
    quota: int | None
    used: int
    space_uuid: str | None
    pipeline_uuids: tuple[str, ...]

    @classmethod
    def from_api(cls, data: Any) -> Location:
        data = require_mapping(data, "location")
        return cls(
            uuid=_uuid_of(data),
            purpose=_enum_value(LocationPurpose, data.get("purpose")),
            description=read_str(data, "description"),
            enabled=read_bool(data, "enabled", default=True),
            path=read_str(data, "path"),
            relative_path=read_str(data, "relative_path"),
            quota=read_int(data, "quota"),
            used=read_int(data, "used") or 0,
            space_uuid=uuid_from_uri(data.get("space")),
            pipeline_uuids=_uuids_from_uris(data.get("pipeline"), "'pipeline'"),
        )


class PackageType(StrEnum):
    AIP = "AIP"
    AIC = "AIC"
    DIP = "DIP"
    TRANSFER = "transfer"
    SIP = "SIP"
    FILE = "file"
    DEPOSIT = "deposit"
    UNKNOWN = "UNKNOWN"


class PackageStatus(StrEnum):
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
    UNKNOWN = "UNKNOWN"


@dataclass(frozen=True)
class Package:
    uuid: str
    package_type: PackageType
    status: PackageStatus
    size: int | None
    current_location_uuid: str | None
    current_path: str
    # Not always a local path (e.g. a mangled URL for repository-backed spaces).
    current_full_path: str
    origin_pipeline_uuid: str | None
    related_package_uuids: tuple[str, ...]
    replica_uuids: tuple[str, ...]
    replicated_package_uuid: str | None
    encrypted: bool
    misc_attributes: Mapping[str, Any]
    stored_date: datetime | None

    @classmethod
    def from_api(cls, data: Any) -> Package:
        data = require_mapping(data, "package")
        misc = data.get("misc_attributes") or {}
        if not isinstance(misc, Mapping):
            raise MalformedPayload("'misc_attributes' is not an object")
        return cls(
            uuid=_uuid_of(data),
            package_type=_enum_value(PackageType, data.get("package_type")),
            status=_enum_value(PackageStatus, data.get("status")),
            size=read_int(data, "size"),
            current_location_uuid=uuid_from_uri(data.get("current_location")),
            current_path=read_str(data, "current_path"),
            current_full_path=read_str(data, "current_full_path"),
            origin_pipeline_uuid=uuid_from_uri(data.get("origin_pipeline")),
            related_package_uuids=_uuids_from_uris(
                data.get("related_packages"), "'related_packages'"
            ),
            replica_uuids=_uuids_from_uris(data.get("replicas"), "'replicas'"),
            replicated_package_uuid=uuid_from_uri(data.get("replicated_package")),
            encrypted=read_bool(data, "encrypted"),
            misc_attributes=MappingProxyType(dict(misc)),
            stored_date=parse_timestamp(data.get("stored_date"), "'stored_date'"),
        )


@dataclass(frozen=True)
class BrowseEntry:
    # For display: bytes that are not UTF-8 show as U+FFFD.
    name: str
    # The exact bytes, to send back as a browse path.
    raw_name: bytes
    name_is_valid_utf8: bool
    is_directory: bool
    size: int | None
    # Lower bound: the service caps counts at "5000+".
    object_count: int | None
    object_count_display: str | None


def _b64(value: Any, what: str) -> bytes:
    if not isinstance(value, str):
        raise MalformedPayload(f"{what} is not a string")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise MalformedPayload(f"{what} is not base64: {value!r}") from None


@dataclass(frozen=True)
class BrowseResult:
    entries: tuple[BrowseEntry, ...]

    @property
    def directories(self) -> tuple[BrowseEntry, ...]:
        return tuple(entry for entry in self.entries if entry.is_directory)

    @classmethod
    def from_api(cls, data: Any, *, property_keys_encoded: bool) -> BrowseResult:
        """Entries and directories are base64; `properties` keys are base64 on location
        browse and plain on space browse; `properties` may be missing altogether."""
        data = require_mapping(data, "browse result")
        names = [
            _b64(value, "an entry")
            for value in require_list(data.get("entries") or [], "'entries'")
        ]
        directories = {
            _b64(value, "a directory")
            for value in require_list(data.get("directories") or [], "'directories'")
        }
        listed = set(names)
        names += [name for name in sorted(directories) if name not in listed]
        properties: dict[bytes, Mapping[str, Any]] = {}
        raw_properties = data.get("properties") or {}
        for key, value in require_mapping(raw_properties, "'properties'").items():
            raw_key = _b64(key, "a property key") if property_keys_encoded else key.encode()
            if isinstance(value, Mapping):
                properties[raw_key] = value
        return cls(entries=tuple(_entry(name, name in directories, properties) for name in names))


def _entry(
    raw: bytes, is_directory: bool, properties: Mapping[bytes, Mapping[str, Any]]
) -> BrowseEntry:
    try:
        name, valid = raw.decode("utf-8"), True
    except UnicodeDecodeError:
        name, valid = raw.decode("utf-8", errors="replace"), False
    props = properties.get(raw, {})
    raw_count = props.get("object count")
    shown: str | None
    if isinstance(raw_count, str) and raw_count.strip().endswith("+"):
        count, shown = to_int(raw_count.strip()[:-1], "'object count'"), raw_count.strip()
    else:
        count = to_int(raw_count, "'object count'")
        shown = None if count is None else str(count)
    return BrowseEntry(
        name=name,
        raw_name=raw,
        name_is_valid_utf8=valid,
        is_directory=is_directory,
        size=to_int(props.get("size"), "'size'"),
        object_count=count,
        object_count_display=shown,
    )


@dataclass(frozen=True)
class RequestReceipt:
    """The answer to a deletion or recovery request."""

    message: str
    # None when the service said a request already existed.
    request_id: int | None

    @property
    def already_requested(self) -> bool:
        return self.request_id is None

    @classmethod
    def from_api(cls, data: Any) -> RequestReceipt:
        data = require_mapping(data, "request receipt")
        # "Already requested" comes as `message` for deletion, `error_message` for recovery.
        message = read_str(data, "message") or read_str(data, "error_message")
        return cls(message=message, request_id=read_int(data, "id"))


def _describe_failure(item: Any) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, Mapping):
        path, message = str(item.get("path") or ""), str(item.get("message") or "")
        if path and message.startswith(path):
            # The service's messages usually start with the path already.
            return message
        parts = [part for part in (path, message) if part]
        if parts:
            return ": ".join(parts)
    return repr(item)


def _flatten_failures(value: Any) -> tuple[str, ...]:
    """Readable lines from a list of failures or the `{"files": {kind: [...]}}` shape."""
    if not value:
        return ()
    if isinstance(value, list):
        return tuple(_describe_failure(item) for item in value)
    if isinstance(value, Mapping):
        lines = []
        for group, items in value.items():
            if isinstance(items, Mapping):
                for kind, entries in items.items():
                    # One entry instead of a list is read as a list of one.
                    listed = entries if isinstance(entries, list) else [entries] if entries else []
                    lines += [f"{kind}: {_describe_failure(e)}" for e in listed]
            elif isinstance(items, list):
                lines += [f"{group}: {_describe_failure(e)}" for e in items]
            elif items:
                lines.append(f"{group}: {_describe_failure(items)}")
        return tuple(lines)
    raise MalformedPayload("'failures' is neither a list nor an object")


@dataclass(frozen=True)
class FixityResult:
    # None when the check could not start (e.g. the package is not a bag).
    success: bool | None
    message: str
    failures: tuple[str, ...]
    checked_at: datetime | None

    @classmethod
    def from_api(cls, data: Any) -> FixityResult:
        data = require_mapping(data, "fixity result")
        success = data.get("success")
        if success is not None and not isinstance(success, bool):
            raise MalformedPayload("'success' is not a boolean or null")
        return cls(
            success=success,
            message=read_str(data, "message"),
            failures=_flatten_failures(data.get("failures")),
            checked_at=parse_timestamp(data.get("timestamp"), "'timestamp'"),
        )


@dataclass(frozen=True)
class PackageFile:
    source_id: str
    name: str
    source_package: str
    checksum: str
    accession_id: str
    origin: str

    @classmethod
    def from_api(cls, data: Any) -> PackageFile:
        data = require_mapping(data, "package file")
        return cls(
            source_id=str(data.get("source_id") or ""),
            name=read_str(data, "name"),
            source_package=str(data.get("source_package") or ""),
            checksum=read_str(data, "checksum"),
            accession_id=read_str(data, "accessionid"),
            origin=str(data.get("origin") or ""),
        )


@dataclass(frozen=True)
class PackageContents:
    package_uuid: str
    files: tuple[PackageFile, ...]

    @classmethod
    def from_api(cls, data: Any) -> PackageContents:
        data = require_mapping(data, "package contents")
        uuid = normalise_uuid(data.get("package")) or uuid_from_uri(data.get("package"))
        if uuid is None:
            raise MalformedPayload("'package' is not a UUID")
        files = require_list(data.get("files") or [], "'files'")
        return cls(package_uuid=uuid, files=tuple(PackageFile.from_api(item) for item in files))


class ReingestType(StrEnum):
    """What a reingest redoes. The values are the words the service compares with: it
    lower-cases `reingest_type` and silently treats any other value (`METADATA_ONLY`,
    say) as neither, sending only the METS."""

    METADATA_ONLY = "metadata"
    OBJECTS = "objects"
    FULL = "full"


def _reingest_type(value: ReingestType | str) -> str:
    """The word to send for a reingest type given by member, name or value."""
    if isinstance(value, ReingestType):
        return value.value
    text = str(value).strip().lower()
    for member in ReingestType:
        if text in {member.value, member.name.lower()}:
            return member.value
    raise ValueError(f"not a reingest type the storage service knows: {value!r}")


@dataclass(frozen=True)
class ReingestReceipt:
    reingest_uuid: str
    message: str

    @classmethod
    def from_api(cls, data: Any) -> ReingestReceipt:
        data = require_mapping(data, "reingest receipt")
        reingest_uuid = normalise_uuid(data.get("reingest_uuid"))
        if reingest_uuid is None:
            raise MalformedPayload("'reingest_uuid' is not a UUID")
        return cls(reingest_uuid=reingest_uuid, message=read_str(data, "message"))


@dataclass(frozen=True)
class PackageDownload:
    """A streamed download; read it with `iter_chunks()` once, inside the `with` block."""

    filename: str
    content_type: str
    # From Content-Length; None when unknown or when the body is content-encoded.
    size: int | None
    _chunks: Iterator[bytes] = field(repr=False, compare=False)

    def iter_chunks(self) -> Iterator[bytes]:
        return self._chunks


_EXTENSIONS = {
    "application/x-7z-compressed": ".7z",
    "application/x-tar": ".tar",
    "application/zip": ".zip",
    "application/gzip": ".gz",
    "application/xml": ".xml",
    "text/xml": ".xml",
}


def _safe_filename(name: str | None) -> str:
    # Only a base name, without control characters, so a caller can use it as is.
    base = (name or "").replace("\\", "/").rsplit("/", 1)[-1]
    base = "".join(ch for ch in base if ch.isprintable()).strip()
    return "" if base in {".", ".."} else base


def _attachment_filename(header: str | None) -> str:
    if not header:
        return ""
    message = email.message.Message()
    message["Content-Disposition"] = header
    return _safe_filename(message.get_filename())


def _resource_uuid(value: str) -> str:
    normalised = normalise_uuid(value)
    if normalised is None:
        raise ValueError(f"not a UUID: {value!r}")
    return normalised


def _query(filters: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Filters as query parameters: booleans lower-case, sequences comma-joined (`__in`)."""
    params = []
    for name, value in filters.items():
        if name in {"username", "api_key"}:
            raise ValueError("credentials travel in the Authorization header, not as filters")
        if value is None:
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, list | tuple | set | frozenset):
            value = ",".join(str(item) for item in value)
        params.append((name, str(value)))
    return params


# --- client

T = TypeVar("T")


class _Identified(Protocol):
    @property
    def uuid(self) -> str: ...


_HasUuid = TypeVar("_HasUuid", bound=_Identified)


class StorageClient(ApiClient):
    service = "storage"
    errors = ErrorFamily(
        unavailable=StorageUnavailable,
        auth=StorageAuthError,
        not_found=StorageNotFound,
        response=StorageResponseError,
        config=StorageConfigError,
    )

    # --- small helpers

    def _get_one(
        self, path: str, parse: Callable[[Any], T], params: Any = None, *, once: bool = False
    ) -> T:
        response = self._request("GET", self._url(path), params=params, once=once)
        return self._parse(parse, self._decode_json(response, "GET"), response, "GET")

    def _post_json(self, path: str, body: Mapping[str, Any], parse: Callable[[Any], T]) -> T:
        response = self._request("POST", self._url(path), json_body=body)
        return self._parse(parse, self._decode_json(response, "POST"), response, "POST")

    def _iter(
        self, path: str, filters: Mapping[str, Any], parse: Callable[[Any], _HasUuid]
    ) -> Iterator[_HasUuid]:
        return self._iter_objects(path, _query(filters), parse, key=lambda item: item.uuid)

    # --- pipelines

    def list_pipelines(self, **filters: Any) -> Iterator[Pipeline]:
        return self._iter("/api/v2/pipeline/", filters, Pipeline.from_api)

    # --- spaces

    def list_spaces(self, **filters: Any) -> Iterator[Space]:
        return self._iter("/api/v2/space/", filters, Space.from_api)

    def browse_space(self, uuid: str, path: str) -> BrowseResult:
        """Browse a path inside a space (sent as plain text, unlike location browse)."""
        return self._get_one(
            f"/api/v2/space/{_resource_uuid(uuid)}/browse/",
            lambda data: BrowseResult.from_api(data, property_keys_encoded=False),
            params={"path": path},
        )

    # --- locations

    def list_locations(self, **filters: Any) -> Iterator[Location]:
        return self._iter("/api/v2/location/", filters, Location.from_api)

    def browse_location(self, uuid: str, path: str | bytes = "") -> BrowseResult:
        """Browse a location; `path` may be the `raw_name` bytes of an earlier entry."""
        raw = path if isinstance(path, bytes) else path.encode("utf-8")
        params = {"path": base64.b64encode(raw).decode("ascii")} if raw else None
        return self._get_one(
            f"/api/v2/location/{_resource_uuid(uuid)}/browse/",
            lambda data: BrowseResult.from_api(data, property_keys_encoded=True),
            params=params,
        )

    # --- packages

    def list_packages(self, **filters: Any) -> Iterator[Package]:
        return self._iter("/api/v2/file/", filters, Package.from_api)

    def list_packages_page(self, *, offset: int, limit: int, **filters: Any) -> Page[Package]:
        params = _query(filters) + [("offset", str(offset)), ("limit", str(limit))]
        return self._fetch_page("/api/v2/file/", params, Package.from_api)

    def get_package(self, uuid: str) -> Package:
        return self._get_one(f"/api/v2/file/{_resource_uuid(uuid)}/", Package.from_api)

    def request_deletion(
        self, uuid: str, *, pipeline_uuid: str, reason: str, user_id: int, user_email: str
    ) -> RequestReceipt:
        return self._package_request(
            uuid, "delete_aip", pipeline_uuid, reason=reason, user_id=user_id, email=user_email
        )

    def request_recovery(
        self, uuid: str, *, pipeline_uuid: str, reason: str, user_id: int, user_email: str
    ) -> RequestReceipt:
        return self._package_request(
            uuid, "recover_aip", pipeline_uuid, reason=reason, user_id=user_id, email=user_email
        )

    def _package_request(
        self, uuid: str, endpoint: str, pipeline_uuid: str, *, reason: str, user_id: int, email: str
    ) -> RequestReceipt:
        body = {
            "event_reason": reason,
            # Both endpoints look the pipeline up as `uuid=<value>`: a URI gets 400.
            "pipeline": _resource_uuid(pipeline_uuid),
            "user_id": _user_id(user_id),
            "user_email": email,
        }
        return self._post_json(
            f"/api/v2/file/{_resource_uuid(uuid)}/{endpoint}/", body, RequestReceipt.from_api
        )

    @contextmanager
    def download_package(
        self, uuid: str, *, chunk_size: int = 1024 * 1024
    ) -> Iterator[PackageDownload]:
        uuid = _resource_uuid(uuid)
        with self._stream(f"/api/v2/file/{uuid}/download/", None, uuid, chunk_size) as download:
            yield download

    @contextmanager
    def extract_file(
        self, uuid: str, relative_path: str, *, chunk_size: int = 1024 * 1024
    ) -> Iterator[PackageDownload]:
        """Stream one file of a package, `relative_path` starting with the package name."""
        with self._stream(
            f"/api/v2/file/{_resource_uuid(uuid)}/extract_file/",
            {"relative_path_to_file": relative_path},
            _safe_filename(relative_path),
            chunk_size,
        ) as download:
            yield download

    def get_pointer_file(self, uuid: str) -> str:
        response = self._request(
            "GET", self._url(f"/api/v2/file/{_resource_uuid(uuid)}/pointer_file/"), accept="*/*"
        )
        return response_text(response)

    def check_fixity(self, uuid: str, *, force_local: bool = False) -> FixityResult:
        """Run a fixity check. A failed check is a result (success=False), not an error.

        A GET, but it acts (the service records each check), so it is sent once: a retry
        after a time-out would check, and record, the package twice.
        """
        params = {"force_local": "true"} if force_local else None
        return self._get_one(
            f"/api/v2/file/{_resource_uuid(uuid)}/check_fixity/",
            FixityResult.from_api,
            params,
            once=True,
        )

    def get_package_contents(self, uuid: str) -> PackageContents:
        return self._get_one(
            f"/api/v2/file/{_resource_uuid(uuid)}/contents/", PackageContents.from_api
        )

    def reingest(
        self,
        uuid: str,
        *,
        pipeline_uuid: str,
        reingest_type: ReingestType | str,
        processing_config: str | None = None,
    ) -> ReingestReceipt:
        """Send a package to reingest. `reingest_type` is a `ReingestType`, or its name or
        value in any case; anything else raises ValueError before any request, since the
        service would accept it silently and reingest the METS only."""
        body: dict[str, Any] = {
            "pipeline": _resource_uuid(pipeline_uuid),
            "reingest_type": _reingest_type(reingest_type),
        }
        if processing_config is not None:
            body["processing_config"] = processing_config
        url = self._url(f"/api/v2/file/{_resource_uuid(uuid)}/reingest/")
        response = self._send("POST", url, json_body=body)
        payload = json_or_none(response)
        if isinstance(payload, Mapping) and payload.get("error") is True:
            # The receipt repeats the real status in the body, sometimes not in the header.
            try:
                status = to_int(payload.get("status_code"), "'status_code'") or response.status_code
            except MalformedPayload:
                status = response.status_code
            message = upstream_message(response, payload) or "reingest refused"
            shown_url = self._redact(response.url or url)
            raise StorageResponseError(
                f"storage service refused reingest (POST {shown_url} -> "
                f"{status}): {self._redact(message)}",
                service=self.service,
                url=shown_url,
                status=status,
                body=self._redact(body_text(response)),
                upstream_message=self._redact(message),
            )
        self._check(response, "POST")
        return self._parse(
            ReingestReceipt.from_api, self._decode_json(response, "POST"), response, "POST"
        )

    def move_package(self, uuid: str, *, location_uuid: str) -> None:
        """Move a package to another location with the same purpose."""
        # Form-encoded, as the service's own sample sends it.
        self._request(
            "POST",
            self._url(f"/api/v2/file/{_resource_uuid(uuid)}/move/"),
            data={"location_uuid": _resource_uuid(location_uuid)},
        )

    # --- misc

    # --- streaming

    @contextmanager
    def _stream(
        self, path: str, params: Any, fallback_name: str, chunk_size: int
    ) -> Iterator[PackageDownload]:
        url = self._url(path)
        response = self._send("GET", url, params=params, accept="*/*", stream=True)
        try:
            shown_url = self._redact(response.url or url)
            if response.status_code == 202:
                payload = json_or_none(response)
                message = upstream_message(response, payload) or "not available locally"
                raise PackageNotLocal(
                    f"storage service cannot serve the package now (GET {shown_url} -> 202): "
                    f"{self._redact(message)}",
                    service=self.service,
                    url=shown_url,
                    status=202,
                    upstream_message=self._redact(message),
                )
            self._check(response, "GET")
            if response.status_code != 200:
                raise self._malformed(response, "GET", f"unexpected status {response.status_code}")
            content_type = response.headers.get("Content-Type") or "application/octet-stream"
            mime = content_type.split(";", 1)[0].strip().lower()
            filename = _attachment_filename(response.headers.get("Content-Disposition"))
            if not filename:
                filename = fallback_name + (
                    "" if "." in fallback_name else _EXTENSIONS.get(mime, "")
                )
            length = response.headers.get("Content-Length")
            encoded = bool(response.headers.get("Content-Encoding"))
            size = int(length) if length and length.isdigit() and not encoded else None
            yield PackageDownload(
                filename=filename,
                content_type=content_type,
                size=size,
                _chunks=self._chunks(response, chunk_size, shown_url),
            )
        finally:
            response.close()

    def _chunks(
        self, response: requests.Response, chunk_size: int, shown_url: str
    ) -> Iterator[bytes]:
        try:
            for chunk in response.iter_content(chunk_size=chunk_size):
                if chunk:
                    yield chunk
        except (
            requests.ConnectionError,
            requests.Timeout,
            requests.exceptions.ChunkedEncodingError,
        ) as exc:
            raise StorageUnavailable(
                f"storage service download broke off (GET {shown_url}): {self._redact(str(exc))}",
                service=self.service,
                url=shown_url,
                status=response.status_code,
            ) from None
        except requests.RequestException as exc:
            raise StorageResponseError(
                f"storage service download failed (GET {shown_url}): {self._redact(str(exc))}",
                service=self.service,
                url=shown_url,
                status=response.status_code,
            ) from None


def _user_id(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"user_id must be an integer greater than 0, got {value!r}")
    return value


# --- factory


def get_storage_client() -> StorageClient:
    """A client for the storage service configured in `settings.LOOKOUT_STORAGE`."""
    from django.conf import settings

    config = getattr(settings, "LOOKOUT_STORAGE", None) or {}
    values = {name: str(config.get(name) or "") for name in ("url", "user", "key")}
    missing = [name for name, value in values.items() if not value]
    if missing:
        raise StorageConfigError(
            f"LOOKOUT_STORAGE has no {', '.join(missing)} configured", service="storage"
        )
    timeout = getattr(settings, "LOOKOUT_HTTP_TIMEOUT", DEFAULT_TIMEOUT)
    return StorageClient(values["url"], values["user"], values["key"], timeout=timeout)
