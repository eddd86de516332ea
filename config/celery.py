"""The Celery app; tasks live in dashboard/tasks.py and the beat schedule in settings."""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import after_setup_logger, after_setup_task_logger

from config.broker import register as register_file_broker

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# The embedded default broker (`lookoutfs://`, a crash-safe filesystem transport).
register_file_broker()

app = Celery("lookout")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@after_setup_logger.connect
@after_setup_task_logger.connect
def _redact_worker_logs(logger: Any, **kwargs: Any) -> None:
    # The worker replaces Django's log handlers with its own: keep keys out of them too.
    from dashboard.lib.secret_redaction import redact_log_handlers

    redact_log_handlers(logger)
