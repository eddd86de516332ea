"""Client for the workflow service (transfers, ingests, jobs, tasks, processing configs).

Contract: one public method per endpoint of the workflow service API spec
(`workflow-service-api.md`, sections "Transfer", "Ingest", "Administration", "Unit",
"Other" and "Beta"). Every method returns typed values built by a `from_api()` parser,
where the service's quirks are absorbed, and raises only `WorkflowError` subclasses
(plus `ValueError` for arguments that could never be valid, such as a malformed UUID).

Behaviour worth knowing, from what the real service does where the spec is silent:
- bad or missing credentials answer 403 JSON -> `WorkflowAuthError`;
- `error: true` in a body is an error whatever the status code;
- 400 "Unable to determine the status of the unit" -> `WorkflowUnitPending`: the unit
  exists but has no jobs yet (it can last minutes after a transfer starts);
- 400 "Cannot fetch unit..." and "Task ... does not exist" -> `WorkflowNotFound`;
- approve answers every refusal with 500 and a message -> `WorkflowResponseError` with
  `.upstream_message`;
- paths that need a trailing slash always get one, and POSTs never follow redirects;
- `list_waiting()` keeps duplicates as returned: a unit with two jobs waiting for a
  decision appears twice.
Timestamps are naive, in the workflow server's own clock.
"""

from __future__ import annotations

import base64
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

import requests

from dashboard.clients.base import (
    DEFAULT_TIMEOUT,
    ApiClient,
    ErrorFamily,
    MalformedPayload,
    UpstreamAuthError,
    UpstreamConfigError,
    UpstreamError,
    UpstreamNotFound,
    UpstreamResponseError,
    UpstreamUnavailable,
    json_or_none,
    normalise_uuid,
    parse_timestamp,
    read_int,
    read_optional_str,
    read_str,
    require_list,
    require_mapping,
    require_uuid,
    response_text,
    to_int,
)
from dashboard.lib.safe_xml import UnsafeXml, parse_untrusted

# --- errors


class WorkflowError(UpstreamError):
    """Any failure talking to the workflow service."""


class WorkflowUnavailable(WorkflowError, UpstreamUnavailable):
    pass


class WorkflowAuthError(WorkflowError, UpstreamAuthError):
    pass


class WorkflowNotFound(WorkflowError, UpstreamNotFound):
    pass


class WorkflowResponseError(WorkflowError, UpstreamResponseError):
    pass


class WorkflowConfigError(WorkflowError, UpstreamConfigError):
    pass


class WorkflowUnitPending(WorkflowError):
    """The unit exists but has no jobs yet, so its status cannot be told. Ask again later."""


# --- values


class TransferType(StrEnum):
    STANDARD = "standard"
    ZIPFILE = "zipfile"
    UNZIPPED_BAG = "unzipped bag"
    ZIPPED_BAG = "zipped bag"
    MAILDIR = "maildir"
    REPOSITORY_SYSTEM = "repository_system"
    RECORDS_SYSTEM = "records_system"
    RESEARCH_DATA = "research_data"


class UnitKind(StrEnum):
    TRANSFER = "transfer"
    SIP = "SIP"


class UnitStatusValue(StrEnum):
    PROCESSING = "PROCESSING"
    USER_INPUT = "USER_INPUT"
    COMPLETE = "COMPLETE"
    FAILED = "FAILED"
    REJECTED = "REJECTED"


class JobStatus(StrEnum):
    USER_INPUT = "USER_INPUT"
    PROCESSING = "PROCESSING"
    COMPLETE = "COMPLETE"
    FAILED = "FAILED"
    UNKNOWN = "UNKNOWN"


BACKLOG = "BACKLOG"


def _unit_kind(value: Any) -> UnitKind:
    if isinstance(value, str):
        for kind in UnitKind:
            if value.lower() == kind.value.lower():
                return kind
    raise MalformedPayload(f"unknown unit type {value!r}")


