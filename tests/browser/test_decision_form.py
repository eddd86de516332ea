"""Answering a decision in Lookout, in Chromium, against the simulator over a socket: the
question and its choices, the confirmed form, the answer sent and then seen taken."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.cache import cache
from django.utils import timezone

from dashboard.lib.pipelines import pipeline_list
from dashboard.models import AuditEntry, Unit
from dashboard.services import units as unit_services
from tests.browser.conftest import log_in, point_at_simulator, screenshot
from tests.support.simulator_process import SimulatorProcess
from tests.support.users import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def sim() -> Iterator[SimulatorProcess]:
    with SimulatorProcess(units=60, seed=1, speed=0) as process:
        yield process


def poll() -> None:
    (pipeline,) = pipeline_list()
    unit_services.workflow_poll(pipeline=pipeline, now=timezone.now(), every_source=True)


def test_an_operator_answers_a_decision_and_the_next_read_shows_it_taken(
    page, live_server, settings, sim
):
    cache.clear()
    point_at_simulator(settings, sim, dashboard_user="demo", dashboard_password="demo-password")
    poll()
    unit = (
        Unit.objects.filter(
            awaiting_decision=True, awaiting_approval=False, decision_job_uuid__isnull=False
        )
        .exclude(decision_choices__isnull=True)
        .first()
    )
    assert unit is not None, "the scenario should leave a unit at a decision with choices"
    make_user("olga", "operator")
    log_in(page, live_server.url, "olga")

    page.goto(f"{live_server.url}/waiting/")
    row = page.locator(f"#waiting-{unit.uuid}")
    assert row.locator(".decision-choices li").count() >= 2
    row.get_by_role("link", name="Answer the decision of").click()
    dialog = page.locator("dialog.confirm-dialog")
    dialog.wait_for()
    first_choice = dialog.locator("input[type=radio]").first
    first_choice.check()
    screenshot(page, "decision-form-dialog", full_page=False)
    dialog.get_by_role("button", name="Send answer").click()
    page.wait_for_load_state()
    assert page.get_by_text("Answer sent:").first.is_visible()
    screenshot(page, "decision-form-sent", full_page=False)

    entry = AuditEntry.objects.get(action="decision_answer")
    assert entry.outcome == AuditEntry.Outcome.SENT
    poll()
    entry.refresh_from_db()
    assert entry.outcome == AuditEntry.Outcome.DONE
