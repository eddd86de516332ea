from __future__ import annotations

import pytest

from dashboard import tasks
from dashboard.services.locks import task_lock

pytestmark = pytest.mark.django_db


def test_an_overlapping_poll_skips_while_another_holds_the_lock():
    with task_lock("poll-workflow:default", ttl=30) as acquired:
        assert acquired
        assert tasks.poll_pipeline("default") == "skipped"


def test_the_lock_is_free_again_after_the_holder_finishes():
    with task_lock("poll-storage", ttl=30):
        pass
    with task_lock("poll-storage", ttl=30) as acquired:
        assert acquired


def test_a_poll_of_an_unknown_pipeline_is_ignored():
    assert tasks.poll_pipeline("nowhere") == "unknown pipeline"


@pytest.mark.parametrize("name", ["poll-workflow", "refresh-jobs", "poll-storage"])
def test_every_beat_entry_names_a_registered_task_and_expires_within_its_interval(settings, name):
    from config.celery import app

    entry = settings.CELERY_BEAT_SCHEDULE[name]
    assert entry["task"] in app.tasks
    assert entry["options"]["expires"] <= entry["schedule"].total_seconds()
