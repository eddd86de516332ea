"""Who may still use a local password (LOOKOUT_LOCAL_LOGIN).

On (the default), everyone with one. Off, only superusers: the break-glass admin for
when the directory is down. Accounts from the directory have no local password (their
first directory login drops it), so this never concerns them.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import User


def local_password_allowed(user: User) -> bool:
    return bool(settings.LOOKOUT_LOCAL_LOGIN) or user.is_superuser


def signs_in_locally(user: User) -> bool:
    """The account has a local password (directory accounts have none)."""
    return user.has_usable_password()


def may_still_sign_in(user: User) -> bool:
    """Active, and either a directory account or one whose local password still works:
    what an API token of the user needs too."""
    if not user.is_active:
        return False
    return not signs_in_locally(user) or local_password_allowed(user)
