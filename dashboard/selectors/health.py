"""The checks behind /healthz: database, cache, and the freshness of every poller."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.core.cache import cache
from django.db import DatabaseError, connection
from django.utils.translation import gettext as _

from dashboard.selectors import freshness


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    reason: str


def _database(*, details: bool) -> Check:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return Check("database", True, "answers")
    except DatabaseError as exc:
        return Check("database", False, f"no answer: {exc}" if details else "no answer")


def _cache(*, details: bool) -> Check:
    probe = uuid.uuid4().hex
    try:
        cache.set("healthz-probe", probe, 30)
        if cache.get("healthz-probe") != probe:
            return Check("cache", False, _("a value written was not read back"))
        return Check("cache", True, "answers")
    except Exception as exc:  # any backend failure means the cache is down
        return Check("cache", False, f"no answer: {exc}" if details else "no answer")


def health_checks(*, details: bool = True) -> list[Check]:
    """`details=False` leaves out error texts: /healthz answers anyone who can reach it,
    and those texts name internal hosts and paths."""
    checks = [_database(details=details), _cache(details=details)]
    if not checks[0].ok:
        return checks  # the pollers' records are in the database: nothing more to tell
    for service in freshness.service_health_list():
        limit = freshness.STALE_AFTER_INTERVALS * service.interval_seconds
        if service.refused:
            # Its recorded error begins "service account refused for <pipeline>".
            reason = service.last_error.split(":", 1)[0] if not details else service.last_error
        elif service.last_success_at is None:
            reason = _("has never succeeded")
            if details and service.last_error:
                reason += _("; last error: %(error)s") % {"error": service.last_error}
        elif service.stale:
            reason = _("last success %(age)s s ago (limit %(limit)s s)") % {
                "age": int(service.age_seconds or 0),
                "limit": limit,
            }
            if details and service.last_error:
                reason += _("; last error: %(error)s") % {"error": service.last_error}
        else:
            reason = f"last success {int(service.age_seconds or 0)} s ago"
        checks.append(Check(f"poll:{service.service}", not service.stale, reason))
    return checks
