"""Sign-in through an LDAP directory (django-auth-ldap), from LOOKOUT_LDAP_* variables.

Off while LOOKOUT_LDAP_URL is empty. `ldap_settings()` checks the variables and returns
django-auth-ldap's AUTH_LDAP_* settings, so config/settings.py only merges them in. A
mistake stops start-up with a message naming the variable.
"""

from __future__ import annotations

from typing import Any

import ldap  # type: ignore[import-untyped]  # python-ldap has no type hints
from django.core.exceptions import ImproperlyConfigured
from django_auth_ldap.config import (  # type: ignore[import-untyped]  # no type hints
    ActiveDirectoryGroupType,
    GroupOfNamesType,
    GroupOfUniqueNamesType,
    LDAPSearch,
    NestedActiveDirectoryGroupType,
    NestedGroupOfNamesType,
    PosixGroupType,
)

from config.env import env_bool, env_float, env_secret, env_str

# LOOKOUT_LDAP_GROUP_TYPE -> (django-auth-ldap's group type, the default group filter).
GROUP_TYPES: dict[str, tuple[type, str]] = {
    "groupOfNames": (GroupOfNamesType, "(objectClass=groupOfNames)"),
    "nestedGroupOfNames": (NestedGroupOfNamesType, "(objectClass=groupOfNames)"),
    "groupOfUniqueNames": (GroupOfUniqueNamesType, "(objectClass=groupOfUniqueNames)"),
    "posixGroup": (PosixGroupType, "(objectClass=posixGroup)"),
    "activeDirectory": (ActiveDirectoryGroupType, "(objectClass=group)"),
    "nestedActiveDirectory": (NestedActiveDirectoryGroupType, "(objectClass=group)"),
}
DEFAULT_USER_FILTER = "(uid=%(user)s)"


def _search(name: str, raw: str, default_filter: str) -> LDAPSearch:
    """`base DN|filter` (the filter may be left out) as a subtree search."""
    base, _, filterstr = raw.partition("|")
    base, filterstr = base.strip(), filterstr.strip() or default_filter
    if "=" not in base:
        raise ImproperlyConfigured(
            f"{name} must start with a base DN such as ou=people,dc=example,dc=org, not {raw!r}"
        )
    if not (filterstr.startswith("(") and filterstr.endswith(")")):
        raise ImproperlyConfigured(
            f"{name}: the filter after | must be in parentheses, e.g. (uid=%(user)s), "
            f"not {filterstr!r}"
        )
    return LDAPSearch(base, ldap.SCOPE_SUBTREE, filterstr)


def ldap_settings() -> dict[str, Any]:
    """django-auth-ldap's settings; empty when LOOKOUT_LDAP_URL is not set."""
    url = env_str("LOOKOUT_LDAP_URL", "")
    if not url:
        return {}
    if not all(part.strip().startswith(("ldap://", "ldaps://")) for part in url.split()):
        raise ImproperlyConfigured(
            f"LOOKOUT_LDAP_URL must be an ldap:// or ldaps:// URL, not {url!r}"
        )
    user_search_raw = env_str("LOOKOUT_LDAP_USER_SEARCH", "")
    if not user_search_raw:
        raise ImproperlyConfigured(
            "LOOKOUT_LDAP_USER_SEARCH must be set when LOOKOUT_LDAP_URL is: a base DN and a "
            "filter, e.g. ou=people,dc=example,dc=org|(uid=%(user)s)"
        )
    user_search = _search("LOOKOUT_LDAP_USER_SEARCH", user_search_raw, DEFAULT_USER_FILTER)
    if "%(user)s" not in user_search.filterstr:
        raise ImproperlyConfigured(
            "LOOKOUT_LDAP_USER_SEARCH: the filter must contain %(user)s, where the name "
            "typed on the login page goes"
        )
    group_type_name = env_str("LOOKOUT_LDAP_GROUP_TYPE", "groupOfNames")
    if group_type_name not in GROUP_TYPES:
        raise ImproperlyConfigured(
            f"LOOKOUT_LDAP_GROUP_TYPE must be one of {', '.join(GROUP_TYPES)}, "
            f"not {group_type_name!r}"
        )
    group_type, group_filter = GROUP_TYPES[group_type_name]
    group_search_raw = env_str("LOOKOUT_LDAP_GROUP_SEARCH", "")
    if not group_search_raw:
        # Roles come from groups: without their search every directory user has none.
        raise ImproperlyConfigured(
            "LOOKOUT_LDAP_GROUP_SEARCH must be set when LOOKOUT_LDAP_URL is: the base DN "
            "of the groups, e.g. ou=groups,dc=example,dc=org"
        )
    timeout = env_float("LOOKOUT_LDAP_TIMEOUT", 5.0, minimum=0.5)
    options: dict[int, Any] = {
        # An unreachable directory fails a login in seconds instead of hanging it.
        ldap.OPT_NETWORK_TIMEOUT: timeout,
        ldap.OPT_TIMEOUT: timeout,
        ldap.OPT_REFERRALS: 0,  # Active Directory's referrals need a bind of their own
    }
    ca_file = env_str("LOOKOUT_LDAP_CA_FILE", "")
    if ca_file:
        options[ldap.OPT_X_TLS_CACERTFILE] = ca_file
        options[ldap.OPT_X_TLS_NEWCTX] = 0  # last: makes the TLS options above take effect
    return {
        "AUTH_LDAP_SERVER_URI": url,
        "AUTH_LDAP_BIND_DN": env_str("LOOKOUT_LDAP_BIND_DN", ""),
        "AUTH_LDAP_BIND_PASSWORD": env_secret("LOOKOUT_LDAP_BIND_PASSWORD", ""),
        "AUTH_LDAP_START_TLS": env_bool("LOOKOUT_LDAP_START_TLS", False),
        "AUTH_LDAP_USER_SEARCH": user_search,
        "AUTH_LDAP_GROUP_SEARCH": _search(
            "LOOKOUT_LDAP_GROUP_SEARCH", group_search_raw, group_filter
        ),
        "AUTH_LDAP_GROUP_TYPE": group_type(),
        "AUTH_LDAP_USER_ATTR_MAP": {"first_name": "givenName", "last_name": "sn", "email": "mail"},
        "AUTH_LDAP_ALWAYS_UPDATE_USER": True,
        "AUTH_LDAP_CONNECTION_OPTIONS": options,
        # Group memberships are read at each login, never kept between requests.
        "AUTH_LDAP_CACHE_TIMEOUT": 0,
    }
