"""`manage.py poll --once`: one full synchronous poll of every upstream service, ending
with the alert evaluation every poll ends with."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from dashboard.lib.pipelines import pipeline_list
from dashboard.services import actions
from dashboard.services import storage as storage_services
from dashboard.services import units as unit_services
from dashboard.tasks import alerts_after_poll


class Command(BaseCommand):
    help = "Poll the workflow services and the storage service once, synchronously."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--once",
            action="store_true",
            required=True,
            help="run one full poll and exit (the only mode; beat runs the schedule)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        summaries = []
        for pipeline in pipeline_list():
            summaries.append(unit_services.workflow_poll(pipeline=pipeline))
            actions.timed_out_approvals_settle(pipeline=pipeline.slug)
            unit_services.jobs_refresh(pipeline=pipeline)
        summaries.append(storage_services.storage_poll())
        for summary in summaries:
            self.stdout.write(summary.line())
        # As after every scheduled poll: what was just stored opens or resolves alerts.
        self.stdout.write(alerts_after_poll())
        failed = [s.service for s in summaries if not s.ok]
        if failed:
            raise CommandError(f"no answer from: {', '.join(failed)}")
