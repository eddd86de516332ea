"""Ages come from the workflow service's own task times, not from when Lookout looked."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import requests
from django.utils import timezone

from dashboard.lib.pipelines import pipeline_list
from dashboard.models import TimesFrom, Unit
from dashboard.services import units as unit_services
from tests.integration.conftest import point_at
from tests.support.simulator_process import SimulatorProcess

pytestmark = [pytest.mark.integration, pytest.mark.django_db]
# The simulator parks some units at a decision for 6 to 24 hours.
HOURS_AGO = 20


def _last_task_end(sim: SimulatorProcess, unit_uuid: str) -> datetime:
    """Read straight from the simulator, independently of Lookout's client."""
    answer = requests.get(
        f"{sim.workflow_url}/api/v2beta/jobs/{unit_uuid}",
        params={"detailed": "true"},
        headers=sim.auth_header,
        timeout=10,
    )
    answer.raise_for_status()
    ends = [
        datetime.strptime(task["time_ended"], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
        for job in answer.json()
        for task in job["tasks"]
        if task.get("time_ended")
    ]
    return max(ends)


def test_on_a_fresh_install_a_unit_waiting_for_hours_shows_its_real_wait(settings):
    start = datetime.now(UTC) - timedelta(hours=HOURS_AGO)
    with SimulatorProcess(
        units=40, seed=5, speed=0, start=start.strftime("%Y-%m-%dT%H:%M:%S")
    ) as sim:
        sim.control("advance", {"seconds": HOURS_AGO * 3600})
        point_at(settings, sim)
        pipeline = pipeline_list()[0]

        # A fresh install: the first poll, then the jobs refresh that follows it.
        unit_services.workflow_poll(pipeline=pipeline)
        unit_services.jobs_refresh(pipeline=pipeline, limit=100)

        waiting = list(Unit.objects.filter(awaiting_decision=True, awaiting_approval=False))
        assert waiting, "the scenario should leave units parked at a decision"
        for unit in waiting:
            assert unit.waiting_since_from == TimesFrom.UPSTREAM
            assert unit.waiting_since == _last_task_end(sim, unit.uuid)
        longest = max(timezone.now() - unit.waiting_since for unit in waiting)
        assert longest > timedelta(hours=1)  # not "0 min": the wait began upstream

        # Approval is the first job of a transfer: the service gives no time for it,
        # so Lookout counts from its first sight and says so.
        for unit in Unit.objects.filter(awaiting_approval=True):
            assert unit.waiting_since_from == TimesFrom.OBSERVED

        # A second look (or a restart) changes nothing.
        unit_services.workflow_poll(pipeline=pipeline, now=timezone.now() + timedelta(minutes=1))
        unit_services.jobs_refresh(pipeline=pipeline, limit=100)
        for unit in waiting:
            unit.refresh_from_db()
            assert unit.waiting_since == _last_task_end(sim, unit.uuid)
