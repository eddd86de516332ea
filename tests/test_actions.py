"""The operator-action service: permission, idempotency, audit rows, upstream answers."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied
from django.utils import timezone

from dashboard.clients.workflow import WorkflowResponseError
from dashboard.models import AuditEntry
from dashboard.services import actions
from dashboard.services.actions import ActionNotPossible, UpstreamAnswer, action_perform
from tests.fakes import FakeUnit, FakeWorkflowClient
from tests.support.records import hidden_of
from tests.support.users import make_user
from tests.views.seed import PIPELINE, seed, unit, uuid_for, waiting_unit

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def fake(monkeypatch) -> FakeWorkflowClient:
    client = FakeWorkflowClient()
    monkeypatch.setattr(actions, "get_workflow_client", lambda config: client)
    return client


@pytest.fixture
def polls() -> list[str]:
    """Pipelines whose poll the action asked for (the view passes the real queueing)."""
    return []


def _approve(polls: list[str], **kwargs):
    return actions.transfer_approve(
        after_success=lambda: polls.append(kwargs["unit"].pipeline), **kwargs
    )


def _hide(polls: list[str], **kwargs):
    return actions.unit_hide(after_success=lambda: polls.append(kwargs["unit"].pipeline), **kwargs)


@pytest.fixture
def operator():
    return make_user("otto", "operator")


def _awaiting(fake: FakeWorkflowClient, number: int = 1):
    fake.add(FakeUnit(uuid_for(number), name=f"unit-{number}", awaiting_approval=True))
    return seed(waiting_unit(number))[0]


def test_approving_calls_the_service_records_done_and_enqueues_a_poll(fake, polls, operator):
    target = _awaiting(fake)

    result = _approve(polls, user=operator, unit=target, idempotency_key="k" * 32)

    assert result.ok and not result.repeated
    assert fake.calls == [("approve_transfer", ("unit-1", "standard"))]
    entry = AuditEntry.objects.get()
    assert (entry.actor_name, entry.action, entry.target, entry.outcome) == (
        "otto",
        "transfer_approve",
        uuid_for(1),
        "done",
    )
    assert entry.upstream_status == 200
    assert uuid_for(1) in entry.upstream_message
    assert entry.finished_at is not None
    assert polls == [PIPELINE]


@pytest.mark.parametrize("job", ["Approve research data transfer", "Approve Dataverse transfer"])
def test_a_research_data_transfer_is_approved_like_the_other_types(fake, polls, operator, job):
    # The unapproved list leaves research data transfers out: seen waiting at the job only.
    fake.add(FakeUnit(uuid_for(1), name="unit-1", awaiting_approval=True))
    target = seed(
        waiting_unit(1, awaiting_approval=False, microservice=job, decision=job, transfer_type="")
    )[0]

    result = _approve(polls, user=operator, unit=target, idempotency_key="q" * 32)

    assert target.approvable
    assert result.ok and result.entry.outcome == "done"
    assert fake.calls == [("approve_transfer", ("unit-1", "research_data"))]


def test_a_double_submit_makes_one_upstream_call_and_one_audit_row(fake, polls, operator):
    target = _awaiting(fake)

    first = _approve(polls, user=operator, unit=target, idempotency_key="k" * 32)
    second = _approve(polls, user=operator, unit=target, idempotency_key="k" * 32)

    assert fake.count("approve_transfer") == 1
    assert AuditEntry.objects.count() == 1
    assert second.repeated and second.entry.pk == first.entry.pk
    assert second.ok


def test_a_refusal_keeps_the_services_own_message(fake, polls, operator):
    target = seed(waiting_unit(1))[0]  # the fake knows no such transfer: it answers 500

    result = _approve(polls, user=operator, unit=target, idempotency_key="r" * 32)

    entry = result.entry
    assert entry.outcome == "refused"
    assert entry.upstream_status == 500
    assert entry.upstream_message == "Unable to start the transfer."
    assert polls == []


def test_the_service_being_down_is_recorded_as_failed_with_a_clear_message(fake, polls, operator):
    target = _awaiting(fake)
    fake.down = True

    result = _approve(polls, user=operator, unit=target, idempotency_key="d" * 32)

    assert result.entry.outcome == "failed"
    assert "could not be reached" in result.entry.upstream_message
    assert polls == []


def test_a_transfer_no_longer_awaiting_approval_is_refused_without_calling(fake, polls, operator):
    target = seed(unit(1, status="PROCESSING"))[0]

    result = _approve(polls, user=operator, unit=target, idempotency_key="n" * 32)

    assert result.entry.outcome == "refused"
    assert "no longer waiting for approval" in result.entry.upstream_message
    assert fake.calls == []


def test_a_viewer_may_not_approve_and_nothing_is_recorded(fake, polls):
    viewer = make_user("vera", "viewer")
    target = _awaiting(fake)

    with pytest.raises(PermissionDenied):
        _approve(polls, user=viewer, unit=target, idempotency_key="v" * 32)

    assert fake.calls == []
    assert not AuditEntry.objects.exists()


def test_a_key_reused_for_another_target_is_rejected(fake, polls, operator):
    first = _awaiting(fake, 1)
    other = _awaiting(fake, 2)
    _approve(polls, user=operator, unit=first, idempotency_key="s" * 32)

    with pytest.raises(actions.IdempotencyKeyReused):
        _approve(polls, user=operator, unit=other, idempotency_key="s" * 32)

    assert fake.count("approve_transfer") == 1


def test_hiding_a_finished_sip_calls_hide_ingest_and_hides_it_here(fake, polls, operator):
    fake.add(FakeUnit(uuid_for(1)))
    target = seed(unit(1, kind="sip", status="COMPLETE"))[0]

    result = _hide(polls, user=operator, unit=target, idempotency_key="h" * 32)

    assert result.ok
    assert fake.calls == [("hide_ingest", (uuid_for(1),))]
    assert uuid_for(1) in hidden_of(PIPELINE)


def test_a_hide_the_service_declines_is_refused_and_not_hidden_here(fake, polls, operator):
    target = seed(unit(1, status="FAILED"))[0]  # unknown to the fake: removed is false

    result = _hide(polls, user=operator, unit=target, idempotency_key="h" * 32)

    assert result.entry.outcome == "refused"
    assert result.entry.upstream_status == 409
    assert fake.calls == [("hide_transfer", (uuid_for(1),))]
    assert hidden_of(PIPELINE) == set()


def test_a_running_unit_cannot_be_hidden(fake, polls, operator):
    target = seed(unit(1, status="PROCESSING"))[0]

    result = _hide(polls, user=operator, unit=target, idempotency_key="h" * 32)

    assert result.entry.outcome == "refused"
    assert fake.calls == []


def test_action_perform_runs_any_call_and_its_after_success_hook(operator):
    calls: list[str] = []

    result = action_perform(
        user=operator,
        permission="dashboard.operate_packages",
        action="package_fixity",
        idempotency_key="p" * 32,
        target_kind="package",
        target="pkg-1",
        call=lambda: (
            calls.append("upstream") or UpstreamAnswer("Fixity check started.", status=202)
        ),
        after_success=lambda: calls.append("after"),
    )

    assert calls == ["upstream", "after"]
    assert (result.entry.outcome, result.entry.upstream_status) == ("done", 202)


def test_action_perform_records_a_call_that_says_it_is_not_possible(operator):
    def call() -> UpstreamAnswer:
        raise ActionNotPossible("The package is already being deleted.")

    result = action_perform(
        user=operator,
        permission="dashboard.operate_packages",
        action="package_move",
        idempotency_key="q" * 32,
        target_kind="package",
        target="pkg-1",
        call=call,
    )

    assert result.entry.outcome == "refused"
    assert result.message == "The package is already being deleted."


def _perform_raising(user, error: Exception, *, key: str):
    """An approval whose upstream call raises `error`."""

    def call() -> UpstreamAnswer:
        raise error

    return action_perform(
        user=user,
        permission="dashboard.approve_transfer",
        action="transfer_approve",
        idempotency_key=key,
        target_kind="transfer",
        target="x",
        call=call,
    )


def test_action_perform_uses_the_upstream_message_of_a_refusal(operator):
    refusal = WorkflowResponseError(
        "workflow service answered POST with 400",
        status=400,
        service="workflow",
        upstream_message='"uuid" is required.',
    )

    result = _perform_raising(operator, refusal, key="w" * 32)

    assert (result.entry.outcome, result.entry.upstream_status) == ("refused", 400)
    assert result.message == '"uuid" is required.'


def test_an_accepted_request_whose_answer_cannot_be_read_is_not_called_refused(operator):
    # The service took it (200) and may have acted: "refused" would invite a doubled retry.
    unreadable = WorkflowResponseError(
        "workflow service sent a malformed answer (POST /api/transfer/approve/): "
        "the body is not valid JSON",
        status=200,
        service="workflow",
        unreadable=True,
    )

    result = _perform_raising(operator, unreadable, key="m" * 32)

    assert (result.entry.outcome, result.entry.upstream_status) == ("failed", 200)
    assert "accepted the request (HTTP 200)" in result.message
    assert "whether it acted is not known" in result.message


def test_two_requests_at_once_for_one_transfer_make_one_upstream_call(fake, polls, operator):
    target = _awaiting(fake)
    other = make_user("olga", "operator")
    # The first request has claimed its row and is waiting for the service.
    AuditEntry.objects.create(
        idempotency_key="a" * 32,
        actor=operator,
        actor_name="otto",
        action="transfer_approve",
        target_kind="transfer",
        target=target.uuid,
        requested_at=timezone.now(),
    )

    second = _approve(polls, user=other, unit=target, idempotency_key="b" * 32)

    assert fake.calls == []
    assert second.entry.outcome == "refused"
    assert "already being carried out" in second.message


def test_an_action_left_pending_by_a_dead_request_does_not_block_it_for_ever(fake, polls, operator):
    target = _awaiting(fake)
    AuditEntry.objects.create(
        idempotency_key="a" * 32,
        actor=operator,
        actor_name="otto",
        action="transfer_approve",
        target_kind="transfer",
        target=target.uuid,
        requested_at=timezone.now() - timedelta(hours=1),
    )

    result = _approve(polls, user=operator, unit=target, idempotency_key="b" * 32)

    assert result.ok
    assert AuditEntry.objects.get(idempotency_key="a" * 32).outcome == "failed"


def test_action_perform_records_a_timeout_as_timed_out(operator):
    from dashboard.clients.workflow import WorkflowUnavailable

    timeout = WorkflowUnavailable(
        "workflow service timed out (POST /api/transfer/approve): read timeout",
        service="workflow",
    )

    result = _perform_raising(operator, timeout, key="t" * 32)

    assert result.entry.outcome == "timed_out"
    assert "did not answer in time" in result.message


def test_a_queued_action_stays_queued_until_its_task_finishes_it(operator):
    hooks = []
    result = action_perform(
        user=operator,
        permission="dashboard.operate_packages",
        action="package_fixity_check",
        idempotency_key="u" * 32,
        target_kind="package",
        target="pkg-2",
        call=lambda: UpstreamAnswer("Queued.", status=None, queued=True),
        after_success=lambda: hooks.append(1),
    )
    assert result.entry.outcome == "queued" and hooks == [1]
    assert actions.action_queued_finish(entry_id=result.entry.pk, outcome="done", message="ok")
    assert not actions.action_queued_finish(entry_id=result.entry.pk, outcome="failed", message="x")
    result.entry.refresh_from_db()
    assert result.entry.outcome == "done"
