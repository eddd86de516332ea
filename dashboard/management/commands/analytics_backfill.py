"""`manage.py analytics_backfill`: build the analytics rollups for an existing install.

Reads the units, their stored jobs, the status history and the package mirror, and
replaces the rollup tables with what they tell. Safe to run again; the pollers keep the
tables up to date afterwards.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from dashboard.lib.pipelines import pipeline_list
from dashboard.services import analytics


class Command(BaseCommand):
    help = "Build the analytics rollup tables from the units, history and package mirror."

    def handle(self, *args: Any, **options: Any) -> None:
        time_zones = {p.slug: p.time_zone for p in pipeline_list()}
        summary = analytics.rollups_rebuild(time_zones=time_zones)
        self.stdout.write(
            f"Counted {summary.units} units, {summary.waits} waits for a decision from the "
            f"history and the AIPs of {summary.aip_days} days."
        )
