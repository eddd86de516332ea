from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import m2m_changed, post_delete, post_migrate, post_save
from django.utils.translation import gettext_lazy as _


class DashboardConfig(AppConfig):
    name = "dashboard"
    verbose_name = _("Lookout dashboard")

    def ready(self) -> None:
        from axes.signals import user_locked_out  # type: ignore[import-untyped]  # no hints
        from django.contrib.auth.models import User
        from django.contrib.auth.signals import user_logged_in

        from dashboard import models
        from dashboard.services.roles import sync_role_groups, sync_staff_flag

        # After auth's permissions exist, so every run of migrate keeps groups in step.
        post_migrate.connect(sync_role_groups, sender=self)
        post_migrate.connect(_unit_status_counts_rebuild, sender=self)
        # The analytics hook remembers which pipelines are covered: a flush (it ends in
        # post_migrate) or a delete of coverage rows makes it look again.
        post_migrate.connect(_analytics_coverage_forget, sender=self)
        post_delete.connect(
            _analytics_coverage_forget,
            sender=models.AnalyticsCoverage,
            dispatch_uid="analytics-coverage-forget",
        )
        m2m_changed.connect(sync_staff_flag, sender=User.groups.through)
        self._forget_permissions_on_change()
        user_locked_out.connect(_audit_login_lock, dispatch_uid="lookout-login-lock-audit")
        self._report_directory_errors()
        user_logged_in.connect(_restore_user_language, dispatch_uid="lookout-user-language")
        # What the cached live regions show (dashboard.lib.page_cache). A save or delete
        # of one row moves the generation on; the services' bulk writes do it themselves.
        for model in (
            models.Unit,
            models.ServicePoll,
            models.StatusChange,
            models.Alert,
            models.StorageSummary,
        ):
            post_save.connect(_data_changed, sender=model, dispatch_uid=f"page-cache-{model}")
            post_delete.connect(_data_changed, sender=model, dispatch_uid=f"page-cache-{model}")

    @staticmethod
    def _report_directory_errors() -> None:
        """An LDAP directory that cannot be reached is said on the login page and in
        /healthz (dashboard/backends.py), not taken for a wrong password."""
        from django_auth_ldap.backend import ldap_error  # type: ignore[import-untyped]

        from dashboard.backends import LDAPDirectoryBackend, directory_error

        ldap_error.connect(
            directory_error, sender=LDAPDirectoryBackend, dispatch_uid="lookout-ldap-error"
        )

    @staticmethod
    def _forget_permissions_on_change() -> None:
        """What users may do is cached (dashboard.lib.auth_cache): any change to a user,
        a group, a permission or who holds which moves it on."""
        from django.contrib.auth.models import Group, Permission, User

        from dashboard.lib.auth_cache import auth_changed

        for model in (User, Group, Permission):
            for signal in (post_save, post_delete):
                signal.connect(auth_changed, sender=model, dispatch_uid=f"auth-cache-{model}")
        for through in (
            User.groups.through,
            User.user_permissions.through,
            Group.permissions.through,
        ):
            m2m_changed.connect(auth_changed, sender=through, dispatch_uid=f"auth-cache-{through}")


def _audit_login_lock(sender: Any, request: Any = None, **kwargs: Any) -> None:
    from dashboard.services.accounts import login_lock_audit

    login_lock_audit(
        username=str(kwargs.get("username") or ""), ip_address=str(kwargs.get("ip_address") or "")
    )


def _restore_user_language(
    sender: Any, request: Any = None, user: Any = None, **kwargs: Any
) -> None:
    from dashboard.services.user_language import user_language_restore

    # Logins without a request (a test client's force_login has one; the shell has none).
    if request is not None and hasattr(request, "session") and user is not None:
        user_language_restore(user=user, session=request.session)


def _unit_status_counts_rebuild(sender: Any, **kwargs: Any) -> None:
    from dashboard.services.units import unit_status_counts_rebuild

    unit_status_counts_rebuild(using=kwargs.get("using") or "default")


def _analytics_coverage_forget(sender: Any, **kwargs: Any) -> None:
    from dashboard.services.analytics import coverage_forget

    coverage_forget()


def _data_changed(sender: Any, **kwargs: Any) -> None:
    from dashboard.lib import page_cache

    page_cache.bump()