@dataclass(frozen=True)
class UnitStatus:
    """Where a transfer or SIP stands, as the status endpoints report it."""

    uuid: str
    kind: UnitKind
    status: UnitStatusValue
    name: str
    directory: str
    path: str
    # The current job's name (the key says microservice; the spec also spells it
    # `microservices`).
    microservice: str | None
    # The SIP made from a COMPLETE transfer; None when absent, BACKLOG or not a UUID.
    sip_uuid: str | None
    sent_to_backlog: bool
    # A COMPLETE transfer whose SIP UUID is not known yet: still pending, ask again.
    awaiting_sip_uuid: bool

    @property
    def is_finished(self) -> bool:
        if self.status in {UnitStatusValue.FAILED, UnitStatusValue.REJECTED}:
            return True
        return self.status is UnitStatusValue.COMPLETE and not self.awaiting_sip_uuid

    @classmethod
    def from_api(cls, data: Any, *, kind: UnitKind | None = None) -> UnitStatus:
        data = require_mapping(data, "unit status")
        unit_kind = kind if kind is not None else _unit_kind(data.get("type"))
        raw_status = data.get("status")
        if not isinstance(raw_status, str) or raw_status not in UnitStatusValue.__members__:
            raise MalformedPayload(f"unknown unit status {raw_status!r}")
        status = UnitStatusValue(raw_status)
        microservice = read_optional_str(data, "microservice") or read_optional_str(
            data, "microservices"
        )
        raw_sip_uuid = data.get("sip_uuid")
        sent_to_backlog = raw_sip_uuid == BACKLOG
        sip_uuid = None if sent_to_backlog else normalise_uuid(raw_sip_uuid)
        awaiting = (
            unit_kind is UnitKind.TRANSFER
            and status is UnitStatusValue.COMPLETE
            and not sent_to_backlog
            and sip_uuid is None
        )
        return cls(
            uuid=require_uuid(data, "uuid"),
            kind=unit_kind,
            status=status,
            name=read_str(data, "name"),
            directory=read_str(data, "directory"),
            path=read_str(data, "path"),
            microservice=microservice,
            sip_uuid=sip_uuid,
            sent_to_backlog=sent_to_backlog,
            awaiting_sip_uuid=awaiting,
        )


@dataclass(frozen=True)
class UnapprovedTransfer:
    uuid: str
    directory: str
    # Kept as text: real services list types outside the spec's enumeration.
    transfer_type: str

    @classmethod
    def from_api(cls, data: Any) -> UnapprovedTransfer:
        data = require_mapping(data, "unapproved transfer")
        return cls(
            uuid=require_uuid(data, "uuid"),
            directory=read_str(data, "directory"),
            transfer_type=read_str(data, "type", TransferType.STANDARD.value),
        )


@dataclass(frozen=True)
class WaitingUnit:
    """A transfer or SIP with a job waiting for a decision (the list does not say which)."""

    uuid: str
    directory: str
    name: str
    # The waiting job's name, e.g. "Approve standard transfer".
    microservice: str

    @classmethod
    def from_api(cls, data: Any) -> WaitingUnit:
        data = require_mapping(data, "waiting unit")
        return cls(
            uuid=require_uuid(data, "sip_uuid"),
            directory=read_str(data, "sip_directory"),
            name=read_str(data, "sip_name"),
            microservice=read_str(data, "microservice"),
        )


@dataclass(frozen=True)
class TaskSummary:
    uuid: str
    # Exit codes are branch signals: non-zero under a COMPLETE job is normal.
    exit_code: int | None

    @classmethod
    def from_api(cls, data: Any) -> TaskSummary:
        data = require_mapping(data, "task")
        return cls(uuid=require_uuid(data, "uuid"), exit_code=read_int(data, "exit_code"))


