"""Every page a signed-in admin opens, the wall and the login page, in French, Spanish and
Brazilian Portuguese: `<html lang>` names the language and no English interface text is
left beside the names the services give.

Lookout runs against the simulator after one poll of each service. The visible text nodes
(and the titles, labels and placeholders a screen reader says) are collected, and what
comes from upstream (unit, job, group, decision, location and pipeline names), numbers,
dates and UUIDs are dropped. What remains fails when it is an English message of the
language's catalog whose translation differs, or holds a common English interface word.
Screenshots of every page are saved per language at 1920x1080, and of the wall, the units
table and the transfer form on a phone.
"""

from __future__ import annotations

import ast
import functools
import gettext
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from dashboard import tasks
from dashboard.lib.pipelines import pipeline_list
from dashboard.models import (
    Alert,
    AuditEntry,
    PackageDetails,
    StoragePackage,
    StorageSummary,
    Unit,
    UnitJobs,
)
from dashboard.services import alerts as alert_services
from dashboard.services import storage as storage_services
from dashboard.services import units as unit_services
from dashboard.services import wall_links
from tests.browser.conftest import log_in, point_at_simulator, screenshot
from tests.support.simulator_process import SimulatorProcess
from tests.support.users import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
# (what the browser asks for, `<html lang>`, the folder in locale/)
LANGUAGES = [("fr-FR", "fr", "fr"), ("es-ES", "es", "es"), ("pt-BR", "pt-br", "pt_BR")]
PIPELINE_NAME = "Ålesund-kjede Ø7"
DESKTOP = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}
# Words an English interface says and none of the three languages writes the same way.
# A word a language's own translations use (a loan word) is dropped for that language.
ENGLISH_WORDS_TEXT = """
    the and with from for this that these those your you are was were has have been will
    not into only when where which what who than then there here about after before more
    less every each none never always today yesterday ago minutes minute hours hour days
    seconds second weeks unit units waiting failed completed complete processing stored
    search settings download upload approve reject cancel save apply remove delete add
    create edit loading refresh retry browse start started stop show hide hidden open
    closed resolved silenced sign log logout login password username user users name
    status storage package packages location locations space spaces alerts alert
    overview jobs job group groups pipeline pipelines transfers transfer ingest
    analytics audit tokens token token's wall links link language languages page next
    previous first last all any some other newest oldest size free used total count
    summary details decision decisions choose chosen select selected compare with
    configuration configurations default automated back home help error errors warning
    unknown none yes no nothing found empty since until duration average throughput
    kind target largest smallest week weeks month months year years per peak
"""
ENGLISH_WORDS = frozenset(ENGLISH_WORDS_TEXT.split())
NOT_TEXT = re.compile(
    r"^[\s\d.,:;%/+\-–—×()#·…|<>=«»\"'’]*$"  # numbers, times, punctuation
)
WORD = re.compile(r"[^\W\d_]+")
# A key Lookout shows as it stores it ("unit:default:<uuid>"), read as a code.
MACHINE_KEY = re.compile(r"^[a-z_]+(:[\w.-]+)+$")
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]|\{\w*\}")

VISIBLE_TEXT = """root => {
  const scope = document.querySelector(root) || document.body;
  const out = [];
  const merged = new Set();
  const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const el = walker.currentNode.parentElement;
    if (!el || el.closest('script,style,noscript,template,code,pre,svg')) continue;
    if (!el.getClientRects().length) continue;  // not shown
    // A name split for wrapping (<wbr>) is read whole.
    if ([...el.children].some(c => c.tagName === 'WBR')) {
      if (!merged.has(el)) { merged.add(el); out.push(el.textContent); }
      continue;
    }
    out.push(walker.currentNode.textContent);
  }
  const said = '[title],[aria-label],[placeholder],[alt],[data-label],input[type=submit],'
    + 'input[type=button]';
  for (const el of scope.querySelectorAll(said)) {
    for (const a of ['title', 'aria-label', 'placeholder', 'alt', 'data-label']) {
      if (el.hasAttribute(a)) out.push(el.getAttribute(a));
    }
    if (el.matches('input[type=submit],input[type=button]')) out.push(el.value);
  }
  if (root === 'body') out.push(document.title);
  return out.map(t => t.replace(/\\s+/g, ' ').trim()).filter(Boolean);
}"""


