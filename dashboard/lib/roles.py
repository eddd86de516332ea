"""Roles are Django groups; this module says what each one may do.

Viewer reads; operator acts on units and packages; admin does everything, including
managing users and wall-screen links. The groups are kept in step after every migrate.
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User

from dashboard.lib.auth_cache import user_auth
from dashboard.lib.role_names import Role as Role  # re-exported: the roles are named here too

OPERATOR_PERMISSIONS = (
    "dashboard.approve_transfer",
    "dashboard.hide_unit",
    "dashboard.start_transfer",
    "dashboard.run_ingest",
    "dashboard.operate_packages",
    "dashboard.request_package_deletion",
    "dashboard.reingest_package",
    "dashboard.validate_csv",
    "dashboard.approve_reingest",
    "dashboard.add_metadata_files",
    "dashboard.set_path_metadata",
    "dashboard.view_audit",
    "dashboard.silence_alerts",
)
ADMIN_PERMISSIONS = (
    *OPERATOR_PERMISSIONS,
    "dashboard.manage_wall_links",
    "dashboard.manage_alerts",
    # Replaces the pipeline's levels of description from the access system.
    "dashboard.fetch_levels",
    "auth.view_user",
    "auth.add_user",
    "auth.change_user",
    "auth.delete_user",
    "auth.view_group",
    # Login locks (django-axes): see them, and lift one by deleting it.
    "axes.view_accessattempt",
    "axes.delete_accessattempt",
)
ROLE_PERMISSIONS: dict[str, tuple[str, ...]] = {
    Role.VIEWER: (),
    Role.OPERATOR: OPERATOR_PERMISSIONS,
    Role.ADMIN: ADMIN_PERMISSIONS,
}


def user_has_role(user: User | AnonymousUser) -> bool:
    """Logged in and in a Lookout group (or a superuser): may read the dashboard."""
    if not user.is_authenticated or not user.is_active:
        return False
    if user.is_superuser:
        return True
    return isinstance(user, User) and user_auth(user).in_a_role
