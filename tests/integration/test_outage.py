"""The pollers against the simulator over real HTTP, with the cache in a real Redis."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
import requests
from django.utils import timezone

from dashboard.lib.pipelines import pipeline_list
from dashboard.selectors import freshness
from dashboard.selectors import storage as storage_selectors
from dashboard.selectors import units as unit_selectors
from dashboard.services import storage as storage_services
from dashboard.services import units as unit_services
from tests.integration.conftest import point_at
from tests.support.records import jobs_of
from tests.support.redis_server import free_port
from tests.support.simulator_process import SimulatorProcess

pytestmark = [pytest.mark.integration, pytest.mark.django_db]


def test_it_keeps_the_last_state_through_an_outage_marks_it_stale_and_recovers(
    settings, redis_cache
):
    ports = {"workflow_port": free_port(), "storage_port": free_port()}
    sim = SimulatorProcess(units=40, packages=30, seed=3, **ports).start()
    point_at(settings, sim)
    pipeline = pipeline_list()[0]
    now = timezone.now()
    try:
        first = unit_services.workflow_poll(pipeline=pipeline, now=now)
        assert first.ok, first.line()
        before = {u.uuid: u.status for u in unit_selectors.unit_list()}
        assert before
    finally:
        sim.stop()

    during = unit_services.workflow_poll(pipeline=pipeline, now=now + timedelta(minutes=1))

    assert not during.ok
    assert {u.uuid: u.status for u in unit_selectors.unit_list()} == before
    health = {h.service: h for h in freshness.service_health_list(now=now + timedelta(minutes=1))}
    assert health["workflow:default"].stale
    assert health["workflow:default"].last_success_at == now
    assert health["workflow:default"].last_error

    with SimulatorProcess(units=40, packages=30, seed=3, **ports):
        after = unit_services.workflow_poll(pipeline=pipeline, now=now + timedelta(minutes=2))

    assert after.ok, after.line()
    health = {h.service: h for h in freshness.service_health_list(now=now + timedelta(minutes=2))}
    assert not health["workflow:default"].stale
    assert health["workflow:default"].last_error == ""


def test_a_malformed_answer_is_logged_and_the_poll_fails_cleanly(settings, redis_cache, caplog):
    with SimulatorProcess(units=20, packages=10, seed=4) as sim:
        point_at(settings, sim)
        pipeline = pipeline_list()[0]
        assert unit_services.workflow_poll(pipeline=pipeline).ok
        known = len(unit_selectors.unit_list())
        sim.control("faults", {"malformed_rate": 1.0})

        with caplog.at_level(logging.WARNING):
            summary = unit_services.workflow_poll(pipeline=pipeline)

    assert not summary.ok
    assert len(unit_selectors.unit_list()) == known
    assert any("workflow poll" in r.getMessage() for r in caplog.records)


def test_a_full_poll_learns_units_their_jobs_and_the_storage_summary(settings, redis_cache):
    with SimulatorProcess(units=30, packages=40, seed=5) as sim:
        point_at(settings, sim)
        pipeline = pipeline_list()[0]
        workflow = unit_services.workflow_poll(pipeline=pipeline)
        jobs = unit_services.jobs_refresh(pipeline=pipeline, limit=5)
        storage = storage_services.storage_poll()
        completed = requests.get(
            f"{sim.workflow_url}/api/ingest/completed", headers=sim.auth_header, timeout=5
        ).json()["results"]

    assert workflow.ok and jobs.ok and storage.ok
    units = {u.uuid: u for u in unit_selectors.unit_list()}
    assert set(completed) <= set(units)
    assert any(u.awaiting_decision for u in units.values())
    with_jobs = [u for u in units.values() if jobs_of("default", u.uuid)]
    assert len(with_jobs) == jobs.refreshed > 0
    summary = storage_selectors.storage_summary()
    assert summary["locations"] and summary["package_counts"]["AIP"] >= 0
