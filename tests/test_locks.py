"""Task locks hold: never skipped, never released by anyone but their holder."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.core.cache import cache
from django.utils import timezone

from dashboard.models import TaskLock
from dashboard.services.locks import lock_acquire, lock_release, task_lock

pytestmark = pytest.mark.django_db


def test_a_second_run_does_not_get_a_held_lock():
    with task_lock("poll-storage", ttl=60) as first, task_lock("poll-storage", ttl=60) as second:
        assert first and not second
    assert not TaskLock.objects.exists()


def test_an_expired_lock_is_taken_over_and_the_slow_holder_cannot_release_it():
    slow = lock_acquire("poll-workflow:default", ttl=1)
    assert slow is not None
    with time_machine.travel(timezone.now() + timedelta(seconds=5)):
        fresh = lock_acquire("poll-workflow:default", ttl=60)
        assert fresh is not None

        lock_release("poll-workflow:default", slow)  # the slow run finishes late

        assert TaskLock.objects.get(name="poll-workflow:default").token == fresh
        assert lock_acquire("poll-workflow:default", ttl=60) is None


def test_a_flushed_cache_does_not_drop_a_lock():
    with task_lock("refresh-jobs:default", ttl=60) as held:
        cache.clear()
        with task_lock("refresh-jobs:default", ttl=60) as again:
            assert held and not again
