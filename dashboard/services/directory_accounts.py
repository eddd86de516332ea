"""The LDAP check: accounts the directory no longer has lose their roles.

Roles are set at every sign-in, but someone deleted from the directory (or left out by
the user search's filter, e.g. a disabled Active Directory account) never signs in
again: their API tokens would keep the role they had. Every LOOKOUT_LDAP_CHECK_MINUTES
a task looks for each LDAP account that holds a role and takes the roles of those the
directory no longer finds (audit rows, source "ldap"); their tokens then get 403. A
directory that does not answer changes nothing.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings
from django.utils import timezone
from django_auth_ldap.config import LDAPSettings  # type: ignore[import-untyped]  # no hints

from dashboard.clients.ldap_directory import (
    DirectoryServer,
    DirectoryUnreachable,
    directory_users_present,
)
from dashboard.lib.role_names import Role
from dashboard.models import DirectoryAccount
from dashboard.services.directory_roles import apply_directory_roles

log = logging.getLogger(__name__)


def directory_server() -> DirectoryServer:
    """The AUTH_LDAP_* settings as django-auth-ldap reads them, its defaults included."""
    config = LDAPSettings()
    return DirectoryServer(
        url=config.SERVER_URI,
        bind_dn=config.BIND_DN,
        bind_password=config.BIND_PASSWORD,
        start_tls=config.START_TLS,
        options=config.CONNECTION_OPTIONS,
    )


def ldap_accounts_check(*, now: datetime | None = None) -> str:
    """Look for every active LDAP account with a role; a line saying what was found."""
    if not settings.LOOKOUT_LDAP_ENABLED:
        return "LDAP is off"
    accounts = list(
        DirectoryAccount.objects.filter(
            source="ldap",
            user__is_active=True,
            user__groups__name__in=[role.value for role in Role],
        )
        .select_related("user")
        .distinct()
    )
    if not accounts:
        return "no LDAP account holds a role"
    search = LDAPSettings().USER_SEARCH
    try:
        present = directory_users_present(
            directory_server(),
            base_dn=search.base_dn,
            filterstr=search.filterstr,
            usernames=[account.user.username for account in accounts],
        )
    except DirectoryUnreachable as exc:
        log.warning("LDAP check skipped: the directory did not answer: %s", exc)
        return f"skipped: the directory did not answer ({exc})"
    now = now or timezone.now()
    DirectoryAccount.objects.filter(
        pk__in=[a.pk for a in accounts if a.user.username in present]
    ).update(seen_at=now)
    gone = [account for account in accounts if account.user.username not in present]
    for account in gone:
        log.info("LDAP account %s is no longer in the directory: roles taken", account.user)
        apply_directory_roles(user=account.user, groups=[], source="ldap")
    return f"{len(accounts) - len(gone)} LDAP accounts found, {len(gone)} gone (roles taken)"
