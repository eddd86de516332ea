"""A fixity check's audit row is QUEUED until the task ends, then carries the check's outcome."""

from __future__ import annotations

import pytest
from celery.exceptions import SoftTimeLimitExceeded

from dashboard import tasks
from dashboard.clients.storage import FixityResult, StorageResponseError
from dashboard.models import AuditEntry, FixityCheck
from dashboard.services import storage as storage_services
from tests.storage.test_storage_actions import AIP, _messages, _submit

pytestmark = pytest.mark.django_db


def _queued(client, operator) -> AuditEntry:
    client.force_login(operator)
    response = _submit(client, "fixity")
    assert not any("Not done" in m for m in _messages(response))
    entry = AuditEntry.objects.get()
    assert entry.outcome == "queued"
    assert FixityCheck.objects.get().audit_entry_id == entry.pk
    return entry


@pytest.mark.parametrize(
    ("success", "message", "outcome", "words"),
    [
        (True, "Valid bag", "done", "Fixity check passed"),
        (False, "Bag validation failed", "failed", "Fixity check failed: Bag validation failed"),
        (None, "package is not a bag", "refused", "package is not a bag"),
    ],
)
def test_the_task_gives_the_audit_row_the_check_outcome(
    client, polled, operator, success, message, outcome, words
):
    polled.fixity[AIP] = FixityResult(
        success=success, message=message, failures=(), checked_at=None
    )
    entry = _queued(client, operator)

    tasks.check_package_fixity.run(FixityCheck.objects.get().pk)

    entry.refresh_from_db()
    assert entry.outcome == outcome
    assert words in entry.upstream_message
    assert entry.finished_at is not None


def test_a_check_while_the_service_is_down_is_a_failed_outcome(client, polled, operator):
    entry = _queued(client, operator)
    polled.down = True
    tasks.check_package_fixity.run(FixityCheck.objects.get().pk)
    entry.refresh_from_db()
    assert entry.outcome == "failed" and "could not connect" in entry.upstream_message


def test_a_check_whose_answer_cannot_be_read_says_it_ran_with_no_known_result(
    client, polled, operator
):
    entry = _queued(client, operator)
    polled.failures["check_fixity"] = StorageResponseError(
        "storage service sent a malformed answer (GET ...): the body is not valid JSON",
        status=200,
        service="storage",
        unreadable=True,
    )

    tasks.check_package_fixity.run(FixityCheck.objects.get().pk)

    entry.refresh_from_db()
    assert entry.outcome == "failed"
    assert "ran the check (HTTP 200)" in entry.upstream_message
    assert "its result is not known" in entry.upstream_message
    assert "not done" not in entry.upstream_message


def test_a_check_that_runs_out_of_time_is_a_timed_out_outcome(
    client, polled, operator, monkeypatch
):
    entry = _queued(client, operator)

    def too_slow(**kwargs):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(storage_services, "fixity_check_run", too_slow)
    tasks.check_package_fixity.run(FixityCheck.objects.get().pk)
    entry.refresh_from_db()
    assert entry.outcome == "timed_out"
    page = client.get("/audit/?outcome=timed_out").content.decode()
    assert "Timed out" in page
