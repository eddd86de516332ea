"""`manage.py demo_ingest` (run by `make run`): the demo's watched run over batch/ on
every simulated pipeline, created once, against a simulator with two pipelines."""

from __future__ import annotations

from collections.abc import Iterator
from io import StringIO

import pytest
from django.core.cache import cache
from django.core.management import call_command

from dashboard.models import IngestRun
from tests.support.simulator_process import SimulatorProcess

pytestmark = [pytest.mark.django_db, pytest.mark.integration]


@pytest.fixture
def sim(settings) -> Iterator[SimulatorProcess]:
    with SimulatorProcess(pipelines=2, units=2, packages=5, speed=0, source_items=12) as process:
        settings.LOOKOUT_PIPELINES = process.lookout_pipelines()
        settings.LOOKOUT_STORAGE = process.lookout_storage()
        cache.clear()
        yield process
    cache.clear()


def demo_ingest() -> str:
    out = StringIO()
    call_command("demo_ingest", "--wait", "10", stdout=out)
    return out.getvalue()


def test_it_creates_one_watched_run_over_batch_on_every_pipeline(sim):
    call_command("demo_admin", stdout=StringIO())

    said = demo_ingest()
    again = demo_ingest()

    run = IngestRun.objects.get()
    assert run.pipelines == ["default", "pipeline-2"]
    assert bytes(run.path) == b"batch"
    assert run.watch is True
    location, _ = sim.control("state")["transfer_sources"][0]
    assert run.source_location == location
    assert f"Demo ingest run #{run.pk} watches batch/ on default, pipeline-2" in said
    assert f"Demo ingest run #{run.pk} is already" in again


def test_it_needs_the_demo_administrator(sim):
    with pytest.raises(Exception, match="demo_admin"):
        demo_ingest()
    assert not IngestRun.objects.exists()
