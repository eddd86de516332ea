"""Writes for wall-screen links: create, revoke and check the tokens that open the wall.

A token is shown once, when its link is made; only its SHA-256 is stored, so a copy of
the database opens no screen. The screen presents its token once: `/wall/<token>/` swaps
it for a signed cookie scoped to `/wall/` (see `wall_cookie_value`), so the refreshes
carry no token and none reaches an access log. Token and cookie open the wall page and
nothing else: neither is ever a session or an API credential.
"""

from __future__ import annotations

import hmac
import re
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from dashboard.lib import vocabulary
from dashboard.lib.credentials import clean_name, token_hash
from dashboard.lib.languages import supported_language
from dashboard.models import AuditEntry, WallLink

TOKEN_BYTES = 32
# token_urlsafe(32) gives 43 characters of [A-Za-z0-9_-]; anything else is not a token.
TOKEN_PATTERN = re.compile(r"[A-Za-z0-9_-]{43}")
NAME_MAX_LENGTH = WallLink._meta.get_field("name").max_length or 80
# A screen refreshes every few seconds; one write a minute is enough to say "in use".
LAST_USED_RESOLUTION = timedelta(minutes=1)
DEFAULT_PUBLIC_URL = "http://127.0.0.1:8000"


# Whoever acts: a user from a request, or None from the shell (with an actor_name).
Actor = User | AnonymousUser


class WallLinkError(Exception):
    """A wall link could not be created or revoked; the message says why."""


class WallLinkExists(WallLinkError):
    pass


class WallLinkNotFound(WallLinkError):
    pass


class WallLinkAlreadyRevoked(WallLinkError):
    pass


class WallLinkInvalidName(WallLinkError):
    pass


class WallLinkInvalidLanguage(WallLinkError):
    pass


@dataclass(frozen=True)
class CreatedWallLink:
    link: WallLink
    # The only time the token exists outside the screen's URL: show it, never store it.
    token: str


class Access(StrEnum):
    """Outcomes of a token check that the views tell apart."""

    GRANTED = "granted"
    UNKNOWN = "unknown"
    REVOKED = "revoked"


@dataclass(frozen=True)
class WallAccess:
    outcome: Access
    link: WallLink | None = None

    @property
    def granted(self) -> bool:
        return self.outcome == Access.GRANTED


def _clean_name(name: str) -> str:
    return clean_name(
        name,
        max_length=NAME_MAX_LENGTH,
        error=WallLinkInvalidName,
        empty="A wall link needs a name, for example the room it is in.",
        what="A wall link name",
    )


def _language(language: str | None) -> str:
    """A code from settings.LANGUAGES; by default the language of whoever makes the link."""
    code = supported_language(language or translation.get_language())
    if code is None:
        raise WallLinkInvalidLanguage(
            _("Lookout has no language “%(language)s”.") % {"language": language}
        )
    return code


def _audit(
    *,
    action: str,
    link: WallLink,
    actor: Actor | None,
    actor_name: str,
    now: datetime,
    parameters: dict[str, str] | None = None,
) -> None:
    AuditEntry.objects.create(
        idempotency_key=uuid.uuid4().hex,
        actor=actor if actor is not None and actor.is_authenticated else None,
        actor_name=actor_name[:150],
        action=action,
        target_kind="wall_link",
        target=link.name,
        target_label=link.name,
        parameters=parameters or {},
        requested_at=now,
        finished_at=now,
        outcome=AuditEntry.Outcome.DONE,
    )


def _actor_name(actor: Actor | None, actor_name: str) -> str:
    if actor_name:
        return actor_name
    if actor is not None and actor.is_authenticated:
        return actor.get_username()
    return "unknown"


def wall_link_create(
    *,
    name: str,
    language: str | None = None,
    actor: Actor | None = None,
    actor_name: str = "",
    now: datetime | None = None,
) -> CreatedWallLink:
    """Make a link with a fresh random token; the token is returned once and not kept.

    The wall shows in `language`, by default the one active while the link is made."""
    now = now or timezone.now()
    name = _clean_name(name)
    language = _language(language)
    who = _actor_name(actor, actor_name)
    if WallLink.objects.filter(name=name).exists():
        raise WallLinkExists(
            _("A wall link named “%(name)s” already exists; choose another name.") % {"name": name}
        )
    token = secrets.token_urlsafe(TOKEN_BYTES)
    try:
        with transaction.atomic():
            link = WallLink.objects.create(
                name=name,
                token_hash=token_hash(token),
                created_by=who[:150],
                created_at=now,
                language=language,
            )
            _audit(
                action="wall_link_create",
                link=link,
                actor=actor,
                actor_name=who,
                now=now,
                parameters={"language": language},
            )
    except IntegrityError:  # the same name created at the same moment elsewhere
        raise WallLinkExists(
            _("A wall link named “%(name)s” already exists; choose another name.") % {"name": name}
        ) from None
    return CreatedWallLink(link=link, token=token)


