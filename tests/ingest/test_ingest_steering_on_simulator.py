"""Pause, resume, cancel, retry failed items, skip existing names, watched folders, lost
start answers and refused starts, each against the simulator over real sockets."""

from __future__ import annotations

import time
from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from dashboard.clients.workflow import get_workflow_client
from dashboard.lib.pipelines import pipeline_get
from dashboard.models import IngestItem, IngestRun, StoragePackage, Unit
from dashboard.services import ingest_cycle, ingest_runs
from dashboard.services import units as unit_services
from dashboard.services.actions import idempotency_key_new
from dashboard.services.transfers import TransferRequest, transfer_start_upstream
from simulator.scenario import Outcome
from tests.ingest.conftest import create_run

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]
S = IngestItem.State
FINAL = {S.STORED, S.FAILED, S.SKIPPED}
ONE_PIPELINE = {"pipelines": ("p1",), "processing_configs": {"p1": "automated"}}


def _states() -> dict[str, str]:
    return dict(IngestItem.objects.values_list("name", "state"))


def _all_final() -> bool:
    return IngestItem.objects.exists() and set(_states().values()) <= FINAL


def _starts(sim) -> int:
    return sum(counter.total() for counter in sim.starts().values())


def _steer(action, user, run):
    return action(user=user, run=run, idempotency_key=idempotency_key_new())


def test_the_starts_of_one_cycle_share_one_workflow_client_per_pipeline(
    sim, operator, driver, monkeypatch
):
    built: list[str] = []
    real = ingest_cycle.get_workflow_client

    def counted(config):
        built.append(config["slug"])
        return real(config)

    monkeypatch.setattr(ingest_cycle, "get_workflow_client", counted)
    sim.add_items(b"batch", 6)
    create_run(operator, sim, max_in_flight=3)

    driver.cycle()

    assert _starts(sim) == 6
    assert sorted(built) == ["p1", "p2"]
    assert IngestItem.objects.filter(state=S.PROCESSING).count() == 6


def test_a_paused_run_starts_nothing_until_resumed(sim, operator, driver):
    sim.add_items(b"batch", 8)
    run = create_run(operator, sim, max_in_flight=1)
    driver.until(lambda: _starts(sim) >= 2)

    assert _steer(ingest_runs.ingest_run_pause, operator, run).ok
    started = _starts(sim)
    driver.until(
        lambda: (
            not IngestItem.objects.filter(state__in=(S.STARTING, S.PROCESSING, S.WAITING)).exists()
        )
    )
    for _ in range(5):
        driver.cycle()

    assert _starts(sim) == started  # nothing new while paused; the started ones ended
    assert IngestItem.objects.filter(state=S.QUEUED).count() == 8 - started
    assert IngestRun.objects.get().status == IngestRun.Status.PAUSED

    assert _steer(ingest_runs.ingest_run_resume, operator, run).ok
    driver.until(_all_final)
    assert _starts(sim) == 8


def test_a_cancelled_run_skips_its_queued_items_and_leaves_started_ones_running(
    sim, operator, driver
):
    sim.add_items(b"batch", 10)
    run = create_run(operator, sim, max_in_flight=1)
    driver.until(lambda: _starts(sim) >= 2)

    result = _steer(ingest_runs.ingest_run_cancel, operator, run)
    started = IngestItem.objects.exclude(state__in=(S.QUEUED, S.SKIPPED)).count()
    driver.until(_all_final)

    assert result.ok
    assert _starts(sim) == started
    skipped = IngestItem.objects.filter(state=S.SKIPPED)
    assert skipped.count() == 10 - started
    assert all("cancelled" in item.reason for item in skipped)
    assert IngestItem.objects.filter(state__in=(S.STORED, S.FAILED)).count() == started
    run.refresh_from_db()
    assert run.status == IngestRun.Status.CANCELLED
    assert run.finished_at is not None


def test_retry_failed_starts_each_failed_item_once_more(sim, operator, driver, monkeypatch):
    sim.add_items(b"batch", 4)
    outcomes = iter([Outcome.FAILED, Outcome.SIP, Outcome.FAILED, Outcome.SIP])
    for view in sim.views:
        monkeypatch.setattr(view.workflow, "_draw_outcome", lambda rng: next(outcomes, Outcome.SIP))
    run = create_run(
        operator, sim, pipelines=("p1",), processing_configs={"p1": "automated"}, max_in_flight=1
    )
    driver.until(_all_final)
    failed = set(IngestItem.objects.filter(state=S.FAILED).values_list("name", flat=True))
    assert failed == {"item-001", "item-003"}
    assert all(item.failed_job for item in IngestItem.objects.filter(state=S.FAILED))

    result = _steer(ingest_runs.ingest_run_retry_failed, operator, run)
    driver.until(_all_final)

    assert result.ok and "2 failed items" in result.message
    starts = sim.starts()["p1"]
    assert starts == {"item-001": 2, "item-002": 1, "item-003": 2, "item-004": 1}
    for item in IngestItem.objects.filter(name__in=failed):
        assert item.attempts == 2 and item.failed_retries == 1
        assert item.state == S.STORED
    again = _steer(ingest_runs.ingest_run_retry_failed, operator, run)
    assert not again.ok  # nothing left to retry: each item is retried once


