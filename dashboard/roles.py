"""Roles are Django groups; this module says what each one may do.

Viewer reads; operator acts on units and packages; admin does everything, including
managing users and wall-screen links. The groups are kept in step after every migrate.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from rest_framework.permissions import BasePermission

from dashboard.models import Role

OPERATOR_PERMISSIONS = (
    "dashboard.approve_transfer",
    "dashboard.hide_unit",
    "dashboard.start_transfer",
    "dashboard.operate_packages",
    "dashboard.request_package_deletion",
    "dashboard.reingest_package",
    "dashboard.view_audit",
)
ADMIN_PERMISSIONS = (
    *OPERATOR_PERMISSIONS,
    "dashboard.manage_wall_links",
    "auth.view_user",
    "auth.add_user",
    "auth.change_user",
    "auth.delete_user",
    "auth.view_group",
)
ROLE_PERMISSIONS: dict[str, tuple[str, ...]] = {
    Role.VIEWER: (),
    Role.OPERATOR: OPERATOR_PERMISSIONS,
    Role.ADMIN: ADMIN_PERMISSIONS,
}


def user_has_role(user: AbstractBaseUser | AnonymousUser) -> bool:
    """Logged in and in a Lookout group (or a superuser): may read the dashboard."""
    if not user.is_authenticated or not user.is_active:
        return False
    if user.is_superuser:
        return True
    return user.groups.filter(name__in=[r.value for r in Role]).exists()  # type: ignore[union-attr]


class HasRole(BasePermission):
    """API access for the same people as the pages: a logged-in user with a role.

    Applies to session and token authentication alike, so a token made for a user
    who has since lost their role stops working too.
    """

    message = "Your account has no Lookout role."

    def has_permission(self, request: Any, view: Any) -> bool:
        return user_has_role(request.user)


def sync_role_groups(**kwargs: Any) -> None:
    """Create the role groups and give them exactly their permissions (post_migrate)."""
    from django.contrib.auth.models import Group, Permission

    for role, codenames in ROLE_PERMISSIONS.items():
        group, _ = Group.objects.get_or_create(name=role)
        permissions = []
        for dotted in codenames:
            app_label, codename = dotted.split(".")
            permission = Permission.objects.filter(
                content_type__app_label=app_label, codename=codename
            ).first()
            if permission is not None:
                permissions.append(permission)
        group.permissions.set(permissions)


def sync_staff_flag(sender: Any, instance: Any, action: str, **kwargs: Any) -> None:
    """Admins manage users in Django's admin, which only lets staff in (m2m_changed)."""
    if action not in {"post_add", "post_remove", "post_clear"}:
        return
    from django.contrib.auth.models import User

    users = [instance] if isinstance(instance, User) else []
    if not users and kwargs.get("pk_set"):
        users = list(User.objects.filter(pk__in=kwargs["pk_set"]))
    for user in users:
        staff = user.is_superuser or user.groups.filter(name=Role.ADMIN).exists()
        if user.is_staff != staff:
            User.objects.filter(pk=user.pk).update(is_staff=staff)
            user.is_staff = staff
