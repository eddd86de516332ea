"""Headless Chromium (Debian's package) driven by Playwright, for the browser tests.

Screenshots land in test-artifacts/ (kept by CI as artifacts); every test also saves
one of the page as it was when the test ended.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in this thread; the ORM calls the tests make
# around it are still plain synchronous code.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def chromium_path() -> str:
    found = shutil.which("chromium") or (
        "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
    )
    if found is None:
        pytest.fail("Chromium is not installed: run `make test` or `apt-get install chromium`")
    return found


@pytest.fixture(autouse=True)
def _live_server_connections_in_autocommit(request: pytest.FixtureRequest) -> None:
    """The live server keeps, for the whole session, the in-memory SQLite connection it
    shares with the test thread. Once a CI run found it left outside autocommit by an
    earlier test in the same process, and every later action's `on_commit` failed with
    a 500. Each browser test starts with it in autocommit again."""
    if "live_server" not in request.fixturenames:
        return
    from django.db import connections

    server = request.getfixturevalue("live_server")
    shared = [*server.thread.connections_override.values(), *connections.all()]
    for conn in shared:
        if conn.connection is not None and not conn.in_atomic_block and not conn.get_autocommit():
            conn.set_autocommit(True)


@pytest.fixture(scope="session", autouse=True)
def _js_catalogs() -> None:
    """The pages load static/jsi18n/<language>/djangojs.js: written once, before the live
    server's WhiteNoise lists the static files."""
    from io import StringIO

    from django.core.management import call_command

    call_command("build_js_catalogs", stdout=StringIO())


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=CHROMIUM_FLAGS
        )
        yield launched
        launched.close()


@pytest.fixture
def page(browser, request: pytest.FixtureRequest) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    # Generous: a loaded 2-core machine can take seconds for a poll and a page.
    context.set_default_timeout(30_000)
    opened = context.new_page()
    yield opened
    ARTIFACTS.mkdir(exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.nodeid.split("::")[-1])
    try:
        opened.screenshot(path=str(ARTIFACTS / f"{name}-end.png"), full_page=True)
    finally:
        context.close()


def screenshot(page, name: str, *, full_page: bool = True) -> Path:
    """Save a named screenshot as a test artifact and return its path."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def csp_violations(page) -> list[str]:
    """Collects, from now on, every console line in which the browser reports a
    Content-Security-Policy violation."""
    found: list[str] = []
    page.on(
        "console",
        lambda message: (
            found.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    return found


def point_at_simulator(settings, sim, *, name: str = "Simulated pipeline", **extra: object) -> None:
    """One pipeline, and the storage service, on a running `SimulatorProcess`."""
    settings.LOOKOUT_PIPELINES = [
        {
            "slug": "default",
            "name": name,
            "url": sim.workflow_url,
            "user": sim.user,
            "key": sim.key,
            **extra,
        }
    ]
    settings.LOOKOUT_STORAGE = {"url": sim.storage_url, "user": sim.user, "key": sim.key}


def log_in(page, base_url: str, username: str) -> None:
    """Log in through the login form, as a person does; lands on the overview."""
    from tests.support.users import PASSWORD

    page.goto(f"{base_url}/accounts/login/")
    # By the fields' ids: the form is in whatever language the browser asks for.
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill(PASSWORD)
    page.locator("form.stacked-form button[type=submit]").click()
    page.wait_for_url(f"{base_url}/")
