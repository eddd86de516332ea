"""Nothing a user did is lost or done twice: an action whose outcome was never recorded
is not left looking "in progress", and reloading a page does not flood the queue."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.messages import get_messages
from django.contrib.messages.storage.fallback import FallbackStorage
from django.test import Client
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from dashboard import tasks
from dashboard.models import AuditEntry, Unit
from dashboard.services import actions
from dashboard.services.actions import UpstreamAnswer, action_perform
from dashboard.views.feedback import action_report
from tests.support.users import make_user
from tests.views.seed import seed, unit, uuid_for

pytestmark = pytest.mark.django_db


def _perform(user, call, key: str = "u" * 32) -> actions.ActionResult:
    return action_perform(
        user=user,
        permission="dashboard.operate_packages",
        action="package_move",
        idempotency_key=key,
        target_kind="package",
        target="pkg-1",
        call=call,
    )


def test_an_unexpected_error_ends_the_audit_row_as_failed_not_pending():
    operator = make_user("otto", "operator")

    def call() -> UpstreamAnswer:
        raise KeyError("a field no parser expected")

    result = _perform(operator, call)

    entry = AuditEntry.objects.get(pk=result.entry.pk)
    assert entry.outcome == "failed"
    assert entry.finished_at is not None
    assert "not known" in entry.upstream_message


def _pending(minutes_ago: float, key: str) -> AuditEntry:
    return AuditEntry.objects.create(
        idempotency_key=key,
        actor=make_user(f"user-{key[:4]}", "operator"),
        actor_name="otto",
        action="package_move",
        target_kind="package",
        target="pkg-1",
        requested_at=timezone.now() - timedelta(minutes=minutes_ago),
    )


def test_a_row_pending_for_a_few_seconds_is_in_progress():
    assert _pending(0.1, "a" * 32).shown_outcome == "pending"


def test_a_row_pending_past_every_timeout_has_an_unknown_outcome():
    entry = _pending(30, "b" * 32)

    assert entry.outcome_unknown
    assert entry.shown_outcome == "unknown"


def test_the_audit_log_shows_an_interrupted_action_as_outcome_unknown():
    _pending(30, "c" * 32)
    client = Client()
    client.force_login(make_user("ada", "admin"))

    content = client.get("/audit/").content.decode()
    rows = content[content.index("<tbody>") :]

    assert "Outcome unknown" in rows
    assert "In progress" not in rows


def test_resubmitting_an_interrupted_action_says_its_outcome_is_unknown(rf):
    entry = _pending(30, "d" * 32)
    request = rf.post("/")
    request.session = {}
    request._messages = FallbackStorage(request)

    action_report(request, actions.ActionResult(entry=entry, repeated=True), "Moved")

    (message,) = [str(m) for m in get_messages(request)]
    assert "Outcome: unknown" in message
    assert "Pending" not in message


def test_reloading_unit_pages_queues_one_jobs_refresh_but_keeps_every_request(monkeypatch):
    queued: list[str] = []
    monkeypatch.setattr("dashboard.tasks.refresh_pipeline_jobs.delay", queued.append)
    seed(unit(0), unit(1), unit(2))

    for number in range(20):
        tasks.jobs_fetch_enqueue("default", uuid_for(number % 2))

    assert queued == ["default"]
    requested = Unit.objects.filter(jobs_requested_at__isnull=False)
    assert set(requested.values_list("uuid", flat=True)) == {uuid_for(0), uuid_for(1)}


def test_a_jobs_refresh_that_could_not_be_queued_is_tried_again_on_the_next_view(monkeypatch):
    attempts: list[str] = []

    def broker_down(pipeline: str) -> None:
        attempts.append(pipeline)
        raise BrokerError("broker unreachable")

    monkeypatch.setattr("dashboard.tasks.refresh_pipeline_jobs.delay", broker_down)

    tasks.jobs_fetch_enqueue("default", "unit-1")
    tasks.jobs_fetch_enqueue("default", "unit-1")

    assert attempts == ["default", "default"]
