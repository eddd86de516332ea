"""The JavaScript catalogs are static files, one per language, written by a command."""

from __future__ import annotations

from io import StringIO

from django.conf import settings
from django.core.management import call_command
from django.utils import translation

from dashboard.templatetags.dashboard_i18n import js_catalog_script


def test_the_command_writes_a_catalog_for_every_language(tmp_path):
    call_command("build_js_catalogs", "--output", str(tmp_path), stdout=StringIO())

    for code, _name in settings.LANGUAGES:
        script = (tmp_path / "jsi18n" / code / "djangojs.js").read_text()
        assert "django.gettext = function" in script
        assert "django.ngettext = function" in script
        # No eval or Function(): the page's Content-Security-Policy forbids both.
        assert "eval(" not in script and "Function(" not in script


def test_a_second_run_leaves_unchanged_catalogs_alone(tmp_path):
    call_command("build_js_catalogs", "--output", str(tmp_path), stdout=StringIO())
    catalog = tmp_path / "jsi18n" / "fr" / "djangojs.js"
    written = catalog.stat().st_mtime_ns

    call_command("build_js_catalogs", "--output", str(tmp_path), stdout=StringIO())

    assert catalog.stat().st_mtime_ns == written


def test_the_page_loads_the_catalog_of_the_active_language():
    with translation.override("pt-br"):
        tag = js_catalog_script()

    assert tag == '<script src="/static/jsi18n/pt-br/djangojs.js" defer></script>'


def test_a_catalog_missing_from_the_manifest_leaves_the_page_in_english_not_broken(settings):
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"},
    }
    settings.STATIC_ROOT = "/nonexistent-static-root"

    with translation.override("fr"):
        assert js_catalog_script() == ""
