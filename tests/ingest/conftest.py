"""Ingest runs against the simulator: two workflow services and one storage service
over real sockets (tests/support/ingest_simulator.py), polled and scheduled in-process."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from django.contrib.auth.models import User

from dashboard.lib.pipelines import pipeline_list
from dashboard.models import IN_FLIGHT_STATES, IngestItem, IngestRun
from dashboard.services import ingest_cycle, ingest_runs
from dashboard.services import units as unit_services
from dashboard.services.actions import idempotency_key_new
from tests.support.ingest_simulator import IngestSimulator
from tests.support.users import make_user


@pytest.fixture
def sim(settings) -> Iterator[IngestSimulator]:
    with IngestSimulator(pipelines=2, speed=300) as simulator:
        settings.LOOKOUT_PIPELINES = simulator.pipelines_setting()
        settings.LOOKOUT_STORAGE = simulator.storage_setting()
        yield simulator


@pytest.fixture
def operator(db) -> User:
    return make_user("olga", role="operator")


def create_run(user: User, sim: IngestSimulator, **options) -> IngestRun:
    values = {
        "name": "Backlog",
        "source_location": sim.location,
        "path": b"batch",
        "pipelines": tuple(sim.slugs),
        "processing_configs": {slug: "automated" for slug in sim.slugs},
        "max_in_flight": 3,
        **options,
    }
    created = ingest_runs.ingest_run_create(
        user=user,
        request=ingest_runs.IngestRunRequest(**values),
        idempotency_key=idempotency_key_new(),
    )
    assert created.run is not None, created.result.message
    return created.run


class Driver:
    """Polls the pipelines and runs scheduling cycles, as the beat would, and checks the
    cap after every cycle."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.most_in_flight = 0

    def cycle(self) -> None:
        for pipeline in pipeline_list():
            unit_services.workflow_poll(pipeline=pipeline)
        ingest_cycle.ingest_cycle()
        for slug in [p.slug for p in pipeline_list()]:
            for run in IngestRun.objects.all():
                n = IngestItem.objects.filter(
                    run=run, pipeline=slug, state__in=IN_FLIGHT_STATES
                ).count()
                self.most_in_flight = max(self.most_in_flight, n)
                assert n <= self.cap, f"{n} in flight on {slug}"

    def until(self, done: Callable[[], bool], *, seconds: float = 90, pause: float = 0.2) -> None:
        deadline = time.monotonic() + seconds
        while not done():
            if time.monotonic() > deadline:
                states = list(IngestItem.objects.values_list("name", "state", "reason"))
                pytest.fail(f"not done within {seconds} s: {states}")
            self.cycle()
            time.sleep(pause)


@pytest.fixture
def driver() -> Driver:
    return Driver(cap=3)
