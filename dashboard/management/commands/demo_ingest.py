"""`manage.py demo_ingest`: make sure the demo has a watched ingest run over `batch/`.

`make run` (run_stack) runs it once the simulator answers: a small run over the folder
`batch/` of the default transfer source, on every configured pipeline, two in flight
each, that keeps watching the folder, where the demo's simulator adds an item now and
then. A run of that name that is not finished or cancelled is kept as it is.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from dashboard.lib.pipelines import pipeline_list
from dashboard.management.commands.demo_admin import USERNAME
from dashboard.models import IngestRun
from dashboard.selectors.storage import location_list
from dashboard.services import ingest_runs
from dashboard.services.actions import idempotency_key_new
from dashboard.services.storage import storage_poll

RUN_NAME = "Demo backlog"
FOLDER = b"batch"
DEFAULT_SOURCE = "Default transfer source"
TRANSFER_SOURCE = "TS"


class Command(BaseCommand):
    help = "Create the demo's watched ingest run over batch/ (for the embedded default)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--wait",
            type=float,
            default=60.0,
            help="seconds to wait for the storage service to list the folder (default 60)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if settings.LOOKOUT_PRODUCTION:
            raise CommandError("demo_ingest is for the demo only")
        user = get_user_model().objects.filter(username=USERNAME).first()
        if user is None:
            raise CommandError("no demo administrator: run manage.py demo_admin first")
        open_statuses = (IngestRun.Status.QUEUED, IngestRun.Status.RUNNING, IngestRun.Status.PAUSED)
        existing = IngestRun.objects.filter(name=RUN_NAME, status__in=open_statuses).first()
        if existing is not None:
            self.stdout.write(f"Demo ingest run #{existing.pk} is already {existing.status}")
            return
        deadline = time.monotonic() + options["wait"]
        while True:
            try:
                run = self._create(user)
            except ingest_runs.IngestRunInvalid as exc:
                if time.monotonic() > deadline:
                    raise CommandError(f"demo ingest run not created: {exc.errors}") from None
                time.sleep(2)
                continue
            break
        slugs = ", ".join(run.pipelines)
        self.stdout.write(f"Demo ingest run #{run.pk} watches batch/ on {slugs}")

    @staticmethod
    def _source_location() -> str:
        """The default transfer source's UUID, as the storage service lists it now."""
        storage_poll(budget_seconds=5)
        sources = location_list(purpose=TRANSFER_SOURCE)
        chosen = next((row for row in sources if row.description == DEFAULT_SOURCE), None)
        return chosen.uuid if chosen else ""

    def _create(self, user: Any) -> IngestRun:
        slugs = tuple(pipeline.slug for pipeline in pipeline_list())
        request = ingest_runs.IngestRunRequest(
            name=RUN_NAME,
            source_location=self._source_location(),
            path=FOLDER,
            pipelines=slugs,
            processing_configs=dict.fromkeys(slugs, "automated"),
            accession="demo-{n:04}",
            max_in_flight=2,
            watch=True,
            settle_seconds=60,
        )
        created = ingest_runs.ingest_run_create(
            user=user, request=request, idempotency_key=idempotency_key_new()
        )
        if created.run is None:
            raise CommandError(f"demo ingest run not created: {created.result.message}")
        return created.run
