"""axe-core over every page, in light and dark mode, on a desktop and a phone screen,
against the simulator.

axe-core (vendored under tests/browser/vendor/, never served by Lookout) is injected into
each page; any violation axe rates serious or critical fails the test, with every one
listed: the page, the rule, what to fix and the elements it found. A page that scrolls
sideways fails it too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.utils import timezone

from dashboard import tasks
from dashboard.lib.pipelines import pipeline_list
from dashboard.models import AuditEntry, IngestItem, IngestRun, StoragePackage, Unit
from dashboard.selectors import storage as storage_selectors
from dashboard.services import storage as storage_services
from dashboard.services import units as unit_services
from tests.browser.conftest import log_in, screenshot
from tests.support.simulator_process import SimulatorProcess
from tests.support.users import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")
SCHEMES = ("light", "dark")
SIZES = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture
def lookout(settings, live_server, monkeypatch) -> Iterator[str]:
    """Lookout after one poll of each service: units of every kind, packages, an audit row."""
    # No worker: what a page queues runs at once, so the page has it on the next load.
    monkeypatch.setattr("dashboard.tasks.poll_pipeline_enqueue", lambda pipeline: None)
    monkeypatch.setattr("dashboard.tasks.poll_storage_enqueue", lambda: None)
    monkeypatch.setattr(tasks.fetch_package_details, "delay", tasks.fetch_package_details.run)
    monkeypatch.setattr(tasks.fetch_processing_config, "delay", tasks.fetch_processing_config.run)
    with SimulatorProcess(speed=0, units=30, packages=20, seed=11) as sim:
        settings.LOOKOUT_PIPELINES = [
            {
                "slug": "default",
                "name": "Simulated pipeline",
                "url": sim.workflow_url,
                "user": sim.user,
                "key": sim.key,
                "processing_configs": ["default", "automated"],
            }
        ]
        settings.LOOKOUT_STORAGE = {"url": sim.storage_url, "user": sim.user, "key": sim.key}
        pipeline = pipeline_list()[0]
        unit_services.workflow_poll(pipeline=pipeline)
        unit_services.jobs_refresh(pipeline=pipeline)
        assert storage_services.storage_poll().ok
        yield live_server.url


def pages_to_check() -> list[tuple[str, str]]:
    """(name, path) of every page a person reads, with a real unit and package in them."""
    failed = Unit.objects.filter(status="FAILED").first() or Unit.objects.first()
    package = StoragePackage.objects.filter(package_type="AIP").first()
    assert failed is not None and package is not None, "the simulator seeds units and packages"
    AuditEntry.objects.create(
        idempotency_key="a11y-audit-row",
        actor_name="ada",
        action="approve_transfer",
        pipeline="default",
        target_kind="unit",
        target=failed.uuid,
        target_label=failed.name,
        requested_at=timezone.now(),
        finished_at=timezone.now(),
        outcome="done",
    )
    run = _ingest_run(failed)
    source = storage_selectors.location_list(purpose="TS")[0].uuid
    return [
        ("overview", "/"),
        ("units", "/units/"),
        ("unit", f"/units/{failed.uuid}/"),
        ("waiting", "/waiting/"),
        ("storage", "/storage/"),
        ("packages", "/storage/packages/"),
        ("package", f"/storage/packages/{package.uuid}/"),
        ("audit", "/audit/"),
        ("wall", "/wall/"),
        ("analytics", "/analytics/"),
        ("alerts", "/alerts/"),
        ("start-transfer", "/transfers/start/"),
        ("configurations", "/pipelines/default/processing-configurations/"),
        ("configuration", "/pipelines/default/processing-configurations/automated/"),
        ("search", "/search/?q=a"),
        ("wall-links", "/wall/links/"),
        ("alert-settings", "/alerts/settings/"),
        ("ingest-runs", "/ingest-runs/"),
        ("ingest-run", f"/ingest-runs/{run.pk}/"),
        ("new-ingest-run", "/ingest-runs/new/"),
        ("ingest-run-settings", f"/ingest-runs/new/details/?location={source}&folder=YmF0Y2g"),
    ]


def _ingest_run(unit: Unit) -> IngestRun:
    """A running run with an item in each state, the first one linked to a real unit."""
    run = IngestRun.objects.create(
        name="Backlog 2026",
        source_location="",
        path=b"batch",
        path_shown="batch",
        pipelines=["default"],
        processing_configs={"default": "automated"},
        status=IngestRun.Status.RUNNING,
        waits={"default": "The most transfers in flight (2) are running."},
        created_at=timezone.now(),
        started_at=timezone.now(),
    )
    for number, state in enumerate(IngestItem.State.values, start=1):
        IngestItem.objects.create(
            run=run,
            path=f"item-{number}".encode(),
            path_shown=f"item-{number}",
            name=f"item-{number}",
            number=number,
            state=state,
            pipeline="default",
            transfer_uuid=unit.uuid if number == 1 else None,
            reason="The transfer failed." if state == "failed" else "",
        )
    return run


def axe_violations(page) -> list[dict]:
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("async () => await axe.run(document)")
    assert result["passes"], f"axe-core checked nothing on {page.url}"
    return [v for v in result["violations"] if v["impact"] in BLOCKING]


def describe(name: str, violations: list[dict]) -> str:
    lines = []
    for v in violations:
        lines.append(f"{name}: [{v['impact']}] {v['id']}: {v['help']} ({v['helpUrl']})")
        for node in v["nodes"][:8]:
            lines.append(f"    {' '.join(node['target'])}: {node['failureSummary']}")
            lines.append(f"      {node['html'][:200]}")
    return "\n".join(lines)


def sideways(page) -> str:
    """How far the page scrolls sideways, as a finding; nothing when it does not."""
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    return f"{page.url}: scrolls sideways by {overflow}px" if overflow > 0 else ""


def findings_on_every_page(context, base_url: str, label: str) -> str:
    """axe-core and the sideways check over the login page and every page an admin reads,
    with a screenshot of each named after `label`."""
    page = context.new_page()
    found: list[str] = []
    page.goto(f"{base_url}/accounts/login/")
    found += [describe("login", axe_violations(page)), sideways(page)]
    screenshot(page, f"a11y-{label}-login")
    log_in(page, base_url, "ada")
    for name, path in pages_to_check():
        response = page.goto(f"{base_url}{path}")
        assert response is not None and response.ok, f"{path}: {response and response.status}"
        page.wait_for_load_state("networkidle")
        found += [describe(name, axe_violations(page)), sideways(page)]
        screenshot(page, f"a11y-{label}-{name}")
    return "\n".join(line for line in found if line)


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("scheme", SCHEMES)
def test_it_finds_no_serious_violation_on_any_page(browser, lookout, scheme, size):
    make_user("ada", "admin", is_staff=True, is_superuser=True)
    # The CSP rightly refuses axe's injected script; only this test's browser skips it.
    context = browser.new_context(
        viewport=SIZES[size], is_mobile=size == "phone", color_scheme=scheme, bypass_csp=True
    )
    context.set_default_timeout(30_000)
    try:
        report = findings_on_every_page(context, lookout, f"{scheme}-{size}")
    finally:
        context.close()

    assert not report, f"serious or critical violations ({scheme}, {size}):\n{report}"


def test_it_finds_no_serious_violation_in_french(browser, lookout):
    """Longer words and another `lang`: labels, names and contrast hold in French too."""
    make_user("ada", "admin", is_staff=True, is_superuser=True)
    context = browser.new_context(viewport=SIZES["desktop"], locale="fr-FR", bypass_csp=True)
    context.set_default_timeout(30_000)
    try:
        page = context.new_page()
        page.goto(f"{lookout}/accounts/login/")
        assert page.evaluate("document.documentElement.lang") == "fr"
        report = findings_on_every_page(context, lookout, "fr-desktop")
    finally:
        context.close()

    assert not report, f"serious or critical violations in French:\n{report}"
