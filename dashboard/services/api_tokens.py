"""Writes for personal API tokens: create, revoke, and check one presented to the API.

A token reads `lookout_<prefix>_<secret>`: the prefix (8 hex digits) finds its row and
names it in lists and the audit log; the secret (32 random bytes) is never stored, only
the SHA-256 of the whole token, so a copy of the database opens nothing. A token acts as
its owner, with the owner's roles as they are at each call: a user who loses their role
or is deactivated takes their tokens' access with them.

Creating and revoking are audited, each with a one-time key from its form: a second
submit of the same form changes nothing and reports what the first did.
"""

from __future__ import annotations

import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from dashboard.lib import vocabulary
from dashboard.lib.credentials import clean_name, token_hash
from dashboard.lib.local_login import may_still_sign_in
from dashboard.models import ApiToken, AuditEntry

PREFIX_BYTES = 4
SECRET_BYTES = 32
TOKEN_PATTERN = re.compile(r"lookout_([0-9a-f]{8})_([A-Za-z0-9_-]{43})")
NAME_MAX_LENGTH = ApiToken._meta.get_field("name").max_length or 80
# A script may call many times a second; one write a minute is enough to say "in use".
LAST_USED_RESOLUTION = timedelta(minutes=1)
CREATE_ACTION = "api_token_create"
REVOKE_ACTION = "api_token_revoke"
TARGET_KIND = "api_token"


class ApiTokenError(Exception):
    """A token could not be created or revoked; the message says why, in words."""


class ApiTokenKeyReused(ApiTokenError):
    """The form's one-time key was already used for something else."""


@dataclass(frozen=True)
class TokenChange:
    token: ApiToken
    # The token itself: only when this call made it (never on a repeated submit).
    secret: str = ""
    # True when the form's key had been used before: nothing was done this time.
    repeated: bool = False


def _clean_name(name: str) -> str:
    return clean_name(
        name,
        max_length=NAME_MAX_LENGTH,
        error=ApiTokenError,
        empty=_("A token needs a name, for example the script that will use it."),
        what="A token name",
    )


def _audit(*, key: str, action: str, user: User, token: ApiToken, now: datetime) -> AuditEntry:
    return AuditEntry.objects.create(
        idempotency_key=key,
        actor=user,
        actor_name=user.get_username()[:150],
        action=action,
        target_kind=TARGET_KIND,
        target=token.prefix,
        target_label=f"“{token.name}” ({token.user.get_username()})"[:255],
        parameters={"name": token.name, "owner": token.user.get_username()},
        requested_at=now,
        finished_at=now,
        outcome=AuditEntry.Outcome.DONE,
    )


def _earlier(*, key: str, action: str, user: User) -> TokenChange | None:
    """What an earlier submit of the same form did, if the key was used."""
    entry = AuditEntry.objects.filter(idempotency_key=key).first()
    if entry is None:
        return None
    if entry.action != action or entry.actor_id != user.pk:
        raise ApiTokenKeyReused(_("That form was already used for something else; try again."))
    token = ApiToken.objects.select_related("user").get(prefix=entry.target)
    return TokenChange(token=token, repeated=True)


def api_token_create(
    *, user: User, name: str, idempotency_key: str, now: datetime | None = None
) -> TokenChange:
    """Make a token for `user`; the token is returned once here and kept nowhere."""
    now = now or timezone.now()
    name = _clean_name(name)
    earlier = _earlier(key=idempotency_key, action=CREATE_ACTION, user=user)
    if earlier is not None:
        return earlier
    if ApiToken.objects.filter(user=user, name=name, revoked_at__isnull=True).exists():
        raise ApiTokenError(
            _("You already have a token named “%(name)s”; choose another name.") % {"name": name}
        )
    prefix = secrets.token_hex(PREFIX_BYTES)
    secret = f"lookout_{prefix}_{secrets.token_urlsafe(SECRET_BYTES)}"
    try:
        with transaction.atomic():
            token = ApiToken.objects.create(
                user=user, name=name, prefix=prefix, secret_hash=token_hash(secret), created_at=now
            )
            _audit(
                key=idempotency_key,
                action=CREATE_ACTION,
                user=user,
                token=token,
                now=now,
            )
    except IntegrityError:
        # The same form submitted twice at once, or the same name from another tab.
        earlier = _earlier(key=idempotency_key, action=CREATE_ACTION, user=user)
        if earlier is not None:
            return earlier
        raise ApiTokenError(
            _("You already have a token named “%(name)s”; choose another name.") % {"name": name}
        ) from None
    return TokenChange(token=token, secret=secret)


def api_token_revoke(
    *, user: User, token_id: int, idempotency_key: str, now: datetime | None = None
) -> TokenChange:
    """Revoke one of `user`'s own tokens: the next call that presents it gets 401."""
    now = now or timezone.now()
    earlier = _earlier(key=idempotency_key, action=REVOKE_ACTION, user=user)
    if earlier is not None:
        return earlier
    with transaction.atomic():
        token = (
            ApiToken.objects.select_for_update()
            .select_related("user")
            .filter(pk=token_id, user=user)
            .first()
        )
        if token is None:
            raise ApiTokenError(_("You have no such token."))
        if token.revoked_at is not None:
            raise ApiTokenError(
                _("The token “%(name)s” was already revoked on %(moment)s.")
                % {"name": token.name, "moment": vocabulary.moment(token.revoked_at)}
            )
        token.revoked_at = now
        token.save(update_fields=["revoked_at"])
        _audit(
            key=idempotency_key,
            action=REVOKE_ACTION,
            user=user,
            token=token,
            now=now,
        )
    return TokenChange(token=token)


def api_token_authenticate(*, presented: str, now: datetime | None = None) -> ApiToken | None:
    """The live token `presented` is, with its active owner; None for anything else."""
    match = TOKEN_PATTERN.fullmatch(presented or "")
    if match is None:
        return None
    token = ApiToken.objects.select_related("user").filter(prefix=match.group(1)).first()
    # Found by prefix; the hash is compared in constant time, so no timing tells how
    # much of a guessed secret was right.
    if token is None or not hmac.compare_digest(token.secret_hash, token_hash(presented)):
        return None
    # A user who can no longer sign in (deactivated; a local password turned off) cannot
    # call the API either; one who lost their role is refused by the permission check.
    if token.revoked_at is not None or not may_still_sign_in(token.user):
        return None
    now = now or timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
        # Conditional on the token still being live, so a revoke in between stands.
        ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(last_used_at=now)
        token.last_used_at = now
    return token