def test_names_that_exist_are_skipped_unless_the_run_says_otherwise(sim, operator, driver):
    sim.add_items(b"batch", 4)
    now = timezone.now()
    StoragePackage.objects.create(
        uuid="a" * 8 + "-aaaa-aaaa-aaaa-" + "a" * 12, name="item-002", package_type="AIP",
        status="UPLOADED", first_seen_at=now, seen_at=now,
    )  # fmt: skip
    Unit.objects.create(
        pipeline="p1", uuid="b" * 8 + "-bbbb-bbbb-bbbb-" + "b" * 12, kind="transfer",
        name="item-003", status="COMPLETE", first_seen_at=now, updated_at=now,
    )  # fmt: skip
    create_run(operator, sim)
    driver.until(_all_final)

    skipped = {i.name: i.reason for i in IngestItem.objects.filter(state=S.SKIPPED)}
    assert skipped == {
        "item-002": "An AIP named item-002 is already stored.",
        "item-003": "A transfer named item-003 is already known to Lookout.",
    }
    assert sorted(sim.starts()["p1"] + sim.starts()["p2"]) == ["item-001", "item-004"]

    IngestItem.objects.all().delete()
    IngestRun.objects.all().delete()
    create_run(operator, sim, skip_existing=False)
    driver.until(lambda: _all_final() and IngestItem.objects.count() == 4)
    assert not IngestItem.objects.filter(state=S.SKIPPED).exists()


def test_names_the_service_would_refuse_are_skipped_before_any_start(sim, operator, driver):
    sim.add_items(b"batch", 1)
    with sim.sim.lock:
        tree = sim.sim.storage.source_trees[sim.location]
        tree.add_file(b"batch/" + b"x" * 230 + b"/objects/a.txt", 10)
        tree.add_file(b"batch/caf\xe9/objects/a.txt", 10)
        tree.add_file(b"batch/notes.txt", 10)  # not a folder or an archive: not an item
    create_run(operator, sim)
    driver.until(_all_final)

    reasons = {i.path_shown: i.reason for i in IngestItem.objects.filter(state=S.SKIPPED)}
    assert "at most 218" in reasons["x" * 230]
    assert "not valid UTF-8" in reasons["caf\\xe9"]
    assert IngestItem.objects.count() == 3
    assert sum(sim.starts()["p1"].values()) + sum(sim.starts()["p2"].values()) == 1


def test_a_watched_folder_queues_new_children_once_they_settle(sim, operator, driver):
    sim.add_items(b"batch", 2)
    run = create_run(operator, sim, watch=True, settle_seconds=3)
    driver.until(lambda: IngestItem.objects.count() == 2)

    sim.add_items(b"batch", 1, start=3)
    driver.cycle()
    assert IngestItem.objects.count() == 2  # seen, not settled yet
    time.sleep(3.5)
    driver.cycle()
    driver.cycle()
    assert IngestItem.objects.filter(name="item-003").exists()
    driver.until(_all_final)
    assert IngestRun.objects.get().status == IngestRun.Status.RUNNING  # a watch goes on

    _steer(ingest_runs.ingest_run_pause, operator, run)
    sim.add_items(b"batch", 1, start=4)
    for _ in range(3):
        driver.cycle()
    time.sleep(3.5)
    driver.cycle()
    assert not IngestItem.objects.filter(name="item-004").exists()  # paused: no rescan
    _steer(ingest_runs.ingest_run_cancel, operator, IngestRun.objects.get())
    driver.cycle()
    assert IngestRun.objects.get().status == IngestRun.Status.CANCELLED


def _start_without_recording(sim, item: IngestItem, slug: str, *, really: bool) -> None:
    """What a worker killed between the upstream start and its write leaves: the item
    claimed (`starting`, no UUID), the transfer started upstream (or not)."""
    run = item.run
    claimed = ingest_cycle._claim(run, [slug], Counter(), timezone.now())
    assert [claimed_item.pk for claimed_item in claimed] == [item.pk]
    if really:
        pipeline = pipeline_get(slug)
        transfer_start_upstream(
            get_workflow_client(pipeline.client_config()),
            TransferRequest(pipeline=slug, location_uuid=run.source_location,
                            paths=(b"batch/" + bytes(item.path),), name=item.name,
                            processing_config="automated"),
        )  # fmt: skip
        # The registration the start made is lost with the worker too.
        Unit.objects.all().delete()


def _scanned_run(sim, operator, driver, count: int) -> IngestRun:
    sim.add_items(b"batch", count)
    run = create_run(operator, sim, **ONE_PIPELINE)
    IngestRun.objects.filter(pk=run.pk).update(status=IngestRun.Status.PAUSED)
    ingest_cycle.ingest_scan(run=run, now=timezone.now(), summary=ingest_cycle.CycleSummary())
    IngestRun.objects.filter(pk=run.pk).update(status=IngestRun.Status.RUNNING)
    run.refresh_from_db()
    return run