@dataclass(frozen=True)
class Catalog:
    """A language's compiled catalogs (django and djangojs): English message to its
    translation, and the words its translations use."""

    exact: dict[str, str]
    patterns: list[tuple[re.Pattern[str], str]]
    words: frozenset[str]

    @classmethod
    def load(cls, folder: str) -> Catalog:
        exact: dict[str, str] = {}
        for domain in ("django", "djangojs"):
            mo = ROOT / "locale" / folder / "LC_MESSAGES" / f"{domain}.mo"
            assert mo.exists(), f"{mo.relative_to(ROOT)} is missing: run `make messages`"
            with mo.open("rb") as file:
                raw: dict[Any, str] = gettext.GNUTranslations(file)._catalog  # type: ignore[attr-defined]
            plurals = {key[0]: value for key, value in raw.items() if isinstance(key, tuple)}
            for key, value in [*raw.items(), *plurals.items()]:
                if isinstance(key, str) and key:
                    exact.setdefault(key.split("\x04")[-1], value)
        patterns = []
        for msgid, translated in exact.items():
            literal = PLACEHOLDER.sub(" ", msgid)
            if PLACEHOLDER.search(msgid) and len(re.findall(r"[A-Za-z]{3,}", literal)) >= 2:
                parts = [re.escape(p) for p in PLACEHOLDER.split(msgid)]
                patterns.append((re.compile("^" + "(.+?)".join(parts) + "$"), translated))
        # Placeholders and markup are not words the reader sees.
        shown = (PLACEHOLDER.sub(" ", re.sub(r"<[^>]*>", " ", t)) for t in exact.values())
        words = frozenset(w.lower() for t in shown for w in re.findall(r"\w+", t))
        return cls(exact, patterns, words)

    def english(self, text: str) -> str | None:
        """The English message `text` is, when its translation reads otherwise."""
        # A form's label ends in the language's suffix (" :" in French).
        for message in dict.fromkeys((text, text.rstrip(" :\u00a0"))):
            translated = self.exact.get(message)
            if translated is not None:
                # The same word in both languages ("Mode", "Type") is not English left.
                return f"msgid {message!r}" if translated != message else None
        for pattern, translated in self.patterns:
            if pattern.match(text) and not re.match(pattern.pattern, translated):
                return f"msgid pattern {pattern.pattern!r}"
        return None


@functools.cache
def workflow_words() -> frozenset[str]:
    """The simulator's workflow words (jobs, groups, decisions, choices), as the workflow
    service stores them in English."""
    found: set[str] = set()
    for source in [
        ROOT / "dashboard" / "lib" / "decision_points.py",
        *sorted((ROOT / "simulator").glob("*.py")),
    ]:
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.add(node.value)
    return frozenset(found)


def upstream_names() -> list[str]:
    """Every name the services gave this Lookout, longest first: the workflow's words and
    what the polls stored."""
    found = set(workflow_words())
    for unit in Unit.objects.all():
        found.update([unit.name, unit.microservice, unit.decision, unit.path, unit.directory])
    for stored in [
        *UnitJobs.objects.values_list("jobs", flat=True),
        *StorageSummary.objects.values_list("data", flat=True),
        *PackageDetails.objects.values_list("files", flat=True),
    ]:
        found.update(strings_in(stored))
    for package in StoragePackage.objects.values():
        found.update(v for v in package.values() if isinstance(v, str))
    found.add(PIPELINE_NAME)
    return sorted((n.strip() for n in found if n and len(n.strip()) >= 2), key=len, reverse=True)


