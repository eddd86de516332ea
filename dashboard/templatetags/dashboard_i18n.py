"""Template tags for the interface language: the picker's options and the page's
JavaScript catalog (a static file per language, see `build_js_catalogs`)."""

from __future__ import annotations

from django import template
from django.templatetags.static import static
from django.utils import translation
from django.utils.html import format_html

from dashboard.lib.languages import js_catalog_path, language_choices, supported_language

register = template.Library()


@register.simple_tag
def language_options() -> list[tuple[str, str]]:
    return language_choices()


@register.simple_tag
def js_catalog_script() -> str:
    """A deferred <script> for the active language's catalog. A catalog missing from the
    collected files leaves the page's scripts in English (they fall back), never a 500."""
    language = supported_language(translation.get_language()) or "en"
    try:
        url = static(js_catalog_path(language))
    except ValueError:  # not in the manifest: build_js_catalogs did not run before collectstatic
        return ""
    return format_html('<script src="{}" defer></script>', url)
