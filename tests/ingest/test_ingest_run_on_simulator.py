"""A run over 30 items on two simulated pipelines with a cap of 3, polled and scheduled
in-process: every item ends stored or failed as upstream says, each item is started
exactly once, never more than 3 in flight on a pipeline."""

from __future__ import annotations

import pytest

from dashboard.models import IngestItem, IngestRun, StoragePackage, Unit
from tests.ingest.conftest import create_run

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]

FINAL = {IngestItem.State.STORED, IngestItem.State.FAILED}


def test_it_moves_thirty_items_through_two_pipelines_starting_each_once(sim, operator, driver):
    names = sim.add_items(b"batch", 30, zips=3)
    run = create_run(operator, sim)

    driver.until(
        lambda: (
            IngestItem.objects.count() == 30
            and set(IngestItem.objects.values_list("state", flat=True)) <= FINAL
        ),
        seconds=150,
    )

    starts = sim.starts()
    assert sum(starts[slug].total() for slug in sim.slugs) == 30
    assert sorted(starts["p1"] + starts["p2"]) == names  # each name exactly once
    assert all(starts[slug].total() > 0 for slug in sim.slugs)  # both pipelines used
    assert driver.most_in_flight == 3
    for item in IngestItem.objects.all():
        assert item.attempts == 1
        assert item.started_at and item.finished_at
        assert sim.outcome(item.pipeline, item.transfer_uuid) == item.state
        if item.state == IngestItem.State.STORED:
            assert item.aip_uuid == item.sip_uuid
            assert item.aip_location
        assert Unit.objects.filter(uuid=item.transfer_uuid, pipeline=item.pipeline).exists()
    driver.cycle()
    run.refresh_from_db()
    assert run.status == IngestRun.Status.FINISHED
    assert run.finished_at is not None
    stored = IngestItem.objects.filter(state=IngestItem.State.STORED).count()
    assert stored > 0
    assert StoragePackage.objects.count() == 0  # read from the storage service directly
