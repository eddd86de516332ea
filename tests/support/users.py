"""Users with each role, for view and permission tests."""

from __future__ import annotations

from django.contrib.auth.models import Group, User

from dashboard.lib.roles import Role

PASSWORD = "correct horse battery staple"


def make_user(username: str, role: str | None = None, **fields: object) -> User:
    user = User.objects.create_user(username=username, password=PASSWORD, **fields)
    if role is not None:
        group, _ = Group.objects.get_or_create(name=Role(role).value)
        user.groups.add(group)
    return user
