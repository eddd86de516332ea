"""Logging filters that keep wall-screen and API tokens out of every log line. No Django.

A screen presents its token once (`/wall/<token>/` swaps it for a cookie); the filter
is the second guard, for that one request and anything else that logs an address:
Django's request and server loggers, Lookout's own, and gunicorn's access and error logs
(see config/gunicorn.py).
"""

from __future__ import annotations

import logging

from dashboard.lib.redaction import redact_tokens


class WallTokenFilter(logging.Filter):
    """Rewrites a record's message with wall and API tokens hidden; drops no record."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a broken format: leave it to the handler
            return True
        scrubbed = redact_tokens(message)
        if scrubbed != message:
            record.msg = scrubbed
            record.args = None
        if record.exc_text:
            record.exc_text = redact_tokens(record.exc_text)
        return True


def add_wall_token_filter(logger: logging.Logger) -> None:
    """Filter every record logged to `logger` itself and every record its handlers emit."""
    targets: list[logging.Filterer] = [logger, *logger.handlers]
    for target in targets:
        if not any(isinstance(existing, WallTokenFilter) for existing in target.filters):
            target.addFilter(WallTokenFilter())
