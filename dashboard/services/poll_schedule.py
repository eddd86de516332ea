"""How often to look at a unit again: the adaptive part of the poller.

Units that are moving, or whose status has not been read yet, are polled every cycle; a
unit waiting for a person, or one that has not changed for a long time, is looked at less
often; a finished unit never. A read that failed is retried the next cycle. With a
dashboard account answering, the status lists stand in for the reads of units that did
not move (`DashboardListing.covers`).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from dashboard.models import PENDING, UNKNOWN, Unit

WAITING_INTERVAL = timedelta(seconds=60)
QUIET_AFTER = timedelta(minutes=10)
QUIET_INTERVAL = timedelta(seconds=60)
DORMANT_AFTER = timedelta(hours=1)
DORMANT_INTERVAL = timedelta(minutes=5)


def next_poll_at(unit: Unit, *, now: datetime, base: timedelta) -> datetime | None:
    if unit.finished or unit.hidden:
        return None
    if unit.status in (UNKNOWN, PENDING):
        # Never read yet (the first answer was lost or not ready): whatever the lists say
        # it waits for, its status is not known, so ask again next cycle.
        return now + base * 0.9
    if unit.awaiting_decision or unit.awaiting_approval:
        return now + max(base, WAITING_INTERVAL)
    unchanged_for = now - unit.updated_at
    if unchanged_for >= DORMANT_AFTER:
        return now + max(base, DORMANT_INTERVAL)
    if unchanged_for >= QUIET_AFTER:
        return now + max(base, QUIET_INTERVAL)
    # Poll a little before the next beat so a unit is never skipped by a few ms of drift.
    return now + base * 0.9


def next_poll_after_failed_read(*, now: datetime, base: timedelta) -> datetime:
    """A read lost to a fault says nothing about the unit: ask again next cycle, not after
    the interval its last known state would earn (minutes for a unit waiting for hours)."""
    return now + base * 0.9


def is_due(unit: Unit, *, now: datetime) -> bool:
    if unit.finished or unit.hidden:
        return False
    return unit.next_poll_at is None or unit.next_poll_at <= now
