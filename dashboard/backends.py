"""Authentication backends of Lookout's own (AUTHENTICATION_BACKENDS in config/settings.py)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

from dashboard.lib.local_login import local_password_allowed


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
        raise PermissionDenied("Local passwords are turned off (LOOKOUT_LOCAL_LOGIN)")