def _locked_link(*, link_id: int | None, name: str | None = None) -> WallLink:
    """The link with this id (else this name), locked until the transaction ends."""
    lookup: dict[str, int | str] = (
        {"pk": link_id} if link_id is not None else {"name": " ".join((name or "").split())}
    )
    link = WallLink.objects.select_for_update().filter(**lookup).first()
    if link is None:
        raise WallLinkNotFound(
            _("There is no wall link with id %(id)s.") % {"id": link_id}
            if link_id is not None
            else _("There is no wall link named “%(name)s”.") % {"name": lookup["name"]}
        )
    return link


def wall_link_revoke(
    *,
    name: str | None = None,
    link_id: int | None = None,
    actor: Actor | None = None,
    actor_name: str = "",
    now: datetime | None = None,
) -> WallLink:
    """Revoke by name or id: every screen using the link stops at its next refresh."""
    now = now or timezone.now()
    who = _actor_name(actor, actor_name)
    with transaction.atomic():
        link = _locked_link(link_id=link_id, name=name)
        if link.revoked_at is not None:
            raise WallLinkAlreadyRevoked(
                _("The wall link “%(name)s” was already revoked on %(moment)s.")
                % {"name": link.name, "moment": vocabulary.moment(link.revoked_at)}
            )
        link.revoked_at = now
        link.save(update_fields=["revoked_at"])
        _audit(action="wall_link_revoke", link=link, actor=actor, actor_name=who, now=now)
    return link


def wall_link_set_language(
    *,
    link_id: int,
    language: str,
    actor: Actor,
    now: datetime | None = None,
) -> WallLink:
    """Change the language a link's wall shows in; its screens switch at the next refresh."""
    now = now or timezone.now()
    code = _language(language)
    with transaction.atomic():
        link = _locked_link(link_id=link_id)
        earlier = link.language
        link.language = code
        link.save(update_fields=["language"])
        _audit(
            action="wall_link_language",
            link=link,
            actor=actor,
            actor_name=_actor_name(actor, ""),
            now=now,
            parameters={"language": code, "earlier": earlier},
        )
    return link


def wall_link_verify(*, token: str, now: datetime | None = None) -> WallAccess:
    """Check a token from a URL; a granted check records when the link was last used."""
    if not TOKEN_PATTERN.fullmatch(token or ""):
        return WallAccess(Access.UNKNOWN)
    digest = token_hash(token)
    link = WallLink.objects.filter(token_hash=digest).first()
    # The lookup is by digest; compare again in constant time so no branch depends on
    # how much of a guessed value matched.
    if link is None or not hmac.compare_digest(link.token_hash, digest):
        return WallAccess(Access.UNKNOWN)
    return _grant(link, now=now)


def _grant(link: WallLink, *, now: datetime | None) -> WallAccess:
    if link.revoked_at is not None:
        return WallAccess(Access.REVOKED, link)
    now = now or timezone.now()
    if link.last_used_at is None or now - link.last_used_at >= LAST_USED_RESOLUTION:
        # Conditional on the link still being live, so a revoke in between is not undone.
        WallLink.objects.filter(pk=link.pk, revoked_at__isnull=True).update(last_used_at=now)
        link.last_used_at = now
    return WallAccess(Access.GRANTED, link)


def wall_cookie_value(link: WallLink) -> str:
    """What the screen's cookie holds (the view signs it): the link and its token's digest.

    The digest ties the cookie to this one link: a database restored from elsewhere, where
    the same id is another link, does not honour it.
    """
    return f"{link.pk}:{link.token_hash}"


def wall_link_verify_cookie(*, value: str, now: datetime | None = None) -> WallAccess:
    """Check a (signature-checked) cookie value on every refresh: a revoke ends it at once."""
    link_id, _, digest = (value or "").partition(":")
    if not link_id.isdigit() or not digest:
        return WallAccess(Access.UNKNOWN)
    link = WallLink.objects.filter(pk=int(link_id)).first()
    if link is None or not hmac.compare_digest(link.token_hash, digest):
        return WallAccess(Access.UNKNOWN)
    return _grant(link, now=now)


def wall_link_path(*, token: str) -> str:
    return reverse("dashboard:wall-screen", kwargs={"token": token})


def wall_link_url(*, token: str, base_url: str | None = None) -> str:
    """The full address of a screen, from LOOKOUT_PUBLIC_URL unless a base is given."""
    base = base_url or getattr(settings, "LOOKOUT_PUBLIC_URL", "") or DEFAULT_PUBLIC_URL
    return base.rstrip("/") + wall_link_path(token=token)
