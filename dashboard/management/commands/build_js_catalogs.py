"""`manage.py build_js_catalogs`: write each language's JavaScript catalog as a static file.

Django serves the catalog from a view (JavaScriptCatalog); Lookout writes that view's
answer to static/jsi18n/<language>/djangojs.js instead, so the pages load it like any
other script and the Content-Security-Policy stays 'self' only. Run it after the
catalogs are compiled and before collectstatic (`make run` and the Docker image do).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.utils import translation
from django.utils.translation.trans_real import DjangoTranslation
from django.views.i18n import JavaScriptCatalog

from dashboard.lib.languages import js_catalog_path


def js_catalog(language: str) -> bytes:
    """The catalog script for one language: Lookout's own `djangojs` strings only."""
    with translation.override(language):
        view = JavaScriptCatalog()
        # Only the project's locale/ folder (LOCALE_PATHS): not the admin's strings.
        localedirs = [str(path) for path in settings.LOCALE_PATHS]
        view.translation = DjangoTranslation(language, domain="djangojs", localedirs=localedirs)
        response = view.render_to_response(view.get_context_data())
    return bytes(response.content)


class Command(BaseCommand):
    help = "Write static/jsi18n/<language>/djangojs.js for every language in LANGUAGES."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--output",
            type=Path,
            default=Path(settings.BASE_DIR) / "static",
            help="The static folder the jsi18n/ folder is written into.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        output: Path = options["output"]
        for language, _name in settings.LANGUAGES:
            target = output / js_catalog_path(language)
            target.parent.mkdir(parents=True, exist_ok=True)
            content = js_catalog(language)
            # Unchanged files keep their time stamps (and WhiteNoise's cached copies).
            if not target.exists() or target.read_bytes() != content:
                target.write_bytes(content)
            self.stdout.write(f"{target.relative_to(output)}")
