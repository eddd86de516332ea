"""Writes of a signed-in user's interface language, and its use for the session."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.contrib.sessions.backends.base import SessionBase

from dashboard.lib.languages import SESSION_KEY, supported_language
from dashboard.models import UserPreference
from dashboard.selectors.user_language import user_language


def user_language_save(
    *, user: AbstractBaseUser | AnonymousUser, language: str, session: SessionBase
) -> bool:
    """Keep the picker's choice for the user and this session; False for an unknown code."""
    code = supported_language(language)
    if code is None or not user.is_authenticated:
        return False
    UserPreference.objects.update_or_create(user_id=user.pk, defaults={"language": code})
    session[SESSION_KEY] = code
    return True


def user_language_restore(*, user: AbstractBaseUser | AnonymousUser, session: SessionBase) -> None:
    """At login: the user's saved language (if any) speaks for the session from now on."""
    code = user_language(user)
    if code is None:
        session.pop(SESSION_KEY, None)
    else:
        session[SESSION_KEY] = code
