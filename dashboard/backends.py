"""Authentication backends of Lookout's own (AUTHENTICATION_BACKENDS in config/settings.py)."""

from __future__ import annotations

from typing import Any

import ldap  # type: ignore[import-untyped]  # python-ldap has no type hints
from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django_auth_ldap.backend import LDAPBackend  # type: ignore[import-untyped]  # no hints

from dashboard.lib.directory_status import ldap_error_text, status_record, unreachable_mark
from dashboard.lib.local_login import local_password_allowed
from dashboard.services.directory_roles import apply_directory_roles


class LDAPDirectoryBackend(LDAPBackend):
    """django-auth-ldap, with the roles set from the user's group DNs at every login.

    A directory that cannot be reached marks the request (the login form then says so
    instead of "wrong password"); django-auth-ldap reports it through `ldap_error`,
    which `directory_error` receives (connected in apps.py).
    """

    def authenticate_ldap_user(self, ldap_user: Any, password: str) -> User | None:
        user: User | None = super().authenticate_ldap_user(ldap_user, password)
        if user is None:
            return None
        try:
            groups = sorted(ldap_user.group_dns)
        except ldap.LDAPError as exc:  # gone between the bind and the group search
            unreachable_mark(ldap_user._request, ldap_error_text(exc))
            return None
        status_record(ok=True, reason="answers")
        apply_directory_roles(user=user, groups=groups, source="ldap")
        return user


def directory_error(sender: Any, context: str, request: Any, exception: Any, **kwargs: Any) -> None:
    """django-auth-ldap caught an LDAPError (its `ldap_error` signal): the directory is
    unreachable, or refused Lookout's own bind DN. A wrong user password is not one."""
    unreachable_mark(request, ldap_error_text(exception))


class LocalLoginGate:
    """With LOOKOUT_LOCAL_LOGIN off, only a superuser may log in with a local password.

    Sits before Django's model backend and never logs anyone in itself: it lets the
    break-glass admin through and stops every other local password (PermissionDenied
    ends authentication; django-axes counts it as a failure like a wrong password).
    Directory backends come before it, so directory users are not affected.
    """

    def authenticate(
        self, request: HttpRequest | None, username: str | None = None, **kwargs: Any
    ) -> None:
        if settings.LOOKOUT_LOCAL_LOGIN or username is None:
            return None
        user = User.objects.filter(username=username).first()
        if user is not None and local_password_allowed(user):
            return None
        # Stops Django's authentication; the message is for the log, never shown.
        raise PermissionDenied(
            "Local passwords are turned off (LOOKOUT_LOCAL_LOGIN)"
        )  # notranslate