@dataclass(frozen=True)
class Task:
    uuid: str
    exit_code: int | None
    file_uuid: str | None
    file_name: str
    time_created: datetime | None
    time_started: datetime | None
    time_ended: datetime | None
    # Whole seconds; None while the task has not ended.
    duration_seconds: int | None
    # The service says "< 1" for sub-second tasks; duration_seconds is then 0.
    duration_under_one_second: bool

    @classmethod
    def from_api(cls, data: Any) -> Task:
        data = require_mapping(data, "task")
        raw_duration = data.get("duration")
        under_one = isinstance(raw_duration, str) and raw_duration.strip() == "< 1"
        duration = 0 if under_one else to_int(raw_duration, "'duration'")
        return cls(
            uuid=require_uuid(data, "uuid"),
            exit_code=read_int(data, "exit_code"),
            file_uuid=normalise_uuid(data.get("file_uuid")),
            file_name=read_str(data, "file_name"),
            time_created=parse_timestamp(data.get("time_created"), "'time_created'"),
            time_started=parse_timestamp(data.get("time_started"), "'time_started'"),
            time_ended=parse_timestamp(data.get("time_ended"), "'time_ended'"),
            duration_seconds=duration,
            duration_under_one_second=under_one,
        )


_DETAILED_TASK_KEYS = frozenset({"file_uuid", "file_name", "time_created", "duration"})


@dataclass(frozen=True)
class Job:
    uuid: str
    name: str
    status: JobStatus
    # The group the job belongs to (in the status endpoints the naming is reversed).
    microservice: str
    link_uuid: str | None
    # Task details only when the jobs were asked for with `detailed=True`.
    tasks: tuple[TaskSummary | Task, ...]

    @classmethod
    def from_api(cls, data: Any) -> Job:
        data = require_mapping(data, "job")
        raw_status = data.get("status")
        status = (
            JobStatus(raw_status)
            if isinstance(raw_status, str) and raw_status in JobStatus.__members__
            else JobStatus.UNKNOWN
        )
        tasks: list[TaskSummary | Task] = []
        for item in require_list(data.get("tasks") or [], "'tasks'"):
            item = require_mapping(item, "task")
            detailed = _DETAILED_TASK_KEYS.intersection(item)
            tasks.append(Task.from_api(item) if detailed else TaskSummary.from_api(item))
        return cls(
            uuid=require_uuid(data, "uuid"),
            name=read_str(data, "name"),
            status=status,
            microservice=read_str(data, "microservice"),
            link_uuid=normalise_uuid(data.get("link_uuid")),
            tasks=tuple(tasks),
        )


@dataclass(frozen=True)
class PreconfiguredChoice:
    applies_to: str
    # A chain UUID, an index such as "0", or a location URI, depending on the decision.
    go_to_chain: str
    label: str | None


def _is_comment(element: ET.Element) -> bool:
    # Comments carry the ET.Comment factory as their tag, which the stubs type as str.
    tag: object = element.tag
    return tag is ET.Comment


@dataclass(frozen=True)
class ProcessingConfiguration:
    name: str
    xml: str
    choices: tuple[PreconfiguredChoice, ...]

    @classmethod
    def from_api(cls, name: str, xml: str) -> ProcessingConfiguration:
        # Keep comments: they label the choices. defusedxml refuses entities (logged).
        try:
            root = parse_untrusted(
                xml, source=f"processing configuration {name!r}", keep_comments=True
            )
        except UnsafeXml as exc:
            raise MalformedPayload(f"processing configuration {exc}") from None
        except ET.ParseError as exc:
            raise MalformedPayload(f"processing configuration is not XML: {exc}") from None
        if root.tag != "processingMCP":
            raise MalformedPayload(f"unexpected root element {root.tag!r}")
        choices: list[PreconfiguredChoice] = []
        container = root.find("preconfiguredChoices")
        pending_label: str | None = None
        for element in container if container is not None else ():
            if _is_comment(element):
                pending_label = (element.text or "").strip() or None
                continue
            if element.tag != "preconfiguredChoice":
                continue
            applies_to = (element.findtext("appliesTo") or "").strip()
            go_to_chain = (element.findtext("goToChain") or "").strip()
            if not applies_to or not go_to_chain:
                raise MalformedPayload("a preconfiguredChoice lacks appliesTo or goToChain")
            inner = [child for child in element if _is_comment(child)]
            label = pending_label or ((inner[0].text or "").strip() or None if inner else None)
            choices.append(PreconfiguredChoice(applies_to, go_to_chain, label))
            pending_label = None
        return cls(name=name, xml=xml, choices=tuple(choices))


