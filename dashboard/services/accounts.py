"""Audit rows for what happens to accounts: login locks and their lifting, role changes.

Receivers and admin hooks call these (apps.py, admin.py); each writes one AuditEntry.
"""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.utils import timezone

from dashboard.models import AuditEntry

Actor = User | AnonymousUser | AbstractBaseUser


@dataclass(frozen=True)
class RoleState:
    """What a user may do: the part of an account a role change touches."""

    groups: tuple[str, ...]
    is_staff: bool
    is_superuser: bool
    is_active: bool
    permissions: tuple[str, ...]


def role_state(user: User) -> RoleState:
    return RoleState(
        groups=tuple(sorted(user.groups.values_list("name", flat=True))),
        is_staff=user.is_staff,
        is_superuser=user.is_superuser,
        is_active=user.is_active,
        permissions=tuple(
            sorted(
                f"{app}.{codename}"
                for app, codename in user.user_permissions.values_list(
                    "content_type__app_label", "codename"
                )
            )
        ),
    )


def _record(
    *,
    action: str,
    actor: Actor | None,
    target_kind: str,
    target: str,
    label: str,
    parameters: dict[str, Any],
    now: datetime | None = None,
) -> AuditEntry:
    now = now or timezone.now()
    user = actor if isinstance(actor, User) and actor.is_authenticated else None
    return AuditEntry.objects.create(
        idempotency_key=uuid.uuid4().hex,
        actor=user,
        actor_name=(user.get_username() if user is not None else "system")[:150],
        action=action,
        target_kind=target_kind,
        target=target[:255],
        target_label=label[:255],
        parameters=parameters,
        requested_at=now,
        finished_at=now,
        outcome=AuditEntry.Outcome.DONE,
    )


def _login_audit(
    *, action: str, what: str, actor: Actor | None, username: str, ip_address: str
) -> AuditEntry:
    return _record(
        action=action,
        actor=actor,
        target_kind="login",
        target=username or ip_address,
        label=f"{what}: user {username or '(none)'} from {ip_address or '(unknown)'}",
        parameters={"username": username, "ip_address": ip_address},
    )


def login_lock_audit(*, username: str, ip_address: str) -> AuditEntry:
    """A login was locked after too many failures (django-axes' user_locked_out)."""
    return _login_audit(
        action="login_locked",
        what="Login locked",
        actor=None,
        username=username,
        ip_address=ip_address,
    )


def login_lock_lift_audit(*, actor: Actor | None, username: str, ip_address: str) -> AuditEntry:
    """An admin lifted a login lock."""
    return _login_audit(
        action="login_unlocked",
        what="Login lock lifted",
        actor=actor,
        username=username,
        ip_address=ip_address,
    )


def role_change_audit(
    *, actor: Actor | None, user: User, before: RoleState | None, after: RoleState
) -> AuditEntry | None:
    """One row when a user's groups, flags or permissions changed (None: nothing did)."""
    if before == after:
        return None
    return _record(
        action="user_roles_change" if before is not None else "user_create",
        actor=actor,
        target_kind="user",
        target=user.get_username(),
        label=f"User {user.get_username()}",
        parameters={"before": asdict(before) if before else None, "after": asdict(after)},
    )


def directory_role_audit(
    *, user: User, role: str, granted: bool, source: str, groups: list[str]
) -> AuditEntry:
    """A directory login gave the user a role, or took one away (source: "ldap", "oidc")."""
    what = "granted to" if granted else "taken from"
    return _record(
        action="directory_role_grant" if granted else "directory_role_revoke",
        actor=None,
        target_kind="user",
        target=user.get_username(),
        label=f"Role {role} {what} {user.get_username()} by the directory ({source})",
        parameters={"role": role, "source": source, "groups": groups},
    )
