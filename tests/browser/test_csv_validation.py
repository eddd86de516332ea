"""CSV validation in headless Chromium, against the simulator's validators."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dashboard.models import AuditEntry
from tests.browser.conftest import point_at_simulator, screenshot
from tests.browser.test_storage_pages import log_in
from tests.support.simulator_process import SimulatorProcess

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NAME = "droits “1962”.csv"


@pytest.fixture
def lookout(settings, live_server) -> Iterator[str]:
    settings.LOOKOUT_CSV_MAX_BYTES = 2048
    with SimulatorProcess(units=1, seed=3, speed=0) as sim:
        point_at_simulator(settings, sim, name="Sim")
        yield live_server.url


def test_an_operator_validates_a_csv_and_a_too_large_file_is_stopped(page, lookout):
    log_in(page, lookout, "cleo")
    page.get_by_role("link", name="Validate CSV").click()
    page.wait_for_url(f"{lookout}/csv/validate/")
    page.wait_for_load_state("load")

    # Too large: the browser refuses before anything is sent.
    page.get_by_label("CSV file").set_input_files(
        files=[{"name": "big.csv", "mimeType": "text/csv", "buffer": b"x" * 5000}]
    )
    page.get_by_text("larger than the 2.0 KiB Lookout accepts").wait_for()
    page.get_by_role("button", name="Validate").click()
    assert not AuditEntry.objects.exists()
    screenshot(page, "csv-validation-too-large")

    page.get_by_label("Validator").select_option("rights")
    page.get_by_label("CSV file").set_input_files(
        files=[
            {"name": NAME, "mimeType": "text/csv", "buffer": b"file,basis\nobjects/a.tif,whim\n"}
        ]
    )
    page.get_by_role("button", name="Validate").click()
    page.get_by_role("heading", name=f"Not valid: {NAME}").wait_for()
    assert "Row 2: basis must be one of copyright" in page.locator(".csv-verdict").inner_text()
    screenshot(page, "csv-validation-invalid")
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.target_label) == ("csv_validate", NAME)
