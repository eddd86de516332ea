from __future__ import annotations

from django.apps import AppConfig
from django.db.models.signals import m2m_changed, post_migrate


class DashboardConfig(AppConfig):
    name = "dashboard"
    verbose_name = "Lookout dashboard"

    def ready(self) -> None:
        from django.contrib.auth.models import User

        from dashboard.services.roles import sync_role_groups, sync_staff_flag

        # After auth's permissions exist, so every run of migrate keeps groups in step.
        post_migrate.connect(sync_role_groups, sender=self)
        m2m_changed.connect(sync_staff_flag, sender=User.groups.through)
