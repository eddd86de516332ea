"""Locks that hold: one run of a poll or task at a time, across processes and hosts.

A row in the database, so a cache flush or a Redis outage neither drops a lock nor
stops polling. Taking one is an insert (or a conditional take-over of an expired one);
a run that does not get it skips and the next beat tries again. Release is compare and
delete on the holder's token, so a run that outlived its lock never frees another's.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from dashboard.models import TaskLock


def lock_acquire(name: str, *, ttl: int) -> str | None:
    """The holder's token, or None when another run holds an unexpired lock."""
    token = uuid.uuid4().hex
    now = timezone.now()
    expires_at = now + timedelta(seconds=ttl)
    try:
        with transaction.atomic():
            TaskLock.objects.create(name=name, token=token, expires_at=expires_at)
        return token
    except IntegrityError:
        taken = TaskLock.objects.filter(name=name, expires_at__lte=now).update(
            token=token, expires_at=expires_at
        )
        return token if taken == 1 else None


def lock_release(name: str, token: str) -> None:
    TaskLock.objects.filter(name=name, token=token).delete()


@contextmanager
def task_lock(name: str, *, ttl: int) -> Iterator[bool]:
    """Yield True if this run holds the lock; the TTL frees it if the holder dies."""
    token = lock_acquire(name, ttl=ttl)
    try:
        yield token is not None
    finally:
        if token is not None:
            lock_release(name, token)
