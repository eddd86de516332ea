"""Keeps the role groups and the staff flag in step (signal receivers wired in apps.py)."""

from __future__ import annotations

from typing import Any

from dashboard.lib.roles import ROLE_PERMISSIONS, Role


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
