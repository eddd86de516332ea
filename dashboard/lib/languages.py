"""The interface languages: which codes Lookout speaks, and where a user's choice is kept
for the length of a session (read on every request, so it is not a query each time)."""

from __future__ import annotations

from typing import Literal, cast

from django.conf import settings
from django.http import HttpResponseBase
from django.utils import translation

# The signed-in user's saved language, copied into the session at login.
SESSION_KEY = "lookout_language"
SameSite = Literal["Lax", "Strict", "None"] | None
# Where `manage.py build_js_catalogs` writes each language's catalog, under static/.
JS_CATALOG_PATH = "jsi18n/{language}/djangojs.js"


def supported_language(code: object) -> str | None:
    """The code from settings.LANGUAGES that `code` names ("pt-BR" is "pt-br"), or None."""
    if not isinstance(code, str) or not code:
        return None
    try:
        return translation.get_supported_language_variant(code.lower(), strict=True)
    except LookupError:
        return None


def language_choices() -> list[tuple[str, str]]:
    """(code, name in that language) for each interface language, as a picker lists them."""
    return [
        (code, translation.get_language_info(code)["name_local"]) for code, _ in settings.LANGUAGES
    ]


def js_catalog_path(language: str) -> str:
    return JS_CATALOG_PATH.format(language=language)


def remember_language(response: HttpResponseBase, language: str) -> None:
    """The language cookie, as Django's set_language view writes it."""
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=cast(SameSite, settings.LANGUAGE_COOKIE_SAMESITE),
    )
