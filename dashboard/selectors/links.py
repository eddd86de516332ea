"""What a unit or package is linked to: transfer ↔ SIP ↔ AIP ↔ DIP, and search by name or UUID.

In the storage service an AIP's UUID is the UUID of the SIP it was made from, and a
backlogged transfer's is the transfer's; a DIP is related to its AIP (`related_uuids`)
and its directory carries the SIP's UUID. Read from the database only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.db.models import Q, QuerySet

from dashboard.models import StoragePackage, Unit

SEARCH_LIMIT = 25
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def unit_packages(*, unit: Unit) -> list[StoragePackage]:
    """The packages made from a unit: a SIP's AIP and DIPs, a transfer's backlog copy and
    the packages of the SIP made from it."""
    sip_uuid = unit.uuid if unit.kind == "sip" else unit.sip_uuid
    uuids = {unit.uuid}
    if sip_uuid:
        uuids.add(sip_uuid)
    found = {p.uuid: p for p in StoragePackage.objects.filter(uuid__in=uuids)}
    related = {r for p in found.values() for r in p.related_uuids or [] if isinstance(r, str)}
    query = Q(uuid__in=related)
    if sip_uuid:
        query |= Q(package_type="DIP", current_path__contains=sip_uuid)
    for package in StoragePackage.objects.filter(query):
        found.setdefault(package.uuid, package)
    order = {"transfer": 0, "AIP": 1, "AIC": 1, "DIP": 2}
    return sorted(found.values(), key=lambda p: (order.get(p.package_type, 3), p.name, p.uuid))


def package_units(*, package: StoragePackage) -> list[Unit]:
    """The transfer and SIP a package was made from, as far as Lookout knows them."""
    uuids = {package.uuid, *(r for r in package.related_uuids or [] if isinstance(r, str))}
    # A DIP's (and an AIP's) directory ends with the SIP's UUID.
    uuids.update(_UUID.findall(package.current_path.lower()))
    units = list(Unit.objects.filter(uuid__in=uuids).order_by("kind", "id"))
    transfers = {u.transfer_uuid for u in units if u.transfer_uuid} - {u.uuid for u in units}
    if transfers:
        units += list(Unit.objects.filter(uuid__in=transfers).order_by("id"))
    seen: set[str] = set()
    unique = []
    for unit in units:
        if unit.uuid not in seen:
            seen.add(unit.uuid)
            unique.append(unit)
    # The transfer first, then the SIP: the order the work went.
    return sorted(unique, key=lambda u: (u.kind != "transfer", u.name))


@dataclass(frozen=True)
class SearchResults:
    q: str
    units: list[Unit]
    unit_count: int
    packages: list[StoragePackage]
    package_count: int


def _units_matching(needle: str) -> QuerySet[Unit]:
    return Unit.objects.filter(
        Q(name__icontains=needle)
        | Q(directory__icontains=needle)
        | Q(uuid__startswith=needle.lower())
        | Q(sip_uuid=needle.lower())
        | Q(transfer_uuid=needle.lower())
    ).order_by("hidden", "-updated_at", "-id")


def _packages_matching(needle: str) -> QuerySet[StoragePackage]:
    return StoragePackage.objects.filter(
        Q(name__icontains=needle) | Q(uuid__startswith=needle.lower())
    ).order_by("-stored_date", "-uuid")


def search(*, q: str, limit: int = SEARCH_LIMIT) -> SearchResults:
    """Units and packages whose name contains `q` or whose UUID starts with it."""
    needle = q.strip()
    if not needle:
        return SearchResults(q="", units=[], unit_count=0, packages=[], package_count=0)
    units = _units_matching(needle)
    packages = _packages_matching(needle)
    return SearchResults(
        q=needle,
        units=list(units[:limit]),
        unit_count=units.count(),
        packages=list(packages[:limit]),
        package_count=packages.count(),
    )
