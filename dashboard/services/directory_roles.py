"""Roles from the directory: a directory user's role groups are set again at every login.

The sign-in backends (LDAP, OpenID Connect) hand over the groups the directory says the
user is in; `LOOKOUT_ROLE_MAP` says which of them give which role. The user ends with
exactly the mapped roles: a group they left takes its role away at the next login, and
a user with no mapped group ends with none and gets the "no access" page. Every role
granted or taken away is one audit row. The account is remembered as a directory one
(`DirectoryAccount`), which the LDAP check (directory_accounts.py) goes through.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.db import transaction
from django.utils import timezone

from dashboard.lib.local_login import signs_in_locally
from dashboard.lib.role_names import Role
from dashboard.models import DirectoryAccount
from dashboard.services.accounts import directory_role_audit


def group_key(group: str) -> str:
    """How a group is compared: a DN (`cn=Ops, ou=Groups,dc=example`) case- and
    space-insensitively, as LDAP compares them; any other name (a claim value) exactly."""
    group = group.strip()
    if "=" not in group:
        return group
    parts = []
    for rdn in group.split(","):
        attribute, _, value = rdn.partition("=")
        parts.append(f"{attribute.strip().lower()}={value.strip().lower()}")
    return ",".join(parts)


def mapped_roles(groups: Iterable[str], role_map: Mapping[str, str]) -> dict[str, list[str]]:
    """Each role the groups give, with the groups that give it (in the order of `Role`)."""
    by_key = {group_key(group): role for group, role in role_map.items()}
    found: dict[str, list[str]] = {}
    for group in groups:
        role = by_key.get(group_key(group))
        if role is not None:
            found.setdefault(role, []).append(group)
    return {role.value: found[role.value] for role in Role if role.value in found}


@transaction.atomic
def apply_directory_roles(*, user: User, groups: Iterable[str], source: str) -> list[str]:
    """Give `user` exactly the roles their directory groups map to; the role names.

    `source` ("ldap", "oidc") is written into each audit row. Groups that are not roles
    (ones an admin made by hand) are left alone. Call it after the user is saved.
    """
    if signs_in_locally(user) and not user.is_superuser:
        # The directory owns the account now: a local password left over from before
        # would let someone the directory has removed in (superusers keep theirs, the
        # break-glass way in).
        user.set_unusable_password()
        user.save(update_fields=["password"])
    wanted = mapped_roles(list(groups), settings.LOOKOUT_ROLE_MAP)
    role_names = [role.value for role in Role]
    held = set(user.groups.filter(name__in=role_names).values_list("name", flat=True))
    added = [role for role in wanted if role not in held]
    removed = [role for role in role_names if role in held and role not in wanted]
    if added:
        user.groups.add(*Group.objects.filter(name__in=added))
    if removed:
        user.groups.remove(*Group.objects.filter(name__in=removed))
    for role in added:
        directory_role_audit(user=user, role=role, granted=True, source=source, groups=wanted[role])
    for role in removed:
        directory_role_audit(user=user, role=role, granted=False, source=source, groups=[])
    DirectoryAccount.objects.update_or_create(
        user=user, defaults={"source": source, "roles_set_at": timezone.now()}
    )
    return list(wanted)
