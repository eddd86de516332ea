"""Read back what the pollers and actions stored, for assertions."""

from __future__ import annotations

from dashboard.models import ServicePoll, Unit, UnitJobs


def units_of(pipeline: str) -> dict[str, Unit]:
    return {unit.uuid: unit for unit in Unit.objects.filter(pipeline=pipeline)}


def hidden_of(pipeline: str) -> set[str]:
    return set(Unit.objects.filter(pipeline=pipeline, hidden=True).values_list("uuid", flat=True))


def jobs_of(pipeline: str, uuid: str) -> UnitJobs | None:
    return UnitJobs.objects.filter(unit__pipeline=pipeline, unit__uuid=uuid).first()


def poll_record(service: str) -> ServicePoll:
    return ServicePoll.objects.filter(service=service).first() or ServicePoll(service=service)


def save_units(pipeline: str, units: dict[str, Unit]) -> None:
    """The pipeline's units are exactly these."""
    Unit.objects.filter(pipeline=pipeline).delete()
    Unit.objects.bulk_create(units.values())
