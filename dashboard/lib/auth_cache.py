"""What a user may do, remembered between requests.

Every page checks the user's role, and the navigation asks for five permissions: three
queries a page view (the role, the user's and the groups' permissions), as many as the
page's own data. They are kept in the cache under a generation that every change to a
user, a group or a permission moves on (signals in `dashboard.apps`), so a role taken
away applies from the next request. The cache only caches: after a flush, or a missing
generation, the first request reads the database again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.utils.functional import SimpleLazyObject, empty

from dashboard.lib import page_cache
from dashboard.lib.role_names import Role

GENERATION_KEY = "lookout:auth-generation"
# A safety net only: a change is seen at once through the generation.
ENTRY_SECONDS = 300
_MEMO = "_lookout_auth"


@dataclass(frozen=True)
class UserAuth:
    in_a_role: bool
    permissions: frozenset[str]


def auth_changed(**_signal: Any) -> None:
    """A user, group or permission changed: what every user may do is read again."""
    page_cache.new_generation(GENERATION_KEY)


def user_auth(user: User) -> UserAuth:
    """The user's role and permissions: once per request, from the cache between changes."""
    memo: UserAuth | None = getattr(user, _MEMO, None)
    if memo is not None:
        return memo
    key = f"lookout:auth:{user.pk}:{page_cache.generation_of(GENERATION_KEY)}"
    found = cache.get(key)
    if not isinstance(found, UserAuth):
        found = UserAuth(
            in_a_role=user.groups.filter(name__in=[role.value for role in Role]).exists(),
            permissions=frozenset(ModelBackend().get_all_permissions(user)),
        )
        cache.set(key, found, ENTRY_SECONDS)
    setattr(user, _MEMO, found)
    return found


class PermissionCacheMiddleware:
    """Hands Django's model backend each user's remembered permissions.

    The backend keeps a user's permissions on the user object (`_perm_cache`) for the
    rest of the request; this fills it from `user_auth` before anything asks, so the
    navigation's checks read no rows. (A backend of our own would do the same, but a
    session names the backend it logged in with: every login made before would end.)
    Goes right after Django's AuthenticationMiddleware."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        authenticated = request.user
        request.user = SimpleLazyObject(lambda: _with_permissions(authenticated))  # type: ignore[assignment]
        return self.get_response(request)


def _with_permissions(lazy_user: Any) -> Any:
    user = getattr(lazy_user, "_wrapped", lazy_user)
    if user is empty:
        lazy_user._setup()
        user = lazy_user._wrapped
    if isinstance(user, User) and user.is_active and not hasattr(user, "_perm_cache"):
        user._perm_cache = set(user_auth(user).permissions)  # type: ignore[attr-defined]
    return user
