from __future__ import annotations

from django.apps import AppConfig
from django.db.models.signals import post_migrate


class DashboardConfig(AppConfig):
    name = "dashboard"
    verbose_name = "Lookout dashboard"

    def ready(self) -> None:
        from dashboard.roles import sync_role_groups

        # After auth's permissions exist, so every run of migrate keeps groups in step.
        post_migrate.connect(sync_role_groups, sender=self)