def test_a_start_whose_answer_was_lost_is_matched_by_name_and_never_started_again(
    sim, operator, driver
):
    run = _scanned_run(sim, operator, driver, 1)
    item = IngestItem.objects.get()
    _start_without_recording(sim, item, "p1", really=True)

    driver.until(lambda: IngestItem.objects.get().state in (S.STORED, S.FAILED), seconds=120)

    item.refresh_from_db()
    assert sim.starts()["p1"] == {"item-001": 1}
    assert item.attempts == 1
    upstream = [u for u in sim.views[0].workflow.units.values() if u.is_transfer]
    assert item.transfer_uuid == upstream[0].uuid
    assert run.pk == item.run_id


def test_a_lost_start_that_never_shows_up_fails_after_the_wait_and_asks_for_a_check(
    sim, operator, driver, settings
):
    settings.LOOKOUT_INGEST_LOST_START_SECONDS = 3
    _scanned_run(sim, operator, driver, 1)
    item = IngestItem.objects.get()
    _start_without_recording(sim, item, "p1", really=False)

    driver.cycle()
    item.refresh_from_db()
    assert item.state == S.STARTING
    assert "never started twice" in item.reason
    time.sleep(3.5)
    driver.cycle()

    item.refresh_from_db()
    assert item.state == S.FAILED
    assert "appeared within 3 s. Check the workflow service" in item.reason
    assert _starts(sim) == 0


def test_a_start_refused_with_a_5xx_is_retried_later_with_the_same_name(
    sim, operator, driver, monkeypatch
):
    monkeypatch.setattr(ingest_cycle, "BACKOFF_FIRST", 1)
    run = _scanned_run(sim, operator, driver, 1)
    for slug in sim.slugs:  # fresh: a stale pipeline would receive nothing
        unit_services.workflow_poll(pipeline=pipeline_get(slug))
    sim.sim.faults.update({"error_rate": 1.0})
    ingest_cycle.ingest_cycle()
    item = IngestItem.objects.get()
    assert item.state == S.QUEUED
    assert item.retry_at is not None and "did not go through" in item.reason
    assert item.attempts == 1

    sim.sim.faults.update({"error_rate": 0.0})
    time.sleep(1.2)
    driver.until(lambda: IngestItem.objects.get().state in (S.STORED, S.FAILED), seconds=120)

    item.refresh_from_db()
    assert item.attempts == 2
    assert sim.starts()["p1"] == {"item-001": 1}
    assert run.pk == item.run_id


def test_a_pipeline_out_of_its_window_or_stale_receives_nothing_and_the_run_says_why(
    sim, operator, driver
):
    sim.add_items(b"batch", 2)
    now = timezone.now()
    closed = f"{(now + timedelta(hours=2)):%H:%M}-{(now + timedelta(hours=3)):%H:%M}"
    run = create_run(operator, sim, **ONE_PIPELINE, window=closed)
    driver.cycle()
    driver.cycle()

    run.refresh_from_db()
    assert "Outside the run's window" in run.waits["p1"]
    assert _starts(sim) == 0

    IngestRun.objects.filter(pk=run.pk).update(window_start=None, window_end=None)
    ingest_cycle.ingest_cycle(now=now + timedelta(hours=1))  # no poll for an hour: stale
    run.refresh_from_db()
    assert "stale" in run.waits["p1"]
    assert _starts(sim) == 0


def test_stored_items_are_hidden_upstream_when_the_run_asks(sim, operator, driver):
    sim.add_items(b"batch", 3)
    create_run(operator, sim, hide_when_stored=True)
    driver.until(_all_final)
    driver.until(
        lambda: not IngestItem.objects.filter(state=S.STORED, hidden_upstream=False).exists()
    )

    stored = list(IngestItem.objects.filter(state=S.STORED))
    assert stored
    for item in stored:
        workflow = sim.views[sim.slugs.index(item.pipeline)].workflow
        assert workflow.by_uuid[item.transfer_uuid].hidden
        assert workflow.by_uuid[item.sip_uuid].hidden
        assert Unit.objects.get(uuid=item.transfer_uuid).hidden
    for item in IngestItem.objects.exclude(state=S.STORED):
        assert not item.hidden_upstream


def test_depth_two_takes_the_grandchildren_of_a_folder_of_accessions(sim, operator):
    with sim.sim.lock:
        tree = sim.sim.storage.source_trees[sim.location]
        for path in (b"acc-1/box-a/objects/x", b"acc-1/box-b.zip", b"acc-2/box-c/objects/y"):
            tree.add_file(b"accessions/" + path, 10)
        tree.add_file(b"accessions/readme.txt", 5)  # a file beside the accessions: ignored
    run = create_run(operator, sim, path=b"accessions", depth=2)

    ingest_cycle.ingest_scan(run=run, now=timezone.now(), summary=ingest_cycle.CycleSummary())

    items = list(IngestItem.objects.values_list("path_shown", "name", "number"))
    assert items == [("acc-1/box-a", "box-a", 1), ("acc-1/box-b.zip", "box-b", 2),
                     ("acc-2/box-c", "box-c", 3)]  # fmt: skip
