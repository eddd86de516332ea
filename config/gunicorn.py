"""gunicorn's settings, one set for the image and for `make run` (`manage.py run_stack`):
`gunicorn --config python:config.gunicorn config.wsgi`.

The access log is on (to stdout) and goes through `ScrubbingLogger`, so a wall-screen
token in a request's path, query or referrer never reaches a log line: every atom of the
access-log format is scrubbed, and both of gunicorn's loggers carry the same filter as
Django's handlers (dashboard.lib.log_filters).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from gunicorn.glogging import Logger  # type: ignore[import-untyped]  # no type hints

from dashboard.lib.log_filters import add_wall_token_filter
from dashboard.lib.redaction import redact_tokens


class ScrubbingLogger(Logger):
    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        add_wall_token_filter(self.access_log)
        add_wall_token_filter(self.error_log)

    def atoms(self, resp: Any, req: Any, environ: Any, request_time: timedelta) -> dict[str, Any]:
        atoms: dict[str, Any] = super().atoms(resp, req, environ, request_time)
        return {
            name: redact_tokens(value) if isinstance(value, str) else value
            for name, value in atoms.items()
        }


logger_class = "config.gunicorn.ScrubbingLogger"
accesslog = "-"
