"""Processing configurations in headless Chromium, against the simulator.

Fetches run in a thread as the worker would, so the page shows "Loading…" first and
then the decisions in words, fetched from the simulator's real XML.
"""

from __future__ import annotations

import queue
import re
import threading
from collections.abc import Iterator

import pytest

from dashboard import tasks
from tests.browser.conftest import point_at_simulator, screenshot
from tests.browser.test_storage_pages import log_in
from tests.support.simulator_process import SimulatorProcess

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class ConfigWorker:
    def __init__(self) -> None:
        self.jobs: queue.Queue[tuple | None] = queue.Queue()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def delay(self, *args: object) -> None:
        self.jobs.put(args)

    def stop(self) -> None:
        self.jobs.put(None)
        self.thread.join(timeout=10)

    def _run(self) -> None:
        while (args := self.jobs.get()) is not None:
            tasks.fetch_processing_config.run(*args)


@pytest.fixture
def lookout(settings, live_server, monkeypatch) -> Iterator[str]:
    worker = ConfigWorker()
    monkeypatch.setattr(tasks.fetch_processing_config, "delay", worker.delay)
    with SimulatorProcess(units=2, seed=3, speed=0) as sim:
        point_at_simulator(settings, sim, processing_configs=["default", "automated", "nightly"])
        try:
            yield live_server.url
        finally:
            worker.stop()


def test_a_viewer_reads_and_compares_processing_configurations(page, lookout):
    log_in(page, lookout, "pia")

    page.get_by_role("link", name="Processing configurations", exact=True).click()
    page.wait_for_url(re.compile(r"/pipelines/default/processing-configurations/$"))
    live = page.locator("#configs-live")
    live.get_by_text("29 decisions").wait_for()
    live.get_by_text("The workflow service has no configuration by this name.").wait_for()
    screenshot(page, "processing-configs-list")

    page.get_by_role("link", name="automated").click()
    table = page.locator("#config-live table")
    table.wait_for()
    row = table.locator("tr", has_text="Select compression algorithm")
    assert "7z using bzip2" in row.inner_text()
    assert "Normalize for preservation and access" in table.inner_text()
    with page.expect_download() as download:
        page.get_by_role("link", name="Download the XML").click()
    assert download.value.suggested_filename == "default-automated.xml"
    screenshot(page, "processing-config-detail")

    page.goto(f"{lookout}/pipelines/default/processing-configurations/")
    page.get_by_label("Compare").select_option("default")
    page.get_by_label("with").select_option("automated")
    page.get_by_role("button", name="Compare").click()
    compared = page.locator("#compare-live table")
    compared.wait_for()
    assert "Asked at run time" in compared.inner_text()
    assert "decisions differ" in page.locator("#compare-live").inner_text()
    screenshot(page, "processing-config-compare")
