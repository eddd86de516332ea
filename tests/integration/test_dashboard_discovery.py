"""Full discovery with a service account, against the simulator over a socket.

The simulator serves the dashboard as the real service was seen to (sign-in, the status
lists and their quirks, the job server going down); Lookout's whole poll runs against it.
The dashboard lists are read here straight from the simulator, independently of
Lookout's client, to say what Lookout should have found.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from io import StringIO
from typing import Any
from uuid import uuid4

import pytest
import requests
from django.core.cache import cache
from django.utils import timezone

from dashboard.lib.pipelines import pipeline_list
from dashboard.models import Alert, AuditEntry, ServicePoll, TimesFrom, Unit
from dashboard.selectors import freshness
from dashboard.selectors.health import health_checks
from dashboard.services import actions, decisions
from dashboard.services import alerts as alert_services
from dashboard.services import units as unit_services
from dashboard.services.dashboard_discovery import dashboard_lists_due, refusal_backoff
from tests.integration.conftest import point_at
from tests.support.dashboard_session import signed_in
from tests.support.simulator_process import SimulatorProcess
from tests.support.users import make_user

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

CLEAN_UP_GROUPS = {"Failed transfer", "Failed SIP"}
LOCMEM = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


@pytest.fixture
def sim() -> Iterator[SimulatorProcess]:
    with SimulatorProcess(units=60, seed=1, speed=0) as process:
        yield process


@pytest.fixture(autouse=True)
def private_cache(settings) -> Iterator[None]:
    settings.CACHES = LOCMEM
    cache.clear()
    yield
    cache.clear()


def with_account(settings, sim: SimulatorProcess, password: str = "demo-password") -> None:
    point_at(settings, sim)
    settings.LOOKOUT_PIPELINES = [
        {**settings.LOOKOUT_PIPELINES[0], "dashboard_user": "demo", "dashboard_password": password}
    ]


def poll(*, now: datetime | None = None, every_source: bool = True):
    (pipeline,) = pipeline_list()
    return unit_services.workflow_poll(
        pipeline=pipeline, now=now or timezone.now(), every_source=every_source
    )


def listed_units(sim: SimulatorProcess) -> dict[str, dict[str, Any]]:
    session = signed_in(sim)
    found = {}
    for kind in ("transfer", "ingest"):
        answer = session.get(f"{sim.workflow_url}/{kind}/status/", timeout=30).json()
        found.update({unit["uuid"]: {**unit, "list": kind} for unit in answer["objects"]})
    return found


def api(sim: SimulatorProcess, method: str, path: str, **kwargs: Any) -> requests.Response:
    return requests.request(
        method, sim.workflow_url + path, headers=sim.auth_header, timeout=10, **kwargs
    )


def job_time(job: dict[str, Any]) -> datetime:
    seconds, _, fraction = job["timestamp"].partition(".")
    return datetime.fromtimestamp(int(seconds), UTC).replace(microsecond=int(fraction[:6]))


def failed_job(unit: dict[str, Any]) -> dict[str, Any] | None:
    failed = [job for job in unit["jobs"] if job["currentstep"] == 4]
    real = [job for job in failed if job["microservicegroup"] not in CLEAN_UP_GROUPS]
    return (real or failed or [None])[0]


def start_auto_approved(sim: SimulatorProcess) -> str:
    location, path = sim.control("state")["transfer_sources"][0]
    encoded = base64.b64encode(f"{location}:{path}".encode()).decode()
    created = api(
        sim,
        "POST",
        "/api/v2beta/package/",
        json={"name": "Scripted", "path": encoded, "auto_approve": True},
    )
    assert created.status_code == 202
    sim.control("advance", {"seconds": 60})
    return created.json()["id"]


def test_with_an_account_running_and_failed_units_appear_with_job_and_upstream_time(settings, sim):
    with_account(settings, sim)
    scripted = start_auto_approved(sim)
    listed = listed_units(sim)

    summary = poll()

    assert summary.ok
    units = {unit.uuid: unit for unit in Unit.objects.all()}
    assert set(listed) <= set(units)
    # The transfer a script started with automatic approval, still running.
    assert units[scripted].status == "PROCESSING"
    assert units[scripted].kind == "transfer"
    failures = {uuid: unit for uuid, unit in listed.items() if failed_job(unit) is not None}
    assert {unit["list"] for unit in failures.values()} == {"transfer", "ingest"}
    for uuid, unit in failures.items():
        job = failed_job(unit)
        assert job is not None
        assert units[uuid].status == "FAILED"
        assert units[uuid].failed_job == job["type"]
        assert units[uuid].failed_group == job["microservicegroup"]
        assert units[uuid].failed_at == job_time(job)
        assert units[uuid].failed_at_from == TimesFrom.UPSTREAM

    alert_services.alert_rules_ensure_defaults()
    alert_services.alerts_evaluate()
    alerted = set(Alert.objects.filter(kind="unit_failed").values_list("subject", flat=True))
    assert {f"unit:default:{uuid}" for uuid in failures} <= alerted


def test_without_an_account_it_behaves_as_before_and_then_sees_more_with_one(settings, sim):
    scripted = start_auto_approved(sim)
    point_at(settings, sim)  # API only: a running auto-approved transfer is in no list

    assert poll().ok

    assert not Unit.objects.filter(uuid=scripted).exists()
    assert not ServicePoll.objects.filter(service="dashboard:default").exists()
    assert not Unit.objects.filter(hidden_upstream_at__isnull=False).exists()

    with_account(settings, sim)
    poll(now=timezone.now() + timedelta(seconds=5))
    assert Unit.objects.get(uuid=scripted).status == "PROCESSING"


def test_an_approval_wait_shows_the_services_time(settings, sim):
    with_account(settings, sim)
    listed = listed_units(sim)
    waiting = {
        uuid: next(job for job in unit["jobs"] if job["currentstep"] == 1)
        for uuid, unit in listed.items()
        if any(job["currentstep"] == 1 for job in unit["jobs"])
    }
    approvals = {u: j for u, j in waiting.items() if j["microservicegroup"] == "Approve transfer"}
    assert approvals

    poll()

    for uuid, job in waiting.items():
        unit = Unit.objects.get(uuid=uuid)
        assert unit.awaiting_decision
        assert unit.waiting_since == job_time(job)
        assert unit.waiting_since_from == TimesFrom.UPSTREAM
    # The next cycles (between two list reads) keep the service's time.
    poll(now=timezone.now() + timedelta(seconds=10), every_source=False)
    for uuid, job in approvals.items():
        assert Unit.objects.get(uuid=uuid).waiting_since == job_time(job)


def test_a_unit_hidden_upstream_is_marked_hidden(settings, sim):
    with_account(settings, sim)
    poll()
    target = api(sim, "GET", "/api/transfer/completed/").json()["results"][0]
    assert api(sim, "DELETE", f"/api/transfer/{target}/delete/").json() == {"removed": True}

    # Started through Lookout a moment ago: the service lists it once it has a job.
    unit_services.unit_register(pipeline="default", uuid=str(uuid4()), kind="transfer")

    later = timezone.now() + timedelta(minutes=10)
    poll(now=later)

    unit = Unit.objects.get(uuid=target)
    assert unit.hidden_upstream_at == later
    assert Unit.objects.filter(hidden_upstream_at__isnull=False).count() == 1


def test_with_the_job_server_down_nothing_vanishes_and_the_outage_shows(settings, sim):
    with_account(settings, sim)
    poll()
    before = set(Unit.objects.values_list("uuid", flat=True))
    sim.control("mcp", {"up": False})
    try:
        summary = poll(now=timezone.now() + timedelta(minutes=1))
    finally:
        sim.control("mcp", {"up": True})

    assert summary.ok  # the public API still answers
    assert set(Unit.objects.values_list("uuid", flat=True)) >= before
    assert not Unit.objects.filter(hidden_upstream_at__isnull=False).exists()
    record = ServicePoll.objects.get(service="dashboard:default")
    assert "job server down" in record.last_error
    (lists,) = [h for h in freshness.page_freshness().stale if h.service == "dashboard:default"]
    assert not lists.refused
    check = next(c for c in health_checks() if c.name == "poll:dashboard:default")
    assert not check.ok


def test_an_expired_session_is_signed_in_again(settings, sim):
    with_account(settings, sim)
    poll()
    sim.control("sessions/expire", {})
    poll(now=timezone.now() + timedelta(minutes=1))
    record = ServicePoll.objects.get(service="dashboard:default")
    assert (record.attempt_count, record.error_count, record.last_error) == (2, 0, "")


def test_a_refused_account_backs_off_shows_and_never_stops_the_api_polling(settings, sim):
    with_account(settings, sim, password="not-the-password")
    now = timezone.now()

    summary = poll(now=now, every_source=False)

    assert summary.ok
    assert Unit.objects.exists()  # the public lists still discover what they can
    record = ServicePoll.objects.get(service="dashboard:default")
    assert record.last_error.startswith("service account refused for Default pipeline")
    assert "not-the-password" not in record.last_error
    check = next(c for c in health_checks(details=False) if c.name == "poll:dashboard:default")
    assert (check.ok, check.reason) == (False, "service account refused for Default pipeline")
    alert_services.alert_rules_ensure_defaults()
    alert_services.alerts_evaluate(now=now)
    assert Alert.objects.filter(title="Service account refused for Default pipeline").exists()

    # No retry storm: the next cycles do not sign in until the backoff has passed.
    poll(now=now + timedelta(seconds=10), every_source=False)
    poll(now=now + refusal_backoff(1) - timedelta(seconds=1), every_source=False)
    assert ServicePoll.objects.get(service="dashboard:default").attempt_count == 1
    poll(now=now + refusal_backoff(1), every_source=False)
    assert ServicePoll.objects.get(service="dashboard:default").attempt_count == 2
    assert refusal_backoff(2) == 2 * refusal_backoff(1)
    assert ServicePoll.objects.get(service="workflow:default").attempt_count == 4


# --- decisions answered in Lookout (item 3)


APPROVE = "6953950b-c101-4f4c-a0c3-0cd0684afe5e"


def approval_waiting(settings, sim) -> Unit:
    with_account(settings, sim)
    poll()
    unit = (
        Unit.objects.filter(awaiting_decision=True, decision_job_uuid__isnull=False)
        .filter(decision_choices__contains=APPROVE)
        .first()
    )
    assert unit is not None, "the scenario should leave a transfer waiting for approval"
    return unit


def test_a_decision_answered_in_lookout_moves_the_unit_on_once_for_a_double_submit(settings, sim):
    unit = approval_waiting(settings, sim)
    operator = make_user("olga", "operator")
    job = unit.decision_job_uuid
    key = actions.idempotency_key_new()

    first = decisions.decision_answer(
        user=operator, unit=unit, idempotency_key=key, job=job, choice=APPROVE
    )
    again = decisions.decision_answer(
        user=operator, unit=unit, idempotency_key=key, job=job, choice=APPROVE
    )

    assert first.entry.outcome == AuditEntry.Outcome.SENT
    assert (again.repeated, again.entry.pk) == (True, first.entry.pk)
    listed = listed_units(sim)[unit.uuid]
    decided = next(j for j in listed["jobs"] if j["uuid"] == job)
    assert decided["currentstep"] == 2  # taken once
    poll(now=timezone.now() + timedelta(minutes=1))
    first.entry.refresh_from_db()
    assert first.entry.outcome == AuditEntry.Outcome.DONE
    assert Unit.objects.get(pk=unit.pk).decision_job_uuid != job


def test_an_answer_the_service_ignored_is_reported_as_not_taken(settings, sim):
    unit = approval_waiting(settings, sim)
    # A choice the service does not have: it answers 200 "None" and ignores it.
    Unit.objects.filter(pk=unit.pk).update(decision_choices='{"not-a-chain": "Bogus"}')
    unit.refresh_from_db()
    sent = decisions.decision_answer(
        user=make_user("olga", "operator"),
        unit=unit,
        idempotency_key=actions.idempotency_key_new(),
        job=unit.decision_job_uuid,
        choice="not-a-chain",
    )
    assert sent.entry.outcome == AuditEntry.Outcome.SENT

    start = timezone.now()
    for minutes in range(1, decisions.NOT_TAKEN_AFTER_READS + 1):
        poll(now=start + timedelta(minutes=minutes))

    sent.entry.refresh_from_db()
    assert sent.entry.outcome == AuditEntry.Outcome.REFUSED
    assert sent.entry.upstream_message.startswith("Not taken: still waiting")


def test_a_decision_taken_elsewhere_meanwhile_is_not_sent_again(settings, sim):
    unit = approval_waiting(settings, sim)
    job = unit.decision_job_uuid
    elsewhere = signed_in(sim)
    answered = elsewhere.post(
        f"{sim.workflow_url}/mcp/execute/",
        data={"uuid": job, "choice": APPROVE},
        headers={"X-CSRFToken": elsewhere.cookies["csrftoken"]},
        timeout=10,
    )
    assert answered.status_code == 200
    poll(now=timezone.now() + timedelta(minutes=1))

    result = decisions.decision_answer(
        user=make_user("olga", "operator"),
        unit=unit,
        idempotency_key=actions.idempotency_key_new(),
        job=job,
        choice=APPROVE,
    )

    assert result.entry.outcome == AuditEntry.Outcome.REFUSED
    assert result.entry.upstream_message == decisions.TAKEN_ELSEWHERE


def test_the_completed_lists_are_read_less_often_only_while_the_account_works(settings, sim):
    from dashboard.services.dashboard_discovery import completed_lists_due

    with_account(settings, sim)
    (pipeline,) = pipeline_list()
    now = timezone.now()
    assert completed_lists_due(pipeline=pipeline, now=now, force=False)  # never read yet
    poll(now=now)
    assert completed_lists_due(pipeline=pipeline, now=now + timedelta(seconds=10), force=False)
    assert not completed_lists_due(pipeline=pipeline, now=now + timedelta(seconds=20), force=False)
    assert completed_lists_due(pipeline=pipeline, now=now, force=True)

    with_account(settings, sim, password="wrong")
    cache.clear()  # the schedule and the signed-in session: the next read signs in anew
    poll(now=now + timedelta(seconds=30), every_source=False)
    assert completed_lists_due(pipeline=pipeline, now=now + timedelta(seconds=40), force=False)


def test_poll_once_reads_the_status_lists_whatever_their_interval(settings, sim):
    from django.core.management import call_command

    with_account(settings, sim)
    poll(every_source=False)  # read now: the next read is not due for 30 s
    (pipeline,) = pipeline_list()
    assert not dashboard_lists_due(pipeline=pipeline, now=timezone.now())

    call_command("poll", "--once", stdout=StringIO())

    assert ServicePoll.objects.get(service="dashboard:default").attempt_count == 2


def test_the_next_read_of_the_status_lists_waits_for_the_interval_their_answer_time_gives(
    settings, sim
):
    from dashboard.lib.dashboard_source import list_interval_seconds

    with_account(settings, sim)
    now = timezone.now()
    poll(now=now, every_source=False)
    answered_in = ServicePoll.objects.get(service="dashboard:default").last_duration_ms / 1000
    interval = list_interval_seconds(
        answered_in=answered_in, minimum=settings.LOOKOUT_DASHBOARD_LIST_MIN_INTERVAL
    )
    (pipeline,) = pipeline_list()

    assert interval > settings.LOOKOUT_DASHBOARD_LIST_MIN_INTERVAL
    assert not dashboard_lists_due(pipeline=pipeline, now=now + timedelta(seconds=interval - 1))
    assert dashboard_lists_due(pipeline=pipeline, now=now + timedelta(seconds=interval + 1))


def _working_units() -> dict[str, Unit]:
    return {unit.uuid: unit for unit in Unit.objects.exclude(listed_progress=None)}


def test_while_the_lists_answer_a_unit_that_did_not_move_is_not_read_through_the_api(settings, sim):
    with_account(settings, sim)
    now = timezone.now()
    poll(now=now)
    covered = _working_units()
    assert any(not unit.finished for unit in covered.values())

    poll(now=now + timedelta(seconds=10), every_source=False)  # reads the completed lists
    between = poll(now=now + timedelta(seconds=20), every_source=False)

    assert between.ok
    # Neither the public waiting lists nor a covered unit's status were asked for.
    assert between.requests == between.refreshed
    assert not Unit.objects.filter(
        uuid__in=list(covered), last_polled_at=now + timedelta(seconds=20)
    ).exists()
    # Their waits stand between the reads.
    for uuid, unit in covered.items():
        assert Unit.objects.get(uuid=uuid).awaiting_decision == unit.awaiting_decision


def test_a_unit_that_moved_in_the_lists_is_read_at_their_next_read(settings, sim):
    with_account(settings, sim)
    now = timezone.now()
    poll(now=now)
    before_lists = listed_units(sim)
    covered = {uuid for uuid, unit in _working_units().items() if not unit.finished}
    start_auto_approved(sim)  # advances the service a minute: some units move
    after_lists = listed_units(sim)
    moved = {
        uuid
        for uuid in covered
        if before_lists[uuid]["jobs"] != after_lists.get(uuid, {}).get("jobs")
    }
    assert moved and covered - moved

    later = now + timedelta(seconds=70)
    poll(now=later)

    read = set(Unit.objects.filter(last_polled_at=later).values_list("uuid", flat=True))
    assert moved <= read
    assert not (covered - moved) & read
    for uuid in moved:
        unit = Unit.objects.get(uuid=uuid)
        kind = "ingest" if unit.kind == "sip" else "transfer"
        answer = api(sim, "GET", f"/api/{kind}/status/{uuid}/").json()
        assert unit.status == answer["status"]


def test_when_the_lists_stop_answering_units_are_read_through_the_api_again(settings, sim):
    with_account(settings, sim)
    now = timezone.now()
    poll(now=now)
    later = now + timedelta(minutes=2)
    due = {
        uuid
        for uuid, unit in _working_units().items()
        if not unit.finished and unit.next_poll_at and unit.next_poll_at <= later
    }
    assert due

    sim.control("mcp", {"up": False})
    try:
        summary = poll(now=later)
    finally:
        sim.control("mcp", {"up": True})

    assert summary.ok
    read = set(Unit.objects.filter(last_polled_at=later).values_list("uuid", flat=True))
    assert due <= read


def test_the_units_of_ingest_items_in_flight_are_read_on_their_schedule_all_the_same(settings, sim):
    from dashboard.models import IngestItem, IngestRun

    with_account(settings, sim)
    now = timezone.now()
    poll(now=now)
    poll(now=now + timedelta(seconds=10), every_source=False)
    covered = [unit for unit in _working_units().values() if not unit.finished]
    followed, other = covered[0], covered[1]
    run = IngestRun.objects.create(
        name="batch",
        source_location=str(uuid4()),
        path=b"batch",
        status="running",
        created_at=now,
    )
    IngestItem.objects.create(
        run=run,
        path=b"batch/one",
        path_shown="batch/one",
        name="one",
        number=1,
        state=IngestItem.State.PROCESSING,
        pipeline="default",
        transfer_uuid=followed.uuid,
    )
    later = now + timedelta(seconds=20)
    Unit.objects.filter(uuid__in=[followed.uuid, other.uuid]).update(next_poll_at=later)

    poll(now=later, every_source=False)

    assert Unit.objects.get(uuid=followed.uuid).last_polled_at == later
    assert Unit.objects.get(uuid=other.uuid).last_polled_at != later