@dataclass(frozen=True)
class LevelOfDescription:
    uuid: str
    name: str

    @classmethod
    def from_api(cls, data: Any) -> LevelOfDescription:
        data = require_mapping(data, "level of description")
        if len(data) != 1:
            raise MalformedPayload("a level of description must have exactly one entry")
        ((key, name),) = data.items()
        uuid = normalise_uuid(key)
        if uuid is None or not isinstance(name, str):
            raise MalformedPayload(f"unexpected level of description {dict(data)!r}")
        return cls(uuid=uuid, name=name)


@dataclass(frozen=True)
class ValidationResult:
    valid: bool
    reason: str | None

    @classmethod
    def from_api(cls, data: Any) -> ValidationResult:
        data = require_mapping(data, "validation result")
        valid = data.get("valid")
        if not isinstance(valid, bool):
            raise MalformedPayload("'valid' is not a boolean")
        return cls(valid=valid, reason=read_optional_str(data, "reason"))


_TRAILING_UUID = re.compile(
    r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$"
)


@dataclass(frozen=True)
class StartTransferResult:
    # Where the transfer was copied; the only place a renamed (`_1`) name shows.
    path: str
    # The suffix of the directory name, when the service already added it.
    transfer_uuid: str | None

    @classmethod
    def from_api(cls, data: Any) -> StartTransferResult:
        data = require_mapping(data, "start transfer answer")
        path = read_str(data, "path")
        if not path:
            raise MalformedPayload("'path' is missing")
        directory = path.rstrip("/").rsplit("/", 1)[-1]
        match = _TRAILING_UUID.search(directory)
        return cls(path=path, transfer_uuid=normalise_uuid(match.group(1)) if match else None)


@dataclass(frozen=True)
class ApprovalResult:
    uuid: str

    @classmethod
    def from_api(cls, data: Any) -> ApprovalResult:
        return cls(uuid=require_uuid(require_mapping(data, "approval answer"), "uuid"))


@dataclass(frozen=True)
class ReingestResult:
    reingest_uuid: str

    @classmethod
    def from_api(cls, data: Any) -> ReingestResult:
        data = require_mapping(data, "reingest answer")
        return cls(reingest_uuid=require_uuid(data, "reingest_uuid"))


@dataclass(frozen=True)
class PathMetadata:
    path: str
    level_of_description: str | None

    @classmethod
    def from_api(cls, path: str, data: Any) -> PathMetadata:
        data = require_mapping(data, "path metadata")
        return cls(path=path, level_of_description=read_optional_str(data, "level_of_description"))


def _unit_uuid(value: str) -> str:
    normalised = normalise_uuid(value)
    if normalised is None:
        raise ValueError(f"not a UUID: {value!r}")
    return normalised


def _encoded_location_path(location_uuid: str, path: str | bytes) -> str:
    """Base64 of `<location uuid>:<path>`; a bytes path goes as is (names need not be UTF-8)."""
    raw = path if isinstance(path, bytes) else path.encode("utf-8")
    return base64.b64encode(f"{_unit_uuid(location_uuid)}:".encode() + raw).decode("ascii")


# The service truncates longer names silently and would answer for another config.
_CONFIG_NAME = re.compile(r"^\w{1,16}$")