def strings_in(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def english_left(texts: Iterable[str], catalog: Catalog, upstream: list[str]) -> list[str]:
    """The texts that are English interface words, each with why."""
    names = set(upstream)
    common = ENGLISH_WORDS - catalog.words
    found = []
    for text in dict.fromkeys(texts):
        if text in names or NOT_TEXT.match(text) or UUID.fullmatch(text) or MACHINE_KEY.match(text):
            continue
        why = catalog.english(text)
        if why is None:
            words = [w for w in WORD.findall(UUID.sub(" ", text)) if w.lower() in common]
            if words:  # unless each is part of an upstream name the text holds
                named = {w for n in upstream if len(n) >= 4 and n in text for w in WORD.findall(n)}
                words = [w for w in words if w not in named]
            why = f"English words {words}" if words else None
        if why:
            found.append(f"{text!r}: {why}")
    return found


@pytest.fixture(scope="module")
def simulator() -> Iterator[SimulatorProcess]:
    with SimulatorProcess(speed=0, units=24, packages=20, seed=7) as sim:
        yield sim


@pytest.fixture
def lookout(settings, live_server, monkeypatch, simulator) -> str:
    """Lookout after one poll of each service, with alerts evaluated and an audit row."""
    monkeypatch.setattr("dashboard.tasks.poll_pipeline_enqueue", lambda pipeline: None)
    monkeypatch.setattr("dashboard.tasks.poll_storage_enqueue", lambda: None)
    monkeypatch.setattr(tasks.fetch_package_details, "delay", tasks.fetch_package_details.run)
    monkeypatch.setattr(tasks.fetch_processing_config, "delay", tasks.fetch_processing_config.run)
    monkeypatch.setattr(tasks.fetch_location_listing, "delay", tasks.fetch_location_listing.run)
    point_at_simulator(
        settings, simulator, name=PIPELINE_NAME, processing_configs=["default", "automated"]
    )
    pipeline = pipeline_list()[0]
    unit_services.workflow_poll(pipeline=pipeline)
    unit_services.jobs_refresh(pipeline=pipeline)
    assert storage_services.storage_poll().ok
    # A failure, as the next poll would store it, for the alert pages to show.
    failed = Unit.objects.filter(kind="transfer").first()
    assert failed is not None, "the simulator seeds units"
    Unit.objects.filter(pk=failed.pk).update(
        status="FAILED", failed_job="Normalize", failed_at=timezone.now() - timedelta(hours=1)
    )
    alert_services.alert_rules_ensure_defaults()
    alert_services.alerts_evaluate()
    return live_server.url


def pages(wall_token: str) -> list[tuple[str, str, str]]:
    """(name, path, the part of the page that is Lookout's) of every page an admin opens."""
    unit = Unit.objects.filter(status="FAILED").first() or Unit.objects.first()
    jobs = UnitJobs.objects.exclude(jobs=[]).first()
    package = StoragePackage.objects.filter(package_type="AIP").first()
    alert = Alert.objects.first()
    assert unit and jobs and package and alert, "the simulator seeds units, jobs, packages"
    AuditEntry.objects.create(
        idempotency_key="i18n-audit-row",
        actor_name="ada",
        action="approve_transfer",
        pipeline="default",
        target_kind="unit",
        target=unit.uuid,
        target_label=unit.name,
        outcome="done",
        requested_at=alert.seen_at,
        finished_at=alert.seen_at,
    )
    configs = "/pipelines/default/processing-configurations"
    return [
        ("overview", "/", "body"),
        ("units", "/units/", "body"),
        ("unit", f"/units/{unit.uuid}/", "body"),
        ("job", f"/units/{jobs.unit.uuid}/jobs/{jobs.jobs[0]['uuid']}/", "body"),
        ("waiting", "/waiting/", "body"),
        ("analytics", "/analytics/", "body"),
        ("configurations", f"{configs}/", "body"),
        ("configuration", f"{configs}/automated/", "body"),
        ("compare", f"{configs}/compare/?first=default&second=automated", "body"),
        ("storage", "/storage/", "body"),
        ("location", f"/storage/locations/{package.current_location_uuid}/", "body"),
        ("packages", "/storage/packages/", "body"),
        ("package", f"/storage/packages/{package.uuid}/", "body"),
        ("alerts", "/alerts/", "body"),
        ("alert", f"/alerts/{alert.pk}/", "body"),
        ("alert-settings", "/alerts/settings/", "body"),
        ("audit", "/audit/", "body"),
        ("wall-links", "/wall/links/", "body"),
        ("wall", "/wall/", "body"),
        ("wall-link", f"/wall/{wall_token}/", "body"),
        ("api-tokens", "/accounts/tokens/", "body"),
        ("csv", "/csv/validate/", "body"),
        ("start-transfer", "/transfers/start/", "body"),
        # The API explorer itself is a vendored English tool: only Lookout's bar around it.
        ("api-docs", "/api/docs/", ".api-docs-bar"),
    ]


def read(page, root: str) -> list[str]:
    page.wait_for_load_state("networkidle")
    return page.evaluate(VISIBLE_TEXT, root)


@pytest.mark.parametrize(("locale", "lang", "folder"), LANGUAGES, ids=[x[1] for x in LANGUAGES])
def test_every_page_is_in_the_browsers_language(browser, lookout, locale, lang, folder):
    catalog = Catalog.load(folder)
    make_user("ada", "admin", is_staff=True, is_superuser=True)
    make_user("nemo")  # signed in, with no role
    token = wall_links.wall_link_create(name="Lesesal Ø", language=lang, actor_name="ada").token
    found: list[str] = []

    def check(page, name: str, root: str = "body") -> None:
        page_lang = page.evaluate("document.documentElement.lang")
        if page_lang != lang:
            found.append(f"{name}: <html lang={page_lang!r}>")
        found.extend(f"{name}: {line}" for line in english_left(read(page, root), catalog, names))

    context = browser.new_context(viewport=DESKTOP, locale=locale)
    context.set_default_timeout(30_000)
    page = context.new_page()
    try:
        names = upstream_names()
        page.goto(f"{lookout}/accounts/login/")
        check(page, "login")
        screenshot(page, f"i18n-{lang}-login", full_page=False)
        log_in(page, lookout, "ada")
        for name, path, root in pages(token):
            response = page.goto(f"{lookout}{path}")
            assert response is not None and response.ok, f"{path}: {response and response.status}"
            names = upstream_names()  # a page may have fetched more (details, listings)
            check(page, name, root)
            screenshot(page, f"i18n-{lang}-{name}", full_page=False)
        context.clear_cookies()
        log_in(page, lookout, "nemo")  # signed in, with no role: the no-access page
        check(page, "no-access")
        screenshot(page, f"i18n-{lang}-no-access", full_page=False)
    finally:
        context.close()

    report = "\n".join(found)
    assert not report, f"English left on the {lang} pages:\n{report}"


@pytest.mark.parametrize(("locale", "lang"), [("en-US", "en"), ("fr-FR", "fr"), ("pt-BR", "pt-br")])
def test_the_longest_words_fit_a_phone(browser, lookout, locale, lang):
    """The wall, a table page and a form page on a phone: nothing scrolls sideways and no
    button or heading cuts its words."""
    make_user("ada", "admin", is_staff=True, is_superuser=True)
    token = wall_links.wall_link_create(name="Lesesal Ø", language=lang, actor_name="ada").token
    context = browser.new_context(viewport=PHONE, locale=locale, is_mobile=True)
    context.set_default_timeout(30_000)
    page = context.new_page()
    found: list[str] = []
    try:
        log_in(page, lookout, "ada")
        for name, path in [
            ("wall", f"/wall/{token}/"),
            ("units", "/units/"),
            ("start-transfer", "/transfers/start/"),
        ]:
            page.goto(f"{lookout}{path}")
            page.wait_for_load_state("networkidle")
            found.extend(f"{name}: {problem}" for problem in page.evaluate(CUT_WORDS))
            screenshot(page, f"i18n-{lang}-phone-{name}", full_page=False)
    finally:
        context.close()

    assert not found, f"words that do not fit a phone in {lang}:\n" + "\n".join(found)


CUT_WORDS = """() => {
  // Clipped to nothing on purpose (a table's header row on a phone, a hidden label).
  const forScreenReaders = el => {
    for (let e = el; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.position === 'absolute' && style.clip !== 'auto') return true;
    }
    return false;
  };
  const out = [];
  const wide = document.documentElement.scrollWidth - document.documentElement.clientWidth;
  if (wide > 0) out.push(`the page scrolls sideways by ${wide}px`);
  for (const el of document.querySelectorAll('button, .button, h1, h2, h3, th, label, nav a')) {
    if (!el.getClientRects().length || el.clientWidth <= 1) continue;
    const style = getComputedStyle(el);
    if (forScreenReaders(el)) continue;
    if (style.overflowX === 'hidden' && style.textOverflow === 'ellipsis') continue;
    if (el.scrollWidth > el.clientWidth + 1 && style.overflowX !== 'auto') {
      out.push(`${el.tagName.toLowerCase()} "${el.textContent.trim().slice(0, 60)}" is `
        + `${el.scrollWidth - el.clientWidth}px too narrow for its words`);
    }
  }
  return out;
}"""
