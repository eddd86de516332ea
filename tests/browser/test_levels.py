"""Levels of description and an arranged path's level in headless Chromium, against the
simulator; the fetches run in a thread, as the worker would run them."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator

import pytest
from django.db import connection

from dashboard import tasks
from dashboard.models import AuditEntry
from tests.browser.conftest import point_at_simulator, screenshot
from tests.browser.test_unit_pages import log_in
from tests.support.simulator_process import SimulatorProcess

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PATH = "/arrange/série 1/"


class TaskWorker:
    """Runs queued task calls in a thread of its own."""

    def __init__(self) -> None:
        self.jobs: queue.Queue = queue.Queue()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def for_task(self, task):
        return lambda *args: self.jobs.put((task, args))

    def stop(self) -> None:
        self.jobs.put(None)
        self.thread.join(timeout=10)

    def _run(self) -> None:
        try:
            while (job := self.jobs.get()) is not None:
                task, args = job
                task.run(*args)
        finally:
            connection.close()


@pytest.fixture
def lookout(settings, live_server, monkeypatch) -> Iterator[str]:
    worker = TaskWorker()
    for task in (tasks.fetch_levels, tasks.fetch_path_metadata):
        monkeypatch.setattr(task, "delay", worker.for_task(task))
    with SimulatorProcess(units=1, seed=5, speed=0) as sim:
        point_at_simulator(settings, sim)
        try:
            yield live_server.url
        finally:
            worker.stop()


def test_an_admin_reads_and_sets_a_paths_level_and_fetches_the_levels_again(page, lookout):
    log_in(page, lookout, "ada", role="admin")

    page.goto(f"{lookout}/processing-configurations/")
    page.get_by_role("link", name="levels of description").click()
    levels = page.locator("ol.levels")
    levels.get_by_text("Sub-fonds").wait_for()
    screenshot(page, "levels-list")

    page.get_by_label("Arranged path").fill(PATH)
    page.get_by_role("button", name="Show its level").click()
    page.locator(".path-level").wait_for()
    assert page.locator(".path-level").inner_text() == "none set"
    page.get_by_label("Level of description").select_option(label="Series")
    page.get_by_role("button", name="Set the level").click()

    page.locator(".messages").get_by_text("to Series").wait_for()
    assert page.locator(".path-level").inner_text() == "Series"
    screenshot(page, "levels-path-set")

    page.get_by_role("button", name="Fetch the levels again from the access system").click()
    page.locator(".messages").wait_for()
    assert "fetched 8 levels of description" in page.locator(".messages").inner_text()
    screenshot(page, "levels-fetched")
    outcomes = dict(AuditEntry.objects.values_list("action", "outcome"))
    assert outcomes == {"path_level_set": "done", "levels_fetch": "done"}
