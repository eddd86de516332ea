"""Redaction of every configured secret from text Lookout stores or shows.

The clients already hide their own key in what they raise. Text is redacted once more
where it is stored (freshness, audit rows, fixity history, cached package details),
against every secret Lookout knows, so an error built anywhere cannot carry a key to a
page, the wall screen, the API or the audit log.
"""

from __future__ import annotations

import logging
from urllib.parse import unquote, urlsplit

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from dashboard.lib.redaction import redact


def _url_password(url: str) -> str:
    try:
        password = urlsplit(url).password
    except ValueError:
        return ""
    return unquote(password) if password else ""


def configured_secrets() -> list[str]:
    """The upstream API keys, the dashboard accounts' passwords and the passwords in the
    cache/broker and database URLs."""
    found = [pipeline.get("key", "") for pipeline in settings.LOOKOUT_PIPELINES]
    found += [pipeline.get("dashboard_password", "") for pipeline in settings.LOOKOUT_PIPELINES]
    found.append(settings.LOOKOUT_STORAGE.get("key", ""))
    found.append(_url_password(getattr(settings, "REDIS_URL", "") or ""))
    for database in settings.DATABASES.values():
        found.append(str(database.get("PASSWORD") or ""))
    return [secret for secret in found if secret]


def redact_secrets(text: str) -> str:
    """`text` with every configured secret, `api_key=` value and ApiKey header hidden."""
    if not text:
        return text
    return redact(text, configured_secrets())


class RedactingFormatter(logging.Formatter):
    """Log lines, tracebacks included, with every configured secret hidden."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        try:
            return redact_secrets(text)
        except ImproperlyConfigured:  # a line logged before settings are loaded
            return redact(text)


class _RedactingWrapper(logging.Formatter):
    """Another formatter's output, redacted (Celery's own worker formatters)."""

    def __init__(self, wrapped: logging.Formatter | None) -> None:
        super().__init__()
        self.wrapped = wrapped or logging.Formatter()

    def format(self, record: logging.LogRecord) -> str:
        return redact_secrets(self.wrapped.format(record))


def redact_log_handlers(logger: logging.Logger) -> None:
    """Make every handler of `logger` redact secrets, keeping its own format."""
    for handler in logger.handlers:
        if not isinstance(handler.formatter, RedactingFormatter | _RedactingWrapper):
            handler.setFormatter(_RedactingWrapper(handler.formatter))