# --- client


# How long an approval may take to answer: the service waits up to 30 s for its job
# server before it answers (500 "Unable to start the transfer." when none took the job).
APPROVE_READ_TIMEOUT = 45.0


class WorkflowClient(ApiClient):
    service = "workflow"
    errors = ErrorFamily(
        unavailable=WorkflowUnavailable,
        auth=WorkflowAuthError,
        not_found=WorkflowNotFound,
        response=WorkflowResponseError,
        config=WorkflowConfigError,
    )

    def _error_kind(self, response: requests.Response, payload: Any) -> type[UpstreamError] | None:
        status = response.status_code
        said_error = isinstance(payload, Mapping) and payload.get("error") is True
        if status == 400 or (said_error and 200 <= status < 300):
            message = payload.get("message") if isinstance(payload, Mapping) else None
            text = message.lower() if isinstance(message, str) else ""
            if text.startswith("unable to determine the status"):
                return WorkflowUnitPending
            if text.startswith("cannot fetch") or text.endswith("does not exist"):
                return WorkflowNotFound
        return super()._error_kind(response, payload)

    def _get(self, path: str, params: Any = None) -> tuple[Any, requests.Response]:
        response = self._request("GET", self._url(path), params=params)
        return self._decode_json(response, "GET"), response

    def __init__(
        self, *args: Any, approve_timeout: float = APPROVE_READ_TIMEOUT, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.approve_timeout = approve_timeout

    def _post_form(
        self, path: str, fields: Any, *, read_timeout: float | None = None
    ) -> tuple[Any, requests.Response]:
        response = self._request("POST", self._url(path), data=fields, read_timeout=read_timeout)
        return self._decode_json(response, "POST"), response

    def _results(self, payload: Any, response: requests.Response, method: str = "GET") -> list[Any]:
        try:
            return require_list(require_mapping(payload, "answer").get("results"), "'results'")
        except MalformedPayload as exc:
            raise self._malformed(response, method, str(exc)) from None

    # --- transfer

    def list_unapproved_transfers(self) -> tuple[UnapprovedTransfer, ...]:
        payload, response = self._get("/api/transfer/unapproved/")
        items = self._results(payload, response)
        return tuple(self._parse_items(UnapprovedTransfer.from_api, items, response.url))

    def approve_transfer(
        self, *, directory: str, transfer_type: TransferType | str = TransferType.STANDARD
    ) -> ApprovalResult:
        # The service waits up to 30 s for its job server before it answers.
        payload, response = self._post_form(
            "/api/transfer/approve/",
            {"type": str(transfer_type), "directory": directory},
            read_timeout=max(self.approve_timeout, self.timeout[1]),
        )
        return self._parse(ApprovalResult.from_api, payload, response, "POST")

    def get_transfer_status(self, uuid: str) -> UnitStatus:
        payload, response = self._get(f"/api/transfer/status/{_unit_uuid(uuid)}/")
        return self._parse(
            lambda data: UnitStatus.from_api(data, kind=UnitKind.TRANSFER), payload, response, "GET"
        )

    def hide_transfer(self, uuid: str) -> bool:
        """Hide a finished transfer. False when the service declined (still running, or
        already hidden)."""
        return self._hide(f"/api/transfer/{_unit_uuid(uuid)}/delete/")

    def list_completed_transfers(self) -> tuple[str, ...]:
        return self._uuid_list("/api/transfer/completed/")

    def start_transfer(
        self,
        *,
        name: str,
        transfer_type: TransferType | str = TransferType.STANDARD,
        accession: str = "",
        paths: Sequence[tuple[str, str | bytes]],
    ) -> StartTransferResult:
        """Copy `(location_uuid, relative_path)` sources into a new transfer.

        The transfer then waits for approval. Sent form-encoded, with one empty
        `row_ids[]` per path: the service fails when they do not pair up.
        """
        if not paths:
            raise ValueError("start_transfer needs at least one path")
        fields: list[tuple[str, str]] = [
            ("name", name),
            ("type", str(transfer_type)),
            ("accession", accession),
        ]
        fields += [("paths[]", _encoded_location_path(loc, path)) for loc, path in paths]
        fields += [("row_ids[]", "")] * len(paths)
        payload, response = self._post_form("/api/transfer/start_transfer/", fields)
        return self._parse(StartTransferResult.from_api, payload, response, "POST")

    def reingest_transfer(self, *, name: str, uuid: str) -> ReingestResult:
        return self._reingest("/api/transfer/reingest/", name=name, uuid=uuid)

    # --- ingest

    def get_ingest_status(self, uuid: str) -> UnitStatus:
        payload, response = self._get(f"/api/ingest/status/{_unit_uuid(uuid)}/")
        return self._parse(
            lambda data: UnitStatus.from_api(data, kind=UnitKind.SIP), payload, response, "GET"
        )

    def hide_ingest(self, uuid: str) -> bool:
        """Hide a finished SIP. False when the service declined."""
        return self._hide(f"/api/ingest/{_unit_uuid(uuid)}/delete/")

    def list_completed_ingests(self) -> tuple[str, ...]:
        return self._uuid_list("/api/ingest/completed/")

    def list_waiting(self) -> tuple[WaitingUnit, ...]:
        """Units waiting for a decision, transfers and SIPs alike, duplicates kept."""
        payload, response = self._get("/api/ingest/waiting/")
        items = self._results(payload, response)
        return tuple(self._parse_items(WaitingUnit.from_api, items, response.url))

    def reingest_ingest(self, *, name: str, uuid: str) -> ReingestResult:
        """Start a partial or metadata-only reingest of an AIP the storage service placed in
        the shared tmp area; its SIP then waits at "Approve AIP reingest"."""
        return self._reingest("/api/ingest/reingest/", name=name, uuid=uuid)

    def approve_partial_reingest(self, uuid: str) -> str:
        """Answer the "Approve AIP reingest" decision of a SIP; returns the service's message.

        The service answers 400 "Unable to approve the partial reingest." when the SIP
        does not wait there: a `WorkflowResponseError` carrying those words.
        """
        payload, response = self._post_form(
            "/api/ingest/reingest/approve/", {"uuid": _unit_uuid(uuid)}
        )
        return self._parse(lambda data: read_str(data, "message"), payload, response, "POST")

    def copy_metadata_files(
        self, *, sip_uuid: str, source_paths: Sequence[tuple[str, str | bytes]]
    ) -> str:
        """Add `(location_uuid, path)` files to a SIP; returns the service's message.

        A bytes path goes as is (names need not be UTF-8)."""
        if not source_paths:
            raise ValueError("copy_metadata_files needs at least one source path")
        fields = [("sip_uuid", _unit_uuid(sip_uuid))]
        fields += [
            ("source_paths[]", _encoded_location_path(loc, path)) for loc, path in source_paths
        ]
        payload, response = self._post_form("/api/ingest/copy_metadata_files/", fields)
        return self._parse(lambda data: read_str(data, "message"), payload, response, "POST")

    # --- administration

    def list_levels_of_description(self) -> tuple[LevelOfDescription, ...]:
        return self._levels("/api/administration/dips/accessapp/levels/")

    def fetch_levels_of_description(self) -> tuple[LevelOfDescription, ...]:
        """Replace the levels from the access system's database, then list them."""
        return self._levels("/api/administration/dips/accessapp/fetch_levels/")

    # --- unit

    def list_jobs(
        self,
        unit_uuid: str,
        *,
        microservice: str | None = None,
        link_uuid: str | None = None,
        name: str | None = None,
        detailed: bool = False,
    ) -> tuple[Job, ...]:
        """Jobs of a unit, oldest first; empty when the unit has none (yet)."""
        params: dict[str, str] = {}
        if microservice:
            params["microservice"] = microservice
        if link_uuid:
            params["link_uuid"] = _unit_uuid(link_uuid)
        if name:
            params["name"] = name
        if detailed:
            # The service looks only at the key's presence: never send detailed=false.
            params["detailed"] = "true"
        url = self._url(f"/api/v2beta/jobs/{_unit_uuid(unit_uuid)}/")
        response = self._send("GET", url, params=params)
        payload = json_or_none(response)
        if response.status_code == 400 and isinstance(payload, Mapping):
            message = payload.get("message")
            if isinstance(message, str) and message.lower().startswith("no jobs found"):
                return ()
        self._check(response, "GET")
        items = self._parse(
            lambda data: require_list(data, "jobs"),
            self._decode_json(response, "GET"),
            response,
            "GET",
        )
        return tuple(self._parse_items(Job.from_api, items, response.url))

    def get_task(self, uuid: str) -> Task:
        payload, response = self._get(f"/api/v2beta/task/{_unit_uuid(uuid)}/")
        return self._parse(Task.from_api, payload, response, "GET")

    # --- other

    def get_path_metadata(self, path: str) -> PathMetadata:
        payload, response = self._get("/api/filesystem/metadata/", {"path": path})
        return self._parse(lambda data: PathMetadata.from_api(path, data), payload, response, "GET")

    def update_path_metadata(self, *, path: str, level_of_description: str) -> None:
        """Set the level of description (its UUID) of an arranged path."""
        # Form-encoded: the real service reads form fields here, not JSON.
        self._post_form(
            "/api/filesystem/metadata/",
            {"path": path, "level_of_description": level_of_description},
        )

    def list_processing_configurations(self) -> tuple[str, ...]:
        payload, response = self._get("/api/processing-configuration/")

        def names(data: Any) -> tuple[str, ...]:
            items = require_list(
                require_mapping(data, "answer").get("processing_configurations"), "names"
            )
            if not all(isinstance(item, str) for item in items):
                raise MalformedPayload("a processing configuration name is not a string")
            return tuple(items)

        return self._parse(names, payload, response, "GET")

    def get_processing_configuration(self, name: str) -> ProcessingConfiguration:
        if not _CONFIG_NAME.match(name):
            raise ValueError(f"processing configuration names are 1-16 word characters: {name!r}")
        # Without an xml Accept type the service answers 415.
        response = self._request(
            "GET",
            self._url(f"/api/processing-configuration/{name}/"),
            accept="text/xml, application/xml;q=0.9",
        )
        xml = response_text(response)
        return self._parse(
            lambda text: ProcessingConfiguration.from_api(name, text), xml, response, "GET"
        )

    # --- beta

    def create_package(
        self,
        *,
        name: str,
        location_uuid: str,
        path: str | bytes,
        transfer_type: TransferType | str = TransferType.STANDARD,
        processing_config: str = "default",
        accession: str | None = None,
        access_system_id: str | None = None,
        auto_approve: bool = True,
    ) -> str:
        """Queue a new transfer and return its UUID.

        The service answers before copying anything: the unit may answer
        `WorkflowUnitPending` for a while, and some failures never surface here.
        """
        body: dict[str, Any] = {
            "name": name,
            "path": _encoded_location_path(location_uuid, path),
            "type": str(transfer_type),
            "processing_config": processing_config,
            "auto_approve": auto_approve,
        }
        if accession is not None:
            body["accession"] = accession
        if access_system_id is not None:
            body["access_system_id"] = access_system_id
        response = self._request("POST", self._url("/api/v2beta/package/"), json_body=body)
        payload = self._decode_json(response, "POST")
        return self._parse(
            lambda data: require_uuid(require_mapping(data, "answer"), "id"),
            payload,
            response,
            "POST",
        )

    def validate_csv(self, validator: str, csv_text: str) -> ValidationResult:
        """Check a CSV with one of the service's validators (`media_manifest`, `rights`).

        An invalid CSV is a result (valid=False with a reason), not an error.
        """
        if not re.fullmatch(r"\w+", validator):
            raise ValueError(f"not a validator name: {validator!r}")
        response = self._send(
            "POST",
            self._url(f"/api/v2beta/validate/{validator}/"),
            data=csv_text.encode("utf-8"),
            headers={"Content-Type": "text/csv; charset=utf-8"},
        )
        payload = json_or_none(response)
        answered = isinstance(payload, Mapping) and isinstance(payload.get("valid"), bool)
        if response.status_code in {200, 400} and answered:
            return self._parse(ValidationResult.from_api, payload, response, "POST")
        self._check(response, "POST")
        # A 2xx that is not a validation result.
        raise self._malformed(response, "POST", "no 'valid' in the answer")

    # --- shared shapes

    def _hide(self, path: str) -> bool:
        response = self._send("DELETE", self._url(path))
        payload = json_or_none(response)
        if response.status_code == 409 and isinstance(payload, Mapping):
            # The documented "not removed" answer: not finished, or already hidden.
            return False
        self._check(response, "DELETE")
        payload = self._decode_json(response, "DELETE")

        def removed(data: Any) -> bool:
            value = require_mapping(data, "answer").get("removed")
            if not isinstance(value, bool):
                raise MalformedPayload("'removed' is not a boolean")
            return value

        return self._parse(removed, payload, response, "DELETE")

    def _uuid_list(self, path: str) -> tuple[str, ...]:
        payload, response = self._get(path)
        items = self._results(payload, response)

        def as_uuid(value: Any) -> str:
            normalised = normalise_uuid(value)
            if normalised is None:
                raise MalformedPayload(f"not a UUID: {value!r}")
            return normalised

        return tuple(self._parse_items(as_uuid, items, response.url))

    def _reingest(self, path: str, *, name: str, uuid: str) -> ReingestResult:
        payload, response = self._post_form(path, {"name": name, "uuid": _unit_uuid(uuid)})
        return self._parse(ReingestResult.from_api, payload, response, "POST")

    def _levels(self, path: str) -> tuple[LevelOfDescription, ...]:
        payload, response = self._get(path)
        items = self._parse(lambda data: require_list(data, "levels"), payload, response, "GET")
        return tuple(self._parse_items(LevelOfDescription.from_api, items, response.url))


# --- factory


def get_workflow_client(pipeline: Mapping[str, str] | None = None) -> WorkflowClient:
    """A client for `pipeline`, or for the first (default) one in the settings.

    `pipeline` is an entry of `settings.LOOKOUT_PIPELINES`, or `PipelineConfig.client_config()`:
    slug, name, url, user and key.
    """
    from django.conf import settings

    if pipeline is None:
        pipelines = getattr(settings, "LOOKOUT_PIPELINES", None) or []
        if not pipelines:
            raise WorkflowConfigError("LOOKOUT_PIPELINES lists no pipeline", service="workflow")
        pipeline = pipelines[0]
    values = {field: str(pipeline.get(field) or "") for field in ("url", "user", "key")}
    missing = [field for field, value in values.items() if not value]
    if missing:
        slug = pipeline.get("slug") or "?"
        raise WorkflowConfigError(
            f"pipeline {slug!r} has no {', '.join(missing)} configured", service="workflow"
        )
    timeout = getattr(settings, "LOOKOUT_HTTP_TIMEOUT", DEFAULT_TIMEOUT)
    approve_timeout = getattr(settings, "LOOKOUT_WORKFLOW_APPROVE_TIMEOUT", APPROVE_READ_TIMEOUT)
    return WorkflowClient(
        values["url"],
        values["user"],
        values["key"],
        timeout=timeout,
        approve_timeout=approve_timeout,
    )
