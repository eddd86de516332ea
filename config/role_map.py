"""LOOKOUT_ROLE_MAP: which directory group gives which Lookout role.

JSON from a group (an OpenID Connect claim value, or an LDAP group DN) to one of the
roles, e.g. `{"archivists": "viewer", "cn=ops,ou=groups,dc=example,dc=org": "operator"}`.
Checked at start-up, so a typo stops Lookout with a message naming the variable instead
of quietly leaving everyone without a role.
"""

from __future__ import annotations

import json

from django.core.exceptions import ImproperlyConfigured

# Spelled out here: settings must not import the dashboard app (dashboard/lib/role_names.py).
ROLE_NAMES = ("viewer", "operator", "admin")


def load_role_map(raw: str, name: str = "LOOKOUT_ROLE_MAP") -> dict[str, str]:
    """The mapping in `raw` (the variable `name`'s value; empty: no mapping)."""
    if not raw:
        return {}
    try:
        mapping = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ImproperlyConfigured(
            f"{name} must be a JSON object from a group to a role, e.g. "
            f'{{"archivists": "viewer"}}: {exc.msg} at character {exc.pos}'
        ) from None
    if not isinstance(mapping, dict):
        raise ImproperlyConfigured(
            f"{name} must be a JSON object from a group to a role, not a {type(mapping).__name__}"
        )
    for group, role in mapping.items():
        if not group.strip():
            raise ImproperlyConfigured(f"{name} has an empty group name")
        if role not in ROLE_NAMES:
            raise ImproperlyConfigured(
                f"{name} maps {group!r} to {role!r}; a role is one of: {', '.join(ROLE_NAMES)}"
            )
    return {group.strip(): role for group, role in mapping.items()}
