"""Who may call the API."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import BasePermission

from dashboard.lib.roles import user_has_role


class HasRole(BasePermission):
    """API access for the same people as the pages: a logged-in user with a role.

    Applies to session and token authentication alike, so a token made for a user
    who has since lost their role stops working too.
    """

    message = "Your account has no Lookout role."

    def has_permission(self, request: Any, view: Any) -> bool:
        return user_has_role(request.user)
