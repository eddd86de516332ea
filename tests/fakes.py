"""Fakes of the upstream clients for tests above the client layer.

They keep their own small world of units and answer the same typed values as the real
clients; `tests/test_fakes.py` checks that their public signatures match.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dashboard.clients.workflow import (
    ApprovalResult,
    Job,
    JobStatus,
    LevelOfDescription,
    PathMetadata,
    ProcessingConfiguration,
    ReingestResult,
    StartTransferResult,
    TaskSummary,
    TransferType,
    UnapprovedTransfer,
    UnitKind,
    UnitStatus,
    UnitStatusValue,
    ValidationResult,
    WaitingUnit,
    WorkflowNotFound,
    WorkflowResponseError,
    WorkflowUnavailable,
    WorkflowUnitPending,
)


@dataclass
class FakeUnit:
    uuid: str
    kind: UnitKind = UnitKind.TRANSFER
    status: UnitStatusValue = UnitStatusValue.PROCESSING
    name: str = "unit"
    microservice: str = "Verify transfer compliance"
    sip_uuid: str | None = None
    sent_to_backlog: bool = False
    awaiting_approval: bool = False
    # A SIP waiting at "Approve AIP reingest".
    awaiting_reingest_approval: bool = False
    pending: bool = False
    malformed: bool = False


@dataclass
class FakeWorkflowClient:
    units: dict[str, FakeUnit] = field(default_factory=dict)
    down: bool = False
    calls: list[tuple[str, tuple]] = field(default_factory=list)
    # How the package endpoint answers: None works; else the error it raises.
    package_error: Exception | None = None
    started: int = 0
    # Processing configuration XML by name (unknown names answer 404 as the service does).
    configs: dict[str, str] = field(default_factory=dict)
    levels: list[tuple[str, str]] = field(
        default_factory=lambda: [
            ("30000000-0000-4000-8000-000000000001", "Fonds"),
            ("30000000-0000-4000-8000-000000000002", "Series"),
        ]
    )
    # The access system's levels, which fetch_levels_of_description brings in.
    access_system_levels: list[tuple[str, str]] = field(default_factory=list)
    # Arranged paths the service knows, with their level's name.
    path_levels: dict[str, str] = field(default_factory=dict)
    # Locations copy_metadata_files refuses as not associated with the pipeline.
    foreign_locations: set[str] = field(default_factory=set)

    def add(self, unit: FakeUnit) -> FakeUnit:
        self.units[unit.uuid] = unit
        return unit

    def _call(self, name: str, *args: object) -> None:
        self.calls.append((name, args))
        if self.down:
            raise WorkflowUnavailable("connection refused", service="workflow")

    def count(self, name: str) -> int:
        return sum(1 for called, _ in self.calls if called == name)

    # discovery -------------------------------------------------------------
    def list_unapproved_transfers(self) -> tuple[UnapprovedTransfer, ...]:
        self._call("list_unapproved_transfers")
        return tuple(
            UnapprovedTransfer(uuid=u.uuid, directory=u.name, transfer_type="standard")
            for u in self.units.values()
            if u.awaiting_approval
        )

    def list_waiting(self) -> tuple[WaitingUnit, ...]:
        self._call("list_waiting")
        return tuple(
            WaitingUnit(uuid=u.uuid, directory=u.name, name=u.name, microservice=u.microservice)
            for u in self.units.values()
            if u.status is UnitStatusValue.USER_INPUT
        )

    def _completed(self, kind: UnitKind) -> tuple[str, ...]:
        return tuple(
            u.uuid
            for u in self.units.values()
            if u.kind is kind and u.status is UnitStatusValue.COMPLETE
        )

    def list_completed_transfers(self) -> tuple[str, ...]:
        self._call("list_completed_transfers")
        return self._completed(UnitKind.TRANSFER)

    def list_completed_ingests(self) -> tuple[str, ...]:
        self._call("list_completed_ingests")
        return self._completed(UnitKind.SIP)

    # status ----------------------------------------------------------------
    def _status(self, uuid: str, kind: UnitKind) -> UnitStatus:
        unit = self.units.get(uuid)
        if unit is None or unit.kind is not kind:
            raise WorkflowNotFound(f"Cannot fetch unit with UUID {uuid}", service="workflow")
        if unit.pending:
            raise WorkflowUnitPending("Unable to determine the status", service="workflow")
        if unit.malformed:
            raise WorkflowResponseError("the answer did not parse", service="workflow")
        complete = unit.status is UnitStatusValue.COMPLETE
        return UnitStatus(
            uuid=uuid,
            kind=kind,
            status=unit.status,
            name=unit.name,
            directory=f"{unit.name}-{uuid}",
            path=f"/var/processing/{unit.name}-{uuid}/",
            microservice=unit.microservice,
            sip_uuid=unit.sip_uuid,
            sent_to_backlog=unit.sent_to_backlog,
            awaiting_sip_uuid=complete
            and kind is UnitKind.TRANSFER
            and not unit.sent_to_backlog
            and unit.sip_uuid is None,
        )

    def get_transfer_status(self, uuid: str) -> UnitStatus:
        self._call("get_transfer_status", uuid)
        return self._status(uuid, UnitKind.TRANSFER)

    def get_ingest_status(self, uuid: str) -> UnitStatus:
        self._call("get_ingest_status", uuid)
        return self._status(uuid, UnitKind.SIP)

    def list_jobs(
        self,
        unit_uuid: str,
        *,
        microservice: str | None = None,
        link_uuid: str | None = None,
        name: str | None = None,
        detailed: bool = False,
    ) -> tuple[Job, ...]:
        self._call("list_jobs", unit_uuid)
        unit = self.units[unit_uuid]
        return (
            Job(
                uuid="00000000-0000-4000-8000-" + unit_uuid[-12:],
                name=unit.microservice,
                status=JobStatus.PROCESSING,
                microservice="Verify transfer compliance",
                link_uuid=None,
                tasks=(
                    TaskSummary(uuid="10000000-0000-4000-8000-" + unit_uuid[-12:], exit_code=0),
                ),
            ),
        )

    # actions ---------------------------------------------------------------
    def approve_transfer(
        self, *, directory: str, transfer_type: str = "standard"
    ) -> ApprovalResult:
        self._call("approve_transfer", directory, transfer_type)
        for unit in self.units.values():
            if unit.awaiting_approval and unit.name == directory:
                unit.awaiting_approval = False
                unit.status = UnitStatusValue.PROCESSING
                return ApprovalResult(uuid=unit.uuid)
        raise WorkflowResponseError("Unable to start the transfer.", service="workflow", status=500)

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
        self._call(
            "create_package",
            name,
            location_uuid,
            path,
            str(transfer_type),
            processing_config,
            accession,
            auto_approve,
        )
        if self.package_error is not None:
            raise self.package_error
        unit = self._new_transfer(name, pending=True, awaiting_approval=not auto_approve)
        return unit.uuid

    def start_transfer(
        self,
        *,
        name: str,
        transfer_type: TransferType | str = TransferType.STANDARD,
        accession: str = "",
        paths: Sequence[tuple[str, str | bytes]],
    ) -> StartTransferResult:
        self._call("start_transfer", name, str(transfer_type), accession, tuple(paths))
        self._new_transfer(name, awaiting_approval=True)
        return StartTransferResult(
            path=f"/var/archivematica/watchedDirectories/activeTransfers/standardTransfer/{name}/",
            transfer_uuid=None,
        )

    def _new_transfer(self, name: str, **fields: Any) -> FakeUnit:
        self.started += 1
        return self.add(FakeUnit(uuid_for(900 + self.started), name=name, **fields))

    def list_processing_configurations(self) -> tuple[str, ...]:
        self._call("list_processing_configurations")
        return tuple(sorted(self.configs))

    def get_processing_configuration(self, name: str) -> ProcessingConfiguration:
        self._call("get_processing_configuration", name)
        if name not in self.configs:
            raise WorkflowNotFound(
                "not found",
                service="workflow",
                status=404,
                upstream_message=f'No such processing config "{name}".',
            )
        return ProcessingConfiguration.from_api(name, self.configs[name])

    def validate_csv(self, validator: str, csv_text: str) -> ValidationResult:
        from simulator.csv_validators import VALIDATORS  # the simulator's real rules

        self._call("validate_csv", validator, csv_text)
        if validator not in VALIDATORS:
            raise WorkflowNotFound(
                "not found",
                service="workflow",
                status=404,
                upstream_message="Unknown validator. Accepted values: media_manifest,rights",
            )
        reason = VALIDATORS[validator](csv_text)
        return ValidationResult(valid=reason is None, reason=reason)

    def reingest_ingest(self, *, name: str, uuid: str) -> ReingestResult:
        self._call("reingest_ingest", name, uuid)
        unit = self.units.get(uuid)
        if unit is None or unit.kind is not UnitKind.SIP:
            # The real service cannot move an AIP that is not in its tmp area.
            raise WorkflowResponseError(
                "the service answered 500",
                service="workflow",
                status=500,
                upstream_message=f"[Errno 2] No such file or directory: '/tmp/{name}'",
            )
        unit.status = UnitStatusValue.USER_INPUT
        unit.awaiting_reingest_approval = True
        return ReingestResult(reingest_uuid=uuid)

    def approve_partial_reingest(self, uuid: str) -> str:
        self._call("approve_partial_reingest", uuid)
        unit = self.units.get(uuid)
        if unit is None or not unit.awaiting_reingest_approval:
            raise WorkflowResponseError(
                "the service answered 400",
                service="workflow",
                status=400,
                upstream_message="Unable to approve the partial reingest.",
            )
        unit.awaiting_reingest_approval = False
        unit.status = UnitStatusValue.PROCESSING
        return "Approval successful."

    def copy_metadata_files(
        self, *, sip_uuid: str, source_paths: Sequence[tuple[str, str | bytes]]
    ) -> str:
        self._call("copy_metadata_files", sip_uuid, tuple(source_paths))
        for location, _ in source_paths:
            if location in self.foreign_locations:
                raise WorkflowResponseError(
                    "the service answered 500",
                    service="workflow",
                    status=500,
                    upstream_message=f"Location {location} is not associated with this pipeline",
                )
        return "Metadata files added successfully."

    def list_levels_of_description(self) -> tuple[LevelOfDescription, ...]:
        self._call("list_levels_of_description")
        return tuple(LevelOfDescription(uuid=u, name=n) for u, n in self.levels)

    def fetch_levels_of_description(self) -> tuple[LevelOfDescription, ...]:
        self._call("fetch_levels_of_description")
        if not self.access_system_levels:
            raise WorkflowResponseError(
                "the service answered 500",
                service="workflow",
                status=500,
                upstream_message="Unable to reach the access system.",
            )
        self.levels = list(self.access_system_levels)
        return self.list_levels_of_description()

    def get_path_metadata(self, path: str) -> PathMetadata:
        self._call("get_path_metadata", path)
        if path not in self.path_levels:
            raise WorkflowNotFound("not found", service="workflow", status=404)
        return PathMetadata(path=path, level_of_description=self.path_levels[path] or None)

    def update_path_metadata(self, *, path: str, level_of_description: str) -> None:
        self._call("update_path_metadata", path, level_of_description)
        if path not in self.path_levels:
            raise WorkflowNotFound("not found", service="workflow", status=404)
        self.path_levels[path] = dict(self.levels).get(level_of_description, "")

    def hide_transfer(self, uuid: str) -> bool:
        self._call("hide_transfer", uuid)
        return uuid in self.units

    def hide_ingest(self, uuid: str) -> bool:
        self._call("hide_ingest", uuid)
        return uuid in self.units


def uuid_for(number: int) -> str:
    return f"00000000-0000-4000-8000-{number:012d}"


def fake_units(count: int, *, start: int = 1, **fields: object) -> Sequence[FakeUnit]:
    return [
        FakeUnit(uuid=uuid_for(n), name=f"unit-{n}", **fields) for n in range(start, start + count)
    ]
