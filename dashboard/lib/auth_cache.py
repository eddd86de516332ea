"""What a user may do, remembered between requests.

Every page checks the user's role, and the navigation asks for five permissions: three
queries a page view (the role, the user's and the groups' permissions), as many as the
page's own data. They are kept in the cache under a generation that every change to a
user, a group or a permission moves on (signals in `dashboard.apps`), so a role taken
away applies from the next request. The cache only caches: after a flush, or a missing
generation, the first request reads the database again.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import AnonymousUser, User
from django.core.cache import cache

from dashboard.lib.roles import Role

GENERATION_KEY = "lookout:auth-generation"
# A safety net only: a change is seen at once through the generation.
ENTRY_SECONDS = 300
_MEMO = "_lookout_auth"


@dataclass(frozen=True)
class UserAuth:
    in_a_role: bool
    permissions: frozenset[str]


def _generation() -> str:
    generation = cache.get(GENERATION_KEY)
    if generation is None:
        # Random, never a counter: a counter started again after a flush could meet
        # entries written under its earlier values.
        cache.add(GENERATION_KEY, secrets.token_hex(8), None)
        generation = cache.get(GENERATION_KEY) or ""
    return str(generation)


def auth_changed(**_signal: Any) -> None:
    """A user, group or permission changed: what every user may do is read again."""
    cache.set(GENERATION_KEY, secrets.token_hex(8), None)


def user_auth(user: User) -> UserAuth:
    """The user's role and permissions: once per request, from the cache between changes."""
    memo: UserAuth | None = getattr(user, _MEMO, None)
    if memo is not None:
        return memo
    key = f"lookout:auth:{user.pk}:{_generation()}"
    found = cache.get(key)
    if not isinstance(found, UserAuth):
        found = UserAuth(
            in_a_role=user.groups.filter(name__in=[role.value for role in Role]).exists(),
            permissions=frozenset(ModelBackend().get_all_permissions(user)),
        )
        cache.set(key, found, ENTRY_SECONDS)
    setattr(user, _MEMO, found)
    return found


class CachedPermissionsBackend(ModelBackend):
    """Django's model backend, with each user's permissions read through `user_auth`."""

    def get_all_permissions(self, user_obj: User | AnonymousUser, obj: Any = None) -> set[str]:
        if not isinstance(user_obj, User) or not user_obj.is_active or obj is not None:
            return set()
        return set(user_auth(user_obj).permissions)
