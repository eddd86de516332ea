"""The storage pages in headless Chromium, against the simulator's storage service."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from dashboard import tasks
from dashboard.lib import vocabulary
from dashboard.models import StoragePackage
from dashboard.services import storage as storage_services
from tests.browser.conftest import screenshot
from tests.support.simulator_process import SimulatorProcess
from tests.support.users import PASSWORD, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def lookout(settings, live_server, monkeypatch) -> Iterator[str]:
    """Lookout on a live server after one storage poll of a running simulator."""
    # No worker here: queued tasks run at once, in the server's thread.
    monkeypatch.setattr(tasks.check_package_fixity, "delay", tasks.check_package_fixity.run)
    monkeypatch.setattr(tasks.fetch_package_details, "delay", tasks.fetch_package_details.run)
    monkeypatch.setattr("dashboard.tasks.poll_storage_enqueue", lambda: None)
    with SimulatorProcess(packages=300, units=5, seed=31) as sim:
        settings.LOOKOUT_STORAGE = {"url": sim.storage_url, "user": sim.user, "key": sim.key}
        assert storage_services.storage_poll().ok
        yield live_server.url


def log_in(page, base_url: str, username: str) -> None:
    make_user(username, "operator", email=f"{username}@example.org")
    page.goto(f"{base_url}/accounts/login/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base_url}/")


def test_an_operator_browses_storage_and_checks_a_package(page, lookout):
    log_in(page, lookout, "sofia")

    page.goto(f"{lookout}/storage/")
    assert page.get_by_role("heading", name=re.compile("AIP storage")).is_visible()
    assert page.locator("meter").count() > 0
    screenshot(page, "storage-overview")

    # Browse the default transfer source into a folder with a name that is not UTF-8.
    page.get_by_role("link", name="Default transfer source").click()
    page.get_by_role("link", name="legacy-encodings").click()
    page.get_by_role("link", name="objects").click()
    page.wait_for_url(re.compile(r"\?path="))
    listing = page.locator("#browse-listing")
    listing.get_by_text("Not a UTF-8 name").wait_for()
    assert "caf\\xe9-menu-1962.txt" in listing.inner_text()
    assert "legacy-encodings" in page.locator(".path-crumbs").inner_text()
    screenshot(page, "storage-browse")

    # A damaged ?path= says so, and offers the top folder instead of showing it.
    page.goto(page.url.split("?")[0] + "?path=not*base64")
    listing.get_by_text("The folder in the address (?path=…) is not valid").wait_for()
    assert "legacy-encodings" not in listing.inner_text()
    screenshot(page, "storage-browse-bad-path")
    listing.get_by_role("link", name="Browse from the top of this location").click()
    listing.get_by_role("link", name="legacy-encodings").wait_for()

    # Filter the package list down to AIPs that are stored.
    page.goto(f"{lookout}/storage/packages/")
    page.get_by_label("Type").select_option("AIP")
    page.get_by_label("Status").select_option("UPLOADED")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url(re.compile(r"package_type=AIP"))
    expected = StoragePackage.objects.filter(package_type="AIP", status="UPLOADED").count()
    matches = vocabulary.plural(expected, "matches", "match")
    page.get_by_text(
        f"{vocabulary.count_noun(expected, 'package')} {matches} the filters"
    ).wait_for()
    # Words from the one vocabulary: status labels and 1024-based sizes.
    assert page.locator("table.packages").get_by_text("Uploaded").count() > 0
    assert re.search(r"\d\.\d (KiB|MiB|GiB)", page.locator("table.packages").inner_text())
    screenshot(page, "storage-packages")

    # Open one and run a fixity check; the result lands in its history.
    page.locator("table.packages tbody th a").first.click()
    page.get_by_role("heading", name="Fixity history").wait_for()
    page.get_by_role("link", name="Check fixity…").click()
    page.get_by_role("button", name="Check fixity").click()
    page.get_by_text("Queued; the result appears").wait_for()
    page.locator("table.fixity").get_by_text(re.compile("Passed|Failed")).wait_for()
    page.get_by_text("Pointer file").first.wait_for()
    screenshot(page, "storage-package-detail")


def test_the_storage_pages_fit_a_phone_screen(browser, lookout):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone = context.new_page()
    try:
        log_in(phone, lookout, "pia")
        package = StoragePackage.objects.filter(package_type="AIP").first()
        for path, name in (
            ("/storage/", "phone-storage"),
            ("/storage/packages/", "phone-packages"),
            (f"/storage/packages/{package.uuid}/", "phone-package"),
        ):
            phone.goto(f"{lookout}{path}")
            overflow = phone.evaluate(
                "document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            screenshot(phone, name)
            assert overflow <= 0, f"{path} scrolls sideways on a phone by {overflow}px"
    finally:
        context.close()
