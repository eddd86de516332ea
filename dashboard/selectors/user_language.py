"""A signed-in user's saved interface language."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from dashboard.lib.languages import supported_language
from dashboard.models import UserPreference


def user_language(user: AbstractBaseUser | AnonymousUser) -> str | None:
    """The language the user chose with the picker, or None (follow the browser)."""
    if not user.is_authenticated:
        return None
    saved = UserPreference.objects.filter(user_id=user.pk).values_list("language", flat=True)
    return supported_language(saved.first())
